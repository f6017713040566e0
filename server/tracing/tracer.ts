/**
 * OpenTelemetry traces of the gateway, through `@opentelemetry/api` only: spans go to whatever SDK
 * the operator registered (for example with `node --import ./telemetry.mjs`), and nowhere when
 * none is — the API's tracer then does nothing. Off unless `settings.tracing` is true.
 *
 * Spans: one per request (SERVER, continuing a caller's `traceparent`), one per guardrail phase,
 * one per upstream attempt (CLIENT, with the GenAI semantic conventions' attributes).
 */
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { FastifyInstance } from "fastify";

/** The tracer's name: the instrumentation scope spans are reported under. */
export const TRACER_NAME = "guardgate";

/** The tracer every span here comes from. */
export function gatewayTracer() {
  return trace.getTracer(TRACER_NAME);
}

/** Ends a span with an error status naming `error`. */
export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

const spans = new WeakMap<object, Span>();

/**
 * A span per request: started when it arrives (as the child of the caller's trace when it sends
 * `traceparent`), made the active context for everything the request does, ended when answered.
 */
export function traceRequests(app: FastifyInstance): void {
  const tracer = gatewayTracer();
  app.addHook("onRequest", (request, _reply, done) => {
    const parent = propagation.extract(context.active(), request.headers);
    const route = request.routeOptions.url ?? request.url.split("?")[0]!;
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": request.method, "http.route": route, "url.path": request.url.split("?")[0]! },
      },
      parent,
    );
    spans.set(request, span);
    // The rest of the request's hooks and its handler run inside this span's context.
    context.with(trace.setSpan(parent, span), done);
  });
  app.addHook("onResponse", (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      span.setAttribute("http.response.status_code", reply.statusCode);
      const requestId = reply.getHeader("x-gateway-request-id");
      if (typeof requestId === "string") span.setAttribute("guardgate.request_id", requestId);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
