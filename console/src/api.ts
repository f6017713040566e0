/**
 * The console's only way to the gateway: the admin API, `/v1/models` and `/v1/hooks/evaluate`,
 * with the signed-in key in `x-gateway-api-key`. The key lives in sessionStorage only, so it is
 * gone when the tab closes.
 */

const KEY_ITEM = "guardgate.key";

/** The signed-in key, if any. */
export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

/** Keeps the key for this tab's session. */
export function storeKey(key: string): void {
  sessionStorage.setItem(KEY_ITEM, key);
}

/** Forgets the key. */
export function forgetKey(): void {
  sessionStorage.removeItem(KEY_ITEM);
}

/** An answer of the API that was not a success: its status, code, message and the field it names. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  /** Where the message's field path ends: `guardrail "g": checks[0].parameters.rule: problem`. */
  #split(): { path: string; problem: string } | null {
    const parts = this.message.split(": ");
    for (let i = 0; i < parts.length - 1; i++) {
      if (/^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\[\d+\])*$/.test(parts[i]!)) {
        return { path: parts[i]!.replace(/^body\.?/, ""), problem: parts.slice(i + 1).join(": ") };
      }
    }
    return null;
  }

  /** The field path the message names, without `body.`; null when it names none. */
  get path(): string | null {
    return this.#split()?.path ?? null;
  }

  /** The message without its path. */
  get problem(): string {
    return this.#split()?.problem ?? this.message;
  }
}

/** Query parameters; undefined and empty values are left out. */
export type Query = Record<string, string | number | undefined>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * Calls the gateway with the signed-in key (or `key`); resolves to the parsed answer. `workspace`
 * names the workspace an organization admin key evaluates hooks in.
 */
export async function call<T>(
  method: string,
  path: string,
  options: { body?: unknown; query?: Query; key?: string; workspace?: string; headers?: Record<string, string> } = {},
): Promise<T> {
  const key = options.key ?? storedKey();
  const headers: Record<string, string> = { ...options.headers };
  if (key) headers["x-gateway-api-key"] = key;
  if (options.workspace) headers["x-gateway-workspace"] = options.workspace;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(withQuery(path, options.query), {
    method,
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (a proxy's error page): the status and the text's start tell what happened.
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; type?: string } } | undefined)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? error?.type ?? "http_error",
      error?.message ?? `${response.status} ${text.slice(0, 200)}`,
    );
  }
  return parsed as T;
}

/** A GET on the admin API. */
export function admin<T>(path: string, query?: Query): Promise<T> {
  return call<T>("GET", `/admin/v1${path}`, query ? { query } : {});
}

/** A list answer of the admin API. */
export interface List<T> {
  data: T[];
}
