import { openSync } from "node:fs";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../app.js";
import { type BufferedDestination, bufferedDestination } from "./access-destination.js";
import { allocatedBytes } from "../../test/support/allocated-bytes.js";

/** An access line's length, about. */
const LINE = `${JSON.stringify({ level: 30, time: 1, reqId: "01a220bf-52c9-730f-9b67-46a3eeb02845", msg: "request completed" }).padEnd(300, " ")}\n`;

const opened: BufferedDestination[] = [];
afterAll(() => {
  // Each closes its own descriptor once its writes are done.
  for (const { destination } of opened) destination.end();
});

/** A buffered destination on /dev/null. */
function devNull(): BufferedDestination {
  const buffered = bufferedDestination(openSync("/dev/null", "w"));
  opened.push(buffered);
  return buffered;
}

describe("the access log's destination", () => {
  it("holds lines without copying what it already holds: well under a line's worth of garbage a line", () => {
    const { destination, stream } = devNull();
    const lines = 4_000;
    // Warm: the first lines open the file and start the first write.
    for (let i = 0; i < 200; i++) stream.write(LINE);
    const bytes = allocatedBytes(() => {
      for (let i = 0; i < lines; i++) stream.write(LINE);
    });
    destination.flushSync();
    // Text mode re-flattened the held text at each line: about 8 KB a line here.
    expect(bytes / lines).toBeLessThan(1024);
  });

  it("hands every line to the destination, in order, as its bytes", () => {
    const out: string[] = [];
    const { destination, stream } = devNull();
    const written = destination.write.bind(destination);
    destination.write = ((data: Buffer) => {
      out.push(data.toString("utf8"));
      return written(data as unknown as string);
    }) as unknown as typeof destination.write;
    for (let i = 0; i < 50; i++) stream.write(`{"n":${i}}\n`);
    destination.flushSync();
    expect(out.join("")).toBe(Array.from({ length: 50 }, (_, i) => `{"n":${i}}\n`).join(""));
  });
});

describe("the process log's redaction", () => {
  async function logged(log: (app: Awaited<ReturnType<typeof buildApp>>) => void): Promise<string> {
    let text = "";
    const stream = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    const app = await buildApp({ logger: { level: "info", stream } });
    try {
      log(app);
    } finally {
      await app.close();
    }
    return text;
  }

  const headers = { authorization: "Bearer sk-secret-1", "x-gateway-api-key": "gk-secret-2", accept: "text/plain" };

  it("censors credential headers under `headers` and `request.headers`, and `req` never carries headers", async () => {
    const text = await logged((app) => {
      app.log.info({ headers }, "a");
      app.log.info({ request: { headers } }, "b");
      app.log.info({ req: { method: "POST", url: "/v1/chat/completions", headers } }, "c");
    });
    expect(text).not.toContain("sk-secret-1");
    expect(text).not.toContain("gk-secret-2");
    const [a, b, c] = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(a.headers).toEqual({ authorization: "[REDACTED]", "x-gateway-api-key": "[REDACTED]", accept: "text/plain" });
    expect(b.request.headers.authorization).toBe("[REDACTED]");
    expect(c.req).toEqual({ method: "POST", url: "/v1/chat/completions" });
  });

  it("writes an access line's `req` without cloning it for the redactor", async () => {
    const lines = 3_000;
    let bytes = 0;
    await logged((app) => {
      const child = app.log.child({ reqId: "01a220bf-52c9-730f-9b67-46a3eeb02845" });
      const fields = {
        req: { method: "POST", url: "/v1/chat/completions", ip: "127.0.0.1", headers },
        res: { statusCode: 200 },
        responseTime: 1.5,
      };
      for (let i = 0; i < 200; i++) child.info(fields, "request completed");
      bytes = allocatedBytes(() => {
        for (let i = 0; i < lines; i++) child.info(fields, "request completed");
      });
    });
    // With the `req.headers` paths, the redactor's clone and walk of `req` took about 3.5 KB a line more.
    expect(bytes / lines).toBeLessThan(3_500);
  });
});
