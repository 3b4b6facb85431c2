import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics } from './metrics.ts';

/**
 * The metrics port on prom-client: one registry per process, rendered by GET /metrics. Counters
 * move as things happen; gauges that describe the database (queue depth, reconciliation lines ...)
 * are read when Prometheus scrapes (`gaugeFromSnapshot`). Default Node metrics include the
 * event-loop lag (nodejs_eventloop_lag_seconds) and heap.
 *
 * Every label value passes a closed set or a shape check here, whatever the caller hands in: a bank
 * key must be a known profile, an environment `production` or `test`, an outcome or kind a short
 * code word; anything else becomes `other` (docs/adr/0030-metrics-and-tracing.md).
 */
export type PrometheusMetrics = {
  metrics: Metrics;
  registry: Registry;
  render(): Promise<{ contentType: string; body: string }>;
};

const OTHER = 'other';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const ENVIRONMENTS = new Set(['production', 'test']);
/** Outcomes, kinds, channels and transports are code words of ours: short, lower case, no spaces. */
const CODE_WORD = /^[a-z][a-z0-9_.-]{0,31}$/;
/** Route patterns as Fastify registered them (`/journal/documents/:id`), never a raw URL. */
const ROUTE_PATTERN = /^\/[A-Za-z0-9_:./*-]{0,120}$/;

const codeWord = (value: string | null | undefined) => {
  const lower = value?.toLowerCase();
  return lower !== undefined && CODE_WORD.test(lower) ? lower : OTHER;
};

export function createPrometheusMetrics(options: {
  /** The bank profile keys: the only bank label values besides `other`. */
  bankKeys: readonly string[];
  version: string;
  role: string;
}): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const banks = new Set(options.bankKeys);
  const bank = (key: string | null | undefined) => (key && banks.has(key) ? key : OTHER);
  const environment = (env: string | null | undefined) => (env && ENVIRONMENTS.has(env) ? env : OTHER);

  new Gauge({
    name: 'payops_build_info',
    help: 'The running version and role of this process (always 1).',
    labelNames: ['version', 'role'],
    registers: [registry],
  }).set({ version: options.version, role: options.role }, 1);

  const httpLabels = ['method', 'route', 'status'] as const;
  const httpRequests = new Counter({
    name: 'payops_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: httpLabels,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'payops_http_request_duration_seconds',
    help: 'HTTP request duration, by method, route pattern and status.',
    labelNames: httpLabels,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const submits = new Counter({
    name: 'payops_submits_total',
    help: 'Payment submits by bank, environment and outcome (the document status, `replayed`, or the error code).',
    labelNames: ['bank', 'environment', 'outcome'],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'payops_bank_delivery_attempts_total',
    help: 'Attempts to deliver a document to its bank, by bank, channel and outcome (delivered, retrying, failed).',
    labelNames: ['bank', 'channel', 'outcome'],
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'payops_webhook_attempts_total',
    help: 'Webhook delivery attempts by transport and outcome (succeeded, retrying, failed).',
    labelNames: ['transport', 'outcome'],
    registers: [registry],
  });
  const webhookAutoDisabled = new Counter({
    name: 'payops_webhook_auto_disabled_total',
    help: 'Webhook endpoints auto-disabled after consecutive failed events.',
    labelNames: ['transport'],
    registers: [registry],
  });
  const ingestFiles = new Counter({
    name: 'payops_ingest_files_total',
    help: 'Inbound bank files ingested, by kind (camt.053, pain.002, mt940 ...).',
    labelNames: ['kind'],
    registers: [registry],
  });
  const bankFiles = new Counter({
    name: 'payops_bank_files_total',
    help: 'Bank files journaled through the one entry point, by source (api, channel, demo-bank ...) and kind.',
    labelNames: ['source', 'kind'],
    registers: [registry],
  });
  const ingestBlocks = new Counter({
    name: 'payops_ingest_blocks_total',
    help: 'Statement blocks of inbound files, by kind and outcome (ingested, deduped, quarantined).',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  });

  const workerCycles = new Counter({
    name: 'payops_worker_loop_cycles_total',
    help: 'Completed cycles of the worker polling loops (delivery relay, webhooks): flat means stuck.',
    labelNames: ['loop'],
    registers: [registry],
  });

  const metrics: Metrics = {
    httpRequest(method, route, statusCode, seconds) {
      const labels = {
        method: METHODS.has(method) ? method : OTHER,
        route: route === 'unmatched' || ROUTE_PATTERN.test(route) ? route : OTHER,
        status: Number.isInteger(statusCode) && statusCode >= 100 && statusCode < 600 ? String(statusCode) : OTHER,
      };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    submit(bankKey, env, outcome) {
      submits.inc({ bank: bank(bankKey), environment: environment(env), outcome: codeWord(outcome) });
    },
    deliveryAttempt(bankKey, channel, outcome) {
      deliveries.inc({ bank: bank(bankKey), channel: codeWord(channel), outcome: codeWord(outcome) });
    },
    webhookAttempt(transport, outcome) {
      webhookAttempts.inc({ transport: codeWord(transport), outcome: codeWord(outcome) });
    },
    webhookAutoDisabled(transport) {
      webhookAutoDisabled.inc({ transport: codeWord(transport) });
    },
    ingestFile(kind, blocks, source) {
      const k = codeWord(kind);
      ingestFiles.inc({ kind: k });
      bankFiles.inc({ source: codeWord(source), kind: k });
      for (const [outcome, count] of Object.entries(blocks)) {
        if (count) ingestBlocks.inc({ kind: k, outcome: codeWord(outcome) }, count);
      }
    },
    workerCycle(loop) {
      workerCycles.inc({ loop: codeWord(loop.replaceAll(' ', '-')) });
    },
  };

  return {
    metrics,
    registry,
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** One series of a snapshot gauge: its labels (code words only) and value. */
export type GaugeSample = { labels?: Record<string, string>; value: number };

/**
 * A gauge read at scrape time: `read` answers every series (it may come from a cached snapshot);
 * series that disappear are dropped, not left at their last value.
 */
export function gaugeFromSnapshot(
  registry: Registry,
  spec: { name: string; help: string; labelNames?: string[] },
  read: () => Promise<GaugeSample[]>,
): void {
  new Gauge({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames ?? [],
    registers: [registry],
    async collect() {
      const samples = await read();
      this.reset();
      for (const s of samples) {
        const labels = Object.fromEntries(Object.entries(s.labels ?? {}).map(([k, v]) => [k, codeWord(v)]));
        this.set(labels, s.value);
      }
    },
  });
}
