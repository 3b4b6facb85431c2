import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { tracingEnabled } from '../../platform/tracing.ts';

/**
 * One SERVER span per HTTP request, named `<METHOD> <route pattern>` (never the raw URL), continuing
 * the caller's W3C `traceparent`. The route handler runs inside it, so the use case, its queries and
 * its outbound calls become its children. Registered before the routes (it wraps their handlers);
 * nothing at all while tracing is off.
 */
const active = new WeakMap<FastifyRequest, { span: Span; context: Context }>();

export function registerTracing(app: FastifyInstance): void {
  if (!tracingEnabled()) return;
  const tracer = trace.getTracer('payops');

  app.addHook('onRequest', async (request) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'http.route': route, 'payops.request_id': request.id },
      },
      parent,
    );
    active.set(request, { span, context: trace.setSpan(parent, span) });
  });

  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function traced(this: unknown, request, reply) {
      const current = active.get(request);
      return current
        ? context.with(current.context, () => handler.call(this as never, request, reply))
        : handler.call(this as never, request, reply);
    } as RouteHandlerMethod;
  });

  app.addHook('onError', async (request, _reply, error) => {
    active.get(request)?.span.recordException(error);
  });

  app.addHook('onResponse', async (request, reply) => {
    const current = active.get(request);
    if (!current) return;
    current.span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) current.span.setStatus({ code: SpanStatusCode.ERROR });
    current.span.end();
    active.delete(request);
  });
}
