/**
 * A config file's records checked against the engine before the gateway serves them: every
 * guardrail prepares, every provider is known and reachable, every plugin credential fits its
 * plugin and every config builds a routing. A failure names its path in the file.
 */
import { ConfigError, type Engine, type Side } from "../core/index.js";
import { prepareGuardrail } from "../core/internal.js";
import type { GatewayFile } from "./sources/config-file.js";
import { buildRouting } from "./routing/build.js";
import { isKnownProvider, isLocalKind, unknownProviderProblem } from "./providers/catalog.js";
import { checkProviderOptions } from "./providers/options.js";
import { DEFAULT_WORKSPACE } from "./sources/from-file.js";

/** Checks the file's records against the engine: every guardrail, provider and config must load. */
export async function checkFile(file: GatewayFile, engine: Engine): Promise<void> {
  for (const [index, record] of (file.guardrails ?? []).entries()) {
    const { workspace: _workspace, ...definition } = record;
    const sides: Side[] = definition.side === "input" || definition.side === "output" ? [definition.side] : ["input", "output"];
    let lastError: unknown;
    for (const side of sides) {
      try {
        prepareGuardrail(definition, { side, inline: false, path: `guardrails[${index}]`, registry: engine.registry });
        lastError = undefined;
        break;
      } catch (error) {
        lastError = error;
      }
    }
    if (lastError) throw lastError;
  }
  for (const [index, provider] of (file.providers ?? []).entries()) {
    if (!isKnownProvider(provider.provider)) {
      throw new ConfigError(`providers[${index}].provider`, unknownProviderProblem(provider.provider));
    }
    checkProviderOptions(provider.provider, provider.options, `providers[${index}].options`);
    const reachable =
      provider.api_key || provider.base_url || provider.options || provider.provider === "mock" || isLocalKind(provider.provider);
    if (!reachable) {
      throw new ConfigError(
        `providers[${index}]`,
        "a provider needs an api_key, options, or a base_url of a server that needs none",
      );
    }
  }
  for (const [index, entry] of (file.plugin_credentials ?? []).entries()) {
    if (!engine.registry.hasPlugin(entry.plugin)) {
      throw new ConfigError(`plugin_credentials[${index}].plugin`, `"${entry.plugin}" is not a loaded plugin`, "unknown_plugin");
    }
    engine.registry.validatePluginCredentials(entry.plugin, entry.credentials, `plugin_credentials[${index}].credentials`);
  }
  for (const [index, config] of (file.configs ?? []).entries()) {
    try {
      await buildRouting(config.config, engine, { workspaceId: config.workspace ?? DEFAULT_WORKSPACE });
    } catch (error) {
      if (error instanceof ConfigError) {
        throw new ConfigError(
          `configs[${index}].config${error.path ? `.${error.path}` : ""}`,
          error.message.replace(`${error.path}: `, ""),
          error.code,
        );
      }
      throw error;
    }
  }
}
