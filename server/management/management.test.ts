import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TestPlane, tenant, testPlane } from "../../test/support/management.js";
import { ManagementError } from "../store/errors.js";
import { OPERATOR } from "./actor.js";
import { bootstrap } from "../lifecycle/bootstrap.js";

let plane: TestPlane;
beforeEach(async () => {
  plane = await testPlane();
});
afterEach(async () => {
  await plane.close();
});

async function refusal(promise: Promise<unknown>): Promise<ManagementError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ManagementError);
  return error as ManagementError;
}

const wordGuard = { id: "short", checks: [{ id: "default.wordCount", parameters: { maxWords: 5 } }] };

describe("workspace isolation and roles", () => {
  it("a key of workspace A cannot see or change anything of workspace B", async () => {
    const { management } = plane;
    const t = await tenant(management);
    await management.guardrails.create(t.actors.adminB, t.b.id, wordGuard);
    const a = t.actors.adminA;
    for (const attempt of [
      management.workspaces.get(a, t.b.id),
      management.guardrails.list(a, t.b.id),
      management.guardrails.get(a, t.b.id, "short"),
      management.guardrails.create(a, t.b.id, wordGuard),
      management.configs.list(a, t.b.id),
      management.providers.list(a, t.b.id),
      management.apiKeys.create(a, t.org.id, { name: "x", workspace_id: t.b.id }),
      management.apiKeys.get(a, t.keys.adminB.api_key.id),
      management.logs.query(a, { workspace_id: t.b.id }),
    ]) {
      expect((await refusal(attempt)).status).toBe(404);
    }
    expect((await management.workspaces.list(a, t.org.id)).map((w) => w.id)).toEqual([t.a.id]);
    expect((await management.apiKeys.list(a, t.org.id)).every((k) => k.workspace_id === t.a.id)).toBe(true);
  });

  it("an organization of another tenant is invisible", async () => {
    const { management } = plane;
    const t = await tenant(management);
    const other = await tenant(management);
    expect((await refusal(management.organizations.get(t.actors.orgAdmin, other.org.id))).status).toBe(404);
    expect((await refusal(management.workspaces.get(t.actors.orgAdmin, other.a.id))).status).toBe(404);
    expect((await management.organizations.list(t.actors.orgAdmin)).map((o) => o.id)).toEqual([t.org.id]);
  });

  it("enforces roles: members read, workspace admins manage their workspace, org admins the organization", async () => {
    const { management } = plane;
    const t = await tenant(management);
    const member = await refusal(management.guardrails.create(t.actors.memberA, t.a.id, wordGuard));
    expect(member).toMatchObject({ status: 403, code: "role_forbidden" });
    expect(member.message).toContain("needs the workspace_admin role; this key has the member role");
    await management.guardrails.create(t.actors.adminA, t.a.id, wordGuard);
    expect(await management.guardrails.list(t.actors.memberA, t.a.id)).toHaveLength(1);
    expect((await refusal(management.apiKeys.create(t.actors.adminA, t.org.id, { name: "x", role: "org_admin" }))).status).toBe(
      403,
    );
    expect((await refusal(management.apiKeys.create(t.actors.memberA, t.org.id, { name: "x" }))).status).toBe(403);
    expect(
      (await refusal(management.workspaces.update(t.actors.adminA, t.a.id, { rate_limit: { requests_per_minute: 1 } }))).status,
    ).toBe(403);
    await management.workspaces.update(t.actors.adminA, t.a.id, { name: "Renamed" });
    expect((await refusal(management.workspaces.create(t.actors.adminA, t.org.id, { name: "C" }))).status).toBe(403);
    expect((await refusal(management.logs.query(t.actors.memberA, {}))).status).toBe(403);
    const created = await management.apiKeys.create(t.actors.adminA, t.org.id, { name: "ci" });
    expect(created.api_key).toMatchObject({ role: "member", workspace_id: t.a.id });
    expect(created.key).toMatch(/^gg-/);
    expect(JSON.stringify(created.api_key)).not.toContain(created.key);
  });

  it("plan and the guardrails flag are the operator's", async () => {
    const { management } = plane;
    const t = await tenant(management);
    expect(await refusal(management.organizations.update(t.actors.orgAdmin, t.org.id, { plan: "enterprise" }))).toMatchObject({
      status: 403,
      code: "operator_only",
    });
    expect(
      (await refusal(management.organizations.update(t.actors.orgAdmin, t.org.id, { guardrails_enabled: false }))).status,
    ).toBe(403);
    await management.organizations.update(t.actors.orgAdmin, t.org.id, { allow_workspace_integrations: true, name: "Acme 2" });
    await management.organizations.update(OPERATOR, t.org.id, { plan: "production" });
    expect((await management.organizations.get(t.actors.orgAdmin, t.org.id)).plan).toBe("production");
  });
});

