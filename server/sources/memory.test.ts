import { describe, expect, it } from "vitest";
import { InMemoryApiKeySource, InMemoryConfigSource, InMemoryProviderSource, InMemoryScopedGuardrailSource } from "./memory.js";

describe("InMemoryApiKeySource", () => {
  it("verifies keys and returns an identity that never holds the key", async () => {
    const keys = new InMemoryApiKeySource([{ key: "gk-alpha-0123456789", workspaceId: "team-a", name: "ci" }]);
    const identity = await keys.verify("gk-alpha-0123456789");
    expect(identity).toMatchObject({ workspaceId: "team-a", name: "ci" });
    expect(JSON.stringify(identity)).not.toContain("gk-alpha");
    expect(await keys.verify("gk-alpha-0123456780")).toBeUndefined();
    expect(await keys.verify("")).toBeUndefined();
  });
});

describe("scoped sources", () => {
  it("a workspace sees its own records and shared ones, its own winning", async () => {
    const providers = new InMemoryProviderSource([
      { slug: "llm", provider: "openai", apiKey: "shared" },
      { slug: "llm", provider: "openai", apiKey: "team-a", workspaceId: "a" },
      { slug: "private", provider: "openai", workspaceId: "b" },
    ]);
    expect((await providers.get("llm", { workspaceId: "a" }))?.apiKey).toBe("team-a");
    expect((await providers.get("llm", { workspaceId: "c" }))?.apiKey).toBe("shared");
    expect(await providers.get("private", { workspaceId: "a" })).toBeUndefined();
    expect(await providers.get("private", { workspaceId: "b" })).toBeDefined();
  });

  it("configs and guardrails are scoped the same way; guardrail records lose their owner field", async () => {
    const configs = new InMemoryConfigSource([{ id: "c", config: { provider: "mock" }, workspaceId: "a" }]);
    expect(await configs.get("c", { workspaceId: "b" })).toBeUndefined();
    const guardrails = new InMemoryScopedGuardrailSource([{ id: "g", checks: [{ id: "default.wordCount" }], workspaceId: "a" }]);
    expect(await guardrails.get("g", { workspaceId: "a" })).toEqual({ id: "g", checks: [{ id: "default.wordCount" }] });
    expect(await guardrails.get("g", { workspaceId: "b" })).toBeUndefined();
  });
});
