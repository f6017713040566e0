import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { describeStoreContract } from "../../../test/support/store-contract.js";
import type { Store } from "../repository.js";
import { DESCRIBED_TABLES } from "../sql/tables.js";
import { SQLITE_DIALECT } from "./driver.js";
import { MIGRATIONS } from "./migrations.js";
import { openSqliteStore } from "./sqlite-store.js";

const dirs: string[] = [];
const stores: Store[] = [];

function tempFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-sqlite-"));
  dirs.push(dir);
  return path.join(dir, "guardgate.db");
}

function open(file: string, pollMs = 0): Store {
  const store = openSqliteStore({ file, externalChangePollMs: pollMs });
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const T = "2025-01-01T00:00:00.000Z";

describe("SQLite store files", () => {
  it("migrates an empty file, in WAL mode, and reopens without migrating again", async () => {
    const file = tempFile();
    const store = open(file);
    await store.close();
    const db = new Database(file, { readonly: true });
    const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").pluck().all();
    expect(versions).toEqual(MIGRATIONS.map((m) => m.version));
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(["organizations", "workspaces", "api_keys", "integrations", "request_logs"]));
    db.close();
    const again = open(file);
    expect(await again.organizations.list()).toEqual([]);
  });

  it("has every described table with the columns and types of its description", async () => {
    const file = tempFile();
    await open(file).close();
    const db = new Database(file, { readonly: true });
    try {
      for (const table of DESCRIBED_TABLES) {
        const columns = db.prepare(`PRAGMA table_info(${table.name})`).all() as { name: string; type: string }[];
        const described = Object.entries(table.columns).map(([name, kind]) => [name, SQLITE_DIALECT.columnTypes[kind]]);
        expect(Object.fromEntries(columns.map((c) => [c.name, c.type])), table.name).toEqual(Object.fromEntries(described));
      }
    } finally {
      db.close();
    }
  });

  it("refuses a database written by a newer schema", async () => {
    const file = tempFile();
    await open(file).close();
    const db = new Database(file);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', ?)").run(T);
    db.close();
    expect(() => openSqliteStore({ file, externalChangePollMs: 0 })).toThrow(/schema version 999/);
  });
});

describeStoreContract("SQLite", {
  async open(pollMs = 0) {
    const file = tempFile();
    return { store: open(file, pollMs), openAnother: async () => open(file) };
  },
});
