import { createRequire } from 'node:module';
import { type Attributes, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * OpenTelemetry tracing, off unless OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
 * is set. Code that makes spans uses only the API below; with tracing off it costs one branch.
 * The SDK is loaded synchronously by `startTracing`, which src/main/instrument.ts calls before any
 * other module of ours is evaluated (docs/adr/0030-metrics-and-tracing.md).
 */
let sdk: import('./tracing-sdk.ts').TracingSdk | undefined;
let enabled = false;

export function tracingEnabled(): boolean {
  return enabled;
}

/** Starts the SDK when an OTLP endpoint is configured; answers whether tracing is on. */
export function startTracing(env: Record<string, string | undefined>): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint || enabled) return enabled;
  // require(esm), synchronous: an `await import` here would let the modules after this one be
  // evaluated (and pg be loaded) before the instrumentation is in place.
  const module = createRequire(import.meta.url)('./tracing-sdk.ts') as typeof import('./tracing-sdk.ts');
  sdk = module.startTracingSdk(env);
  enabled = true;
  return true;
}

/** Flushes the spans still buffered and stops the SDK (at shutdown). */
export async function stopTracing(): Promise<void> {
  enabled = false;
  await sdk?.shutdown();
  sdk = undefined;
}

const tracer = () => trace.getTracer('payops');

/**
 * Runs `fn` inside a span named after a use case or job (`journal.submit`, `delivery.deliver`);
 * an error ends it with status ERROR. No span at all while tracing is off.
 */
export function inSpan<T>(name: string, fn: () => Promise<T>, attributes?: Attributes): Promise<T> {
  if (!enabled) return fn();
  return tracer().startActiveSpan(
    name,
    { kind: SpanKind.INTERNAL, ...(attributes ? { attributes } : {}) },
    async (span) => {
      try {
        return await fn();
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
