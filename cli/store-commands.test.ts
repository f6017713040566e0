import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { hashApiKey } from "../server/store/api-keys.js";
import { openStore } from "../server/store/open.js";
import { runWithLoadedModules } from "../test/support/loaded-modules.js";
import { chat, startManaged } from "../test/support/managed.js";

// The commands as users run them: the built CLI against a data folder a gateway created. Each test
// runs several commands one after another, a second or so each on an idle machine and several on
// a busy one: the limit is for a hang, not for the machine's speed.
vi.setConfig({ testTimeout: 180_000 });
const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli/bin.js");
let dir: string;
let workspaceId: string;

function guardgate(args: string[]) {
  const run = spawnSync(process.execPath, [bin, ...args, "--data-dir", dir], {
    encoding: "utf8",
    env: { ...process.env, GUARDGATE_SECRET_KEY: "" },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "guardgate-cli-store-"));
  const gw = await startManaged({ dir });
  workspaceId = gw.keys.workspace_id;
  for (const text of ["first request", "second request"]) {
    await gw.call("POST", "/v1/chat/completions", { key: gw.keys.api_key, body: chat("@mock/m", text) });
  }
  await gw.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("guardgate keys", () => {
  it("creates a key shown once, lists records without keys, and revokes", async () => {
    const created = guardgate(["keys", "create", "--name", "ci"]);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^gg-/);
    expect(created.stderr).toContain(`(member in workspace ${workspaceId}); the key is shown this once`);
    const boss = guardgate(["keys", "create", "--name", "boss", "--role", "org_admin", "--json"]);
    expect(JSON.parse(boss.stdout).api_key).toMatchObject({ role: "org_admin", workspace_id: null });
    const list = guardgate(["keys", "list"]);
    expect(list.stdout).toContain("ci");
    expect(list.stdout).not.toContain(key);
    const { store } = await openStore({ dataDir: dir, env: {}, externalChangePollMs: 0 });
    const record = await store.apiKeys.findByHash(hashApiKey(key));
    await store.close();
    expect(record).toMatchObject({ name: "ci", role: "member", workspace_id: workspaceId });
    expect(guardgate(["keys", "revoke", record!.id]).code).toBe(0);
    expect(guardgate(["keys", "revoke", record!.id]).stderr).toContain("does not exist");
    expect(guardgate(["keys", "create"]).stderr).toContain("--name is required");
    expect(guardgate(["keys", "create", "--name", "x", "--role", "boss"]).code).toBe(2);
  });
});

describe("guardgate orgs", () => {
  it("sets the plan and the guardrails flag, and creates a tenant with its first admin key", async () => {
    const list = guardgate(["orgs", "list"]);
    const id = list.stdout.split(/\s+/)[0]!;
    expect(list.stdout).toContain("enterprise   guardrails on");
    expect(guardgate(["orgs", "set", id, "--plan", "developer", "--guardrails", "off"]).stderr).toContain(
      "is on the developer plan, guardrails off",
    );
    expect(guardgate(["orgs", "list"]).stdout).toContain("developer    guardrails off");
    guardgate(["orgs", "set", id, "--plan", "enterprise", "--guardrails", "on"]);
    const created = guardgate(["orgs", "create", "--name", "Tenant", "--plan", "production"]);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    const { store } = await openStore({ dataDir: dir, env: {}, externalChangePollMs: 0 });
    expect(await store.apiKeys.findByHash(hashApiKey(key))).toMatchObject({ role: "org_admin", workspace_id: null });
    await store.close();
    expect(guardgate(["orgs", "set", id, "--plan", "gold"]).code).toBe(2);
  });
});

describe("guardgate guardrails apply", () => {
  it("creates, leaves unchanged, updates, and refuses an invalid guardrail with its path", () => {
    const file = path.join(dir, "guardrails.yaml");
    writeFileSync(
      file,
      "- id: no-ssn\n  side: input\n  deny: true\n  checks:\n    - id: default.regexMatch\n      parameters: {rule: '\\d{3}-\\d{2}-\\d{4}', not: true}\n- id: short\n  checks: [{id: default.wordCount, parameters: {maxWords: 20}}]\n",
    );
    const first = guardgate(["guardrails", "apply", file]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      `created no-ssn (version 1) in workspace ${workspaceId}\ncreated short (version 1) in workspace ${workspaceId}\n`,
    );
    expect(guardgate(["guardrails", "apply", file]).stdout).toContain("unchanged no-ssn (version 1)");
    const changed = path.join(dir, "short.json");
    writeFileSync(changed, JSON.stringify({ id: "short", checks: [{ id: "default.wordCount", parameters: { maxWords: 10 } }] }));
    expect(guardgate(["guardrails", "apply", changed]).stdout).toBe(`updated short (version 2) in workspace ${workspaceId}\n`);
    const bad = path.join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ guardrails: [{ id: "bad", checks: [{ id: "default.wordCount", parameters: { maxWords: "x" } }] }] }),
    );
    const refused = guardgate(["guardrails", "apply", bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('guardgate guardrails: guardrail "bad": checks[0].parameters.maxWords: must be integer\n');
    expect(guardgate(["guardrails", "apply", path.join(dir, "missing.json")]).code).toBe(2);
  });
});

