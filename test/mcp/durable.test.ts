/**
 * `settings.log_durable` on tool calls: a `tools/call` answer leaves the gateway only once its
 * record is committed, so a `guardgate serve` killed without warning right after answering still
 * has the record of every call it answered.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { spawnServe } from "../support/serve-process.js";

const STDIO_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/mcp/stdio-server.mjs");
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** One stateless (2026-07-28) `tools/call` of the stdio server's `echo`. */
function toolCall(url: string, key: string, text: string): Promise<Response> {
  return fetch(`${url}/v1/mcp/local`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "x-gateway-api-key": key,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "echo",
        arguments: { text },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "durable", version: "1" },
        },
      },
    }),
  });
}

/** Serves a stdio MCP server with `log_durable`, calls its tool from 8 clients and kills the process right after an answer. */
async function killDuringToolCalls(durable: boolean): Promise<{ answered: string[]; logged: Set<string> }> {
  const cwd = mkdtempSync(path.join(tmpdir(), "guardgate-mcp-durable-"));
  dirs.push(cwd);
  const configPath = path.join(cwd, "gateway.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      settings: { log_durable: durable },
      mcp_servers: [{ name: "local", command: process.execPath, args: [STDIO_SERVER] }],
    }),
  );
  const dataDir = path.join(cwd, "data");
  const server = await spawnServe(["--config", configPath, "--data-dir", dataDir], {
    cwd,
    onSpawn: (child) => children.push(child),
  });
  const keys = JSON.parse(readFileSync(path.join(dataDir, "initial-keys.json"), "utf8"));
  const answered: string[] = [];
  let killed = false;
  const client = async (n: number) => {
    for (let i = 0; !killed; i++) {
      try {
        const response = await toolCall(server.url, keys.api_key, `client ${n} call ${i}`);
        const body = (await response.json()) as { result?: { content?: { text?: string }[] } };
        const id = response.headers.get("x-gateway-request-id");
        if (body.result?.content?.[0]?.text === `echo: client ${n} call ${i}` && id && !killed) answered.push(id);
      } catch {
        // The connection the kill cut: not an answer.
      }
      if (!killed && answered.length >= 120) {
        killed = true;
        server.child.kill("SIGKILL");
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, n) => client(n)));
  await server.exited;
  const db = new Database(path.join(dataDir, "guardgate.db"), { readonly: true });
  const logged = new Set(db.prepare("SELECT id FROM request_logs").pluck().all() as string[]);
  db.close();
  return { answered, logged };
}

describe("log_durable on tool calls", () => {
  it("keeps the record of every answered tools/call through a SIGKILL", async () => {
    const { answered, logged } = await killDuringToolCalls(true);
    expect(answered.length).toBeGreaterThanOrEqual(120);
    expect(answered.filter((id) => !logged.has(id))).toEqual([]);
  });
});
