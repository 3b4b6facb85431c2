import type { AppContext } from '../app/context.ts';
import type { FxRatesProvider } from '../app/system/fx-rates.ts';
import type { WorkerMonitor } from '../app/system/readiness.ts';

/** GET /metrics: the process's metrics in the Prometheus text format, behind an optional bearer token. */
export type MetricsEndpoint = {
  render(): Promise<{ contentType: string; body: string }>;
  /** METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`. */
  token: string | undefined;
};

/** What the HTTP layer is handed by the composition root. */
export type HttpServices = {
  ctx: AppContext;
  fx: FxRatesProvider;
  version: string;
  /** This process's workers, when it runs them (ROLE=worker|all): /ready reports on them. */
  workers?: WorkerMonitor;
  /** Served at /metrics when given (on the API port unless METRICS_PORT moves it to the ops listener). */
  metrics?: MetricsEndpoint;
};
