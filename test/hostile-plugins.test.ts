/**
 * Plugins that misbehave cost only themselves: one that fails to load stops the start (it never
 * half-loads), one that throws in `run` becomes a check error whose weight `fail_on_error`
 * decides. Plugins that never yield or allocate without bound are the worker pool's tests.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ConfigError, createEngine, PluginError } from "../index.js";

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "plugins");
const request = { messages: [{ role: "user", content: "hello" }] };

describe("a plugin that fails to load", () => {
  it.each([
    [
      "throws while its module is evaluated",
      "./throws-on-load.mjs",
      "plugin_load_failed",
      /failed to load: this plugin refuses to load/,
    ],
    [
      "rejects in a top-level await",
      "./rejects-on-load.mjs",
      "plugin_load_failed",
      /failed to load: could not read the word list/,
    ],
    ["has no default export", "./no-default-export.mjs", "plugin_invalid", /the module's default export is not a plugin object/],
    ["cannot be found", "./missing.mjs", "plugin_not_found", /plugin "\.\/missing\.mjs" cannot be found from/],
  ])("stops the engine's start when it %s", async (_what, spec, code, message) => {
    const start = createEngine({ plugins: ["./file-plugin.mjs", spec], baseDir: fixtures });
    await expect(start).rejects.toThrow(PluginError);
    await expect(start).rejects.toMatchObject({ code });
    await expect(start).rejects.toThrow(message);
  });
});

describe("a plugin that throws in run", () => {
  async function evaluate(checks: Array<{ id: string; parameters?: Record<string, unknown> }>, deny = true) {
    const engine = await createEngine({ plugins: ["./throws-in-run.mjs"], baseDir: fixtures });
    try {
      return await engine.evaluate({
        side: "input",
        requestType: "chatComplete",
        request,
        guardrails: [{ id: "g", deny, checks }],
      });
    } finally {
      await engine.close();
    }
  }

  it("yields a check error for each way of throwing, and the other checks run as usual", async () => {
    const evaluation = await evaluate(
      ["throwsError", "rejects", "throwsString", "throwsUndescribable", "throwsTrap", "noVerdict", "dataNotObject", "ok"].map(
        (id) => ({ id: `hostile.${id}` }),
      ),
    );
    const checks = evaluation.results[0]?.checks ?? [];
    expect(checks.map((c) => [c.id, c.verdict, c.error])).toEqual([
      ["hostile.throwsError", false, { name: "TypeError", message: "cannot read the text" }],
      ["hostile.rejects", false, { name: "Error", message: "the service said no" }],
      ["hostile.throwsString", false, "plain string"],
      ["hostile.throwsUndescribable", false, { name: "Error", message: "the check threw a value that cannot be described" }],
      ["hostile.throwsTrap", false, { name: "Error", message: "the check threw a value that cannot be described" }],
      ["hostile.noVerdict", false, { name: "TypeError", message: "check hostile.noVerdict returned no boolean verdict" }],
      [
        "hostile.dataNotObject",
        false,
        { name: "TypeError", message: "check hostile.dataNotObject returned data that is not an object" },
      ],
      ["hostile.ok", true, undefined],
    ]);
    // Errors without fail_on_error do not fail the guardrail (spec §2.4's observed case).
    expect(evaluation.status).toBe(200);
    expect(evaluation.results[0]?.feedback).toBeNull();
  });

  it("fails the guardrail when the check sets failOnError, so deny answers 446", async () => {
    const evaluation = await evaluate([{ id: "hostile.throwsError", parameters: { failOnError: true } }, { id: "hostile.ok" }]);
    expect(evaluation.status).toBe(446);
    expect(evaluation.results[0]?.checks[0]?.fail_on_error).toBe(true);
    expect(evaluation.results[0]?.checks[1]?.verdict).toBe(true);
  });

  it("turns a validate function that throws into a config error naming the check", async () => {
    const engine = await createEngine({ plugins: ["./throws-in-run.mjs"], baseDir: fixtures });
    const load = engine.normalize({ input_guardrails: [{ "hostile.validateThrows": {} }] });
    await expect(load).rejects.toThrow(ConfigError);
    await expect(load).rejects.toThrow(
      /input_guardrails\[0\]\["hostile\.validateThrows"\]: hostile\.validateThrows could not validate these parameters: its validate function threw RangeError: validate exploded/,
    );
    await engine.close();
  });
});
