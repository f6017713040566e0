/**
 * Where guardrail records referenced by id come from. In memory here; the store implements the
 * same interface, so callers never know which one they hold.
 */
import type { GuardrailDefinition } from "./definition.js";

/** Looks guardrail records up by id. */
export interface GuardrailSource {
  /** The record with this id, or undefined. `scope` narrows the lookup to a workspace. */
  get(id: string, scope?: { workspaceId?: string }): Promise<GuardrailDefinition | undefined>;
}

/** A GuardrailSource over a map, seeded from a list of records. */
export class InMemoryGuardrailSource implements GuardrailSource {
  readonly #records = new Map<string, GuardrailDefinition>();

  constructor(records: Iterable<GuardrailDefinition> = []) {
    for (const record of records) this.set(record);
  }

  /** Adds or replaces a record; it must carry an id. */
  set(record: GuardrailDefinition): void {
    if (typeof record.id !== "string" || record.id === "") throw new TypeError("a guardrail record needs a string id");
    this.#records.set(record.id, record);
  }

  /** Removes a record. */
  delete(id: string): boolean {
    return this.#records.delete(id);
  }

  async get(id: string): Promise<GuardrailDefinition | undefined> {
    return this.#records.get(id);
  }
}
