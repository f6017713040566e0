/**
 * What the store commands share: opening the data folder's store as the operator, with an engine
 * registry (the built-in checks plus `--plugin`s, or the plugins of a `--config` file) for
 * validating guardrails as the gateway would.
 */
import { createEngine, type Engine, GuardgateError } from "../core/index.js";
import { builtinPlugins } from "../plugins/builtin.js";
import { loadGatewayFile } from "../server/sources/config-file.js";
import { Management } from "../server/management/index.js";
import { validateGatewayConfig } from "../server/routing/schema.js";
import { isKnownProvider } from "../server/providers/catalog.js";
import { checkProviderOptions } from "../server/providers/options.js";
import { openStore } from "../server/store/open.js";
import type { Organization, Workspace } from "../server/store/types.js";
import { UsageError } from "./usage-error.js";

export { UsageError };

/** A feedback value from a flag (`--feedback-min`, `--feedback-max`): an integer from -10 to 10. */
export function feedbackFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === "" || !Number.isInteger(number) || number < -10 || number > 10)
    throw new UsageError(`${flag} must be an integer from -10 to 10`);
  return number;
}

/** An open store with its management service. */
export interface StoreAccess {
  management: Management;
  dataDir: string;
  engine: Engine;
  close(): Promise<void>;
}

/** Opens the store of `dataDir` (or GUARDGATE_DATA_DIR, or ./.guardgate). */
export async function openStoreAccess(options: {
  dataDir?: string;
  plugins?: string[];
  config?: string;
  /** How checks run; the engine's default when absent (`pool` for work off the request path, such as replay). */
  executor?: "pool";
}): Promise<StoreAccess> {
  const plugins = [...(options.plugins ?? [])];
  let baseDir: string | undefined;
  if (options.config) {
    const loaded = await loadGatewayFile(options.config);
    plugins.push(...(loaded.file.plugins ?? []));
    baseDir = loaded.dir;
  }
  const engine = await createEngine({
    builtins: builtinPlugins,
    plugins,
    ...(baseDir && { baseDir }),
    ...(options.executor && { executor: options.executor }),
  });
  const opened = await openStore({
    ...(options.dataDir && { dataDir: options.dataDir }),
    // Only `guardgate serve` creates a store: a command in the wrong folder says where it looked.
    create: false,
    // A command is short-lived: no need to watch for other processes' writes.
    externalChangePollMs: 0,
    onKeyGenerated: (file) => process.stderr.write(`guardgate: generated a secret key in ${file} (mode 0600)\n`),
  });
  const management = new Management({
    store: opened.store,
    box: opened.box,
    registry: engine.registry,
    validateGatewayKeys: (config) => validateGatewayConfig(config, ""),
    isProviderKind: isKnownProvider,
    checkProviderOptions,
  });
  return {
    management,
    dataDir: opened.dataDir,
    engine,
    async close() {
      await opened.store.close();
      await engine.close();
    },
  };
}

/** The `openStoreAccess` options that a command's --data-dir, --plugin and --config flags give. */
export function storeOptionsOf(values: {
  "data-dir"?: string | undefined;
  plugin?: string[] | undefined;
  config?: string | undefined;
}): { dataDir?: string; plugins?: string[]; config?: string } {
  return {
    ...(values["data-dir"] && { dataDir: values["data-dir"] }),
    ...(values.plugin && { plugins: values.plugin }),
    ...(values.config && { config: values.config }),
  };
}

/** The organization to act in: the one named, else the only (first) one. */
export async function organizationOf(access: StoreAccess, id: string | undefined): Promise<Organization> {
  const store = access.management.context.store;
  const organization = id ? await store.organizations.get(id) : (await store.organizations.list())[0];
  if (!organization) {
    throw new UsageError(
      id
        ? `no organization "${id}" in the store at ${access.dataDir}`
        : `the store at ${access.dataDir} is empty; start \`guardgate serve\` once to create the first organization`,
    );
  }
  return organization;
}

/** The workspace to act in: the one named, else the organization's first. */
export async function workspaceOf(access: StoreAccess, organization: Organization, id: string | undefined): Promise<Workspace> {
  const store = access.management.context.store;
  const workspace = id ? await store.workspaces.get(id) : (await store.workspaces.list(organization.id))[0];
  if (!workspace || workspace.organization_id !== organization.id) {
    throw new UsageError(
      id ? `no workspace "${id}" in organization ${organization.id}` : `organization ${organization.id} has no workspace`,
    );
  }
  return workspace;
}

/**
 * Runs a command body: a usage mistake prints its message and exits 2; a refusal of the store or
 * its rules (a guardrail that does not validate, a plan that forbids it) prints it and exits 1.
 */
export async function runCommand(name: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (error instanceof UsageError || code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`guardgate ${name}: ${(error as Error).message}\n`);
      return 2;
    }
    if (error instanceof GuardgateError) {
      process.stderr.write(`guardgate ${name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