describe("plan gating", () => {
  const pro = { id: "pro-guard", checks: [{ id: "pro.always" }] };
  const custom = { id: "custom-guard", checks: [{ id: "test.sees", parameters: { word: "x" } }] };

  it("developer allows BASIC checks only, naming the check and the plan", async () => {
    const { management } = plane;
    const t = await tenant(management, "developer");
    await management.guardrails.create(t.actors.adminA, t.a.id, wordGuard);
    const error = await refusal(management.guardrails.create(t.actors.adminA, t.a.id, pro));
    expect(error).toMatchObject({ status: 403, code: "plan_forbids_check" });
    expect(error.message).toBe(
      'guardrail "pro-guard": check pro.always (guardrail "pro-guard") is a PRO check, which the developer plan does not include; the developer plan includes BASIC checks',
    );
    // The model checks are PRO.
    for (const check of [
      { id: "model.language", parameters: { allow: ["en"] } },
      { id: "model.classifier", parameters: { model: "./models/x", failLabels: ["X"] } },
      { id: "model.llmJudge", parameters: { rubric: "gibberish", model: "@judge/m" } },
    ]) {
      const refused = await refusal(
        management.guardrails.create(t.actors.adminA, t.a.id, { id: "model-guard", checks: [check] }),
      );
      expect(refused).toMatchObject({ status: 403, code: "plan_forbids_check" });
      expect(refused.message).toContain(`check ${check.id} (guardrail "model-guard") is a PRO check`);
    }
  });

  it("production adds PARTNER and PRO; enterprise adds custom", async () => {
    const { management } = plane;
    const t = await tenant(management, "production");
    await management.guardrails.create(t.actors.adminA, t.a.id, pro);
    expect((await refusal(management.guardrails.create(t.actors.adminA, t.a.id, custom))).message).toContain("custom check");
    await management.organizations.update(OPERATOR, t.org.id, { plan: "enterprise" });
    await management.guardrails.create(t.actors.adminA, t.a.id, custom);
  });

  it("refuses every guardrail, saved or inline in a config, while the organization's flag is off", async () => {
    const { management } = plane;
    const t = await tenant(management, "enterprise", false);
    expect(await refusal(management.guardrails.create(t.actors.adminA, t.a.id, wordGuard))).toMatchObject({
      status: 403,
      code: "guardrails_disabled",
    });
    const inline = { config: { input_guardrails: [{ wordCount: { maxWords: 3 } }] } };
    expect((await refusal(management.configs.create(t.actors.adminA, t.a.id, inline))).code).toBe("guardrails_disabled");
    await management.configs.create(t.actors.adminA, t.a.id, { id: "plain", config: { retry: { attempts: 1 } } });
  });

  it("gates the guardrails a config attaches, after a downgrade too", async () => {
    const { management } = plane;
    const t = await tenant(management, "enterprise");
    await management.guardrails.create(t.actors.adminA, t.a.id, custom);
    await management.organizations.update(OPERATOR, t.org.id, { plan: "developer" });
    const error = await refusal(
      management.configs.create(t.actors.adminA, t.a.id, { id: "c", config: { input_guardrails: ["custom-guard"] } }),
    );
    expect(error.code).toBe("plan_forbids_check");
    expect(error.message).toContain('config "c"');
  });
});

