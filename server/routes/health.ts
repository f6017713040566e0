/** `GET /health`: answers once the gateway is listening; no key needed. */
import type { FastifyInstance } from "fastify";

/** Registers the health route. */
export function healthRoute(app: FastifyInstance): void {
  app.get("/health", async () => ({ status: "ok" }));
}
