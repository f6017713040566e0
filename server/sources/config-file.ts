/**
 * The gateway's config file (JSON or YAML): API keys, providers, guardrails, saved configs,
 * plugins, plugin credentials, named model folders and settings, so a gateway can run from a file with no console. The
 * file is checked whole when loaded; a mistake stops the start with its path in the file.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import YAML from "yaml";
import { ConfigError } from "../../core/index.js";
import type { SchemaType } from "../schema-types.js";
import { compileValidator, type Validator } from "../schema.js";
import { PINNING_MODES, POLICY_MODES, policyScopeSchema, toolControlsSchema } from "../store/schemas.js";

const workspace = { type: "string", minLength: 1 } as const;
const fileSlug = { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*$" } as const;

const apiKeyEntry = {
  type: "object",
  properties: { key: { type: "string", minLength: 16 }, workspace, name: { type: "string" } },
  required: ["key"],
  additionalProperties: false,
} as const;

const providerEntry = {
  type: "object",
  description: "A provider entry (spec §2.6): a slug and its credentials.",
  properties: {
    slug: fileSlug,
    provider: { type: "string", minLength: 1 },
    base_url: { type: "string", pattern: "^https?://" },
    api_key: { type: "string", minLength: 1 },
    headers: { type: "object", additionalProperties: { type: "string" } },
    options: { type: "object", description: "The kind's settings, checked against its schema (server/providers/options.ts)." },
    workspace,
  },
  required: ["slug", "provider"],
  additionalProperties: false,
} as const;

const configEntry = {
  type: "object",
  properties: { id: { type: "string", pattern: "^[^{\\s]" }, config: { type: "object" }, workspace },
  required: ["id", "config"],
  additionalProperties: false,
} as const;

const policyEntry = {
  type: "object",
  description: "A policy (docs/policies.md): the admin API's body, with `workspace` for a workspace's own.",
  properties: {
    id: { type: "string", minLength: 1 },
    name: { type: "string", minLength: 1 },
    workspace,
    mode: { enum: [...POLICY_MODES] },
    scope: policyScopeSchema,
    // Each entry is checked as the admin API's body is, when the policy is saved.
    input_guardrails: { type: "array" },
    output_guardrails: { type: "array" },
  },
  required: ["id"],
  additionalProperties: false,
} as const;

const pluginCredentialsEntry = {
  type: "object",
  description:
    "Credentials the service holds for a plugin's checks (spec §1.7): for every workspace, or the named one (where they win over the shared ones).",
  properties: { plugin: { type: "string", minLength: 1 }, credentials: { type: "object", minProperties: 1 }, workspace },
  required: ["plugin", "credentials"],
  additionalProperties: false,
} as const;

const secretMap = { type: "object", additionalProperties: { type: "string" } } as const;

const mcpServerEntry = {
  type: "object",
  description:
    "An MCP server the gateway serves at /v1/mcp/{name} (docs/mcp.md): a remote one by `url`, or a local one the gateway starts by `command`.",
  properties: {
    name: fileSlug,
    workspace,
    transport: {
      enum: ["streamable_http", "sse", "stdio"],
      description:
        "`streamable_http` (default with `url`), `sse` (the older HTTP+SSE transport), `stdio` (default with `command`).",
    },
    url: { type: "string", pattern: "^https?://" },
    command: {
      type: "string",
      minLength: 1,
      description: "The program of a local server; started and supervised by the gateway.",
    },
    args: { type: "array", items: { type: "string" } },
    env: { ...secretMap, description: "Environment of the local server, added to PATH, HOME, LANG and TMPDIR." },
    cwd: { type: "string", minLength: 1, description: "The local server's folder; relative to the config file's folder." },
    headers: { ...secretMap, description: "Sent with every upstream call; held as secrets." },
    bearer_token: { type: "string", minLength: 1, description: "Sent as `Authorization: Bearer …`; held as a secret." },
    answers: { enum: ["sse", "json"], description: "How a session's requests are answered: `sse` (default) or `json`." },
    tools: toolControlsSchema,
    pinning: {
      enum: [...PINNING_MODES],
      description: "How tool definitions are pinned: `first_use` (default), `approval`, `off`.",
    },
    tool_pack: { enum: ["standard"], description: "A named guardrail set on the tool sides (docs/mcp.md)." },
  },
  required: ["name"],
  additionalProperties: false,
} as const;

const FILE_SCHEMA = {
  type: "object",
  properties: {
    store: {
      type: "object",
      description: "Where the records and request logs live when not in the data folder's SQLite file.",
      properties: {
        url: { type: "string", pattern: "^postgres(ql)?://", description: "`postgres://user:password@host:port/database`." },
        pool_size: { type: "integer", minimum: 1, maximum: 1000, description: "Connections each instance holds." },
        log_retention_days: { type: "integer", minimum: 1, description: "Days request logs are kept; unset keeps them all." },
      },
      required: ["url"],
      additionalProperties: false,
    },
    redis: {
      type: "object",
      description: "The Redis server a fleet shares for its limit counters.",
      properties: {
        url: { type: "string", pattern: "^rediss?://", description: "`redis://[:password@]host:port[/db]`." },
        on_error: {
          enum: ["open", "closed"],
          description: "While Redis is down: `open` admits requests uncounted (default), `closed` refuses them with 503.",
        },
      },
      required: ["url"],
      additionalProperties: false,
    },
    metrics: {
      type: "object",
      description: "Who may read `GET /metrics`.",
      properties: {
        token: {
          type: "string",
          minLength: 16,
          description: "The bearer token `GET /metrics` asks for; without one the route is off.",
        },
      },
      required: ["token"],
      additionalProperties: false,
    },
    api_keys: { type: "array", items: apiKeyEntry },
    providers: { type: "array", items: providerEntry },
    guardrails: {
      type: "array",
      items: {
        type: "object",
        properties: { id: { type: "string", minLength: 1 }, checks: { type: "array" }, workspace },
        required: ["id", "checks"],
      },
    },
    configs: { type: "array", items: configEntry },
    policies: { type: "array", items: policyEntry },
    plugins: { type: "array", items: { type: "string", minLength: 1 } },
    mcp_servers: { type: "array", items: mcpServerEntry },
    plugin_credentials: { type: "array", items: pluginCredentialsEntry },
    models: {
      type: "object",
      description: "Model folders declared by name, for checks that load a model (`model.classifier`).",
      propertyNames: { pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*$" },
      additionalProperties: {
        type: "object",
        properties: {
          path: {
            type: "string",
            minLength: 1,
            description: "The folder: model.onnx, tokenizer.json, config.json; relative to the config file's folder.",
          },
          lock_sha256: {
            type: "string",
            pattern: "^[0-9a-f]{64}$",
            description:
              "The SHA-256 of the folder's lock file, as `guardgate models pull` prints it: the folder loads only with this lock, and the lock's files.",
          },
        },
        required: ["path"],
        additionalProperties: false,
      },
    },
    settings: {
      type: "object",
      description: "Gateway settings.",
      properties: {
        body_limit: { type: "integer", minimum: 1024, description: "Largest request body in bytes." },
        request_timeout: {
          type: "integer",
          minimum: 1,
          description: "Default upstream time-out in ms when a config sets no `request_timeout`.",
        },
        stream_event_timeout: {
          type: "integer",
          minimum: 1,
          description:
            "Longest wait in ms for each complete event of an upstream stream (default: the request's `request_timeout`); past it the stream ends with `upstream_stream_stalled`, though bytes kept coming.",
        },
        custom_hosts: {
          type: "object",
          description: "What hosts a client chose may reach.",
          properties: { allow_loopback: { type: "boolean" }, allow_private: { type: "boolean" } },
          additionalProperties: false,
        },
        cache_max_bytes: { type: "integer", minimum: 0, description: "Total bytes the response cache may hold." },
        log_bodies: { type: "boolean", description: "Keep request and response bodies in the request log." },
        log_body_max_bytes: {
          type: "integer",
          minimum: 256,
          description: "Cap of each logged body in bytes of JSON (default 64 KiB); a longer body is cut and marked.",
        },
        log_durable: {
          type: "boolean",
          description:
            "Answer only once the request's log record is committed, so a crash loses no record of an answered request (default false: records are batched, and a crash loses the last ~50 ms).",
        },
        stream_check_budget_ms: {
          type: "integer",
          minimum: 1,
          description:
            "Check time a stream held for output guardrails may use, in ms summed over its checks (default 30,000); past it the stream fails closed with `stream_check_budget_exceeded`.",
        },
        checks_allow_private_addresses: {
          type: "boolean",
          description: "Let checks that call out reach private and loopback addresses.",
        },
        tracing: {
          type: "boolean",
          description: "OpenTelemetry spans per request, guardrail phase and upstream attempt, to the SDK registered.",
        },
        file_records_editable: {
          type: "boolean",
          description:
            "Let the admin API and the console change and delete the records this file seeds (default false: refused with 409 `file_managed`, since the next reload writes the file's version again).",
        },
        trust_proxy: {
          oneOf: [{ type: "boolean" }, { type: "array", items: { type: "string", minLength: 1 }, minItems: 1 }],
          description:
            "Proxies whose `X-Forwarded-For` names the client (fastify's `trustProxy`): `true` for any, or their addresses and CIDR ranges. The client's address is what failed keys are throttled by.",
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/** The file as loaded. */
export type GatewayFile = SchemaType<typeof FILE_SCHEMA>;

