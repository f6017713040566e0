/**
 * What the store commands share: opening the data folder's store as the operator, with an engine
 * registry (the built-in checks plus `--plugin`s, or the plugins of a `--config` file) for
 * validating guardrails as the gateway would.
 */
import { type CheckRegistry, createEngine, type Engine, GuardgateError } from "../core/index.js";
import type { ManagementOptions } from "../server/management/context.js";
import { Management } from "../server/management/index.js";
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

/** An open store whose management service can read and write records but validates no configs (`checks: false`). */
export type StoreOnlyAccess = Omit<StoreAccess, "engine">;

interface StoreAccessOptions {
  dataDir?: string;
  plugins?: string[];
  config?: string;
  /** How checks run; the engine's default when absent (`pool` for work off the request path, such as replay). */
  executor?: "pool";
}

/**
 * Opens the store of `dataDir` (or GUARDGATE_DATA_DIR, or ./.guardgate). With `checks: false`
 * (actions that save no guardrail, policy, config or integration: keys, orgs, logs, MCP servers,
 * listing and deleting policies, listing and removing credentials) no engine is built and no validator
 * loaded, which is most of a command's start-up; the management service then refuses, loudly,
 * any action that would validate. Named plugins or a config file are loaded
 * all the same, so a bad one is reported whatever the command.
 */
export async function openStoreAccess(options: StoreAccessOptions & { checks: false }): Promise<StoreOnlyAccess>;
export async function openStoreAccess(options: StoreAccessOptions & { checks?: true }): Promise<StoreAccess>;
export async function openStoreAccess(options: StoreAccessOptions & { checks?: boolean }): Promise<StoreOnlyAccess>;
export async function openStoreAccess(options: StoreAccessOptions & { checks?: boolean }): Promise<StoreOnlyAccess> {
  const plugins = [...(options.plugins ?? [])];
  let baseDir: string | undefined;
  if (options.config) {
    // Loaded only when named: the config file's schema is compiled when its module loads.
    const { loadGatewayFile } = await import("../server/sources/config-file.js");
    const loaded = await loadGatewayFile(options.config);
    plugins.push(...(loaded.file.plugins ?? []));
    baseDir = loaded.dir;
  }
  const withChecks = options.checks !== false || plugins.length > 0;
  const engine = withChecks
    ? await createEngine({
        // The built-in list imports every partner plugin's module for its facts: loaded only here.
        builtins: (await import("../plugins/builtin.js")).builtinPlugins,
        plugins,
        ...(baseDir && { baseDir }),
        ...(options.executor && { executor: options.executor }),
      })
    : undefined;
  const validators = engine ? await configValidators(engine.registry) : unloadedValidators();
  let opened;
  try {
    opened = await openStore({
      ...(options.dataDir && { dataDir: options.dataDir }),
      // Only `guardgate serve` creates a store: a command in the wrong folder says where it looked.
      create: false,
      // A command is short-lived: no need to watch for other processes' writes.
      externalChangePollMs: 0,
      onKeyGenerated: (file) => process.stderr.write(`guardgate: generated a secret key in ${file} (mode 0600)\n`),
    });
  } catch (error) {
    await engine?.close();
    throw error;
  }
  const store = opened.store;
  const management = new Management({ store, box: opened.box, ...validators });
  return {
    management,
    dataDir: opened.dataDir,
    ...(engine && { engine }),
    async close() {
      await store.close();
      await engine?.close();
    },
  };
}

type Validators = Pick<ManagementOptions, "registry" | "validateGatewayKeys" | "isProviderKind" | "checkProviderOptions">;

/** The gateway's own validators for what the management service saves; loaded only by commands that save configs. */
async function configValidators(registry: CheckRegistry): Promise<Validators> {
  const [{ validateGatewayConfig }, { isKnownProvider }, { checkProviderOptions }] = await Promise.all([
    import("../server/routing/schema.js"),
    import("../server/providers/catalog.js"),
    import("../server/providers/options.js"),
  ]);
  return {
    registry,
    validateGatewayKeys: (config) => validateGatewayConfig(config, ""),
    isProviderKind: isKnownProvider,
    checkProviderOptions,
  };
}

/** Validators for a store opened with `checks: false`: any use is a mistake in the command, never a silent pass. */
function unloadedValidators(): Validators {
  const unloaded = (): never => {
    throw new Error("this command opened the store without its validators");
  };
  return { registry: unloaded, validateGatewayKeys: unloaded, isProviderKind: unloaded, checkProviderOptions: unloaded };
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
export async function organizationOf(access: StoreOnlyAccess, id: string | undefined): Promise<Organization> {
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
export async function workspaceOf(
  access: StoreOnlyAccess,
  organization: Organization,
  id: string | undefined,
): Promise<Workspace> {
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