describe("guardrails and configs", () => {
  it("validates a guardrail with the registry before saving, naming the path", async () => {
    const { management } = plane;
    const t = await tenant(management);
    const bad = await refusal(
      management.guardrails.create(t.actors.adminA, t.a.id, {
        id: "g",
        checks: [{ id: "default.wordCount", parameters: { maxWords: "5" } }],
      }),
    );
    expect(bad).toMatchObject({ status: 400 });
    expect(bad.message).toBe('guardrail "g": checks[0].parameters.maxWords: must be integer');
    const unknown = await refusal(management.guardrails.create(t.actors.adminA, t.a.id, { checks: [{ id: "default.nope" }] }));
    expect(unknown.code).toBe("unknown_check");
    const side = await refusal(
      management.guardrails.create(t.actors.adminA, t.a.id, { side: "output", checks: [{ id: "test.inputOnly" }] }),
    );
    expect(side.message).toContain("does not support the output side");
  });

  it("versions records and refuses a stale update", async () => {
    const { management } = plane;
    const t = await tenant(management);
    const v1 = await management.guardrails.create(t.actors.adminA, t.a.id, { ...wordGuard, name: "Short" });
    expect(v1).toMatchObject({ id: "short", name: "Short", version: 1, definition: { checks: wordGuard.checks } });
    expect(v1.definition).not.toHaveProperty("id");
    const v2 = await management.guardrails.update(t.actors.adminA, t.a.id, "short", { ...wordGuard, version: 1, deny: true });
    expect(v2).toMatchObject({ version: 2, name: "Short", definition: { deny: true } });
    const stale = await refusal(management.guardrails.update(t.actors.adminA, t.a.id, "short", { ...wordGuard, version: 1 }));
    expect(stale).toMatchObject({ status: 409, code: "version_conflict" });
    expect((await refusal(management.guardrails.create(t.actors.adminA, t.a.id, wordGuard))).status).toBe(409);
  });

  it("validates a config as a request would, targets included", async () => {
    const { management } = plane;
    const t = await tenant(management);
    await management.guardrails.create(t.actors.adminA, t.a.id, wordGuard);
    const missing = await refusal(
      management.configs.create(t.actors.adminA, t.a.id, { id: "c", config: { targets: [{ input_guardrails: ["nope"] }] } }),
    );
    expect(missing).toMatchObject({ status: 400, code: "unknown_guardrail" });
    expect(missing.message).toBe('config "c": targets[0].input_guardrails[0]: unknown guardrail "nope"');
    // Workspace B cannot reference A's guardrail.
    expect(
      (await refusal(management.configs.create(t.actors.adminB, t.b.id, { config: { input_guardrails: ["short"] } }))).code,
    ).toBe("unknown_guardrail");
    const saved = await management.configs.create(t.actors.adminA, t.a.id, {
      id: "c",
      config: { input_guardrails: ["short"], targets: [{ output_guardrails: [{ characterCount: { maxCharacters: 10 } }] }] },
    });
    expect(saved.version).toBe(1);
  });

  it("refuses a guardrail change that would break a saved config, and deleting a guardrail in use", async () => {
    const { management } = plane;
    const t = await tenant(management);
    await management.guardrails.create(t.actors.adminA, t.a.id, wordGuard);
    await management.configs.create(t.actors.adminA, t.a.id, { id: "c", config: { input_guardrails: ["short"] } });
    const broken = await refusal(
      management.guardrails.update(t.actors.adminA, t.a.id, "short", { ...wordGuard, side: "output" }),
    );
    expect(broken).toMatchObject({ status: 409, code: "breaks_config" });
    expect(broken.message).toContain('would break config "c"');
    expect(await refusal(management.guardrails.delete(t.actors.adminA, t.a.id, "short"))).toMatchObject({
      status: 409,
      code: "guardrail_in_use",
    });
    await management.configs.delete(t.actors.adminA, t.a.id, "c");
    await management.guardrails.delete(t.actors.adminA, t.a.id, "short");
  });
});

