/**
 * In-memory sources, seeded from the config file. Records scoped to a workspace are visible to that
 * workspace only; records without one are shared.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { GuardrailDefinition } from "../../core/index.js";
import type {
  ApiKeyIdentity,
  ApiKeySource,
  ConfigRecord,
  ConfigSource,
  GuardrailSource,
  PluginCredentialMap,
  PluginCredentialSource,
  ProviderRecord,
  ProviderSource,
  Scope,
} from "./types.js";

function digest(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/** An API key as the operator declares it. */
export interface ApiKeyEntry {
  key: string;
  workspaceId: string;
  name?: string;
}

/**
 * Keys are held as SHA-256 digests only. A lookup finds the candidate by digest (timing reveals
 * nothing about the key, only about its hash) and confirms it with a constant-time comparison.
 */
export class InMemoryApiKeySource implements ApiKeySource {
  readonly #byDigest = new Map<string, { digest: Buffer; identity: ApiKeyIdentity }>();

  constructor(entries: Iterable<ApiKeyEntry> = []) {
    for (const entry of entries) this.add(entry);
  }

  /** Adds a key; its id is the first 12 hex digits of its digest, safe to log. */
  add(entry: ApiKeyEntry): ApiKeyIdentity {
    if (typeof entry.key !== "string" || entry.key === "") throw new TypeError("an API key must be a non-empty string");
    const hash = digest(entry.key);
    const identity: ApiKeyIdentity = { id: `key_${hash.toString("hex").slice(0, 12)}`, workspaceId: entry.workspaceId };
    if (entry.name !== undefined) identity.name = entry.name;
    this.#byDigest.set(hash.toString("hex"), { digest: hash, identity });
    return identity;
  }

  get size(): number {
    return this.#byDigest.size;
  }

  async verify(key: string): Promise<ApiKeyIdentity | undefined> {
    const hash = digest(key);
    const found = this.#byDigest.get(hash.toString("hex"));
    if (!found || !timingSafeEqual(found.digest, hash)) return undefined;
    return found.identity;
  }
}

function visible(recordWorkspace: string | undefined, scope: Scope | undefined): boolean {
  return recordWorkspace === undefined || scope?.workspaceId === undefined || recordWorkspace === scope.workspaceId;
}

/** Records by id, each optionally owned by a workspace. */
class ScopedMap<T> {
  readonly #records = new Map<string, T[]>();

  constructor(private readonly workspaceOf: (record: T) => string | undefined) {}

  set(id: string, record: T): void {
    const list = (this.#records.get(id) ?? []).filter((r) => this.workspaceOf(r) !== this.workspaceOf(record));
    list.push(record);
    this.#records.set(id, list);
  }

  delete(id: string, workspaceId?: string): boolean {
    const list = this.#records.get(id);
    if (!list) return false;
    const kept = list.filter((r) => this.workspaceOf(r) !== workspaceId);
    if (kept.length) this.#records.set(id, kept);
    else this.#records.delete(id);
    return kept.length !== list.length;
  }

  get(id: string, scope?: Scope): T | undefined {
    const list = this.#records.get(id);
    if (!list) return undefined;
    // A workspace's own record wins over a shared one of the same id.
    return (
      list.find((r) => scope?.workspaceId !== undefined && this.workspaceOf(r) === scope.workspaceId) ??
      list.find((r) => visible(this.workspaceOf(r), scope))
    );
  }

  get size(): number {
    let n = 0;
    for (const list of this.#records.values()) n += list.length;
    return n;
  }
}

/** Providers by slug. */
export class InMemoryProviderSource implements ProviderSource {
  readonly #map = new ScopedMap<ProviderRecord>((r) => r.workspaceId);

  constructor(records: Iterable<ProviderRecord> = []) {
    for (const record of records) this.set(record);
  }

  set(record: ProviderRecord): void {
    this.#map.set(record.slug, record);
  }

  delete(slug: string, workspaceId?: string): boolean {
    return this.#map.delete(slug, workspaceId);
  }

  get size(): number {
    return this.#map.size;
  }

  async get(slug: string, scope?: Scope): Promise<ProviderRecord | undefined> {
    return this.#map.get(slug, scope);
  }
}

/** Credentials the operator declares for a plugin: for every workspace, or one (which wins there). */
export interface PluginCredentialEntry {
  plugin: string;
  credentials: Record<string, unknown>;
  workspaceId?: string;
}

/** Plugin credentials by plugin id. */
export class InMemoryPluginCredentialSource implements PluginCredentialSource {
  readonly #map = new ScopedMap<PluginCredentialEntry>((r) => r.workspaceId);
  readonly #plugins = new Set<string>();

  constructor(entries: Iterable<PluginCredentialEntry> = []) {
    for (const entry of entries) {
      this.#map.set(entry.plugin, entry);
      this.#plugins.add(entry.plugin);
    }
  }

  async forWorkspace(workspaceId: string): Promise<PluginCredentialMap> {
    const map: PluginCredentialMap = {};
    for (const plugin of this.#plugins) {
      const entry = this.#map.get(plugin, { workspaceId });
      if (entry) map[plugin] = entry.credentials;
    }
    return map;
  }
}

/** Saved configs by id. */
export class InMemoryConfigSource implements ConfigSource {
  readonly #map = new ScopedMap<ConfigRecord>((r) => r.workspaceId);

  constructor(records: Iterable<ConfigRecord> = []) {
    for (const record of records) this.set(record);
  }

  set(record: ConfigRecord): void {
    this.#map.set(record.id, record);
  }

  delete(id: string, workspaceId?: string): boolean {
    return this.#map.delete(id, workspaceId);
  }

  get size(): number {
    return this.#map.size;
  }

  async get(id: string, scope?: Scope): Promise<ConfigRecord | undefined> {
    return this.#map.get(id, scope);
  }
}

/** A guardrail record with the workspace it belongs to. */
export type ScopedGuardrail = GuardrailDefinition & { workspaceId?: string };

/** Guardrail records by id, scoped like the other sources (core's GuardrailSource interface). */
export class InMemoryScopedGuardrailSource implements GuardrailSource {
  readonly #map = new ScopedMap<ScopedGuardrail>((r) => r.workspaceId);

  constructor(records: Iterable<ScopedGuardrail> = []) {
    for (const record of records) this.set(record);
  }

  set(record: ScopedGuardrail): void {
    if (typeof record.id !== "string" || record.id === "") throw new TypeError("a guardrail record needs a string id");
    this.#map.set(record.id, record);
  }

  delete(id: string, workspaceId?: string): boolean {
    return this.#map.delete(id, workspaceId);
  }

  get size(): number {
    return this.#map.size;
  }

  async get(id: string, scope?: Scope): Promise<GuardrailDefinition | undefined> {
    const record = this.#map.get(id, scope);
    if (!record) return undefined;
    const { workspaceId: _owner, ...definition } = record;
    return definition;
  }
}
