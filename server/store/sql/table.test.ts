import { describe, expect, it } from "vitest";
import { POSTGRES_DIALECT } from "../postgres/driver.js";
import { SQLITE_DIALECT } from "../sqlite/driver.js";
import { type Outcome, type Statement, Table, type TableDescription, type Work } from "./table.js";

interface Thing {
  id: string;
  workspace_id: string | null;
  enabled: boolean;
  settings: Record<string, unknown>;
  version: number;
  created_at: string;
}

const THINGS: TableDescription<Thing> = {
  name: "things",
  columns: { id: "text", workspace_id: "text", enabled: "bool", settings: "json", version: "int", created_at: "text" },
  order: ["created_at DESC", "version"],
};

/** The statement a one-statement work yields, and what it returns when the database answers `outcome`. */
function step<T>(work: Work<T>, outcome: Outcome): { statement: Statement; result: T } {
  const first = work.next();
  if (first.done) throw new Error("the work ran no statement");
  const last = work.next(outcome);
  if (!last.done) throw new Error("the work ran more than one statement");
  return { statement: first.value, result: last.value };
}

const none: Outcome = { rows: [], changes: 0 };

describe("statements made from a table description", () => {
  it("numbers Postgres parameters in the order they appear, and leaves out what a patch does not name", () => {
    const table = new Table(THINGS, POSTGRES_DIALECT);
    const patch = { enabled: false, settings: { a: 1 }, version: undefined, unknown: 1 } as Partial<Thing>;
    const { statement } = step(table.update({ id: "t1", workspace_id: null }, patch, "version"), none);
    expect(statement.text).toBe(
      "UPDATE things SET enabled = $1, settings = $2, version = version + 1 WHERE id = $3 AND workspace_id IS NULL RETURNING *",
    );
    expect(statement.params).toEqual([false, '{"a":1}', "t1"]);
  });

  it("writes booleans as 0/1 and JSON as text on SQLite, and reads them back", () => {
    const table = new Table(THINGS, SQLITE_DIALECT);
    const thing: Thing = { id: "t1", workspace_id: null, enabled: true, settings: { a: [1] }, version: 1, created_at: "T" };
    const { statement } = step(table.insert(thing, "ignore"), { rows: [], changes: 1 });
    expect(statement.text).toBe(
      "INSERT INTO things (id, workspace_id, enabled, settings, version, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    );
    expect(statement.params).toEqual(["t1", null, 1, '{"a":[1]}', 1, "T"]);
    const row = { id: "t1", workspace_id: null, enabled: 1, settings: '{"a":[1]}', version: 1, created_at: "T" };
    expect(step(table.one({ id: "t1" }), { rows: [row], changes: 1 }).result).toEqual(thing);
  });

  it("sorts text bytewise on Postgres, whatever the database's collation, and skips undefined conditions", () => {
    const pg = step(new Table(THINGS, POSTGRES_DIALECT).many({ workspace_id: "w1", id: undefined }), none).statement;
    expect(pg.text).toBe('SELECT * FROM things WHERE workspace_id = $1 ORDER BY created_at COLLATE "C" DESC, version');
    const sqlite = step(new Table(THINGS, SQLITE_DIALECT).many({ workspace_id: "w1" }), none).statement;
    expect(sqlite.text).toBe("SELECT * FROM things WHERE workspace_id = ? ORDER BY created_at DESC, version");
  });

  it("overwrites only the named columns on a clash with the key", () => {
    const table = new Table(THINGS, SQLITE_DIALECT);
    const thing: Thing = { id: "t1", workspace_id: "w", enabled: false, settings: {}, version: 1, created_at: "T" };
    const row = { ...thing, enabled: 0, settings: "{}" };
    const { statement, result } = step(table.upsert(thing, ["id"], ["settings"]), { rows: [row], changes: 1 });
    expect(statement.text).toMatch(/ON CONFLICT \(id\) DO UPDATE SET settings = excluded\.settings RETURNING \*$/);
    expect(result).toEqual(thing);
  });
});
