/**
 * Stored responses in memory, for a gateway run from its config file alone: the most recent
 * `capacity` responses are kept, the oldest dropped first, and nothing outlives the process.
 */
import type { StoredResponseRepository } from "./repository.js";
import type { StoredResponse } from "./response-types.js";

/** Responses kept when no capacity is given. */
const DEFAULT_CAPACITY = 10_000;

export class MemoryStoredResponses implements StoredResponseRepository {
  /** By workspace and id; a Map keeps insertion order, so the first key is the oldest. */
  readonly #records = new Map<string, StoredResponse>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  async put(record: StoredResponse): Promise<void> {
    const key = `${record.workspace_id}\u0000${record.id}`;
    this.#records.delete(key);
    this.#records.set(key, structuredClone(record));
    while (this.#records.size > this.capacity) this.#records.delete(this.#records.keys().next().value as string);
  }

  async get(workspaceId: string, id: string): Promise<StoredResponse | undefined> {
    const record = this.#records.get(`${workspaceId}\u0000${id}`);
    return record && structuredClone(record);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    return this.#records.delete(`${workspaceId}\u0000${id}`);
  }
}
