import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createEngine } from "../index.js";
import { PluginError } from "./errors.js";
import { defineCheck, definePlugin } from "./plugin-api.js";
import { CheckRegistry } from "./registry.js";

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "../test/fixtures/plugins");

const check = defineCheck({
  id: "ok",
  description: "passes",
  sides: ["input"],
  parameters: { type: "object", properties: { n: { type: "integer", default: 1 } } },
  run: () => ({ verdict: true }),
});
const plugin = (overrides: Record<string, unknown> = {}) => ({
  ...definePlugin({ id: "p", class: "custom", apiVersion: 1, checks: [check] }),
  ...overrides,
});

describe("plugin registration", () => {
  it("registers a well-formed plugin and lists it", () => {
    const registry = new CheckRegistry();
    registry.register(plugin(), "test");
    expect(registry.get("p.ok")?.defaultTimeout).toBe(2_000);
    expect(registry.plugins()).toEqual([
      { id: "p", name: "p", description: "", class: "custom", apiVersion: 1, source: "test", checks: ["p.ok"] },
    ]);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["not an object", 42, /default export is not a plugin object/],
    ["a bad id", plugin({ id: "has space" }), /is not a valid plugin id/],
    ["an unsupported apiVersion", plugin({ apiVersion: 2 }), /apiVersion 2 is not supported; this engine supports 1/],
    ["an unknown class", plugin({ class: "GOLD" }), /class must be one of BASIC, PARTNER, PRO, custom/],
    ["no checks", plugin({ checks: [] }), /checks must be a non-empty array/],
    ["a check without run", plugin({ checks: [{ ...check, run: undefined }] }), /checks\[0\] \(ok\): run must be a function/],
    ["a check with no sides", plugin({ checks: [{ ...check, sides: [] }] }), /sides must list/],
    ["a check id twice", plugin({ checks: [check, check] }), /check id "ok" appears twice/],
    [
      "a schema that does not compile",
      plugin({ checks: [{ ...check, parameters: { type: "object", properties: { n: { type: "integr" } } } }] }),
      /check ok: parameter schema does not compile/,
    ],
  ];
  it.each(bad)("refuses %s, registering nothing", (_name, value, message) => {
    const registry = new CheckRegistry();
    expect(() => registry.register(value, "test")).toThrow(PluginError);
    expect(() => registry.register(value, "test")).toThrow(message);
    expect(registry.plugins()).toEqual([]);
  });

  it("compiles an on-use plugin's schemas when a check is first validated, and refuses a bad one there", () => {
    const registry = new CheckRegistry();
    const broken = { type: "object", properties: { n: { type: "integr" } } };
    registry.register(plugin({ checks: [{ ...check, parameters: broken }] }), "test", "on-use");
    expect(registry.plugins().map((p) => p.id)).toEqual(["p"]);
    expect(() => registry.get("p.ok")!.validate).toThrow(/check ok: parameter schema does not compile/);
    const good = new CheckRegistry();
    good.register(plugin(), "test", "on-use");
    const parameters: Record<string, unknown> = {};
    expect(good.get("p.ok")!.validate(parameters)).toBe(true);
    expect(parameters).toEqual({ n: 1 });
  });

  it("refuses a plugin id that collides, naming both sources", () => {
    const registry = new CheckRegistry();
    registry.register(plugin(), "first.js");
    expect(() => registry.register(plugin(), "second.js")).toThrow(
      /"p" from second.js collides with the plugin of the same id from first.js/,
    );
  });
});

describe("plugin loading", () => {
  it("loads a module file and a package folder by path, and runs their checks", async () => {
    const engine = await createEngine({ plugins: ["./file-plugin.mjs", "./pkg-plugin"], baseDir: fixtures });
    // The built-in plugins (default, then the partner plugins) come first, the loaded ones after.
    const ids = engine.plugins().map((p) => p.id);
    expect([ids[0], ...ids.slice(-2)]).toEqual(["default", "acme", "pkg"]);
    const evaluation = await engine.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: { messages: [{ role: "user", content: "STOP SHOUTING" }] },
      guardrails: [{ "acme.shouting": {}, "pkg.always": {} }],
    });
    expect(evaluation.status).toBe(246);
    expect(evaluation.results[0]?.checks.map((c) => [c.id, c.verdict])).toEqual([
      ["acme.shouting", false],
      ["pkg.always", true],
    ]);
  });

  it("stops with a clear message when a plugin throws on load or cannot be found", async () => {
    await expect(createEngine({ plugins: ["./throws-on-load.mjs"], baseDir: fixtures })).rejects.toThrow(
      /plugin "\.\/throws-on-load\.mjs" failed to load: this plugin refuses to load/,
    );
    await expect(createEngine({ plugins: ["no-such-guardgate-plugin"], baseDir: fixtures })).rejects.toThrow(
      /plugin "no-such-guardgate-plugin" cannot be found/,
    );
  });

  it("refuses a second plugin with the id of a built-in one", async () => {
    await expect(createEngine({ plugins: [plugin({ id: "default" })] })).rejects.toThrow(
      /collides with the plugin of the same id from guardgate \(built in\)/,
    );
  });
});
