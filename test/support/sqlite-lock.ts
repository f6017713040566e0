/**
 * Another process holding a SQLite file's write lock, as the CLI or a `sqlite3` shell would: it
 * opens the file, runs `BEGIN IMMEDIATE` (or EXCLUSIVE) and one write, and keeps the transaction
 * open until told to commit.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { once } from "node:events";

const require = createRequire(import.meta.url);

/** The holder's program: takes the lock, says so on stdout, commits when stdin says "release". */
const PROGRAM = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.exec("BEGIN " + process.argv[3]);
db.exec("CREATE TABLE IF NOT EXISTS lock_holder (n INTEGER)");
db.exec("INSERT INTO lock_holder VALUES (1)");
process.stdout.write("locked\\n");
process.stdin.on("data", (chunk) => {
  if (!String(chunk).includes("release")) return;
  db.exec("COMMIT");
  db.close();
  process.stdout.write("released\\n");
  process.exit(0);
});
`;

/** A process holding the write lock of a SQLite file. */
export interface LockHolder {
  /** Whether the lock is still held. */
  readonly held: boolean;
  /** Commits the holder's transaction (freeing the lock) and waits for the process to end. */
  release(): Promise<void>;
}

/** Starts a process that holds `file`'s write lock; resolves once it holds it. */
export async function holdWriteLock(file: string, mode: "IMMEDIATE" | "EXCLUSIVE" = "IMMEDIATE"): Promise<LockHolder> {
  const child: ChildProcess = spawn(process.execPath, ["-e", PROGRAM, require.resolve("better-sqlite3"), file, mode], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += String(chunk)));
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (out.includes("locked")) resolve();
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => reject(new Error(`the lock holder exited with code ${code} before taking the lock`)));
  });
  let held = true;
  return {
    get held() {
      return held;
    },
    async release() {
      if (!held) return;
      const exited = once(child, "exit");
      child.stdin!.write("release\n");
      await exited;
      held = false;
    },
  };
}
