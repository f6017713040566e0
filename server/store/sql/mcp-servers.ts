/** MCP servers of a workspace and their pinned tool definitions, over either SQL store. */
import type { McpServerRepository, McpToolPinRepository } from "../repository.js";
import type { McpServer, McpServerWithSecret, McpToolPin } from "../types.js";
import type { Announce } from "./records.js";
import { Table, type Driver, type Work } from "./table.js";
import { MCP_SERVERS, MCP_TOOL_PINS } from "./tables.js";

/** A server as answers show it: the sealed credentials left out. */
function shown(record: McpServerWithSecret): McpServer {
  const { credentials_sealed: _sealed, ...server } = record;
  return server;
}

export class McpServers implements McpServerRepository {
  readonly #table: Table<McpServerWithSecret>;
  readonly #pins: Table<McpToolPin>;

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
  ) {
    this.#table = new Table(MCP_SERVERS, db.dialect);
    this.#pins = new Table(MCP_TOOL_PINS, db.dialect);
  }

  async create(record: McpServerWithSecret): Promise<McpServer | undefined> {
    const added = await this.db.run(this.#table.insert(record, "ignore"));
    if (!added) return undefined;
    await this.announce({ entity: "mcp_server", id: record.id, workspace_id: record.workspace_id });
    return shown(record);
  }

  async get(id: string): Promise<McpServer | undefined> {
    const record = await this.db.run(this.#table.one({ id }));
    return record && shown(record);
  }

  async findByName(workspaceId: string, name: string): Promise<McpServer | undefined> {
    const record = await this.getWithSecret(workspaceId, name);
    return record && shown(record);
  }

  async getWithSecret(workspaceId: string, name: string): Promise<McpServerWithSecret | undefined> {
    return this.db.run(this.#table.one({ workspace_id: workspaceId, name }));
  }

  async list(workspaceId: string): Promise<McpServer[]> {
    return (await this.db.run(this.#table.many({ workspace_id: workspaceId }))).map(shown);
  }

  async update(id: string, patch: Partial<McpServerWithSecret>, updatedAt: string): Promise<McpServer | undefined> {
    const record = await this.db.run(this.#table.update({ id }, { ...patch, updated_at: updatedAt }));
    if (!record) return undefined;
    await this.announce({ entity: "mcp_server", id, workspace_id: record.workspace_id });
    return shown(record);
  }

  *#deleteWithPins(id: string): Work<McpServerWithSecret | undefined> {
    const [record] = yield* this.#table.delete({ id });
    if (record) yield* this.#pins.discard({ workspace_id: record.workspace_id, server: record.name });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const record = await this.db.atomic(this.#deleteWithPins(id));
    if (record) await this.announce({ entity: "mcp_server", id, workspace_id: record.workspace_id });
    return record !== undefined;
  }
}

export class McpToolPins implements McpToolPinRepository {
  readonly #table: Table<McpToolPin>;

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
  ) {
    this.#table = new Table(MCP_TOOL_PINS, db.dialect);
  }

  async list(workspaceId: string, server: string): Promise<McpToolPin[]> {
    return this.db.run(this.#table.many({ workspace_id: workspaceId, server }));
  }

  async get(workspaceId: string, server: string, tool: string): Promise<McpToolPin | undefined> {
    return this.db.run(this.#table.one({ workspace_id: workspaceId, server, tool }));
  }

  *#insertAll(pins: McpToolPin[]): Work<number> {
    let added = 0;
    for (const pin of pins) if (yield* this.#table.insert(pin, "ignore")) added++;
    return added;
  }

  async insertMissing(pins: McpToolPin[]): Promise<void> {
    if (!pins.length) return;
    const added = await this.db.atomic(this.#insertAll(pins));
    if (added) await this.#announce(pins[0]!);
  }

  async put(pin: McpToolPin): Promise<McpToolPin> {
    const stored = await this.db.run(
      this.#table.upsert(
        pin,
        ["workspace_id", "server", "tool"],
        ["status", "hash", "definition", "pending_hash", "pending_definition", "flagged_at", "updated_at"],
      ),
    );
    await this.#announce(pin);
    return stored;
  }

  async delete(workspaceId: string, server: string, tool?: string): Promise<number> {
    const gone = await this.db.run(this.#table.discard({ workspace_id: workspaceId, server, tool }));
    if (gone) await this.announce({ entity: "mcp_tool_pin", id: server, workspace_id: workspaceId || null });
    return gone;
  }

  async #announce(pin: McpToolPin): Promise<void> {
    await this.announce({ entity: "mcp_tool_pin", id: pin.server, workspace_id: pin.workspace_id || null });
  }
}
