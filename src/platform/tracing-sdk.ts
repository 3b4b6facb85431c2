/**
 * The OpenTelemetry SDK, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set (src/platform/tracing.ts
 * requires this module synchronously, before pg is first imported, so the pg instrumentation can hook
 * it). Spans go out in batches over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`, or to
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; OTEL_EXPORTER_OTLP_HEADERS and OTEL_SERVICE_NAME are honoured.
 *
 * Instrumented here: database queries (pg; only inside a traced operation, so pg-boss's polling does
 * not flood the collector) and outbound HTTP through undici and fetch (webhooks, FX rates, white-list).
 * HTTP requests and use cases get their spans from our own code (src/http/plugins/tracing.ts and
 * `inSpan`), named by route pattern and use case.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

export type TracingSdk = { shutdown(): Promise<void> };

/** @public (required by src/platform/tracing.ts through createRequire, which knip cannot follow) */
export function startTracingSdk(env: Record<string, string | undefined>): TracingSdk {
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME?.trim() || 'payops',
      'service.instance.role': env.ROLE?.trim() || 'all',
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        ...(Number.isFinite(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {}),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(provider);
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new PgInstrumentation({ requireParentSpan: true }), new UndiciInstrumentation()],
  });
  return {
    async shutdown() {
      unregister();
      await provider.shutdown();
    },
  };
}
