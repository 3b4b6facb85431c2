import type { FastifyInstance } from 'fastify';
import { AppError } from '../../app/errors.ts';

/** API versions by release date; a request pins one with `Service-Version: YYYY-MM-DD`. */
const BASELINE_VERSION = '2026-06-01';
const KNOWN_VERSIONS = [BASELINE_VERSION];

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** The version served: the newest known version on or before the pinned date, else the baseline. */
function servedVersion(requested: string): string {
  let served = BASELINE_VERSION;
  for (const v of KNOWN_VERSIONS) if (v <= requested) served = v;
  return served;
}

declare module 'fastify' {
  interface FastifyRequest {
    serviceVersion: string;
  }
}

export function registerServiceVersion(app: FastifyInstance): void {
  app.decorateRequest('serviceVersion', BASELINE_VERSION);
  app.addHook('onRequest', async (request, reply) => {
    // Echoed on every response, errors included; set first so a refusal below carries it too.
    reply.header('Service-Version', BASELINE_VERSION);
    const raw = request.headers['service-version'];
    if (raw === undefined) return;
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value === undefined || !isCalendarDate(value.trim())) {
      throw new AppError('invalid_service_version', 'Service-Version must be a date YYYY-MM-DD', {
        baseline: BASELINE_VERSION,
      });
    }
    request.serviceVersion = servedVersion(value.trim());
    reply.header('Service-Version', request.serviceVersion);
  });
}
