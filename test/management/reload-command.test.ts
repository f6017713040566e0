/**
 * `guardgate reload` against a started gateway (real socket, real store): the edited config file
 * is applied and the command prints what changed; the key comes from the flag, the environment or
 * the data folder's initial-keys.json; a refused file and an unreachable gateway exit 1.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningManagedServer, startManagedServer } from "../../server/lifecycle/start.js";
import { runCli } from "../support/cli-run.js";
import { freePort } from "../support/free-port.js";

let dir: string;
let configPath: string;
let server: RunningManagedServer;
let adminKey: string;

function file(word: string): string {
  return [
    "guardrails:",
    "  - id: words",
    "    side: input",
    "    async: false",
    "    deny: true",
    "    checks:",
    "      - id: default.regexMatch",
    `        parameters: { rule: "${word}", not: true }`,
    "",
  ].join("\n");
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "guardgate-reload-command-"));
  configPath = path.join(dir, "gateway.yaml");
  writeFileSync(configPath, file("alpha"));
  server = await startManagedServer({
    port: 0,
    host: "127.0.0.1",
    configPath,
    dataDir: path.join(dir, "data"),
    env: {},
    logLevel: "silent",
  });
  adminKey = (JSON.parse(readFileSync(path.join(dir, "data", "initial-keys.json"), "utf8")) as { admin_key: string }).admin_key;
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function rule(): Promise<string> {
  const [workspace] = await server.managed.store.workspaces.list(server.report.seeded!.organization_id);
  if (!workspace) throw new Error("the file's organization has no workspace");
  const record = await server.managed.store.guardrails.get(workspace.id, "words");
  return record!.definition.checks[0]!.parameters!.rule as string;
}

describe("guardgate reload", () => {
  it("applies the edited file through the admin API and prints what changed", async () => {
    expect(await rule()).toBe("alpha");
    writeFileSync(configPath, file("beta"));
    const run = await runCli(["reload", "--url", server.url, "--api-key", adminKey]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`config file ${configPath} reloaded (`);
    expect(run.stdout).toContain("guardrails: 0 created, 1 updated, 0 removed, 0 unchanged");
    expect(await rule()).toBe("beta");
  });

  it("takes the URL and key from the environment, or the key from the data folder, and prints JSON", async () => {
    writeFileSync(configPath, file("gamma"));
    const fromEnv = await runCli(["reload", "--json"], { GUARDGATE_URL: server.url, GUARDGATE_API_KEY: adminKey });
    expect(fromEnv.code).toBe(0);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ file: configPath, seeded: { guardrails: { updated: 1 } } });
    expect(await rule()).toBe("gamma");
    writeFileSync(configPath, file("delta"));
    const fromFolder = await runCli(["reload", "--url", server.url, "--data-dir", path.join(dir, "data")], {
      GUARDGATE_API_KEY: undefined,
      GUARDGATE_URL: undefined,
    });
    expect(fromFolder.code).toBe(0);
    expect(await rule()).toBe("delta");
  });

  it("a refused file, a wrong key and an unreachable gateway exit 1, saying why", async () => {
    writeFileSync(configPath, "guardrails: [ { id: words, checks: [ { id: default.nope } ] } ]\n");
    const refused = await runCli(["reload", "--url", server.url, "--api-key", adminKey]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("400: ");
    expect(refused.stderr).toContain(`${configPath}: refused, nothing changed`);
    expect(await rule()).toBe("delta");
    const wrongKey = await runCli(["reload", "--url", server.url, "--api-key", "gk-not-a-key-0123456789"]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain("401");
    const port = await freePort();
    const nobody = await runCli(["reload", "--url", `http://127.0.0.1:${port}`, "--api-key", adminKey]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain(`cannot reach the gateway at http://127.0.0.1:${port} (ECONNREFUSED)`);
    const noKey = await runCli(["reload", "--url", server.url, "--data-dir", path.join(dir, "none")], {
      GUARDGATE_API_KEY: undefined,
    });
    expect(noKey.code).toBe(2);
  });
});
