/**
 * The gateway's config file (JSON or YAML): API keys, providers, guardrails, saved configs,
 * plugins, plugin credentials, named model folders and settings, so a gateway can run from a file with no console. The
 * file is checked whole when loaded; a mistake stops the start with its path in the file.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import YAML from "yaml";
import { ConfigError } from "../core/index.js";
import { compileValidator, type Validator } from "./schema.js";

/** An API key entry. */
export interface FileApiKey {
  key: string;
  workspace?: string;
  name?: string;
}

/** A provider entry (spec §2.6): a slug and its credentials. */
export interface FileProvider {
  slug: string;
  provider: string;
  base_url?: string;
  api_key?: string;
  headers?: Record<string, string>;
  /** The kind's settings, checked against its schema (server/providers/options.ts). */
  options?: Record<string, unknown>;
  workspace?: string;
}

/** A saved config. */
export interface FileConfig {
  id: string;
  config: Record<string, unknown>;
  workspace?: string;
}

/**
 * Credentials the service holds for a plugin's checks (spec §1.7): for every workspace, or the
 * named one (where they win over the shared ones).
 */
export interface FilePluginCredentials {
  plugin: string;
  credentials: Record<string, unknown>;
  workspace?: string;
}

/** A model folder declared by name, for checks that load a model (`model.classifier`). */
export interface FileModel {
  /** The folder: model.onnx, tokenizer.json, config.json; relative to the config file's folder. */
  path: string;
}

/** Gateway settings. */
export interface FileSettings {
  /** Largest request body in bytes. */
  body_limit?: number;
  /** Default upstream time-out in ms when a config sets no `request_timeout`. */
  request_timeout?: number;
  /** What hosts a client chose may reach. */
  custom_hosts?: { allow_loopback?: boolean; allow_private?: boolean };
  /** Total bytes the response cache may hold. */
  cache_max_bytes?: number;
  /** Keep request and response bodies in the request log. */
  log_bodies?: boolean;
  /** Cap of each logged body in bytes of JSON (default 64 KiB); a longer body is cut and marked. */
  log_body_max_bytes?: number;
  /**
   * Answer only once the request's log record is committed, so a crash loses no record of an
   * answered request (default false: records are batched, and a crash loses the last ~50 ms).
   */
  log_durable?: boolean;
  /**
   * Check time a stream held for output guardrails may use, in ms summed over its checks (default
   * 30,000); past it the stream fails closed with `stream_check_budget_exceeded`.
   */
  stream_check_budget_ms?: number;
  /** Let checks that call out reach private and loopback addresses. */
  checks_allow_private_addresses?: boolean;
  /** OpenTelemetry spans per request, guardrail phase and upstream attempt, to the SDK registered. */
  tracing?: boolean;
  /**
   * Proxies whose `X-Forwarded-For` names the client (fastify's `trustProxy`): `true` for any, or
   * their addresses and CIDR ranges. The client's address is what failed keys are throttled by.
   */
  trust_proxy?: boolean | string[];
}

/** Where the records and request logs live when not in the data folder's SQLite file. */
export interface FileStore {
  /** `postgres://user:password@host:port/database`. */
  url: string;
  /** Connections each instance holds. */
  pool_size?: number;
  /** Days request logs are kept; unset keeps them all. */
  log_retention_days?: number;
}

/** The Redis server a fleet shares for its limit counters. */
export interface FileRedis {
  /** `redis://[:password@]host:port[/db]`. */
  url: string;
  /** While Redis is down: `open` admits requests uncounted (default), `closed` refuses them with 503. */
  on_error?: "open" | "closed";
}

/** Who may read `GET /metrics`. */
export interface FileMetrics {
  /** The bearer token `GET /metrics` asks for; without one the route is off. */
  token: string;
}

/** A policy of the file: the admin API's body, with `workspace` for a workspace's own. */
export interface FilePolicy {
  id: string;
  name?: string;
  workspace?: string;
  mode?: "enforce" | "monitor";
  scope?: { workspaces?: string[]; api_keys?: string[]; models?: string[] };
  input_guardrails?: Array<string | Record<string, unknown>>;
  output_guardrails?: Array<string | Record<string, unknown>>;
}

