/**
 * Reloading the config file without a restart: SIGHUP to the real process, or `POST
 * /admin/v1/reload` by an org admin. A valid file replaces the records the previous one seeded
 * (created, updated, removed) and the log says what changed; an invalid one is refused with its
 * path and the old records stay; a request in flight during a reload is answered.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { spawnServe } from "../support/serve-process.js";

const KEY = "gk-reload-test-0123456789";
const children: ChildProcess[] = [];
const dirs: string[] = [];
let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
});
afterAll(() => upstream.close());
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A config file: the key, a slow provider, guardrails denying each of `words`, a config per guardrail. */
function file(words: string[], extra: string[] = []): string {
  return [
    "api_keys:",
    `  - key: ${KEY}`,
    "providers:",
    "  - slug: slow",
    "    provider: openai",
    `    base_url: ${upstream.baseUrl}`,
    "    api_key: sk-upstream",
    "guardrails:",
    ...words.flatMap((word) => [
      `  - id: no-${word}`,
      "    side: input",
      "    async: false",
      "    deny: true",
      "    checks:",
      "      - id: default.regexMatch",
      `        parameters: { rule: "${word}", not: true }`,
    ]),
    "configs:",
    ...words.flatMap((word) => [
      `  - id: deny-${word}`,
      "    config:",
      '      provider: "@slow"',
      `      input_guardrails: [no-${word}]`,
    ]),
    ...extra,
    "",
  ].join("\n");
}

async function ask(url: string, config: string, text: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gateway-api-key": KEY, "x-gateway-config": config },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function start(withFile: boolean) {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-reload-"));
  dirs.push(dir);
  const configPath = path.join(dir, "gateway.yaml");
  writeFileSync(configPath, file(["alpha", "beta"]));
  const server = await spawnServe(
    ["--data-dir", path.join(dir, "data"), "--log-level", "info", ...(withFile ? ["--config", configPath] : [])],
    {
      onSpawn: (child) => children.push(child),
    },
  );
  const keys = JSON.parse(readFileSync(path.join(dir, "data", "initial-keys.json"), "utf8")) as {
    admin_key: string;
    api_key: string;
    workspace_id: string;
  };
  const admin = (method: string, route: string, key = keys.admin_key) =>
    fetch(`${server.url}/admin/v1${route}`, { method, headers: { "x-gateway-api-key": key } }).then(async (r) => ({
      status: r.status,
      body: (await r.json().catch(() => null)) as Record<string, unknown> | null,
    }));
  return { server, configPath, keys, admin };
}

/** Waits until the process's output holds a line matching `pattern` after `from` characters. */
async function logged(output: () => string, pattern: RegExp, from = 0): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const line = output()
      .slice(from)
      .split("\n")
      .find((l) => pattern.test(l));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no log line matching ${pattern}:\n${output().slice(from)}`);
}

describe("SIGHUP", () => {
  it("applies an edited file without dropping a request in flight, logs what changed, and refuses an invalid one keeping the old records", async () => {
    const { server, configPath, keys, admin } = await start(true);
    expect((await ask(server.url, "deny-alpha", "say alpha")).status).toBe(446);

    // A request in flight while the file changes and the signal arrives.
    upstream.enqueue({ kind: "answer", text: "whole answer", delayMs: 800 });
    const inFlight = ask(server.url, "deny-beta", "slow one");
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    writeFileSync(configPath, file(["beta", "gamma"]));
    const mark = server.output().length;
    server.child.kill("SIGHUP");
    const line = await logged(server.output, /reloaded/, mark);
    expect(line).toContain(configPath);
    expect(line).toMatch(/guardrails: 1 created, 0 updated, 1 removed, 1 unchanged/);
    expect(line).toMatch(/configs: 1 created, 0 updated, 1 removed, 1 unchanged/);
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect((answered.body.choices as Array<{ message: { content: string } }>)[0]!.message.content).toBe("whole answer");

    // The new file's records serve; the dropped ones are gone.
    expect((await ask(server.url, "deny-gamma", "say gamma")).status).toBe(446);
    // The config is gone: the id is not a saved config any more.
    expect((await ask(server.url, "deny-alpha", "say alpha")).status).toBe(404);
    expect((await admin("GET", `/workspaces/${keys.workspace_id}/guardrails/no-alpha`)).status).toBe(404);

    // An invalid file: refused with its path and the record, the process lives, the records stay.
    writeFileSync(
      configPath,
      file(
        ["delta"],
        [
          "policies:",
          "  - id: broken",
          "    input_guardrails:",
          "      - id: typo",
          "        checks: [{ id: default.noSuchCheck }]",
        ],
      ),
    );
    const before = server.output().length;
    server.child.kill("SIGHUP");
    const refusal = await logged(server.output, /refused/, before);
    expect(refusal).toContain(configPath);
    expect(refusal).toContain("policies[0]");
    expect(refusal).toContain("default.noSuchCheck");
    expect(server.child.exitCode).toBeNull();
    // Nothing of the refused file was kept: delta's records were never made, gamma's remain.
    expect((await ask(server.url, "deny-gamma", "say gamma")).status).toBe(446);
    expect((await admin("GET", `/workspaces/${keys.workspace_id}/guardrails/no-delta`)).status).toBe(404);
    expect((await admin("GET", `/workspaces/${keys.workspace_id}/configs/deny-delta`)).status).toBe(404);
    expect((await admin("GET", `/workspaces/${keys.workspace_id}/guardrails/no-gamma`)).status).toBe(200);
  });
});

describe("POST /admin/v1/reload", () => {
  it("reloads for an org admin, answers what changed; refuses other keys and invalid files", async () => {
    const { configPath, keys, admin } = await start(true);
    expect((await admin("POST", "/reload", keys.api_key)).status).toBe(403);

    writeFileSync(configPath, file(["alpha"]));
    const reloaded = await admin("POST", "/reload");
    expect(reloaded.status).toBe(200);
    expect(reloaded.body).toMatchObject({
      file: configPath,
      seeded: { guardrails: { created: 0, updated: 0, unchanged: 1 } },
      removed: { guardrails: ["no-beta"], configs: ["deny-beta"], api_keys: [], providers: [] },
      restart_needed: [],
    });

    writeFileSync(configPath, "guardrails: [ {id: x");
    const refused = await admin("POST", "/reload");
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { code: "reload_refused" } });
    expect(String((refused.body!.error as { message: string }).message)).toContain(configPath);
    expect((await admin("GET", `/workspaces/${keys.workspace_id}/guardrails/no-alpha`)).status).toBe(200);

    // A setting is read at start only: the reload says so.
    writeFileSync(configPath, file(["alpha"], ["settings:", "  body_limit: 2048"]));
    expect((await admin("POST", "/reload")).body).toMatchObject({ restart_needed: ["settings"] });
  });

  it("answers 409 when the gateway has no config file, and SIGHUP leaves it running", async () => {
    const { server, admin } = await start(false);
    expect(await admin("POST", "/reload")).toMatchObject({ status: 409, body: { error: { code: "no_config_file" } } });
    server.child.kill("SIGHUP");
    await logged(server.output, /no file to reload/);
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});
