import { describe, expect, it } from "vitest";
import { inScope, modelMatches, requestModel, targetModel } from "./scope.js";

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
    expect(targetModel({ kind: "http", slug: "scr" }, "gpt-4o")).toBe("@scr/gpt-4o");
    expect(targetModel({ kind: "http", slug: "scr" }, undefined)).toBe("@scr/");
    expect(inScope({ models: ["@scr/*"] }, { ...request, model: targetModel({ kind: "http", slug: "scr" }, undefined) })).toBe(
      true,
    );
    expect(targetModel({ kind: "mock" }, "m")).toBe("@mock/m");
    expect(targetModel({ kind: "http" }, "gpt-4o")).toBe("gpt-4o");
    expect(targetModel({ kind: "http" }, "")).toBeUndefined();
    // A logged request (provider label and model sent) is matched as its target was.
    expect(requestModel("m", "mock")).toBe(targetModel({ kind: "mock" }, "m"));
    expect(requestModel("gpt-4o", "@scr")).toBe(targetModel({ kind: "http", slug: "scr" }, "gpt-4o"));
  });
});