/** The file as loaded. */
export interface GatewayFile {
  store?: FileStore;
  redis?: FileRedis;
  metrics?: FileMetrics;
  api_keys?: FileApiKey[];
  providers?: FileProvider[];
  guardrails?: Array<Record<string, unknown> & { id: string; workspace?: string }>;
  configs?: FileConfig[];
  /** Policies (docs/policies.md): organisation-wide, or a workspace's own when `workspace` is given. */
  policies?: FilePolicy[];
  plugins?: string[];
  plugin_credentials?: FilePluginCredentials[];
  models?: Record<string, FileModel>;
  settings?: FileSettings;
}

const workspace = { type: "string", minLength: 1 };

const FILE_SCHEMA = {
  type: "object",
  properties: {
    store: {
      type: "object",
      properties: {
        url: { type: "string", pattern: "^postgres(ql)?://" },
        pool_size: { type: "integer", minimum: 1, maximum: 1000 },
        log_retention_days: { type: "integer", minimum: 1 },
      },
      required: ["url"],
      additionalProperties: false,
    },
    redis: {
      type: "object",
      properties: {
        url: { type: "string", pattern: "^rediss?://" },
        on_error: { enum: ["open", "closed"] },
      },
      required: ["url"],
      additionalProperties: false,
    },
    metrics: {
      type: "object",
      properties: { token: { type: "string", minLength: 16 } },
      required: ["token"],
      additionalProperties: false,
    },
    api_keys: {
      type: "array",
      items: {
        type: "object",
        properties: { key: { type: "string", minLength: 16 }, workspace, name: { type: "string" } },
        required: ["key"],
        additionalProperties: false,
      },
    },
    providers: {
      type: "array",
      items: {
        type: "object",
        properties: {
          slug: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*$" },
          provider: { type: "string", minLength: 1 },
          base_url: { type: "string", pattern: "^https?://" },
          api_key: { type: "string", minLength: 1 },
          headers: { type: "object", additionalProperties: { type: "string" } },
          options: { type: "object" },
          workspace,
        },
        required: ["slug", "provider"],
        additionalProperties: false,
      },
    },
    guardrails: {
      type: "array",
      items: {
        type: "object",
        properties: { id: { type: "string", minLength: 1 }, checks: { type: "array" }, workspace },
        required: ["id", "checks"],
      },
    },
    configs: {
      type: "array",
      items: {
        type: "object",
        properties: { id: { type: "string", pattern: "^[^{\\s]" }, config: { type: "object" }, workspace },
        required: ["id", "config"],
        additionalProperties: false,
      },
    },
    policies: {
      type: "array",
      items: {
        type: "object",
        properties: {
          id: { type: "string", minLength: 1 },
          name: { type: "string", minLength: 1 },
          workspace,
          mode: { enum: ["enforce", "monitor"] },
          scope: { type: "object" },
          input_guardrails: { type: "array" },
          output_guardrails: { type: "array" },
        },
        required: ["id"],
        additionalProperties: false,
      },
    },
    plugins: { type: "array", items: { type: "string", minLength: 1 } },
    plugin_credentials: {
      type: "array",
      items: {
        type: "object",
        properties: { plugin: { type: "string", minLength: 1 }, credentials: { type: "object", minProperties: 1 }, workspace },
        required: ["plugin", "credentials"],
        additionalProperties: false,
      },
    },
    models: {
      type: "object",
      propertyNames: { pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*$" },
      additionalProperties: {
        type: "object",
        properties: { path: { type: "string", minLength: 1 } },
        required: ["path"],
        additionalProperties: false,
      },
    },
    settings: {
      type: "object",
      properties: {
        body_limit: { type: "integer", minimum: 1024 },
        request_timeout: { type: "integer", minimum: 1 },
        custom_hosts: {
          type: "object",
          properties: { allow_loopback: { type: "boolean" }, allow_private: { type: "boolean" } },
          additionalProperties: false,
        },
        cache_max_bytes: { type: "integer", minimum: 0 },
        log_bodies: { type: "boolean" },
        log_body_max_bytes: { type: "integer", minimum: 256 },
        log_durable: { type: "boolean" },
        stream_check_budget_ms: { type: "integer", minimum: 1 },
        checks_allow_private_addresses: { type: "boolean" },
        tracing: { type: "boolean" },
        trust_proxy: {
          oneOf: [{ type: "boolean" }, { type: "array", items: { type: "string", minLength: 1 }, minItems: 1 }],
        },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

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
