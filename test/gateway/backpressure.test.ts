/**
 * Backpressure on streams: a client that stops reading pauses the gateway's read of the upstream,
 * so what the gateway holds for it stays bounded however large the upstream's stream. Measured
 * where it shows: the upstream's writes block, and the bytes it managed to send stay far below the
 * stream's size. Real sockets on both sides; no timing is asserted, the test waits for the flow to
 * stop. And what the gateway gathers of a stream it passes through (for the log and the usage
 * estimate) stays bounded too, however long the stream.
 */
import { once } from "node:events";
import http from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY, headerJson, startGateway, type TestGateway } from "../support/gateway.js";

/** What the upstream would send in all: far more than any buffer on the way may hold. */
const STREAM_BYTES = 256 * 1024 * 1024;
/** The most the gateway and the kernel's socket buffers on both hops may hold between them. */
const BOUND_BYTES = 32 * 1024 * 1024;

/** An upstream streaming chat chunks as fast as its socket takes them, counting what it sent. */
class FloodUpstream {
  sent = 0;
  blocked = false;
  readonly server = http.createServer((req, res) => void this.#flood(req, res));

  async start(): Promise<string> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async #flood(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    for await (const _ of req);
    res.writeHead(200, { "content-type": "text/event-stream" });
    const event = `data: ${JSON.stringify({
      id: "c",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { content: "x".repeat(900) }, finish_reason: null }],
    })}\n\n`;
    const batch = Buffer.from(event.repeat(64));
    let closed = false;
    res.once("close", () => (closed = true));
    while (!closed && this.sent < STREAM_BYTES) {
      this.sent += batch.length;
      if (!res.write(batch)) {
        this.blocked = true;
        // One listener pair per wait, removed when either fires: racing two once() promises leaves
        // the loser's listeners on the response, one more each time the gateway pushes back.
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done).off("close", done);
            resolve();
          };
          res.once("drain", done).once("close", done);
        });
        this.blocked = false;
      }
    }
    if (!closed) res.end("data: [DONE]\n\n");
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    return once(this.server, "close").then(() => undefined);
  }
}

let upstream: FloodUpstream;
let baseUrl: string;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = new FloodUpstream();
  baseUrl = await upstream.start();
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

/** Resolves once `read()` stopped changing across `quietMs` (the flow settled), or after `maxMs`. */
async function settled(read: () => number, quietMs: number, maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  let last = read();
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const now = read();
    if (now === last) return;
    last = now;
  }
}

describe("a client that stops reading", () => {
  it.each([
    ["passed through", {}],
    ["held in window mode", { output_guardrails: [{ deny: true, regexMatch: { rule: "forbidden", not: true } }] }],
    ["checked after", { output_guardrails: [{ regexMatch: { rule: "forbidden", not: true } }] }],
    ["checked after, async", { output_guardrails: [{ async: true, regexMatch: { rule: "forbidden", not: true } }] }],
  ])(
    "%s, pauses the upstream: what it sent stays bounded",
    async (_name, guardrails) => {
      upstream.sent = 0;
      const { port } = new URL(gateway.url);
      const socket = connect(Number(port), "127.0.0.1");
      await once(socket, "connect");
      const body = JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "flood" }] });
      const config = headerJson({ provider: "openai", custom_host: baseUrl, ...guardrails });
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-gateway-api-key: ${API_KEY}\r\nx-gateway-config: ${config}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // The answer begins; then the client stops reading.
      const [first] = (await once(socket, "data")) as [Buffer];
      expect(first.toString("latin1")).toMatch(/^HTTP\/1\.1 200 /);
      socket.pause();

      await settled(() => upstream.sent, 500, 20_000);
      expect(upstream.blocked).toBe(true);
      expect(upstream.sent).toBeLessThan(BOUND_BYTES);
      socket.destroy();
    },
    60_000,
  );
});

/** An upstream streaming `bytes` of chat chunks to a client that reads, then `[DONE]`. */
async function flood(config: Record<string, unknown>, bytes: number) {
  const server = http.createServer(async (req, res) => {
    for await (const _ of req);
    res.writeHead(200, { "content-type": "text/event-stream" });
    const event = `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "x".repeat(900) }, finish_reason: null }] })}\n\n`;
    const batch = Buffer.from(event.repeat(64));
    for (let sent = 0; sent < bytes && !res.destroyed; sent += batch.length) if (!res.write(batch)) await once(res, "drain");
    res.end("data: [DONE]\n\n");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  let peak = process.memoryUsage().heapUsed;
  const before = peak;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 20);
  try {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": API_KEY,
        "x-gateway-config": headerJson({ provider: "openai", custom_host: base, ...config }),
      },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    let tail = "";
    let read = 0;
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      read += chunk.length;
      tail = (tail + Buffer.from(chunk).toString("latin1")).slice(-400);
    }
    return { read, tail, id: response.headers.get("x-gateway-request-id"), growth: peak - before };
  } finally {
    clearInterval(sampler);
    server.close();
  }
}

describe("what the gateway gathers of a stream it does not hold", () => {
  // The text gathered of a stream lives on the JavaScript heap: its peak growth is what is bounded.
  it("is bounded: a 96 MB stream passed through does not grow the gateway by its size", async () => {
    const { read, tail, growth } = await flood({}, 96 * 1024 * 1024);
    expect(read).toBeGreaterThan(96 * 1024 * 1024);
    expect(tail.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(growth).toBeLessThan(80 * 1024 * 1024);
  }, 120_000);

  it("is bounded for output guardrails checking after: past it the stream fails closed", async () => {
    const config = { output_guardrails: [{ regexMatch: { rule: "forbidden", not: true } }] };
    const { tail, id } = await flood(config, 40 * 1024 * 1024);
    expect(tail).not.toContain("[DONE]");
    expect(tail).toContain("stream_too_large");
    const record = await gateway.logs.waitFor((r) => r.id === id);
    expect(record.error?.code).toBe("stream_too_large");
  }, 120_000);
});
