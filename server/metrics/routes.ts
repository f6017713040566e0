/**
 * `GET /metrics` (Prometheus text format), only with the configured token as a bearer token: the
 * figures name guardrails, checks and providers, which are not for every client to read. Without
 * a token set, the route does not exist.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { GatewayMetrics } from "./gateway-metrics.js";

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** Registers the metrics route, answering only requests bearing `token`. */
export function metricsRoute(app: FastifyInstance, metrics: GatewayMetrics, token: string): void {
  const expected = digest(token);
  app.get("/metrics", async (request, reply) => {
    const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1];
    // Digests of equal length, compared in constant time.
    if (!given || !timingSafeEqual(digest(given), expected)) {
      reply.code(401).header("www-authenticate", 'Bearer realm="metrics"');
      return { error: { code: "unauthorized", message: "GET /metrics needs the metrics token as a bearer token" } };
    }
    reply.header("content-type", metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
