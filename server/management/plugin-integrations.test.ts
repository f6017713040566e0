import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TestPlane, tenant, testPlane } from "../../test/support/management.js";
import { OPERATOR } from "./actor.js";
import { GatewaySources } from "./gateway-sources.js";

let plane: TestPlane;
beforeEach(async () => {
  plane = await testPlane();
});
afterEach(() => plane.close());

describe("plugin integrations", () => {
  it("org admins hold the organization's; workspace admins their workspace's own, when allowed; members neither", async () => {
    const m = plane.management.pluginIntegrations;
    const t = await tenant(plane.management);
    const credentials = { token: "held-token-0123456789" };
    await expect(m.create(t.actors.adminA, t.org.id, { plugin: "test", credentials })).rejects.toMatchObject({
      status: 403,
      code: "role_forbidden",
    });
    await expect(
      m.create(t.actors.adminA, t.org.id, { plugin: "test", workspace_id: t.a.id, credentials }),
    ).rejects.toMatchObject({
      status: 403,
      code: "workspace_integrations_disabled",
    });
    await expect(
      m.create(t.actors.orgAdmin, t.org.id, { plugin: "test", workspaces: [t.a.id, "ws_nowhere"], credentials }),
    ).rejects.toMatchObject({ status: 404, message: 'workspaces[1]: workspace "ws_nowhere" does not exist' });
    const shared = await m.create(t.actors.orgAdmin, t.org.id, { plugin: "test", workspaces: [t.a.id], credentials });
    await plane.management.organizations.update(OPERATOR, t.org.id, { allow_workspace_integrations: true });
    await expect(
      m.create(t.actors.memberA, t.org.id, { plugin: "test", workspace_id: t.a.id, credentials }),
    ).rejects.toMatchObject({
      status: 403,
    });
    const own = await m.create(t.actors.adminA, t.org.id, { plugin: "test", workspace_id: t.a.id, credentials });
    // Workspace B's admin sees neither (A's own, and the organization's that serves A only).
    await expect(m.get(t.actors.adminB, own.id)).rejects.toMatchObject({ status: 404 });
    await expect(m.get(t.actors.adminB, shared.id)).rejects.toMatchObject({ status: 404 });
    expect((await m.list(t.actors.memberA, t.org.id)).map((r) => r.id).sort()).toEqual([own.id, shared.id].sort());
    await expect(m.update(t.actors.adminA, shared.id, { credentials })).rejects.toMatchObject({ status: 403 });
    await expect(m.update(t.actors.adminA, own.id, { workspaces: "all" })).rejects.toMatchObject({ status: 400 });
    await m.delete(t.actors.adminA, own.id);
    expect(JSON.stringify(await m.list(t.actors.orgAdmin, t.org.id))).not.toContain(credentials.token);
  });

  it("the gateway opens a workspace's credentials once, and again only after a change", async () => {
    const t = await tenant(plane.management);
    const sources = new GatewaySources(plane.management.context);
    try {
      const m = plane.management.pluginIntegrations;
      const record = await m.create(OPERATOR, t.org.id, { plugin: "test", credentials: { token: "first-token" } });
      expect(await sources.pluginCredentials.forWorkspace(t.a.id)).toEqual({ test: { token: "first-token" } });
      const reads = sources.storeReads;
      expect(await sources.pluginCredentials.forWorkspace(t.a.id)).toEqual({ test: { token: "first-token" } });
      expect(sources.storeReads).toBe(reads);
      await m.update(OPERATOR, record.id, { credentials: { token: "second-token" } });
      expect(await sources.pluginCredentials.forWorkspace(t.a.id)).toEqual({ test: { token: "second-token" } });
      expect(sources.storeReads).toBeGreaterThan(reads);
      await m.update(OPERATOR, record.id, { workspaces: [t.b.id] });
      expect(await sources.pluginCredentials.forWorkspace(t.a.id)).toEqual({});
      expect(await sources.pluginCredentials.forWorkspace("ws_unknown")).toEqual({});
    } finally {
      sources.close();
    }
  });
});
