/** Stored responses over either SQL dialect; every read and delete is scoped to one workspace. */
import type { StoredResponseRepository } from "../repository.js";
import type { StoredResponse } from "../response-types.js";
import { STORED_RESPONSES } from "./tables.js";
import { type Driver, Table } from "./table.js";

export class StoredResponses implements StoredResponseRepository {
  readonly #table: Table<StoredResponse>;

  constructor(private readonly db: Driver) {
    this.#table = new Table(STORED_RESPONSES, db.dialect);
  }

  async put(record: StoredResponse): Promise<void> {
    await this.db.run(this.#table.upsert(record, ["id"], ["input", "response"]));
  }

  async get(workspaceId: string, id: string): Promise<StoredResponse | undefined> {
    return this.db.run(this.#table.one({ id, workspace_id: workspaceId }));
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    return (await this.db.run(this.#table.discard({ id, workspace_id: workspaceId }))) > 0;
  }
}
