/**
 * Preloaded (`node --import`) into the peer gateway's process, which the benchmark starts as its
 * package documents (`node build/start-server.js --port=N --headless`): answers the benchmark's
 * questions about the process's CPU and garbage (process-probe.ts) and tells it the port once the
 * peer answers on it.
 */
import { installProbe } from "./process-probe.js";

installProbe();

const port = Number(process.argv.find((arg) => arg.startsWith("--port="))?.slice("--port=".length));

/** Polls the peer's `/` until it answers, then reports the port as the benchmark's own servers do. */
async function announce(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/`);
      await response.arrayBuffer();
      if (response.ok) {
        process.send?.({ port });
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  process.stderr.write(`peer: nothing answered on port ${port}\n`);
  process.exit(1);
}

void announce();
