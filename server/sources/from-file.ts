/**
 * The in-memory sources a config file seeds: API keys, providers, guardrails, saved configs and
 * plugin credentials,
 * each owned by the workspace the file names (or shared when it names none, keys excepted: a key
 * always belongs to a workspace, `default` when omitted).
 */
import path from "node:path";
import { ConfigError, type GuardrailDefinition } from "../../core/index.js";
import type { FileMcpServer, GatewayFile } from "./config-file.js";
import {
  InMemoryApiKeySource,
  InMemoryConfigSource,
  InMemoryMcpServerSource,
  InMemoryPluginCredentialSource,
  InMemoryProviderSource,
  InMemoryScopedGuardrailSource,
} from "./memory.js";
import type { McpServerRecord } from "./types.js";

/** The workspace of keys that name none. */
export const DEFAULT_WORKSPACE = "default";

/** An MCP server entry as a record; throws a ConfigError naming the entry when its fields disagree. */
export function mcpServerFromFile(entry: FileMcpServer, where: string, baseDir: string): McpServerRecord {
  const transport = entry.transport ?? (entry.command !== undefined ? "stdio" : "streamable_http");
  const local = transport === "stdio";
  if (local && entry.command === undefined) throw new ConfigError(where, "a stdio MCP server needs a `command`");
  if (!local && entry.url === undefined) throw new ConfigError(where, `an MCP server over ${transport} needs a \`url\``);
  const misplaced = local
    ? (["url", "headers", "bearer_token"] as const).find((key) => entry[key] !== undefined)
    : (["command", "args", "env", "cwd"] as const).find((key) => entry[key] !== undefined);
  if (misplaced)
    throw new ConfigError(`${where}.${misplaced}`, `\`${misplaced}\` does not apply to an MCP server over ${transport}`);
  return {
    name: entry.name,
    transport,
    ...(entry.url !== undefined && { url: entry.url }),
    ...(entry.command !== undefined && {
      stdio: {
        command: entry.command,
        ...(entry.args && { args: entry.args }),
        ...(entry.env && { env: entry.env }),
        cwd: path.resolve(baseDir, entry.cwd ?? "."),
      },
    }),
    ...(entry.headers && { headers: entry.headers }),
    ...(entry.bearer_token !== undefined && { bearerToken: entry.bearer_token }),
    ...(entry.workspace && { workspaceId: entry.workspace }),
    ...(entry.answers && { answers: entry.answers }),
    ...(entry.tools && { tools: { allow: entry.tools.allow ?? "all", deny: entry.tools.deny ?? [] } }),
    ...(entry.pinning && { pinning: entry.pinning }),
    ...(entry.tool_pack && { toolPack: entry.tool_pack }),
    trusted: true,
  };
}

/** In-memory sources holding a file's records; `baseDir` is the file's folder (a stdio server's default folder). */
export function sourcesFromFile(
  file: GatewayFile,
  baseDir = process.cwd(),
): {
  apiKeys: InMemoryApiKeySource;
  providers: InMemoryProviderSource;
  guardrails: InMemoryScopedGuardrailSource;
  configs: InMemoryConfigSource;
  /** Absent when the file holds none, so phases skip the lookup. */
  pluginCredentials: InMemoryPluginCredentialSource | undefined;
  mcpServers: InMemoryMcpServerSource;
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
    mcpServers: new InMemoryMcpServerSource(
      (file.mcp_servers ?? []).map((entry, index) => mcpServerFromFile(entry, `mcp_servers[${index}]`, baseDir)),
    ),
  };
}
