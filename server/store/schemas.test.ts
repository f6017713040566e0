import Ajv from "ajv";
import addFormats from "ajv-formats";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TestPlane, tenant, testPlane } from "../../test/support/management.js";
import {
  apiKeySchema,
  configRecordSchema,
  guardrailRecordSchema,
  integrationSchema,
  organizationSchema,
  policyRecordSchema,
  providerSchema,
  provisioningSchema,
  workspaceSchema,
} from "./schemas.js";

// The store's types are derived from these schemas, so the records the store gives back must be
// exactly what the schemas say: every field present, of its type, and no other.
const ajv = new Ajv.default({ allErrors: true, strict: false });
addFormats.default(ajv);

function problems(schema: object, value: unknown): string[] {
  const validate = ajv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`);
}

let plane: TestPlane;
beforeEach(async () => {
  plane = await testPlane();
});
afterEach(async () => {
  await plane.close();
});

describe("the store's records match the schemas their types come from", () => {
  it("organizations, workspaces, keys, integrations, provisionings, providers, guardrails, configs and policies", async () => {
    const { management } = plane;
    const t = await tenant(management);
    const admin = t.actors.orgAdmin;
    await management.workspaces.update(admin, t.a.id, { rate_limit: { requests_per_minute: 5 } });
    // Auto-provisioning with only a budget: the record keeps what was given.
    const integration = await management.integrations.create(admin, t.org.id, {
      slug: "openai-prod",
      provider: "openai",
      credentials: { api_key: "sk-test-0123456789" },
      pricing: { "gpt-4o": { input: 2.5, output: 10 } },
      auto_provision: { budget: { limit: 10, period: "monthly" } },
    });
    const provisioned = await management.integrations.provision(admin, integration.id, t.a.id, {
      budget: { limit: 5, period: "total" },
    });
    const guardrail = await management.guardrails.create(t.actors.adminA, t.a.id, {
      id: "short",
      checks: [{ id: "default.wordCount", parameters: { maxWords: 5 } }],
    });
    const config = await management.configs.create(t.actors.adminA, t.a.id, { id: "c", config: { retry: { attempts: 2 } } });
    const policy = await management.policies.create(admin, t.org.id, {
      id: "p",
      scope: { workspaces: [t.a.id], models: ["@openai-prod/*"] },
      input_guardrails: [`${t.a.id}/short`],
    });

    const records: Array<[string, object, unknown]> = [
      ["organization", organizationSchema, await management.organizations.get(admin, t.org.id)],
      ["workspace", workspaceSchema, await management.workspaces.get(admin, t.a.id)],
      ["api key", apiKeySchema, await management.apiKeys.get(admin, t.keys.memberA.api_key.id)],
      ["integration", integrationSchema, await management.integrations.get(admin, integration.id)],
      ["provisioning", provisioningSchema, provisioned.provisioning],
      ["provider", providerSchema, provisioned.provider],
      ["guardrail", guardrailRecordSchema, guardrail],
      ["config", configRecordSchema, config],
      ["policy", policyRecordSchema, await management.policies.get(admin, policy.id)],
    ];
    for (const [name, schema, record] of records)
      expect({ name, problems: problems(schema, record) }).toEqual({ name, problems: [] });
  });

  it("a record with a field its schema does not list, or without one it requires, does not match", async () => {
    const t = await tenant(plane.management);
    const workspace = await plane.management.workspaces.get(t.actors.orgAdmin, t.a.id);
    expect(problems(workspaceSchema, { ...workspace, secret: "x" })).toEqual([" must NOT have additional properties"]);
    const { rate_limit: _dropped, ...partial } = workspace;
    expect(problems(workspaceSchema, partial)).toEqual([" must have required property 'rate_limit'"]);
  });
});
