/**
 * A free TCP port on 127.0.0.1 for a server the tests start as a separate program (Postgres,
 * Redis, a gateway process), which cannot be handed port 0 and tell its choice back.
 */
import { createServer } from "node:net";

/** A port nothing listens on at the time of asking. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
