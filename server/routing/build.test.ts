import { beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../index.js";
import { buildRouting, DEFAULT_RETRY_STATUS_CODES } from "./build.js";

let engine: Engine;
beforeAll(async () => {
  engine = await createEngine();
});

describe("buildRouting", () => {
  it("splits each side into synchronous and asynchronous guardrails", async () => {
    const routing = await buildRouting(
      { input_guardrails: [{ wordCount: { minWords: 1 } }, { async: true, sentenceCount: { minSentences: 1 } }] },
      engine,
      {},
    );
    expect(routing.root.input.sync.map((g) => g.checks[0]?.id)).toEqual(["default.wordCount"]);
    expect(routing.root.input.async.map((g) => g.checks[0]?.id)).toEqual(["default.sentenceCount"]);
    expect(routing.hasGuardrails).toBe(true);
  });

  it("targets inherit what they do not set, side by side", async () => {
    const routing = await buildRouting(
      {
        virtual_key: "root-vk",
        retry: { attempts: 2 },
        request_timeout: 5000,
        override_params: { temperature: 0, model: "base" },
        input_guardrails: [{ wordCount: { minWords: 1 } }],
        output_guardrails: [{ wordCount: { maxWords: 100 } }],
        strategy: { mode: "fallback", on_status_codes: [446, 503] },
        targets: [
          { override_params: { model: "first" } },
          { provider: "openai", output_guardrails: [{ characterCount: { maxCharacters: 10 } }], retry: { attempts: 0 } },
        ],
      },
      engine,
      {},
    );
    const [first, second] = routing.root.targets ?? [];
    expect(routing.root.strategy).toEqual({ mode: "fallback", onStatusCodes: [446, 503] });
    expect(first?.settings).toMatchObject({
      virtualKey: "root-vk",
      requestTimeoutMs: 5000,
      overrideParams: { temperature: 0, model: "first" },
      retry: { attempts: 2, onStatusCodes: DEFAULT_RETRY_STATUS_CODES },
    });
    expect(first?.input).toBe(routing.root.input);
    expect(first?.output).toBe(routing.root.output);
    // A target naming its own provider does not inherit the parent's virtual key.
    expect(second?.settings.virtualKey).toBeUndefined();
    expect(second?.settings.provider).toBe("openai");
    expect(second?.settings.retry?.attempts).toBe(0);
    expect(second?.input).toBe(routing.root.input);
    expect(second?.output.sync[0]?.checks[0]?.id).toBe("default.characterCount");
    expect(second?.output.key).not.toBe(routing.root.output.key);
  });

  it("names the path of a problem inside a target", async () => {
    await expect(
      buildRouting(
        { strategy: { mode: "fallback" }, targets: [{}, { input_guardrails: [{ wordCount: { minWords: "x" } }] }] },
        engine,
        {},
      ),
    ).rejects.toThrow("targets[1].input_guardrails[0].wordCount.minWords");
    await expect(buildRouting({ strategy: { mode: "fallback" } }, engine, {})).rejects.toThrow(
      "strategy: a strategy needs targets",
    );
    await expect(buildRouting({ strategy: { mode: "loadbalance" }, targets: [{ weight: 0 }] }, engine, {})).rejects.toThrow(
      "targets: loadbalance needs a target with weight > 0",
    );
    await expect(buildRouting({ targets: [{ cache: { mode: "semantic" } }] }, engine, {})).rejects.toThrow(
      "targets[0].cache.mode",
    );
  });
});
