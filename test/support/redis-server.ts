/**
 * A real Redis server for tests (Debian's `redis-server` package) on a free port, in a temporary
 * folder, keeping nothing on disk. It can be stopped and started again on the same port, to test
 * what the gateway does while Redis is down and once it is back.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./free-port.js";

const BINARY = "/usr/bin/redis-server";

/** A test server. */
export interface RedisServer {
  port: number;
  url: string;
  /** Stops the server (as a crash would: nothing is saved); `start` brings it back on the same port. */
  pause(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode})`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: "127.0.0.1" });
      socket.once("connect", () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts a server; fails with the reason when Redis is not installed. */
export async function startRedis(): Promise<RedisServer> {
  if (!existsSync(BINARY)) throw new Error(`no ${BINARY}: install Debian's redis-server package`);
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const kill = () => child?.kill("SIGKILL");
  process.once("exit", kill);
  const start = async () => {
    child = spawn(BINARY, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], {
      stdio: "ignore",
    });
    await waitForPort(port, child);
  };
  const pause = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  try {
    await start();
  } catch (error) {
    kill();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pause,
    start,
    async stop() {
      await pause();
      process.off("exit", kill);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
