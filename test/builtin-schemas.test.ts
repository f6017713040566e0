import { describe, expect, it } from "vitest";
import { CheckRegistry, type PluginDefinition } from "../core/index.js";
import { builtinPlugins } from "../plugins/builtin.js";

// The engine compiles a built-in check's schemas only when a guardrail first names it, so a bad
// one would surface late, in whoever names it: here every one of them is compiled as a plugin
// from elsewhere is, when it registers.
describe("the built-in plugins' schemas", () => {
  it("compile, parameters and credentials, for every check", async () => {
    const registry = new CheckRegistry();
    for (const url of builtinPlugins) {
      const plugin = ((await import(url)) as { default: PluginDefinition }).default;
      expect(() => registry.register(plugin, url), url).not.toThrow();
    }
    expect(registry.checks().length).toBeGreaterThan(50);
  });
});
