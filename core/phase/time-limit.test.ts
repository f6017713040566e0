import { describe, expect, it } from "vitest";
import { createEngine } from "../../index.js";
import { definePlugin } from "../plugin-api.js";

const seen: { aborted?: boolean } = {};

const plugin = definePlugin({
  id: "limits",
  class: "custom",
  apiVersion: 1,
  checks: [
    {
      id: "instant",
      description: "Passes at once.",
      sides: ["input"],
      parameters: { type: "object", properties: {} },
      run: () => ({ verdict: true }),
    },
    {
      id: "hangs",
      description: "Never settles by itself; reports whether its signal aborted.",
      sides: ["input"],
      kind: "network",
      parameters: { type: "object", properties: {} },
      run: ({ signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            seen.aborted = true;
            reject(signal.reason);
          });
        }),
    },
    {
      id: "throws",
      description: "Throws synchronously.",
      sides: ["input"],
      parameters: { type: "object", properties: {} },
      run: () => {
        throw new RangeError("no");
      },
    },
  ],
});

describe("check time limits", () => {
  it("a synchronous check passes, a throwing one errors, a hanging one times out with its signal aborted", async () => {
    const engine = await createEngine({ plugins: [plugin] });
    const evaluation = await engine.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: { messages: [{ role: "user", content: "x" }] },
      guardrails: [
        { checks: [{ id: "limits.instant" }, { id: "limits.throws" }, { id: "limits.hangs", parameters: { timeout: 50 } }] },
      ],
    });
    const [instant, throws, hangs] = evaluation.results[0]?.checks ?? [];
    expect(instant).toMatchObject({ verdict: true });
    expect(instant?.error).toBeUndefined();
    expect(throws?.error).toEqual({ name: "RangeError", message: "no" });
    expect(hangs?.error).toMatchObject({ name: "TimeoutError" });
    expect(seen.aborted).toBe(true);
    await engine.close();
  });

  it("an aborted phase cancels a pending check", async () => {
    const engine = await createEngine({ plugins: [plugin] });
    const controller = new AbortController();
    const running = engine.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: { messages: [{ role: "user", content: "x" }] },
      guardrails: [{ checks: [{ id: "limits.hangs" }] }],
      signal: controller.signal,
    });
    controller.abort();
    const evaluation = await running;
    expect(evaluation.results[0]?.checks[0]?.error).toMatchObject({ name: "AbortError" });
    await engine.close();
  });
});
