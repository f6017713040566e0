import { describe, expect, it } from "vitest";
import { canonicalTarget } from "../providers/canonical-target.js";
import { inScope, mayMatchUnder, modelMatches, requestModel, targetNames } from "./scope.js";
import type { PolicyScopeRule } from "../sources/types.js";

describe("model patterns", () => {
  it("matches `*` against any run of characters, slashes included, and nothing else specially", () => {
    expect(modelMatches("@openai/*", "@openai/gpt-4o")).toBe(true);
    expect(modelMatches("@openai/*", "@anthropic/claude")).toBe(false);
    expect(modelMatches("*-mini", "@openai/gpt-4o-mini")).toBe(true);
    expect(modelMatches("*", "anything/at/all")).toBe(true);
    expect(modelMatches("@openai/gpt-4o", "@openai/gpt-4o-mini")).toBe(false);
    // A dot or a bracket is itself, not a regular-expression character.
    expect(modelMatches("@a/m.1", "@a/mx1")).toBe(false);
    expect(modelMatches("@a/[x]", "@a/[x]")).toBe(true);
  });

  it("names a bare model with the config's provider slug, and leaves other names as written", () => {
    expect(requestModel("gpt-4o", "@openai")).toBe("@openai/gpt-4o");
    expect(requestModel("@openai/gpt-4o", "@other")).toBe("@openai/gpt-4o");
    expect(requestModel("gpt-4o", "openai")).toBe("gpt-4o");
    expect(requestModel(undefined, "@openai")).toBeUndefined();
    expect(requestModel(42, undefined)).toBeUndefined();
  });
});

describe("scopes", () => {
  const request = { workspaceId: "ws1", apiKeyId: "k1", model: "@openai/gpt-4o" };

  it("holds every request when empty, and needs every list given to match", () => {
    expect(inScope({}, request)).toBe(true);
    expect(inScope({ workspaces: [], api_keys: [] }, request)).toBe(true);
    expect(inScope({ workspaces: ["ws1"], api_keys: ["k1"], models: ["@openai/*"] }, request)).toBe(true);
    expect(inScope({ workspaces: ["ws1"], api_keys: ["k2"] }, request)).toBe(false);
    expect(inScope({ models: ["@anthropic/*"] }, request)).toBe(false);
  });

  it("does not apply a model-scoped policy to a request that names no model", () => {
    expect(inScope({ models: ["*"] }, { workspaceId: "ws1", apiKeyId: "k1" })).toBe(false);
  });

  it("matches a target by the provider it resolved to: a slug's target is @slug/model, even with no model", () => {
    const scr = { kind: "http" as const, name: "openai", slug: "scr" };
    expect(targetNames(canonicalTarget(scr, "gpt-4o"))).toEqual(["@scr/gpt-4o", "openai:gpt-4o"]);
    expect(targetNames(canonicalTarget(scr, undefined))).toEqual(["@scr/"]);
    expect(inScope({ models: ["@scr/*"] }, { ...request, targets: [canonicalTarget(scr, undefined)] })).toBe(true);
    expect(targetNames(canonicalTarget({ kind: "mock", name: "mock" }, "m"))).toContain("@mock/m");
    expect(targetNames(canonicalTarget({ kind: "http", name: "openai" }, "gpt-4o"))).toContain("gpt-4o");
    expect(targetNames(canonicalTarget({ kind: "http", name: "openai" }, ""))).toEqual([]);
    // A logged request (provider label and model sent) is matched as its target was.
    expect(targetNames(canonicalTarget({ kind: "mock", name: "mock" }, "m"))).toContain(requestModel("m", "mock"));
    expect(targetNames(canonicalTarget(scr, "gpt-4o"))).toContain(requestModel("gpt-4o", "@scr"));
  });

  it("holds a request when any of its targets is in scope, and matches letters in either case", () => {
    const targets = [
      canonicalTarget({ kind: "mock", name: "mock" }, "m"),
      canonicalTarget({ kind: "http", name: "google", slug: "gem" }, "Gemini-2.0-Flash"),
    ];
    expect(inScope({ models: ["@gem/gemini-*"] }, { ...request, targets })).toBe(true);
    expect(inScope({ models: ["@other/*"] }, { ...request, targets })).toBe(false);
  });

  it("says whether a pattern could name a model under a prefix", () => {
    expect(mayMatchUnder("@bed/*", "@bed/")).toBe(true);
    expect(mayMatchUnder("@b*", "@bed/")).toBe(true);
    expect(mayMatchUnder("*x", "@bed/")).toBe(true);
    expect(mayMatchUnder("@bed/m", "@bed/")).toBe(true);
    expect(mayMatchUnder("@bed", "@bed/")).toBe(false);
    expect(mayMatchUnder("@gem/*", "@bed/")).toBe(false);
  });
});

describe("scopes over tool traffic", () => {
  const tool = (server: string, name?: string) => ({
    workspaceId: "ws",
    apiKeyId: "key",
    tool: { server, ...(name !== undefined && { name }) },
  });
  it.each([
    [{}, tool("files", "read"), false],
    [{ mcp_servers: ["*"] }, tool("files", "read"), true],
    [{ mcp_servers: ["files"] }, tool("files", "read"), true],
    [{ mcp_servers: ["files"] }, tool("mail", "send"), false],
    [{ mcp_servers: ["Files"] }, tool("files", "read"), false],
    [{ tools: ["send_*"] }, tool("mail", "send_mail"), true],
    [{ tools: ["send_*"] }, tool("mail"), false],
    [{ mcp_servers: ["mail"], tools: ["send_*"] }, tool("mail", "read_mail"), false],
    [{ models: ["*"] }, tool("files", "read"), false],
    [{ mcp_servers: ["*"], workspaces: ["other"] }, tool("files", "read"), false],
  ] as const)("%j holds %j: %s", (scope, request, held) => {
    expect(inScope(scope as PolicyScopeRule, request)).toBe(held);
  });

  it("a scope naming servers or tools never holds model traffic", () => {
    expect(inScope({ mcp_servers: ["*"] }, { workspaceId: "ws", apiKeyId: "key", model: "@openai/gpt-4o" })).toBe(false);
    expect(inScope({ tools: ["*"] }, { workspaceId: "ws", apiKeyId: "key", model: "@openai/gpt-4o" })).toBe(false);
    expect(inScope({}, { workspaceId: "ws", apiKeyId: "key", model: "@openai/gpt-4o" })).toBe(true);
  });
});
