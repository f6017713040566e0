import { describe, expect, it } from "vitest";
import { InMemoryProviderSource } from "../sources/memory.js";
import { ProviderResolver } from "./resolve.js";

describe("ProviderResolver.bySlug", () => {
  const record = { slug: "oa", provider: "openai", baseUrl: "https://api.example.test/v1/", apiKey: "sk-record-key-0001" };

  it("makes a record's provider once, not per request, and again once the record changes", async () => {
    const source = new InMemoryProviderSource([record]);
    const resolver = new ProviderResolver(source);
    const first = await resolver.bySlug("oa", { workspaceId: "w1" });
    expect(first).toMatchObject({ kind: "http", slug: "oa", baseUrl: "https://api.example.test/v1", identity: "slug:oa|w1" });
    expect(await resolver.bySlug("oa", { workspaceId: "w1" })).toBe(first);
    // The identity names the workspace: another scope gets its own.
    const other = await resolver.bySlug("oa", { workspaceId: "w2" });
    expect(other).not.toBe(first);
    expect(other).toMatchObject({ identity: "slug:oa|w2" });
    source.set({ ...record, apiKey: "sk-record-key-0002" });
    const changed = await resolver.bySlug("oa", { workspaceId: "w2" });
    expect(changed).toMatchObject({ secret: "sk-record-key-0002" });
    expect(changed).not.toBe(other);
  });
});
