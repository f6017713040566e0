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
  McpServerRecord,
  McpServerSource,
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

/**
 * A source of records held in a ScopedMap by a key of theirs: what the provider, config and
 * guardrail sources share. Subclasses add the lookup their interface names.
 */
abstract class ScopedRecords<T extends { workspaceId?: string }> {
  readonly #map = new ScopedMap<T>((r) => r.workspaceId);

  constructor(
    private readonly keyOf: (record: T) => string,
    records: Iterable<T>,
  ) {
    for (const record of records) this.set(record);
  }

  /** Adds or replaces a record (a workspace's own and a shared one of the same key live side by side). */
  set(record: T): void {
    this.#map.set(this.keyOf(record), record);
  }

  /** Removes the record of a key owned by a workspace (or the shared one). */
  delete(key: string, workspaceId?: string): boolean {
    return this.#map.delete(key, workspaceId);
  }

  get size(): number {
    return this.#map.size;
  }

  /** The record a scope sees for a key: its workspace's own first, else a shared one. */
  protected find(key: string, scope?: Scope): T | undefined {
    return this.#map.get(key, scope);
  }
}

/** Providers by slug. */
export class InMemoryProviderSource extends ScopedRecords<ProviderRecord> implements ProviderSource {
  constructor(records: Iterable<ProviderRecord> = []) {
    super((record) => record.slug, records);
  }

  async get(slug: string, scope?: Scope): Promise<ProviderRecord | undefined> {
    return this.find(slug, scope);
  }
}

/** MCP servers by name. */
export class InMemoryMcpServerSource extends ScopedRecords<McpServerRecord> implements McpServerSource {
  readonly #all = new Map<string, McpServerRecord>();

  constructor(records: Iterable<McpServerRecord> = []) {
    // Added after construction: `set` also fills the list `all` reads, a field of this class.
    super((record) => record.name, []);
    for (const record of records) this.set(record);
  }

  override set(record: McpServerRecord): void {
    super.set(record);
    this.#all.set(`${record.workspaceId ?? ""}\u0000${record.name}`, record);
  }

  override delete(name: string, workspaceId?: string): boolean {
    this.#all.delete(`${workspaceId ?? ""}\u0000${name}`);
    return super.delete(name, workspaceId);
  }

  async get(name: string, scope?: Scope): Promise<McpServerRecord | undefined> {
    return this.find(name, scope);
  }

  /** Every record, the stdio servers the gateway starts among them. */
  all(): McpServerRecord[] {
    return [...this.#all.values()];
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
export class InMemoryConfigSource extends ScopedRecords<ConfigRecord> implements ConfigSource {
  constructor(records: Iterable<ConfigRecord> = []) {
    super((record) => record.id, records);
  }

  async get(id: string, scope?: Scope): Promise<ConfigRecord | undefined> {
    return this.find(id, scope);
  }
}

/** A guardrail record with the workspace it belongs to. */
export type ScopedGuardrail = GuardrailDefinition & { workspaceId?: string };

/** Guardrail records by id, scoped like the other sources (core's GuardrailSource interface). */
export class InMemoryScopedGuardrailSource extends ScopedRecords<ScopedGuardrail> implements GuardrailSource {
  constructor(records: Iterable<ScopedGuardrail> = []) {
    // `set` refuses a record without a string id before the key is read.
    super((record) => record.id as string, records);
  }

  override set(record: ScopedGuardrail): void {
    if (typeof record.id !== "string" || record.id === "") throw new TypeError("a guardrail record needs a string id");
    super.set(record);
  }

  async get(id: string, scope?: Scope): Promise<GuardrailDefinition | undefined> {
    const record = this.find(id, scope);
    if (!record) return undefined;
    const { workspaceId: _owner, ...definition } = record;
    return definition;
  }
}
