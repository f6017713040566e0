import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildApp } from "../app.js";
import { type GatewayFile, loadGatewayFile, parseGatewayFile } from "./config-file.js";

describe("parseGatewayFile", () => {
  it("reads YAML and JSON; an empty file is an empty config", () => {
    expect(parseGatewayFile("api_keys:\n  - key: gk-0123456789abcdef\n", "g.yaml").api_keys?.[0]?.key).toBe(
      "gk-0123456789abcdef",
    );
    expect(parseGatewayFile('{"plugins": ["./p.js"]}', "g.json").plugins).toEqual(["./p.js"]);
    expect(parseGatewayFile("", "g.yml")).toEqual({});
  });

  it.each([
    ["g.yaml", "api_keys: [", "g.yaml: is not valid YAML"],
    ["g.json", "{", "g.json: is not valid JSON"],
    ["g.yaml", "bogus: 1", "g.yaml: bogus: is not a known key"],
    ["g.yaml", "api_keys:\n  - key: short", "g.yaml: api_keys[0].key: must NOT have fewer than 16 characters"],
    ["g.yaml", "providers:\n  - slug: x", "g.yaml: providers[0].provider: is required"],
    ["g.yaml", "configs:\n  - id: '{inline}'\n    config: {}", "configs[0].id"],
    [
      "g.yaml",
      "settings:\n  custom_hosts:\n    allow_everything: true",
      "settings.custom_hosts.allow_everything: is not a known key",
    ],
    // A policy's scope is the admin API's: a misspelt list would otherwise be dropped, widening the policy.
    ["g.yaml", "policies:\n  - id: p\n    scope:\n      model: ['@mock/*']", "policies[0].scope.model: is not a known key"],
    ["g.yaml", "policies:\n  - id: p\n    scope:\n      workspaces: team-b", "policies[0].scope.workspaces: must be array"],
    ["g.yaml", "policies:\n  - id: p\n    mode: audit", 'policies[0].mode: must be one of "enforce", "monitor"'],
  ])("%s %j fails with %s", (name, text, message) => {
    expect(() => parseGatewayFile(text, name)).toThrow(message);
  });

  it("loads the example config file shipped in examples/", async () => {
    const { file } = await loadGatewayFile(path.join(import.meta.dirname, "../../examples/gateway.yaml"));
    const app = await buildApp({ file, logger: false });
    expect(app.guardgate.loaded).toMatchObject({ apiKeys: 1, providers: 2, guardrails: 2, configs: 1 });
    await app.close();
  });

  it("resolves plugin paths from the file's folder", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "guardgate-file-"));
    const pluginUrl = new URL("../../test/support/redact-plugin.ts", import.meta.url).href;
    await writeFile(path.join(dir, "plugin.mjs"), `export { default } from ${JSON.stringify(pluginUrl)};\n`);
    await writeFile(path.join(dir, "g.json"), JSON.stringify({ plugins: ["./plugin.mjs"] }));
    const loaded = await loadGatewayFile(path.join(dir, "g.json"));
    const app = await buildApp({ file: loaded.file, baseDir: loaded.dir, logger: false });
    expect(app.guardgate.engine.plugins().map((p) => p.id)).toContain("test");
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });
});

describe("a file's records are checked when the gateway is built", () => {
  it.each<[string, GatewayFile, string]>([
    ["an unknown check", { guardrails: [{ id: "g", checks: [{ id: "default.nope" }] }] }, "guardrails[0].checks[0]"],
    [
      "bad check parameters",
      { guardrails: [{ id: "g", side: "input", checks: [{ id: "default.wordCount", parameters: { minWords: "x" } }] }] },
      "guardrails[0].checks[0].parameters.minWords",
    ],
    [
      "a config naming an unknown guardrail",
      { configs: [{ id: "c", config: { input_guardrails: ["ghost"] } }] },
      'configs[0].config.input_guardrails[0]: unknown guardrail "ghost"',
    ],
    [
      "a config with a bad retry",
      { configs: [{ id: "c", config: { retry: { attempts: 99 } } }] },
      "configs[0].config.retry.attempts",
    ],
    [
      "an unknown provider",
      { providers: [{ slug: "p", provider: "skynet" }] },
      'providers[0].provider: "skynet" is not a provider guardgate can call. Known kinds: mock, openai,',
    ],
    [
      "a provider named for its product",
      { providers: [{ slug: "p", provider: "gemini" }] },
      'providers[0].provider: "gemini" is not a provider guardgate can call; did you mean google? Known kinds: mock, openai,',
    ],
    [
      "a misspelt provider",
      { providers: [{ slug: "p", provider: "antropic" }] },
      'providers[0].provider: "antropic" is not a provider guardgate can call; did you mean anthropic?',
    ],
    ["a provider with no way to reach it", { providers: [{ slug: "p", provider: "openai" }] }, "providers[0]: a provider needs"],
    [
      "a provider option the kind does not know, named by the file's own path",
      { providers: [{ slug: "p", provider: "bedrock", options: { aws_regoin: "eu-west-1" } }] },
      "providers[0].options.aws_regoin: is not a known key; did you mean aws_region?",
    ],
  ])("%s", async (_name, file, message) => {
    await expect(buildApp({ file, logger: false })).rejects.toThrow(message);
  });
});