describe("guardgate logs tail", () => {
  it("prints the latest records oldest first, as lines or JSON", () => {
    const lines = guardgate(["logs", "tail", "-n", "5"]).stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\S+Z {2}200 {2}\/v1\/chat\/completions {2}m {2}[\d.]+ ms {2}no guardrails {2}ws_\w+ {2}\S+$/);
    const json = guardgate(["logs", "tail", "-n", "1", "--json"]).stdout.trim();
    expect(JSON.parse(json)).toMatchObject({ status: 200, workspace_id: workspaceId });
    expect(guardgate(["logs", "tail", "--verdict", "maybe"]).code).toBe(2);
  });

  it("follows new records as they are written", async () => {
    const child = spawn(process.execPath, [
      bin,
      "logs",
      "tail",
      "-n",
      "0",
      "--follow",
      "--interval",
      "50",
      "--json",
      "--data-dir",
      dir,
    ]);
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    let err = "";
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    // Started (however long a busy machine takes), then a record is written for it to find.
    await vi.waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`logs tail --follow exited with ${child.exitCode}: ${err}`);
        expect(err).toContain("following");
      },
      { timeout: 120_000, interval: 25 },
    );
    const { store } = await openStore({ dataDir: dir, env: {}, externalChangePollMs: 0 });
    const [organization] = await store.organizations.list();
    await store.logs.insert([
      {
        id: "log_followed",
        created_at: new Date().toISOString(),
        organization_id: organization!.id,
        workspace_id: workspaceId,
        api_key_id: null,
        route: "/v1/messages",
        request_type: "messages",
        status: 446,
        latency_ms: 1,
        upstream_latency_ms: null,
        provider: null,
        provider_id: null,
        integration_id: null,
        model: null,
        config_id: null,
        cache_status: null,
        retry_count: 0,
        target: null,
        input_tokens: null,
        output_tokens: null,
        cost: null,
        error_code: "hooks_failed",
        record: {},
      },
    ]);
    await store.close();
    await vi.waitFor(() => expect(out).toContain("log_followed"), { timeout: 120_000, interval: 50 });
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(JSON.parse(out.trim())).toMatchObject({ id: "log_followed", status: 446 });
  });
});

