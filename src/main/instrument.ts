/**
 * Imported first by the server (a bare import, so nothing is evaluated before it): starts
 * OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set, before pg and undici are loaded, so
 * their instrumentation can hook them. A bad endpoint value is left to loadConfig to report.
 */
import { startTracing } from '../platform/tracing.ts';

try {
  startTracing(process.env);
} catch (error) {
  process.stderr.write(`tracing not started: ${error instanceof Error ? error.message : String(error)}\n`);
}
