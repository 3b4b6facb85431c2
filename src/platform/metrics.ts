/**
 * The metrics port: what use cases and workers report as it happens, one call per fact. The
 * composition root hands in the Prometheus implementation (src/platform/prometheus.ts, the registry); tests and
 * tools that do not care get `noMetrics`.
 *
 * Label values are closed sets. The implementation maps anything outside them to `other`, so a
 * caller may pass what it has (a bank key from a request, an error code) and no tenant id or text a
 * customer typed can ever become a label (docs/adr/0030-metrics-and-tracing.md).
 */

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';
export type WebhookOutcome = 'succeeded' | 'retrying' | 'failed';
export type IngestOutcome = 'ingested' | 'deduped' | 'quarantined';

export type Metrics = {
  /** One answered HTTP request: the route pattern (never the raw URL), its status and duration. */
  httpRequest(method: string, route: string, statusCode: number, seconds: number): void;
  /** One submit: the document's status when journaled (or `replayed`), else the error code. */
  submit(bankKey: string | null | undefined, environment: string | null | undefined, outcome: string): void;
  /** One attempt to hand a document to its bank over a channel. */
  deliveryAttempt(
    bankKey: string | null | undefined,
    channel: string | null | undefined,
    outcome: DeliveryOutcome,
  ): void;
  /** One webhook attempt over a transport (https, slack, email). */
  webhookAttempt(transport: string, outcome: WebhookOutcome): void;
  /** An endpoint auto-disabled after consecutive failed events. */
  webhookAutoDisabled(transport: string): void;
  /** One inbound file by kind (camt.053, pain.002, mt940 ...) and its statement blocks by outcome. */
  /** A bank file journaled through the bank-files entry point (src/app/bank-files/receive.ts), by where it came from. */
  ingestFile(kind: string, blocks: Partial<Record<IngestOutcome, number>>, source: string): void;
  /** A worker polling loop (delivery relay, webhooks) finished a cycle: its heartbeat for /ready. */
  workerCycle(loop: string): void;
};

export const noMetrics: Metrics = {
  httpRequest() {},
  submit() {},
  deliveryAttempt() {},
  webhookAttempt() {},
  webhookAutoDisabled() {},
  ingestFile() {},
  workerCycle() {},
};
