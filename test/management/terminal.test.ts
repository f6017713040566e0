/**
 * `guardgate serve` at a terminal (a real pseudo-terminal, through `script`): the start-up lines
 * name the console, every log line is plain text (fastify's JSON listening line is gone, request
 * lines are one readable line each), and `GET /` leads a browser to the console.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv } from "../support/serve-process.js";

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../dist/cli/bin.js");
const dirs: string[] = [];
const pids: number[] = [];
const scripts: ChildProcess[] = [];

afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const child of scripts.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function until<T>(what: () => T | undefined, label: string, output: () => string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = what();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${label} never came; the terminal showed:\n${output()}`);
}

describe.skipIf(!existsSync("/usr/bin/script"))("guardgate serve at a terminal", () => {
  it("names the console, writes one plain line per request and no JSON; / leads to the console", async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), "guardgate-terminal-"));
    dirs.push(cwd);
    // `exec` so the process whose id is printed is the gateway itself.
    const command = `echo "pid $$"; exec '${process.execPath}' '${bin}' serve --port 0 --data-dir '${path.join(cwd, "data")}'`;
    const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd, env: { ...cleanEnv(), TERM: "dumb" } });
    scripts.push(child);
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += String(chunk);
    });
    const text = () => output.replace(/\r/g, "");
    const pid = Number(await until(() => text().match(/^pid (\d+)$/m)?.[1], "the pid", text));
    pids.push(pid);
    const url = await until(() => text().match(/guardgate listening on (http:\/\/[\d.]+:\d+)/)?.[1], "the listening line", text);
    expect(text()).toContain(`console at ${url}/console/`);

    const root = await fetch(`${url}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/console/");
    const models = await fetch(`${url}/v1/models`);
    expect(models.status).toBe(401);
    const line = await until(
      () =>
        text()
          .split("\n")
          .find((l) => l.includes("GET /v1/models 401")),
      "the request line",
      text,
    );
    expect(line).toMatch(/^\d\d:\d\d:\d\d INFO {2}GET \/v1\/models 401 \d+ ms {2}req=[0-9a-f-]{36}$/);

    process.kill(pid, "SIGTERM");
    await until(() => (child.exitCode === null ? undefined : true), "the exit", text);
    const lines = text().split("\n").filter(Boolean);
    expect(lines.filter((l) => l.trimStart().startsWith("{"))).toEqual([]);
    expect(text()).not.toContain("Server listening at");
  });
});
