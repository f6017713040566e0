/**
 * `GET /ready`: whether this instance can serve now — its store, its Redis and its worker pool
 * answer — for a load balancer to route around an instance that cannot. `GET /health` says only
 * that the process is up. No key needed; the answer names the parts, not why one failed (that
 * goes to the server's log).
 */
import type { FastifyInstance } from "fastify";

/** One part the instance needs, and how to ask it. */
export interface ReadinessProbe {
  name: string;
  check(): Promise<unknown>;
}

/** The probe that fails only while the instance starts (lifecycle/start.ts): expected, not a warning. */
export const WARM_UP_PROBE = "warm_up";

/** How long a part may take to answer. */
const PROBE_TIMEOUT_MS = 1000;

function withTimeout(probe: ReadinessProbe): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${probe.name} did not answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  return Promise.race([probe.check(), timeout]).finally(() => clearTimeout(timer));
}

/** Registers the readiness route over the given probes: 200 when all answer, else 503. */
export function readyRoute(app: FastifyInstance, probes: readonly ReadinessProbe[]): void {
  app.get("/ready", async (request, reply) => {
    const results = await Promise.allSettled(probes.map(withTimeout));
    const checks: Record<string, "ok" | "unavailable"> = {};
    const reasons: Record<string, string> = {};
    results.forEach((result, i) => {
      const name = probes[i]!.name;
      checks[name] = result.status === "fulfilled" ? "ok" : "unavailable";
      if (result.status === "rejected") reasons[name] = (result.reason as Error)?.message ?? String(result.reason);
    });
    const ready = results.every((result) => result.status === "fulfilled");
    // One line per answer, without stack traces: a load balancer asks every few seconds, and a
    // part being down is the answer's news, not a bug. A start still warming up is expected.
    if (!ready) {
      const names = Object.keys(reasons);
      const line = `not ready: ${names.map((name) => `${name} (${reasons[name]})`).join(", ")}`;
      if (names.every((name) => name === WARM_UP_PROBE)) request.log.info({ unavailable: reasons }, line);
      else request.log.warn({ unavailable: reasons }, line);
    }
    reply.code(ready ? 200 : 503);
    return { status: ready ? "ready" : "unavailable", checks };
  });
}
