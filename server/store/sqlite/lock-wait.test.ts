/**
 * The store's connection waits for another process's write lock on timers, never on the event
 * loop, and gives up after its bound with `store_busy`. The lock is held by a real second process
 * (test/support/sqlite-lock.ts). Whether the loop was free is seen from behaviour: a timer set
 * after the write began fires while the lock is still held and the write still waits.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { holdWriteLock, type LockHolder } from "../../../test/support/sqlite-lock.js";
import { logEntry } from "../../../test/support/log-entry.js";
import { StoreError } from "../errors.js";
import type { Store } from "../repository.js";
import { openSqliteStore } from "./sqlite-store.js";

const dirs: string[] = [];
const stores: Store[] = [];
const holders: LockHolder[] = [];

afterEach(async () => {
  for (const holder of holders.splice(0)) await holder.release();
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const T = "2025-01-01T00:00:00.000Z";

function open(lockWaitMs: number): { store: Store; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-lock-"));
  dirs.push(dir);
  const file = path.join(dir, "guardgate.db");
  const store = openSqliteStore({ file, externalChangePollMs: 0, lockWaitMs });
  stores.push(store);
  return { store, file };
}

async function hold(file: string, mode?: "IMMEDIATE" | "EXCLUSIVE"): Promise<LockHolder> {
  const holder = await holdWriteLock(file, mode);
  holders.push(holder);
  return holder;
}

const organization = (id: string) => ({
  id,
  name: id,
  plan: "developer" as const,
  guardrails_enabled: true,
  allow_workspace_integrations: false,
  settings: {},
  created_at: T,
  updated_at: T,
});

/** Starts `write`, then sees whether a timer set after it fires before it settles. */
async function loopWhileWaiting(write: () => Promise<unknown>, holder: LockHolder) {
  let settled = false;
  const pending = write().finally(() => (settled = true));
  pending.catch(() => {});
  const atTimer = await new Promise<{ settled: boolean; held: boolean }>((resolve) =>
    setTimeout(() => resolve({ settled, held: holder.held }), 0),
  );
  return { atTimer, pending };
}

/** Writes through each path of the store's connection: a statement, a transaction, `atomically`, meta, logs. */
const WRITES: Array<[string, (store: Store, n: number) => Promise<unknown>]> = [
  ["a statement (driver.run)", (store, n) => store.organizations.create(organization(`org${n}`))],
  ["a transaction (driver.atomic)", (store, n) => store.organizations.delete(`org${n}`)],
  ["atomically", (store, n) => store.atomically!(() => store.organizations.create(organization(`org${n}`)))],
  ["meta", (store, n) => store.meta.set(`key${n}`, "v")],
  ["the request log", (store, n) => store.logs.insert([logEntry(`log${n}`, T, { status: 200 }, [])])],
];

describe("the SQLite store while another process holds the write lock", () => {
  it.each(WRITES)("%s waits on a timer and succeeds once the lock is released", async (_name, write) => {
    const { store, file } = open(60_000);
    const holder = await hold(file);
    const { atTimer, pending } = await loopWhileWaiting(() => write(store, 1), holder);
    // The event loop ran a timer while the write waited for the lock.
    expect(atTimer).toEqual({ settled: false, held: true });
    await holder.release();
    await expect(pending).resolves.not.toThrow();
  });

  it.each(WRITES)("%s gives up after its bound with store_busy (a 503), the lock still held", async (_name, write) => {
    const { store, file } = open(30);
    const holder = await hold(file, "EXCLUSIVE");
    const error = await write(store, 2).catch((e: unknown) => e);
    expect(holder.held).toBe(true);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: "store_busy" });
    // Reads go on: WAL readers never wait for the writer.
    expect(await store.organizations.list()).toEqual([]);
    await holder.release();
    // Nothing was half-written, and the store writes again.
    await expect(write(store, 3)).resolves.not.toThrow();
  });
});
