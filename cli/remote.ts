/**
 * The CLI's remote mode: with `--url` and `--api-key` (or GUARDGATE_URL and GUARDGATE_API_KEY) a
 * command speaks to a running gateway's admin API instead of opening a store on this machine, as
 * it must where the store is not the operator's to open (a gateway in Kubernetes, on Postgres).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { GuardgateError } from "../core/index.js";
import { resolveDataDir } from "../server/store/data-dir.js";
import type { Flag } from "./args.js";
import { UsageError } from "./usage-error.js";

/** `--url URL`: the gateway to speak to. */
export const URL_FLAG = {
  type: "string",
  value: "URL",
  help: "a running gateway (http://host:port) to speak to over its admin API instead of the\nstore on this machine (default GUARDGATE_URL)",
} as const satisfies Flag;

/** `--api-key KEY`: the admin key the remote calls carry. */
export const API_KEY_FLAG = {
  type: "string",
  value: "KEY",
  help: "an admin key of that gateway (default GUARDGATE_API_KEY)",
} as const satisfies Flag;

/** The flags of remote mode, for a command's flag list. */
export const REMOTE_FLAGS = { url: URL_FLAG, "api-key": API_KEY_FLAG } as const;

/** A gateway's admin API, as one key sees it. */
export class AdminClient {
  /** The gateway's address, without a trailing slash. */
  readonly url: string;
  readonly #key: string;

  constructor(url: string, key: string) {
    this.url = url.replace(/\/+$/, "");
    this.#key = key;
  }

  /**
   * Calls `/admin/v1{path}`; resolves with the parsed answer (undefined for 204). An error answer
   * rejects with its code and message; an unreachable gateway with `gateway_unreachable`.
   */
  async call<T>(method: string, route: string, body?: unknown): Promise<T> {
    const text = await (await this.send(method, route, body)).text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Calls `/admin/v1{path}` and resolves with the answer's body as a stream of bytes (an export). */
  async stream(route: string): Promise<AsyncIterable<Uint8Array>> {
    const response = await this.send("GET", route);
    if (!response.body) throw new GuardgateError("gateway_error", `${this.url} answered ${route} without a body`);
    return response.body as unknown as AsyncIterable<Uint8Array>;
  }

  /** A successful answer; an error answer or no answer rejects, saying why. */
  private async send(method: string, route: string, body?: unknown): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.url}/admin/v1${route}`, {
        method,
        headers: { "x-gateway-api-key": this.#key, ...(body !== undefined && { "content-type": "application/json" }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new GuardgateError(
        "gateway_unreachable",
        `cannot reach the gateway at ${this.url} (${cause?.code ?? cause?.message ?? (error as Error).message})`,
      );
    }
    if (response.ok) return response;
    const text = await response.text();
    let answer: { code?: string; message?: string } | undefined;
    try {
      answer = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
    } catch {
      answer = undefined;
    }
    throw new GuardgateError(
      answer?.code ?? "gateway_error",
      `${this.url} answered ${response.status}: ${answer?.message ?? (text.slice(0, 200) || response.statusText)}`,
    );
  }

  /**
   * The workspace a command acts in, as the local commands choose it: the one named, else the
   * key's own, else its organization's first.
   */
  async workspace(named: string | undefined): Promise<string> {
    if (named !== undefined) return named;
    const me = await this.call<{ organization_id: string; workspace_id: string | null }>("GET", "/me");
    if (me.workspace_id) return me.workspace_id;
    const [first] = (await this.call<{ data: Array<{ id: string }> }>("GET", "/workspaces")).data;
    if (!first) throw new UsageError(`organization ${me.organization_id} has no workspace`);
    return first.id;
  }

  /** Refuses an `--organization` other than the key's own: a gateway's key acts in its organization only. */
  async checkOrganization(named: string | undefined): Promise<void> {
    if (named === undefined) return;
    const me = await this.call<{ organization_id: string }>("GET", "/me");
    if (me.organization_id !== named)
      throw new UsageError(`the admin key belongs to organization ${me.organization_id}, not ${named}`);
  }
}

/** Where the remote settings come from: the flags, then the environment; and the local store's flags. */
export interface RemoteValues {
  url?: string | undefined;
  "api-key"?: string | undefined;
  "data-dir"?: string | undefined;
  config?: string | undefined;
  plugin?: string[] | undefined;
}

/**
 * The admin client the flags or environment name, or undefined when they name no gateway (the
 * command then works on the local store). `--url` beside a local store's flag, or a URL without
 * a key, is a usage mistake; GUARDGATE_URL gives way to an explicit `--data-dir`.
 */
export function remoteOf(values: RemoteValues, env: NodeJS.ProcessEnv = process.env): AdminClient | undefined {
  const local = (["data-dir", "config", "plugin"] as const).find((flag) => values[flag] !== undefined);
  if (values.url !== undefined && local)
    throw new UsageError(`--${local} is for the store on this machine; with --url the gateway uses its own`);
  const url = values.url ?? (local ? undefined : env.GUARDGATE_URL || undefined);
  if (url === undefined) {
    if (values["api-key"] !== undefined) throw new UsageError("--api-key goes with --url (or GUARDGATE_URL)");
    return undefined;
  }
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError(`--url must be an http:// or https:// address, not "${url}"`);
  const key = values["api-key"] ?? (env.GUARDGATE_API_KEY || undefined);
  if (!key) throw new UsageError("speaking to a gateway needs an admin key: --api-key KEY or GUARDGATE_API_KEY");
  return new AdminClient(url, key);
}

/**
 * The admin key of the data folder's first start (`initial-keys.json`), for a command run beside
 * a local gateway; undefined when the folder holds none.
 */
export function localAdminKey(dataDir: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = path.join(resolveDataDir(dataDir, env), "initial-keys.json");
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { admin_key?: string }).admin_key;
  } catch {
    return undefined;
  }
}
