import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { formatLogLine, prettyLogStream } from "./pretty-log.js";

function sink(): { out: Writable; text: () => string } {
  let text = "";
  const out = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { out, text: () => text };
}

describe("the terminal's log lines", () => {
  it("an access line is one line: method, path, status, time, request id", () => {
    const line = formatLogLine({
      level: 30,
      time: Date.UTC(2026, 0, 2, 3, 4, 5),
      reqId: "0194-abc",
      req: { method: "POST", url: "/v1/chat/completions" },
      res: { statusCode: 200 },
      responseTime: 12.4,
      clientRequestId: "client-1",
      msg: "request completed",
    });
    expect(line).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}POST \/v1\/chat\/completions 200 12 ms {2}clientRequestId=client-1 req=0194-abc$/,
    );
  });

  it("other lines keep their fields as key=value, an error its message; fastify's listening line is left out", () => {
    expect(formatLogLine({ level: 40, msg: "not ready: store (down)", unavailable: { store: "down" } })).toMatch(
      /WARN {2}not ready: store \(down\) {2}unavailable=\{"store":"down"\}$/,
    );
    expect(formatLogLine({ level: 40, msg: "x", err: { message: "boom here", stack: "Error: boom" } })).toMatch(
      /WARN {2}x {2}error="boom here"$/,
    );
    expect(formatLogLine({ level: 30, msg: "Server listening at http://127.0.0.1:8787" })).toBeUndefined();
  });

  it("pino's output through the stream: one plain line per event, none of it JSON", () => {
    const { out, text } = sink();
    const log = pino({ level: "info" }, prettyLogStream(out));
    log.info({ req: { method: "GET", url: "/v1/models" }, res: { statusCode: 401 }, responseTime: 1 }, "request completed");
    log.info("Server listening at http://127.0.0.1:1");
    log.warn("something odd");
    const lines = text().trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("GET /v1/models 401 1 ms");
    expect(lines[1]).toContain("WARN  something odd");
    expect(lines.some((line) => line.startsWith("{"))).toBe(false);
  });
});
