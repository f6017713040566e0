/** Which stream mode a target's output guardrails give its streams. */
import { describe, expect, it } from "vitest";
import type { Guardrail, StreamMode } from "../../core/index.js";
import { DEFAULT_STREAM_WINDOW, MAX_STREAM_HOLD_CHARS, STREAM_HOLD_CHARS, streamHoldOf } from "./stream-mode.js";

function guardrail(fields: { deny?: boolean; check?: string; streamMode?: StreamMode }): Guardrail {
  return {
    id: "g",
    side: "output",
    async: false,
    deny: fields.deny ?? false,
    sequential: false,
    ...(fields.streamMode && { streamMode: fields.streamMode }),
    checks: [{ id: fields.check ?? "default.wordCount", parameters: {}, enabled: true, failOnError: false }],
  };
}

const transforms = (id: string) => (id === "default.pii" ? { transforms: true, streamHoldChars: 256 } : { transforms: false });

describe("streamHoldOf", () => {
  it("holds a window for a denying or a redacting guardrail, nothing for one that only reports", () => {
    expect(streamHoldOf([guardrail({ deny: true })], {}, transforms).mode).toBe("window");
    expect(streamHoldOf([guardrail({ check: "default.pii" })], {}, transforms).mode).toBe("window");
    expect(streamHoldOf([guardrail({})], {}, transforms).mode).toBe("after");
    expect(streamHoldOf([], {}, transforms)).toEqual({ mode: "after", window: DEFAULT_STREAM_WINDOW, tail: STREAM_HOLD_CHARS });
  });

  it("takes the guardrail's own mode over the config's, and the strictest of several", () => {
    const settings = { streamMode: "after" as const, streamWindow: 50 };
    expect(streamHoldOf([guardrail({ deny: true })], settings, transforms)).toEqual({ mode: "after", window: 50, tail: 64 });
    expect(streamHoldOf([guardrail({ deny: true, streamMode: "window" })], settings, transforms).mode).toBe("window");
    const several = [guardrail({ streamMode: "after" }), guardrail({ streamMode: "buffer" }), guardrail({ deny: true })];
    expect(streamHoldOf(several, {}, transforms).mode).toBe("buffer");
  });

  it("holds back the longest match a stream's checks must see whole, within the bound", () => {
    expect(streamHoldOf([guardrail({ deny: true }), guardrail({ check: "default.pii" })], {}, transforms).tail).toBe(256);
    const huge = () => ({ transforms: true, streamHoldChars: 10_000 });
    expect(streamHoldOf([guardrail({ check: "x.huge" })], {}, huge).tail).toBe(MAX_STREAM_HOLD_CHARS);
  });
});
