/**
 * First start with an empty store: one organization, one workspace with the `mock` provider, an
 * organization admin key and a workspace API key. The keys are returned to be printed once and
 * written to DIR/initial-keys.json (mode 0600); the store keeps only their hashes.
 */
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { OPERATOR } from "../management/actor.js";
import type { Management } from "../management/index.js";

/** The file the initial keys are written to, in the data folder. */
export const INITIAL_KEYS_FILE = "initial-keys.json";

/** What bootstrapping created. */
export interface InitialKeys {
  admin_key: string;
  api_key: string;
  organization_id: string;
  workspace_id: string;
}

/**
 * Creates the initial records when the store holds no organization; resolves to the keys and the
 * file they were written to, or undefined when the store was not empty.
 */
export async function bootstrap(
  management: Management,
  dataDir: string,
): Promise<{ keys: InitialKeys; file: string } | undefined> {
  if ((await management.context.store.organizations.list()).length > 0) return undefined;
  const organization = await management.organizations.create(OPERATOR, {
    name: "Default organization",
    // The operator of a self-hosted gateway is its only tenant: everything is enabled.
    plan: "enterprise",
    guardrails_enabled: true,
    allow_workspace_integrations: true,
  });
  await management.integrations.create(OPERATOR, organization.id, {
    slug: "mock",
    name: "Mock provider",
    provider: "mock",
    auto_provision: { budget: null, rate_limit: null },
  });
  // Created after the mock integration, so auto-provisioning gives it the `mock` provider.
  const workspace = await management.workspaces.create(OPERATOR, organization.id, { name: "Default workspace" });
  const admin = await management.apiKeys.create(OPERATOR, organization.id, { name: "Initial admin key", role: "org_admin" });
  const api = await management.apiKeys.create(OPERATOR, organization.id, {
    name: "Initial API key",
    role: "member",
    workspace_id: workspace.id,
  });
  const keys: InitialKeys = {
    admin_key: admin.key,
    api_key: api.key,
    organization_id: organization.id,
    workspace_id: workspace.id,
  };
  const file = path.join(dataDir, INITIAL_KEYS_FILE);
  writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync's mode applies only when it creates the file; an old file keeps its mode.
  chmodSync(file, 0o600);
  return { keys, file };
}
