/**
 * A management plane over a real SQLite file in a temporary folder, for tests: the store, its
 * secret box, an engine registry with the test plugins, and helpers to make an organization with a
 * workspace and keys.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEngine, defineCheck, definePlugin, type Engine } from "../../index.js";
import { type Actor, Management, OPERATOR } from "../../server/management/index.js";
import { openStore } from "../../server/store/open.js";
import type { Store } from "../../server/store/repository.js";
import type { SecretBox } from "../../server/store/secret-box.js";
import type { PlanName, Role } from "../../server/store/types.js";
import testPlugin from "./test-plugin.js";

/** A PRO-class plugin, for plan gating. */
export const proPlugin = definePlugin({
  id: "pro",
  class: "PRO",
  apiVersion: 1,
  checks: [
    defineCheck({
      id: "always",
      description: "Always passes.",
      sides: ["input", "output"],
      parameters: { type: "object", properties: {}, additionalProperties: false },
      run: () => ({ verdict: true }),
    }),
  ],
});

export interface TestPlane {
  dir: string;
  store: Store;
  box: SecretBox;
  engine: Engine;
  management: Management;
  close(): Promise<void>;
}

/** Opens a fresh store in a temporary folder. */
export async function testPlane(options: { env?: NodeJS.ProcessEnv; pollMs?: number } = {}): Promise<TestPlane> {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-store-"));
  const { store, box } = await openStore({
    dataDir: dir,
    env: options.env ?? {},
    externalChangePollMs: options.pollMs ?? 0,
  });
  const engine = await createEngine({ plugins: [testPlugin, proPlugin] });
  const management = new Management({ store, box, registry: engine.registry });
  return {
    dir,
    store,
    box,
    engine,
    management,
    async close() {
      await store.close();
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An actor for a key record. */
export function actorOf(key: { id: string; organization_id: string; workspace_id: string | null; role: Role }): Actor {
  return { kind: "key", key_id: key.id, organization_id: key.organization_id, workspace_id: key.workspace_id, role: key.role };
}

/** An organization with two workspaces and a key of every role. */
export async function tenant(management: Management, plan: PlanName = "enterprise", guardrails = true) {
  const org = await management.organizations.create(OPERATOR, { name: "Acme", plan, guardrails_enabled: guardrails });
  const a = await management.workspaces.create(OPERATOR, org.id, { name: "A" });
  const b = await management.workspaces.create(OPERATOR, org.id, { name: "B" });
  const key = async (role: Role, workspace: string | null) =>
    management.apiKeys.create(OPERATOR, org.id, { name: `${role} ${workspace}`, role, workspace_id: workspace });
  const orgAdmin = await key("org_admin", null);
  const adminA = await key("workspace_admin", a.id);
  const memberA = await key("member", a.id);
  const adminB = await key("workspace_admin", b.id);
  return {
    org,
    a,
    b,
    keys: { orgAdmin, adminA, memberA, adminB },
    actors: {
      orgAdmin: actorOf(orgAdmin.api_key),
      adminA: actorOf(adminA.api_key),
      memberA: actorOf(memberA.api_key),
      adminB: actorOf(adminB.api_key),
    },
  };
}
