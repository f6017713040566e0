import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpstreamFetch } from "./upstream-fetch.js";

let server: Server;
let base: string;
let lastAuthorization: string | undefined;
let events: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    lastAuthorization = req.headers.authorization;
    if (req.url === "/big")
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ x: "y".repeat(5000) }));
    if (req.url === "/events") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of events) res.write(event);
      return res.end();
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const record = { name: "s", transport: "streamable_http" as const, bearerToken: "tok-0123456789" };

describe("UpstreamFetch", () => {
  it("adds the server's credentials, over the caller's headers", async () => {
    const upstream = new UpstreamFetch({ allowLoopback: true, allowPrivate: false }, { maxMessageBytes: 1000 });
    await upstream.fetchFor(record)(`${base}/`, { headers: { authorization: "Bearer from-client" } });
    expect(lastAuthorization).toBe("Bearer tok-0123456789");
    await upstream.close();
  });

  it("refuses addresses the policy refuses: loopback for a workspace's server, metadata for any", async () => {
    const upstream = new UpstreamFetch({ allowLoopback: false, allowPrivate: false }, { maxMessageBytes: 1000 });
    await expect(upstream.fetchFor({ ...record, trusted: false })(`${base}/`)).rejects.toThrow(/refuses/);
    await expect(upstream.fetchFor({ ...record, trusted: false })(`http://localhost:${new URL(base).port}/`)).rejects.toThrow();
    await expect(upstream.fetchFor(record)("http://169.254.169.254/latest")).rejects.toThrow(/metadata/);
    await upstream.fetchFor(record)(`${base}/`); // the operator's own server may be local
    await upstream.close();
  });

  it("caps a JSON answer as a whole", async () => {
    const upstream = new UpstreamFetch({ allowLoopback: true, allowPrivate: false }, { maxMessageBytes: 1000 });
    const answer = await upstream.fetchFor(record)(`${base}/big`);
    await expect(answer.text()).rejects.toThrow(/larger than the gateway takes \(1000 bytes\)/);
    await upstream.close();
  });

  it("caps each event of a stream, not the stream: many small events pass, one large event fails (property, seeded)", async () => {
    const upstream = new UpstreamFetch({ allowLoopback: true, allowPrivate: false }, { maxMessageBytes: 200 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 260 }), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (sizes, crlf) => {
          const end = crlf ? "\r\n\r\n" : "\n\n";
          events = sizes.map((n) => `data: ${"x".repeat(n)}${end}`);
          const read = upstream
            .fetchFor(record)(`${base}/events`)
            .then((r) => r.text());
          // An event's bytes are its field line and the line ending within it.
          if (sizes.every((n) => n + 7 <= 200)) expect(await read).toBe(events.join(""));
          else await expect(read).rejects.toThrow(/larger than the gateway takes \(200 bytes\)/);
        },
      ),
      { seed: 36, numRuns: 40 },
    );
    await upstream.close();
  });
});