describe("guardgate credentials", () => {
  const plugin = path.join(path.dirname(fileURLToPath(import.meta.url)), "../test/fixtures/plugins/partner-service.mjs");
  const KEY = "pk-cli-held-0123456789";
  const credentials = (args: string[], input = "", env: Record<string, string> = {}) => {
    const run = spawnSync(process.execPath, [bin, "credentials", ...args, "--data-dir", dir], {
      input,
      encoding: "utf8",
      env: { ...process.env, GUARDGATE_SECRET_KEY: "", ...env },
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };

  it("sets credentials from stdin or the environment, lists key names only, and removes them", async () => {
    const set = credentials(["set", "partner", "--plugin", plugin], JSON.stringify({ apiKey: KEY }));
    expect(set.stderr).toContain(`set the credentials of plugin "partner" in organization`);
    expect(set.code).toBe(0);
    const own = credentials(
      ["set", "partner", "--plugin", plugin, "--workspace", workspaceId, "--env", "apiKey=PARTNER_KEY"],
      "",
      {
        PARTNER_KEY: `${KEY}-own`,
      },
    );
    expect(own.code).toBe(0);
    expect(own.stderr).toContain(`in workspace ${workspaceId} (keys: apiKey)`);
    const list = credentials(["list"]);
    expect(list.stdout.trim().split("\n")).toHaveLength(2);
    expect(list.stdout).toContain("all workspaces");
    expect(list.stdout + set.stdout + set.stderr + own.stdout + own.stderr).not.toContain(KEY);

    // What a gateway over this data folder hands the plugin: the workspace's own wins.
    const gw = await startManaged({ dir, file: { plugins: [plugin] } });
    expect(await gw.managed.sources.pluginCredentials.forWorkspace(workspaceId)).toEqual({ partner: { apiKey: `${KEY}-own` } });
    await gw.close();

    const mismatch = credentials(["set", "partner", "--plugin", plugin], JSON.stringify({ apiKey: "short" }));
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain("credentials.apiKey: must NOT have fewer than 12 characters");
    const unloaded = credentials(["set", "partner"], JSON.stringify({ apiKey: KEY }));
    expect(unloaded.code).toBe(1);
    expect(unloaded.stderr).toContain('plugin: "partner" is not a loaded plugin');
    expect(credentials(["set", "partner", "--plugin", plugin], "not json").code).toBe(2);
    expect(credentials(["set", "partner", "--env", "apiKey=UNSET_VARIABLE_FOR_TEST"]).stderr).toContain(
      "environment variable UNSET_VARIABLE_FOR_TEST is not set",
    );

    expect(credentials(["remove", "partner", "--workspace", workspaceId]).code).toBe(0);
    expect(credentials(["remove", "partner", "--workspace", workspaceId]).code).toBe(2);
    expect(credentials(["list"]).stdout.trim().split("\n")).toHaveLength(1);
  });
});

describe("guardgate policies apply", () => {
  it("holds a file's policies to the admin API's schema: a misspelt scope key is refused with its path, not dropped", () => {
    const bad = path.join(dir, "policies-bad.yaml");
    writeFileSync(
      bad,
      [
        "policies:",
        "  - id: cli-ok",
        "    scope: { models: ['@mock/*'] }",
        "    input_guardrails: [{ id: brief, checks: [{ id: default.wordCount, parameters: { maxWords: 8 } }] }]",
        "  - id: cli-typo",
        "    scope: { modles: ['@mock/m'] }",
        "    input_guardrails: [{ id: brief, checks: [{ id: default.wordCount, parameters: { maxWords: 8 } }] }]",
      ].join("\n"),
    );
    const refused = guardgate(["policies", "apply", bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("policy 1");
    expect(refused.stderr).toContain("modles");
    // Nothing of the file was saved: the check runs before the store is opened.
    expect(guardgate(["policies", "list"]).stdout).not.toContain("cli-ok");

    const good = path.join(dir, "policies-good.json");
    const brief = { id: "brief", checks: [{ id: "default.wordCount", parameters: { maxWords: 8 } }] };
    writeFileSync(good, JSON.stringify([{ id: "cli-ok", scope: { models: ["@mock/*"] }, input_guardrails: [brief] }]));
    const applied = guardgate(["policies", "apply", good]);
    expect(applied.stderr).toBe("");
    expect(applied.stdout).toBe("created policy cli-ok\n");
    expect(guardgate(["policies", "list"]).stdout).toContain("cli-ok");
  });
});

describe("a command run where there is no store", () => {
  it("says which folder it looked in, exits non-zero and creates nothing", { timeout: 120_000 }, () => {
    const empty = mkdtempSync(path.join(tmpdir(), "guardgate-cli-nostore-"));
    const missing = path.join(empty, "data");
    try {
      for (const args of [
        ["logs", "tail"],
        ["orgs", "list"],
        ["keys", "list"],
      ]) {
        const run = spawnSync(process.execPath, [bin, ...args, "--data-dir", missing], {
          encoding: "utf8",
          env: { ...process.env, GUARDGATE_SECRET_KEY: "", GUARDGATE_STORE_URL: "" },
        });
        expect(run.status, args.join(" ")).not.toBe(0);
        expect(run.stderr, args.join(" ")).toContain(`no store in ${missing}`);
        expect(existsSync(missing), args.join(" ")).toBe(false);
      }
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("guardgate eval --dataset", () => {
  it("exits 2 naming the flag when the dataset does not exist, like any other bad input", () => {
    const pack = path.join(dir, "eval-pack.json");
    writeFileSync(pack, JSON.stringify({ id: "brief", checks: [{ id: "default.wordCount", parameters: { maxWords: 8 } }] }));
    const run = guardgate(["eval", "--file", pack, "--dataset", "nope"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--dataset: no dataset "nope"');
  });
});

describe("what a command loads", () => {
  it("keys, orgs, logs, MCP servers and listings read and write the store without loading a plugin, the engine's checks or the config validators", () => {
    for (const args of [
      ["keys", "list"],
      ["orgs", "list"],
      ["logs", "tail", "-n", "1"],
      ["policies", "list"],
      ["credentials", "list"],
      ["mcp", "list"],
    ]) {
      const run = runWithLoadedModules([...args, "--data-dir", dir], { GUARDGATE_SECRET_KEY: "" });
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
      // The hook saw the command's own work: the store was opened.
      expect(run.modules, args.join(" ")).toContain("server/store/open.js");
      const needless = run.modules.filter((m) =>
        /^(plugins\/|server\/sources\/config-file\.js|server\/routing\/schema\.js)/.test(m),
      );
      expect(needless, args.join(" ")).toEqual([]);
    }
  });

  it("--help lists the commands without loading core", () => {
    const run = runWithLoadedModules(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("usage: guardgate");
    expect(run.modules).toContain("cli/main.js");
    expect(run.modules.filter((m) => m.startsWith("core/"))).toEqual([]);
  });
});
