/**
 * Records the config file seeds are the file's: the admin API marks them (`managed_by: "file"`,
 * `managed_file`) and refuses to change or delete them with 409 `file_managed`, naming the file,
 * since the next reload would silently write the file's version back; records made through the
 * API stay editable; `settings.file_records_editable: true` lets the operator edit them anyway.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningManagedServer, startManagedServer } from "../../server/lifecycle/start.js";

const dirs: string[] = [];
const servers: RunningManagedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function file(rule: string, extra: string[] = []): string {
  return [
    "providers:",
    "  - slug: up",
    "    provider: mock",
    "guardrails:",
    "  - id: words",
    "    side: input",
    "    checks:",
    "      - id: default.regexMatch",
    `        parameters: { rule: "${rule}" }`,
    "configs:",
    "  - id: cfg",
    "    config:",
    '      provider: "@up"',
    "      input_guardrails: [words]",
    "policies:",
    "  - id: pol",
    "    input_guardrails:",
    "      - id: short",
    "        checks: [{ id: default.wordCount, parameters: { maxWords: 500 } }]",
    ...extra,
    "",
  ].join("\n");
}

async function start(extra: string[] = []) {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-file-managed-"));
  dirs.push(dir);
  const configPath = path.join(dir, "gateway.yaml");
  writeFileSync(configPath, file("alpha", extra));
  const server = await startManagedServer({
    port: 0,
    host: "127.0.0.1",
    configPath,
    dataDir: path.join(dir, "data"),
    env: {},
    logLevel: "silent",
  });
  servers.push(server);
  const keys = JSON.parse(readFileSync(path.join(dir, "data", "initial-keys.json"), "utf8")) as {
    admin_key: string;
    workspace_id: string;
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field
  const call = async (method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${server.url}/admin/v1${route}`, {
      method,
      headers: { "x-gateway-api-key": keys.admin_key, ...(body !== undefined && { "content-type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return { server, configPath, keys, call, ws: keys.workspace_id };
}

const guardrailBody = (rule: string) => ({
  id: "words",
  side: "input",
  checks: [{ id: "default.regexMatch", parameters: { rule } }],
});

describe("records the config file manages", () => {
  it("are marked in answers, one by one and in lists; records made through the API are not", async () => {
    const { call, ws, configPath } = await start();
    const marks = { managed_by: "file", managed_file: configPath };
    expect((await call("GET", `/workspaces/${ws}/guardrails/words`)).body).toMatchObject(marks);
    expect((await call("GET", `/workspaces/${ws}/configs/cfg`)).body).toMatchObject(marks);
    expect((await call("GET", "/policies/pol")).body).toMatchObject(marks);
    const integrations = (await call("GET", "/integrations")).body.data as Array<{ slug: string }>;
    expect(integrations.find((i) => i.slug === "up")).toMatchObject(marks);
    expect(integrations.find((i) => i.slug !== "up")).not.toHaveProperty("managed_by");

    const created = await call("POST", `/workspaces/${ws}/guardrails`, { ...guardrailBody("x"), id: "mine" });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("managed_by");
    const list = (await call("GET", `/workspaces/${ws}/guardrails`)).body.data as Array<{ id: string }>;
    expect(list.find((g) => g.id === "words")).toMatchObject(marks);
    expect(list.find((g) => g.id === "mine")).not.toHaveProperty("managed_file");
    expect((await call("PUT", `/workspaces/${ws}/guardrails/mine`, { ...guardrailBody("y"), id: "mine" })).status).toBe(200);
  });

  it("an edit or delete through the API is refused with 409 file_managed naming the file, and changes nothing", async () => {
    const { call, ws, configPath } = await start();
    const refusals = [
      await call("PUT", `/workspaces/${ws}/guardrails/words`, guardrailBody("edited")),
      await call("DELETE", `/workspaces/${ws}/configs/cfg`),
      await call("PATCH", "/policies/pol", { mode: "monitor" }),
      await call("DELETE", "/policies/pol"),
    ];
    const integration = ((await call("GET", "/integrations")).body.data as Array<{ id: string; slug: string }>).find(
      (i) => i.slug === "up",
    )!;
    refusals.push(await call("PATCH", `/integrations/${integration.id}`, { base_url: null }));
    for (const refusal of refusals) {
      expect(refusal.status).toBe(409);
      expect(refusal.body.error.code).toBe("file_managed");
      expect(refusal.body.error.message).toContain(`is managed by the config file ${configPath}`);
    }
    expect(refusals[0]!.body.error.message).toMatch(/^guardrail "words" is managed/);
    const guardrail = (await call("GET", `/workspaces/${ws}/guardrails/words`)).body;
    expect(guardrail.definition.checks[0].parameters.rule).toBe("alpha");
    expect((await call("GET", "/policies/pol")).body.mode).toBe("enforce");

    // The way to change it: the file, then a reload.
    writeFileSync(configPath, file("beta"));
    expect((await call("POST", "/reload")).status).toBe(200);
    const reloaded = (await call("GET", `/workspaces/${ws}/guardrails/words`)).body;
    expect(reloaded.definition.checks[0].parameters.rule).toBe("beta");
    expect(reloaded.managed_by).toBe("file");
  });

  it("a record the reload drops from the file is no longer marked, and is editable", async () => {
    const { call, configPath } = await start();
    writeFileSync(configPath, file("alpha").replace(/policies:[\s\S]*$/, ""));
    expect((await call("POST", "/reload")).status).toBe(200);
    const created = await call("POST", "/policies", {
      id: "pol",
      input_guardrails: [{ id: "short", checks: [{ id: "default.wordCount", parameters: { maxWords: 5 } }] }],
    });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("managed_by");
    expect((await call("PATCH", "/policies/pol", { mode: "monitor" })).status).toBe(200);
  });

  it("with settings.file_records_editable: true the edit is let through, and the mark stays", async () => {
    const { call, ws } = await start(["settings:", "  file_records_editable: true"]);
    const edited = await call("PUT", `/workspaces/${ws}/guardrails/words`, guardrailBody("edited"));
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ managed_by: "file" });
    expect(edited.body.definition.checks[0].parameters.rule).toBe("edited");
  });
});
