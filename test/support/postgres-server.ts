/**
 * A real Postgres server for tests (Debian's `postgresql` package): a new cluster in a temporary
 * folder, on a free port, owned and run by the `postgres` system user when the tests run as root
 * (Postgres refuses root), with durability off for speed. Each test takes a fresh database of its
 * own from `createDatabase`; `stop` shuts the server down and removes the folder.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./free-port.js";

/** A running test server. */
export interface PostgresServer {
  port: number;
  /** The URL of a database on the server (the maintenance database by default). */
  url(database?: string): string;
  /** Creates an empty database; resolves to its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

const ROOT = "/usr/lib/postgresql";

/** The newest installed server's `bin` folder, or undefined. */
export function postgresBin(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT)
    .filter((name) => existsSync(path.join(ROOT, name, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && path.join(ROOT, versions[0], "bin");
}

/** The uid and gid to run as: the `postgres` system user when this process is root. */
function unprivileged(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

function run(file: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...user, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(file)} failed (${code}): ${stderr}`)),
    );
  });
}

async function waitForConnection(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited (${server.exitCode}): ${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections: ${(error as Error).message}; ${log()}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Starts a server; fails with the reason when Postgres is not installed or will not start. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  if (!bin) throw new Error(`no Postgres server under ${ROOT}: install Debian's postgresql package`);
  const user = unprivileged();
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-pg-"));
  const data = path.join(dir, "data");
  mkdirSync(data, { mode: 0o700 });
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chownSync(data, user.uid, user.gid);
  }
  let server: ChildProcess | undefined;
  const kill = () => server?.kill("SIGKILL");
  try {
    await run(
      path.join(bin, "initdb"),
      ["-D", data, "-U", "guardgate", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"],
      user,
    );
    const port = await freePort();
    let log = "";
    server = spawn(
      path.join(bin, "postgres"),
      [
        ...["-D", data, "-p", String(port), "-k", dir],
        ...["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off"],
        ...["-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=32MB"],
      ],
      { ...user, stdio: ["ignore", "ignore", "pipe"] },
    );
    server.stderr!.on("data", (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    process.once("exit", kill);
    const url = (database = "postgres") => `postgres://guardgate@127.0.0.1:${port}/${database}`;
    await waitForConnection(url(), server, () => log);
    let databases = 0;
    const running = server;
    return {
      port,
      url,
      async createDatabase() {
        const name = `test_${++databases}`;
        const admin = new pg.Client({ connectionString: url() });
        await admin.connect();
        try {
          await admin.query(`CREATE DATABASE ${name}`);
        } finally {
          await admin.end();
        }
        return url(name);
      },
      async stop() {
        process.off("exit", kill);
        if (running.exitCode === null) {
          const exited = new Promise((resolve) => running.once("exit", resolve));
          running.kill("SIGINT"); // fast shutdown: ends sessions, no wait for clients
          const timer = setTimeout(() => running.kill("SIGKILL"), 10_000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    kill();
    process.off("exit", kill);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
