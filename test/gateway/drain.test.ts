/**
 * A graceful stop never resets a keep-alive connection whose request was already sent: the
 * request is answered (finished, with `Connection: close`) and recorded, and the connection closes
 * after its answer.
 */
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { InMemoryRequestLogSink } from "../../server/logs/sink.js";
import { startServer } from "../../server/lifecycle/serve.js";
import { API_KEY } from "../support/gateway.js";

/** Resolves once `socket` has received a whole answer whose body ends with `end`. */
function answer(socket: Socket, received: () => string, end: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (received().endsWith(end)) {
        socket.off("data", check);
        resolve();
      }
    };
    socket.on("data", check);
    socket.once("error", reject);
    check();
  });
}

describe("a graceful stop", () => {
  it("answers and records a keep-alive request sent as the stop begins, never resetting it", async () => {
    const logs = new InMemoryRequestLogSink();
    const running = await startServer({
      port: 0,
      host: "127.0.0.1",
      gracePeriodMs: 5_000,
      app: { logger: false, logSink: logs, file: { api_keys: [{ key: API_KEY }] } },
    });
    const { port } = new URL(running.url);
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let received = "";
    let failure: Error | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("error", (error) => (failure = error));
    const closed = new Promise((resolve) => socket.once("close", resolve));

    // A first request makes the connection an idle keep-alive one.
    socket.write(`GET /health HTTP/1.1\r\nHost: x\r\n\r\n`);
    await answer(socket, () => received, '{"status":"ok"}');
    received = "";

    const body = JSON.stringify({ model: "@mock/m", messages: [{ role: "user", content: "sent before the stop" }] });
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-gateway-api-key: ${API_KEY}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // The stop begins with the request on its way, before the server read it.
    const stopped = running.stop();
    await closed;
    await stopped;

    expect(failure).toBeUndefined();
    expect(received).toMatch(/^HTTP\/1\.1 (200|503) /);
    expect(received.toLowerCase()).toContain("connection: close");
    const status = Number(received.slice(9, 12));
    const record = logs.list().find((r) => r.route === "/v1/chat/completions");
    expect(record?.status).toBe(status);
  });
});
