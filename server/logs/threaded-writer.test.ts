import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { logEntry } from "../../test/support/log-entry.js";
import { openSqliteStore } from "../store/sqlite/sqlite-store.js";
import { holdWriteLock } from "../../test/support/sqlite-lock.js";
import type { NewLogEntry } from "../store/log-types.js";
import { BatchWriter } from "./batch-writer.js";
import { LogWriterThread } from "./threaded-writer.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-log-thread-"));
  dirs.push(dir);
  return dir;
}

const T = "2026-01-01T00:00:00.000Z";
const entry = (id: string) => logEntry(id, T, { status: 246 }, [false]);

describe("the request log's writer thread", () => {
  it("writes batches through its own connection, which the store's connection reads at once", async () => {
    const file = path.join(tempDir(), "guardgate.db");
    const store = openSqliteStore({ file, externalChangePollMs: 0 });
    const thread = new LogWriterThread(file);
    try {
      await thread.insert([entry("l1"), entry("l2")]);
      await thread.insert([entry("l3")]);
      expect((await store.logs.get("l2"))?.status).toBe(246);
      expect((await store.logs.query({ limit: 10 })).items.map((e) => e.id).sort()).toEqual(["l1", "l2", "l3"]);
      const { guardrails } = await store.logs.aggregate({});
      expect(guardrails).toMatchObject([{ guardrail_id: "g1", runs: 3, failed: 3 }]);
    } finally {
      await thread.close();
      await store.close();
    }
  });

  it("fails the batches of a thread whose database cannot open, and tries a fresh thread for the next", async () => {
    const file = path.join(tempDir(), "missing-folder", "guardgate.db");
    const thread = new LogWriterThread(file);
    try {
      await expect(thread.insert([entry("l1")])).rejects.toThrow(/directory does not exist|unable to open/i);
      await expect(thread.insert([entry("l2")])).rejects.toThrow(/directory does not exist|unable to open/i);
      await expect(thread.insert([entry("l3")])).rejects.toThrow(`cannot open the store at ${file}`);
    } finally {
      await thread.close();
    }
  });

  it("refuses batches once closed", async () => {
    const file = path.join(tempDir(), "guardgate.db");
    openSqliteStore({ file, externalChangePollMs: 0 }).close();
    const thread = new LogWriterThread(file);
    await thread.insert([entry("l1")]);
    await thread.close();
    await expect(thread.insert([entry("l2")])).rejects.toThrow(/closed/);
  });

  it("keeps every record while another process holds the write lock, and writes them once it is free", async () => {
    const file = path.join(tempDir(), "guardgate.db");
    const store = openSqliteStore({ file, externalChangePollMs: 0 });
    const holder = await holdWriteLock(file, "EXCLUSIVE");
    const thread = new LogWriterThread(file, { lockWaitMs: 20 });
    const failures: unknown[] = [];
    const writer = new BatchWriter<NewLogEntry>({
      write: (batch) => thread.insert(batch),
      flushIntervalMs: 1,
      onError: (error) => failures.push(error),
    });
    try {
      for (const id of ["k1", "k2", "k3"]) await writer.write(entry(id));
      // The thread gave up on the batch at least once while the lock was held; nothing was dropped.
      while (failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(holder.held).toBe(true);
      expect(failures[0]).toMatchObject({ code: "store_busy" });
      expect(writer.pending).toBe(3);
      await holder.release();
      await writer.flush();
      expect((await store.logs.query({ limit: 10 })).items.map((e) => e.id).sort()).toEqual(["k1", "k2", "k3"]);
    } finally {
      await holder.release();
      await writer.stop();
      await thread.close();
      await store.close();
    }
  });
});
