import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TestPlane, tenant, testPlane } from "../../test/support/management.js";
import { openStore } from "../store/open.js";
import { OPERATOR } from "./actor.js";
import { GatewaySources } from "./gateway-sources.js";

let plane: TestPlane;
let sources: GatewaySources;
beforeEach(async () => {
  plane = await testPlane({ pollMs: 20 });
  sources = new GatewaySources(plane.management.context);
});
afterEach(async () => {
  sources.close();
  await plane.close();
});

describe("GatewaySources", () => {
  it("verifies keys by hash, caches them, and forgets a revoked key at once", async () => {
    const t = await tenant(plane.management);
    const key = t.keys.memberA.key;
    const identity = await sources.apiKeys.verify(key);
    expect(identity).toEqual({
      id: t.keys.memberA.api_key.id,
      workspaceId: t.a.id,
      name: t.keys.memberA.api_key.name,
      organizationId: t.org.id,
      role: "member",
    });
    const reads = sources.storeReads;
    for (let i = 0; i < 20; i++) await sources.apiKeys.verify(key);
    expect(sources.storeReads).toBe(reads);
    expect(await sources.apiKeys.verify(`${key}x`)).toBeUndefined();
    // An organization-level admin key is not a gateway key, but it is an admin identity.
    expect(await sources.apiKeys.verify(t.keys.orgAdmin.key)).toBeUndefined();
    expect(await sources.verifyAny(t.keys.orgAdmin.key)).toMatchObject({ role: "org_admin", workspaceId: null });
    await plane.management.apiKeys.delete(t.actors.adminA, t.keys.memberA.api_key.id);
    expect(await sources.apiKeys.verify(key)).toBeUndefined();
  });

  it("serves a guardrail from memory until it changes, then the new version", async () => {
    const t = await tenant(plane.management);
    const m = plane.management;
    await m.guardrails.create(t.actors.adminA, t.a.id, {
      id: "g",
      checks: [{ id: "default.wordCount", parameters: { maxWords: 5 } }],
    });
    const first = await sources.guardrails.get("g", { workspaceId: t.a.id });
    expect(first?.checks[0]?.parameters).toEqual({ maxWords: 5 });
    const reads = sources.storeReads;
    await sources.guardrails.get("g", { workspaceId: t.a.id });
    expect(sources.storeReads).toBe(reads);
    const invalidated: string[] = [];
    sources.onInvalidate((e) => invalidated.push(e.entity));
    await m.guardrails.update(t.actors.adminA, t.a.id, "g", {
      checks: [{ id: "default.wordCount", parameters: { maxWords: 9 } }],
    });
    expect((await sources.guardrails.get("g", { workspaceId: t.a.id }))?.checks[0]?.parameters).toEqual({ maxWords: 9 });
    expect(invalidated).toContain("guardrail");
    expect(await sources.guardrails.get("g", { workspaceId: t.b.id })).toBeUndefined();
    expect(await sources.guardrails.get("g")).toBeUndefined();
  });

  it("resolves providers with opened credentials and limits, scoped to the workspace", async () => {
    const t = await tenant(plane.management);
    const m = plane.management;
    const integration = await m.integrations.create(OPERATOR, t.org.id, {
      slug: "oa",
      provider: "openai",
      base_url: "https://example.test/v1",
      credentials: { api_key: "sk-test-credential" },
      allowed_models: ["gpt-4o", "gpt-4o-mini"],
    });
    await m.integrations.provision(OPERATOR, integration.id, t.a.id, { rate_limit: { requests_per_minute: 5 } });
    await m.providers.create(t.actors.adminA, t.a.id, {
      slug: "team",
      integration_id: integration.id,
      budget: { limit: 1, period: "total" },
      allowed_models: ["gpt-4o-mini"],
    });
    const team = await sources.providers.get("team", { workspaceId: t.a.id });
    expect(team).toMatchObject({
      slug: "team",
      provider: "openai",
      baseUrl: "https://example.test/v1",
      apiKey: "sk-test-credential",
      allowedModels: ["gpt-4o-mini"],
      integrationId: integration.id,
    });
    expect(team?.limits.map((l) => l.key)).toEqual([`provisioning:${integration.id}:${t.a.id}`, `provider:${team?.providerId}`]);
    expect(await sources.providers.get("team", { workspaceId: t.b.id })).toBeUndefined();
    // Withdrawing the integration removes the provider from the workspace at once.
    await m.integrations.unprovision(OPERATOR, integration.id, t.a.id);
    expect(await sources.providers.get("oa", { workspaceId: t.a.id })).toBeUndefined();
  });

  it("drops everything when another process writes to the store", async () => {
    const t = await tenant(plane.management);
    const key = t.keys.memberA.key;
    expect(await sources.apiKeys.verify(key)).toBeDefined();
    const other = await openStore({ dataDir: plane.dir, env: {}, externalChangePollMs: 0 });
    await other.store.apiKeys.delete(t.keys.memberA.api_key.id);
    await other.store.close();
    await expect.poll(() => sources.apiKeys.verify(key)).toBeUndefined();
  });
});
