import type { Metrics } from '../platform/metrics.ts';
import { AppError } from './errors.ts';

/**
 * Counts one submit as it settles: `replayed`, else the journaled document's status; a refusal by
 * its error code (`invalid_payment`, `trial_payments_exhausted` ...), anything else as `error`.
 */
export async function countSubmit<T extends { kind: 'journaled' | 'replayed'; body: { status: string } }>(
  metrics: Metrics,
  about: { bankKey: string; environment: string },
  submit: Promise<T>,
): Promise<T> {
  try {
    const outcome = await submit;
    metrics.submit(about.bankKey, about.environment, outcome.kind === 'replayed' ? 'replayed' : outcome.body.status);
    return outcome;
  } catch (error) {
    metrics.submit(about.bankKey, about.environment, error instanceof AppError ? error.code : 'error');
    throw error;
  }
}
