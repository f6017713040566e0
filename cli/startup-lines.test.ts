import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { startupLines } from "./startup-lines.js";

/** A stream that keeps what is written, and says whether it is a terminal. */
function sink(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return Object.assign(stream, { isTTY, text: () => text });
}

describe("start-up lines", () => {
  it("are plain text for a person at a terminal, warnings on stderr", () => {
    const out = sink(true);
    const err = sink(false);
    const lines = startupLines(out, err);
    lines.info("guardgate listening on http://127.0.0.1:8787", { url: "http://127.0.0.1:8787" });
    lines.warn("guardgate: generated a secret key");
    expect(lines.terminal).toBe(true);
    expect(out.text()).toBe("guardgate listening on http://127.0.0.1:8787\n");
    expect(err.text()).toBe("guardgate: generated a secret key\n");
  });

  it("are pino lines, with their fields, when stdout is not a terminal", () => {
    const out = sink(false);
    const err = sink(false);
    const lines = startupLines(out, err);
    lines.info("guardgate listening on http://127.0.0.1:8787", { url: "http://127.0.0.1:8787" });
    lines.warn("guardgate: generated a secret key");
    expect(lines.terminal).toBe(false);
    expect(err.text()).toBe("");
    const [info, warn] = out
      .text()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(info).toMatchObject({ level: 30, msg: "guardgate listening on http://127.0.0.1:8787", url: "http://127.0.0.1:8787" });
    expect(info).toHaveProperty("time");
    expect(info).toHaveProperty("pid");
    expect(warn).toMatchObject({ level: 40, msg: "guardgate: generated a secret key" });
  });
});
