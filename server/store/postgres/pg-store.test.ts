import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { logEntry } from "../../../test/support/log-entry.js";
import { type PostgresServer, startPostgres } from "../../../test/support/postgres-server.js";
import { describeStoreContract } from "../../../test/support/store-contract.js";
import { buildApp } from "../../app.js";
import { prepareManagedGateway } from "../../lifecycle/start.js";
import type { Store } from "../repository.js";
import { DESCRIBED_TABLES } from "../sql/tables.js";
import { POSTGRES_DIALECT } from "./driver.js";
import { PG_MIGRATIONS } from "./migrations.js";
import { openPostgresStore, type PostgresStoreOptions } from "./pg-store.js";

let server: PostgresServer;
const stores: Store[] = [];

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(async () => {
  await server?.stop();
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function open(options: PostgresStoreOptions): Promise<Store> {
  const store = await openPostgresStore({ poolSize: 4, ...options });
  stores.push(store);
  return store;
}

describe("Postgres store", () => {
  it("migrates an empty database once, even when instances start together", async () => {
    const url = await server.createDatabase();
    await Promise.all([open({ url }), open({ url }), open({ url })]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const versions = (await client.query("SELECT version FROM schema_migrations ORDER BY version")).rows.map((r) => r.version);
      expect(versions).toEqual(PG_MIGRATIONS.map((m) => m.version));
      const partitioned = await client.query("SELECT relkind FROM pg_class WHERE relname = 'request_logs'");
      expect(partitioned.rows[0].relkind).toBe("p");
    } finally {
      await client.end();
    }
  });

  it("has every described table with the columns and types of its description", async () => {
    const url = await server.createDatabase();
    await open({ url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const table of DESCRIBED_TABLES) {
        const { rows } = await client.query<{ column_name: string; data_type: string }>(
          "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
          [table.name],
        );
        const described = Object.entries(table.columns).map(([name, kind]) => [name, POSTGRES_DIALECT.columnTypes[kind]]);
        expect(Object.fromEntries(rows.map((c) => [c.column_name, c.data_type])), table.name).toEqual(
          Object.fromEntries(described),
        );
      }
    } finally {
      await client.end();
    }
  });

  it("refuses a database written by a newer schema, and names the store without its password", async () => {
    const url = await server.createDatabase();
    await (await open({ url })).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', now())");
    await client.end();
    await expect(openPostgresStore({ url })).rejects.toThrow(/schema version 999/);
    const withPassword = (await server.createDatabase()).replace("guardgate@", "guardgate:s3cret@");
    expect((await open({ url: withPassword })).location).not.toContain("s3cret");
  });

  it("fails to open with the reason when the server cannot be reached", async () => {
    await expect(openPostgresStore({ url: "postgres://guardgate:s3cret@127.0.0.1:1/none" })).rejects.toThrow(
      /cannot open the store at postgres:\/\/guardgate:\*\*\*@127\.0\.0\.1:1\/none/,
    );
  });

  it("drops day partitions past the retention period, and keeps the rest", async () => {
    const url = await server.createDatabase();
    const store = await open({ url });
    const now = new Date();
    const old = new Date(now.getTime() - 40 * 86_400_000).toISOString();
    const recent = new Date(now.getTime() - 2 * 86_400_000).toISOString();
    await store.organizations.create({
      id: "org1",
      name: "O",
      plan: "developer",
      guardrails_enabled: true,
      allow_workspace_integrations: false,
      settings: {},
      created_at: old,
      updated_at: old,
    });
    await store.logs.insert([logEntry("old", old), logEntry("recent", recent)]);
    await store.close();
    const kept = await open({ url, logRetentionDays: 30 });
    expect(await kept.logs.get("old")).toBeUndefined();
    expect(await kept.logs.get("recent")).toBeDefined();
    // A later write to the dropped day makes its partition again.
    await kept.logs.insert([logEntry("late", old)]);
    expect(await kept.logs.get("late")).toBeDefined();
  });
});

describe("a start over Postgres with a mistake in the config file", () => {
  it("stops and leaves none of the file in the store", async () => {
    const url = await server.createDatabase();
    const dataDir = mkdtempSync(path.join(tmpdir(), "guardgate-pg-seed-"));
    try {
      const good = { id: "no-hello", checks: [{ id: "default.contains", parameters: { words: ["hello"], operator: "none" } }] };
      const managed = await prepareManagedGateway({
        dataDir,
        env: {},
        storeUrl: url,
        externalChangePollMs: 0,
        file: {
          api_keys: [{ key: "gk-seeded-key-0123456789" }],
          guardrails: [good],
          configs: [{ id: "broken", config: { input_guardrails: ["no-hello"], overide_params: {} } }],
        },
      });
      const app = await buildApp({ ...managed.appOptions, logger: false });
      try {
        await expect(managed.setup(app)).rejects.toThrow("overide_params: unknown key; did you mean override_params?");
      } finally {
        await app.close();
        await managed.abandon();
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        expect((await client.query("SELECT id FROM guardrails")).rows).toEqual([]);
        expect((await client.query("SELECT id FROM configs")).rows).toEqual([]);
        // The first start's own key pair is there; the file's key is not.
        expect((await client.query("SELECT id FROM api_keys")).rows).toHaveLength(2);
      } finally {
        await client.end();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("instances starting together on an empty Postgres store", () => {
  it("make one first organization and one set of first keys", async () => {
    const url = await server.createDatabase();
    const dirs = [0, 1, 2].map(() => mkdtempSync(path.join(tmpdir(), "guardgate-pg-first-")));
    // A fleet shares its secret key, as its instances share the store.
    const env = { GUARDGATE_SECRET_KEY: randomBytes(32).toString("hex") };
    const started = await Promise.all(
      dirs.map(async (dataDir) => {
        const managed = await prepareManagedGateway({ dataDir, env, storeUrl: url, externalChangePollMs: 0 });
        const app = await buildApp({ ...managed.appOptions, logger: false });
        try {
          return await managed.setup(app);
        } finally {
          await app.close();
          await managed.abandon();
        }
      }),
    );
    try {
      expect(started.filter((report) => report.initial).length).toBe(1);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        expect((await client.query("SELECT id FROM organizations")).rows).toHaveLength(1);
        expect((await client.query("SELECT id FROM workspaces")).rows).toHaveLength(1);
        expect((await client.query("SELECT id FROM api_keys")).rows).toHaveLength(2);
      } finally {
        await client.end();
      }
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeStoreContract("Postgres", {
  async open(pollMs = 0) {
    const url = await server.createDatabase();
    const store = await openPostgresStore({ url, poolSize: 4, externalChangePollMs: pollMs });
    return { store, openAnother: () => openPostgresStore({ url, poolSize: 4, externalChangePollMs: 0 }) };
  },
});
