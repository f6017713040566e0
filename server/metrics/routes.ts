/**
 * `GET /metrics` (Prometheus text format), only with the configured token as a bearer token: the
 * figures name guardrails, checks and providers, which are not for every client to read. Without
 * a token set, the route does not exist. Wrong tokens count against their source on the throttle
 * of unknown API keys (auth-throttle.ts), so the token cannot be guessed faster than a key.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { AuthThrottle } from "../auth-throttle.js";
import type { GatewayMetrics } from "./gateway-metrics.js";

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** The 429 of a stopped source, with `retry-after`. */
function throttled(reply: FastifyReply, wait: number) {
  reply.code(429).header("retry-after", String(wait));
  return {
    error: {
      code: "too_many_failed_keys",
      message: `GET /metrics: too many wrong tokens or unknown keys from this address; try again in ${wait} s`,
    },
  };
}

/** Registers the metrics route, answering only requests bearing `token`; wrong tokens count on `throttle`. */
export function metricsRoute(app: FastifyInstance, metrics: GatewayMetrics, token: string, throttle?: AuthThrottle): void {
  const expected = digest(token);
  app.get("/metrics", async (request, reply) => {
    // A stopped source's tokens are not even compared, the right one included, as its keys are not looked up.
    const wait = throttle?.retryAfter(request.ip) ?? 0;
    if (wait > 0) return throttled(reply, wait);
    const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1];
    // Digests of equal length, compared in constant time.
    if (!given || !timingSafeEqual(digest(given), expected)) {
      const count = throttle?.failed(request.ip);
      if (count && count.retryAfterSeconds > 0) return throttled(reply, count.retryAfterSeconds);
      if (count?.stopped)
        request.log.warn(
          { source: request.ip, route: "/metrics", failures: count.failures },
          `wrong metrics tokens: ${request.ip} sent ${count.failures}; its tokens and keys are refused for ${throttle!.retryAfter(request.ip)} s`,
        );
      reply.code(401).header("www-authenticate", 'Bearer realm="metrics"');
      return { error: { code: "unauthorized", message: "GET /metrics needs the metrics token as a bearer token" } };
    }
    reply.header("content-type", metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