/** A provider entry (spec §2.6): a slug and its credentials. */
export type FileProvider = SchemaType<typeof providerEntry>;

/** An MCP server entry of the file. */
export type FileMcpServer = SchemaType<typeof mcpServerEntry>;

/** A policy of the file: the admin API's body, with `workspace` for a workspace's own. */
export type FilePolicy = SchemaType<typeof policyEntry>;

/** Credentials the service holds for a plugin's checks, for every workspace or the named one. */
export type FilePluginCredentials = SchemaType<typeof pluginCredentialsEntry>;

/** Throws a ConfigError naming the path when the file's shape is wrong. */
export const validateGatewayFile: Validator<GatewayFile> = compileValidator<GatewayFile>(FILE_SCHEMA);

/** Parses file text: YAML for .yaml/.yml, JSON otherwise (YAML is a superset, so JSON errors read better). */
export function parseGatewayFile(text: string, name: string): GatewayFile {
  const yaml = /\.ya?ml$/i.test(name);
  let value: unknown;
  try {
    value = yaml ? YAML.parse(text) : JSON.parse(text);
  } catch (error) {
    throw new ConfigError("", `${name}: is not valid ${yaml ? "YAML" : "JSON"}: ${(error as Error).message}`, "config_malformed");
  }
  value ??= {};
  try {
    validateGatewayFile(value, "");
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError("", `${name}: ${error.message}`, error.code);
    throw error;
  }
  return value;
}

/** Reads and checks a config file; plugin paths in it resolve from its folder. */
export async function loadGatewayFile(file: string): Promise<{ file: GatewayFile; dir: string }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ConfigError("", `cannot read ${file}: ${(error as Error).message}`, "config_unreadable");
  }
  return { file: parseGatewayFile(text, file), dir: path.dirname(path.resolve(file)) };
}
