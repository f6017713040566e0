/**
 * The in-memory sources a config file seeds: API keys, providers, guardrails, saved configs and
 * plugin credentials,
 * each owned by the workspace the file names (or shared when it names none, keys excepted: a key
 * always belongs to a workspace, `default` when omitted).
 */
import type { GuardrailDefinition } from "../../core/index.js";
import type { GatewayFile } from "../config-file.js";
import {
  InMemoryApiKeySource,
  InMemoryConfigSource,
  InMemoryPluginCredentialSource,
  InMemoryProviderSource,
  InMemoryScopedGuardrailSource,
} from "./memory.js";

/** The workspace of keys that name none. */
export const DEFAULT_WORKSPACE = "default";

/** In-memory sources holding a file's records. */
export function sourcesFromFile(file: GatewayFile): {
  apiKeys: InMemoryApiKeySource;
  providers: InMemoryProviderSource;
  guardrails: InMemoryScopedGuardrailSource;
  configs: InMemoryConfigSource;
  /** Absent when the file holds none, so phases skip the lookup. */
  pluginCredentials: InMemoryPluginCredentialSource | undefined;
} {
  return {
    apiKeys: new InMemoryApiKeySource(
      (file.api_keys ?? []).map((k) => ({
        key: k.key,
        workspaceId: k.workspace ?? DEFAULT_WORKSPACE,
        ...(k.name && { name: k.name }),
      })),
    ),
    providers: new InMemoryProviderSource(
      (file.providers ?? []).map((p) => ({
        slug: p.slug,
        provider: p.provider,
        ...(p.base_url && { baseUrl: p.base_url }),
        ...(p.api_key && { apiKey: p.api_key }),
        ...(p.headers && { headers: p.headers }),
        ...(p.options && { options: p.options }),
        ...(p.workspace && { workspaceId: p.workspace }),
      })),
    ),
    // A record's fields are checked against the engine when the app is built (app.ts, checkFile).
    guardrails: new InMemoryScopedGuardrailSource(
      (file.guardrails ?? []).map(({ workspace, ...definition }) => ({
        ...(definition as unknown as GuardrailDefinition),
        ...(workspace && { workspaceId: workspace }),
      })),
    ),
    configs: new InMemoryConfigSource(
      (file.configs ?? []).map((c) => ({ id: c.id, config: c.config, ...(c.workspace && { workspaceId: c.workspace }) })),
    ),
    pluginCredentials: file.plugin_credentials?.length
      ? new InMemoryPluginCredentialSource(
          file.plugin_credentials.map((c) => ({
            plugin: c.plugin,
            credentials: c.credentials,
            ...(c.workspace && { workspaceId: c.workspace }),
          })),
        )
      : undefined,
  };
}