describe("integrations and providers", () => {
  const SECRET = "sk-planted-secret-0123456789";

  it("keeps credentials sealed at rest and never returns them", async () => {
    const { management, dir } = plane;
    const t = await tenant(management);
    const created = await management.integrations.create(t.actors.orgAdmin, t.org.id, {
      slug: "openai-prod",
      provider: "openai",
      credentials: { api_key: SECRET, headers: { "x-extra": SECRET } },
    });
    await management.integrations.provision(t.actors.orgAdmin, created.id, t.a.id, {});
    const everything = [
      created,
      await management.integrations.get(t.actors.orgAdmin, created.id),
      await management.integrations.list(t.actors.orgAdmin, t.org.id),
      await management.integrations.list(t.actors.adminA, t.org.id),
      await management.providers.list(t.actors.adminA, t.a.id),
      await management.models(t.a.id, "http://gw"),
    ];
    expect(JSON.stringify(everything)).not.toContain(SECRET);
    expect(created.has_credentials).toBe(true);
    const db = new Database(path.join(dir, "guardgate.db"), { readonly: true });
    const raw = JSON.stringify(db.prepare("SELECT * FROM integrations").all());
    db.close();
    expect(raw).not.toContain(SECRET);
    expect(raw).toContain("v1.");
  });

  it("provisions to workspaces with a default provider, and auto-provisions future workspaces", async () => {
    const { management } = plane;
    const t = await tenant(management);
    const integration = await management.integrations.create(t.actors.orgAdmin, t.org.id, {
      slug: "anthropic",
      provider: "anthropic",
      allowed_models: ["claude-sonnet-4-0", "claude-3-5-haiku-latest"],
      auto_provision: { budget: { limit: 10, period: "monthly" }, rate_limit: { requests_per_minute: 60 } },
    });
    // Existing workspaces are not provisioned automatically; a new one is.
    expect(await management.providers.list(t.actors.adminA, t.a.id)).toEqual([]);
    expect((await refusal(management.integrations.get(t.actors.adminA, integration.id))).status).toBe(404);
    const c = await management.workspaces.create(t.actors.orgAdmin, t.org.id, { name: "C" });
    const [provider] = await management.providers.list(t.actors.orgAdmin, c.id);
    expect(provider).toMatchObject({ slug: "anthropic", integration_id: integration.id });
    expect(await management.integrations.provisioning(t.actors.orgAdmin, integration.id)).toEqual([
      expect.objectContaining({ workspace_id: c.id, budget: { limit: 10, period: "monthly" } }),
    ]);
    const models = await management.models(c.id, "http://gw");
    expect(models.map((m) => m.id)).toEqual(["@anthropic/claude-3-5-haiku-latest", "@anthropic/claude-sonnet-4-0"]);
    expect(models[0]?.usage.curl).toContain("http://gw/v1/messages");
    expect(models[0]?.usage.curl).toContain("$GUARDGATE_API_KEY");
  });

  it("lets a provider be only stricter than its provisioning", async () => {
    const { management } = plane;
    const t = await tenant(management);
    const integration = await management.integrations.create(t.actors.orgAdmin, t.org.id, {
      slug: "oa",
      provider: "openai",
      allowed_models: ["gpt-4o", "gpt-4o-mini"],
    });
    const unprovisioned = await refusal(
      management.providers.create(t.actors.adminA, t.a.id, { slug: "team", integration_id: integration.id }),
    );
    expect(unprovisioned).toMatchObject({ status: 400, code: "not_provisioned" });
    await management.integrations.provision(t.actors.orgAdmin, integration.id, t.a.id, {
      budget: { limit: 100, period: "monthly" },
      rate_limit: { requests_per_minute: 10 },
    });
    const looser = await refusal(
      management.providers.create(t.actors.adminA, t.a.id, {
        slug: "team",
        integration_id: integration.id,
        budget: { limit: 200, period: "monthly" },
      }),
    );
    expect(looser.message).toContain("provider.budget.limit: 200 is above the 100");
    expect(
      (
        await refusal(
          management.providers.create(t.actors.adminA, t.a.id, {
            slug: "team",
            integration_id: integration.id,
            rate_limit: { requests_per_minute: 11 },
          }),
        )
      ).code,
    ).toBe("limit_not_stricter");
    expect(
      (
        await refusal(
          management.providers.create(t.actors.adminA, t.a.id, {
            slug: "team",
            integration_id: integration.id,
            allowed_models: ["o3-mini"],
          }),
        )
      ).code,
    ).toBe("model_not_allowed");
    const team = await management.providers.create(t.actors.adminA, t.a.id, {
      slug: "team",
      integration_id: integration.id,
      budget: { limit: 20, period: "monthly" },
      allowed_models: ["gpt-4o-mini"],
    });
    expect(team.budget).toEqual({ limit: 20, period: "monthly" });
    expect(
      (await refusal(management.providers.create(t.actors.adminA, t.a.id, { slug: "team", integration_id: integration.id })))
        .status,
    ).toBe(409);
    expect((await management.models(t.a.id, "http://gw")).map((m) => m.id)).toEqual([
      "@oa/gpt-4o",
      "@oa/gpt-4o-mini",
      "@team/gpt-4o-mini",
    ]);
  });

  it("workspace-only integrations need the organization's permission, and may not reach private addresses", async () => {
    const { management } = plane;
    const t = await tenant(management);
    const own = { slug: "own", provider: "openai", workspace_id: t.a.id, credentials: { api_key: SECRET } };
    expect(await refusal(management.integrations.create(t.actors.adminA, t.org.id, own))).toMatchObject({
      status: 403,
      code: "workspace_integrations_disabled",
    });
    await management.organizations.update(t.actors.orgAdmin, t.org.id, { allow_workspace_integrations: true });
    const ssrf = await refusal(
      management.integrations.create(t.actors.adminA, t.org.id, { ...own, base_url: "http://169.254.169.254/latest" }),
    );
    expect(ssrf.code).toBe("address_not_allowed");
    expect(
      (await refusal(management.integrations.create(t.actors.adminA, t.org.id, { ...own, base_url: "http://localhost:8080/v1" })))
        .code,
    ).toBe("address_not_allowed");
    const created = await management.integrations.create(t.actors.adminA, t.org.id, own);
    expect(created.workspace_id).toBe(t.a.id);
    // Provisioned to its workspace at once; invisible to workspace B.
    expect((await management.providers.list(t.actors.adminA, t.a.id)).map((p) => p.slug)).toEqual(["own"]);
    expect((await refusal(management.integrations.get(t.actors.adminB, created.id))).status).toBe(404);
    expect((await refusal(management.integrations.provision(t.actors.orgAdmin, created.id, t.b.id, {}))).status).toBe(400);
    // The operator may point an integration anywhere.
    await management.integrations.create(OPERATOR, t.org.id, {
      slug: "local",
      provider: "ollama",
      base_url: "http://127.0.0.1:11434/v1",
    });
  });
});

describe("bootstrap", () => {
  it("creates one organization, a workspace with the mock provider, and two keys, once", async () => {
    const { management, dir } = plane;
    const first = await bootstrap(management, dir);
    expect(first).toBeDefined();
    const file = path.join(dir, "initial-keys.json");
    expect(first?.file).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = JSON.parse(readFileSync(file, "utf8"));
    expect(Object.keys(written)).toEqual(["admin_key", "api_key", "organization_id", "workspace_id"]);
    expect(written).toEqual(first?.keys);
    const providers = await management.providers.list(OPERATOR, written.workspace_id);
    expect(providers.map((p) => p.slug)).toEqual(["mock"]);
    expect(await bootstrap(management, dir)).toBeUndefined();
    const keys = await management.apiKeys.list(OPERATOR, written.organization_id);
    expect(keys.map((k) => k.role).sort()).toEqual(["member", "org_admin"]);
  });
});
