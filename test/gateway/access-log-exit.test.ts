/**
 * The access log is buffered (server/logs/access-destination.ts): lines wait in memory for a
 * write. A `guardgate serve` stopped by SIGTERM must still have written the line of every request
 * it answered, the last ones included.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnServe } from "../support/serve-process.js";

const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The `reqId` of every "request completed" line in some pino output. */
function completedIds(output: string): Set<string> {
  const ids = new Set<string>();
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { msg?: string; reqId?: string };
    if (entry.msg === "request completed" && entry.reqId) ids.add(entry.reqId);
  }
  return ids;
}

describe("access log", () => {
  it("has the line of every answered request in the output of a server stopped by SIGTERM", async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), "guardgate-access-"));
    dirs.push(cwd);
    const dataDir = path.join(cwd, "data");
    const server = await spawnServe(["--data-dir", dataDir, "--log-level", "info"], {
      cwd,
      onSpawn: (child) => children.push(child),
    });
    const keys = JSON.parse(readFileSync(path.join(dataDir, "initial-keys.json"), "utf8")) as { api_key: string };
    const answered: string[] = [];
    // Fewer lines than the buffer holds: the last ones, answered within its wait, only a flush on the way out writes.
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-gateway-api-key": keys.api_key },
        body: JSON.stringify({ model: "@mock/m", messages: [{ role: "user", content: `request ${i}` }] }),
      });
      await response.text();
      expect(response.status).toBe(200);
      answered.push(response.headers.get("x-gateway-request-id") ?? "");
    }
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const logged = completedIds(server.output());
    expect(answered.filter((id) => !logged.has(id))).toEqual([]);
  }, 120_000);
});
