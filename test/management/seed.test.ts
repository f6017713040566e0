import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { parseGatewayFile } from "../../server/sources/config-file.js";
import { chat, startManaged } from "../support/managed.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-seed-"));
  dirs.push(dir);
  return dir;
}

describe("seeding the store from the config file", () => {
  it("seeds the example file, serves it, and changes nothing on a second start", async () => {
    const dir = tempDir();
    const file = parseGatewayFile(readFileSync(path.join(root, "examples/gateway.yaml"), "utf8"), "gateway.yaml");
    const first = await startManaged({ dir, file });
    expect(first.report.seeded).toMatchObject({
      api_keys: { created: 1 },
      providers: { created: 2 },
      guardrails: { created: 2 },
      configs: { created: 1 },
    });
    // The file's key and its saved config work at once, in the bootstrapped default workspace.
    const denied = await first.call("POST", "/v1/chat/completions", {
      key: "gk-local-development-key",
      body: chat("m", "my number is 123-45-6789"),
      headers: { "x-gateway-config": "support-bot" },
    });
    expect(denied.status).toBe(446);
    const providers = await first.call("GET", `/admin/v1/workspaces/${first.keys.workspace_id}/providers`, {
      key: first.keys.admin_key,
    });
    expect(providers.body.data.map((p: { slug: string }) => p.slug).sort()).toEqual(["demo", "local-llm", "mock"]);
    await first.close();

    const second = await startManaged({ dir, file });
    expect(second.report.initial).toBeUndefined();
    expect(second.report.seeded).toMatchObject({
      api_keys: { created: 0, unchanged: 1 },
      providers: { created: 0, updated: 0, unchanged: 2 },
      guardrails: { created: 0, updated: 0, unchanged: 2 },
      configs: { created: 0, updated: 0, unchanged: 1 },
    });
    const guardrail = await second.call("GET", `/admin/v1/workspaces/${second.keys.workspace_id}/guardrails/no-ssn`, {
      key: second.keys.admin_key,
    });
    expect(guardrail.body.version).toBe(1);
    await second.close();
  });

  it("updates what the file changed, seals provider keys, and names the record a mistake is in", async () => {
    const dir = tempDir();
    const SECRET = "sk-seeded-secret-0123456789";
    const file = {
      api_keys: [{ key: "gk-seeded-key-0123456789", workspace: "team-b" }],
      providers: [{ slug: "oa", provider: "openai", api_key: SECRET, workspace: "team-b" }],
      guardrails: [{ id: "g", workspace: "team-b", checks: [{ id: "default.wordCount", parameters: { maxWords: 5 } }] }],
    };
    const first = await startManaged({ dir, file });
    expect((await first.call("GET", "/admin/v1/workspaces/team-b", { key: first.keys.admin_key })).status).toBe(200);
    await first.close();
    const db = new Database(path.join(dir, "guardgate.db"), { readonly: true });
    expect(JSON.stringify(db.prepare("SELECT * FROM integrations").all())).not.toContain(SECRET);
    db.close();

    const changed = {
      ...file,
      providers: [{ slug: "oa", provider: "openai", api_key: `${SECRET}-rotated`, workspace: "team-b" }],
      guardrails: [{ id: "g", workspace: "team-b", checks: [{ id: "default.wordCount", parameters: { maxWords: 9 } }] }],
    };
    const second = await startManaged({ dir, file: changed });
    expect(second.report.seeded).toMatchObject({ providers: { updated: 1 }, guardrails: { updated: 1 } });
    const provider = await second.managed.sources.providers.get("oa", { workspaceId: "team-b" });
    expect(provider?.apiKey).toBe(`${SECRET}-rotated`);
    await second.close();

    const broken = { guardrails: [{ id: "bad", checks: [{ id: "default.nope" }] }] };
    await expect(startManaged({ dir, file: broken })).rejects.toThrow(
      'config file: guardrails[0].checks[0].id: unknown check "default.nope"',
    );
  });

  it("seeds policies, organisation-wide and a workspace's own, applies them, and leaves them unchanged on a second start", async () => {
    const dir = tempDir();
    const file = {
      api_keys: [{ key: "gk-policy-key-0123456789", workspace: "team-b" }],
      guardrails: [
        {
          id: "brief",
          workspace: "team-b",
          async: false,
          deny: true,
          checks: [{ id: "default.wordCount", parameters: { maxWords: 3 } }],
        },
      ],
      policies: [
        { id: "team-brief", workspace: "team-b", input_guardrails: ["brief"] },
        {
          id: "watch",
          mode: "monitor" as const,
          scope: { workspaces: ["team-b"], models: ["@mock/*"] },
          output_guardrails: [{ id: "short-answers", "default.characterCount": { maxCharacters: 5 } }],
        },
      ],
    };
    const first = await startManaged({ dir, file });
    expect(first.report.seeded).toMatchObject({ policies: { created: 2 } });
    const denied = await first.call("POST", "/v1/chat/completions", {
      key: "gk-policy-key-0123456789",
      body: chat("@mock/m", "far too many words here"),
    });
    expect(denied.status).toBe(446);
    expect(denied.body.hook_results.before_request_hooks[0]).toMatchObject({ id: "brief", policy: { id: "team-brief" } });
    await first.close();

    const second = await startManaged({ dir, file });
    expect(second.report.seeded).toMatchObject({ policies: { created: 0, updated: 0, unchanged: 2 } });
    await second.close();

    const broken = { policies: [{ id: "bad", input_guardrails: [{ id: "x", checks: [{ id: "default.nope" }] }] }] };
    await expect(startManaged({ dir, file: broken })).rejects.toThrow(/config file: policies\[0\]/);
  });
});
