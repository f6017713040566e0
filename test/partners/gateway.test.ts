/**
 * Partner checks in a managed gateway: plan gating (a developer-plan organization is refused them,
 * a production-plan one uses them), and a config written for the peer gateway, with its check ids
 * and parameter names, accepted unchanged and run against the services' contract fakes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "../../server/management/index.js";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";
import { AZURE_KEY, startAzureFake } from "../support/partners/azure.js";
import { BEDROCK_KEY_ID, BEDROCK_REGION, BEDROCK_SECRET, startBedrockFake } from "../support/partners/bedrock.js";
import type { PartnerFake } from "../support/partners/fake.js";
import { MISTRAL_KEY, startMistralFake } from "../support/partners/mistral.js";
import { OPENAI_KEY, startOpenAIFake } from "../support/partners/openai.js";

let gw: ManagedTestGateway;
let openai: PartnerFake;
let azure: PartnerFake;
let bedrock: PartnerFake;
let mistral: PartnerFake;

beforeAll(async () => {
  [openai, azure, bedrock, mistral] = await Promise.all([
    startOpenAIFake(),
    startAzureFake(),
    startBedrockFake(),
    startMistralFake(),
  ]);
  gw = await startManaged({
    file: {
      plugin_credentials: [{ plugin: "openai", credentials: { apiKey: OPENAI_KEY, baseURL: `${openai.origin}/v1` } }],
      settings: { checks_allow_private_addresses: true },
    },
  });
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([openai, azure, bedrock, mistral].map((fake) => fake?.close()));
});

const inline = (config: Record<string, unknown>) => ({ "x-gateway-config": JSON.stringify(config) });
const moderated = { input_guardrails: [{ deny: true, "openai.moderation": {} }] };

describe("plan gating of partner checks", () => {
  it("refuses a developer-plan organization, naming the check and the plan, and lets a production one use them", async () => {
    const org = gw.keys.organization_id;
    const key = gw.keys.api_key;
    await gw.managed.management.organizations.update(OPERATOR, org, { plan: "developer" });
    const refused = await gw.call("POST", "/v1/chat/completions", {
      key,
      body: chat("@mock/m", "I will kill it"),
      headers: inline(moderated),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("plan_forbids_check");
    expect(refused.body.error.message).toContain("check openai.moderation");
    expect(refused.body.error.message).toContain("is a PARTNER check, which the developer plan does not include");
    const saved = await gw.call("POST", `/admin/v1/workspaces/${gw.keys.workspace_id}/guardrails`, {
      key: gw.keys.admin_key,
      body: { id: "moderated", checks: [{ id: "azure.contentSafety", parameters: {} }] },
    });
    expect(saved.status).toBe(403);
    expect(saved.body.error.message).toContain("check azure.contentSafety");

    await gw.managed.management.organizations.update(OPERATOR, org, { plan: "production" });
    const denied = await gw.call("POST", "/v1/chat/completions", {
      key,
      body: chat("@mock/m", "I will kill it"),
      headers: inline(moderated),
    });
    expect(denied.status).toBe(446);
    expect(denied.body.hook_results.before_request_hooks[0].checks[0]).toMatchObject({ id: "openai.moderation", verdict: false });
    const passed = await gw.call("POST", "/v1/chat/completions", {
      key,
      body: chat("@mock/m", "Good morning"),
      headers: inline(moderated),
    });
    expect(passed.status).toBe(200);
    expect(passed.text).not.toContain(OPENAI_KEY);
    await gw.managed.management.organizations.update(OPERATOR, org, { plan: "enterprise" });
  });
});

describe("a config written for the peer gateway", () => {
  /** The peer gateway's form: full hook objects, its check ids, parameter and credential names. */
  const peerConfig = (endpoints?: { azure: string; bedrock: string; mistral: string }) => ({
    before_request_hooks: [
      {
        type: "guardrail",
        id: "peer-partners",
        deny: true,
        checks: [
          {
            id: "azure.contentSafety",
            parameters: {
              blocklistNames: [],
              apiVersion: "2024-09-01",
              severity: 2,
              categories: ["Hate", "SelfHarm", "Sexual", "Violence"],
              timeout: 5000,
              credentials: {
                contentSafety: {
                  resourceName: "acme-safety",
                  apiKey: AZURE_KEY,
                  azureAuthMode: "apiKey",
                  ...(endpoints && { customHost: endpoints.azure }),
                },
              },
            },
          },
          {
            id: "bedrock.guard",
            parameters: {
              guardrailId: "gr0fake1",
              guardrailVersion: "1",
              redact: false,
              credentials: {
                awsAuthType: "accessKey",
                awsAccessKeyId: BEDROCK_KEY_ID,
                awsSecretAccessKey: BEDROCK_SECRET,
                awsRegion: BEDROCK_REGION,
                ...(endpoints && { baseURL: endpoints.bedrock }),
              },
            },
          },
          {
            id: "mistral.moderateContent",
            parameters: {
              categories: ["hate_and_discrimination", "violence_and_threats", "selfharm"],
              credentials: { apiKey: MISTRAL_KEY, ...(endpoints && { baseURL: endpoints.mistral }) },
            },
          },
        ],
      },
    ],
  });

  it("is accepted unchanged when saved", async () => {
    const saved = await gw.call("POST", `/admin/v1/workspaces/${gw.keys.workspace_id}/configs`, {
      key: gw.keys.admin_key,
      body: { id: "from-peer", config: peerConfig() },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    expect(saved.body.config).toEqual(peerConfig());
  });

  it("runs against the services: a clean prompt passes all three, a violent one is denied", async () => {
    const config = peerConfig({ azure: azure.origin, bedrock: bedrock.origin, mistral: mistral.origin });
    const key = gw.keys.api_key;
    const clean = await gw.call("POST", "/v1/chat/completions", {
      key,
      body: chat("@mock/m", "Tell me about tides"),
      headers: inline(config),
    });
    expect(clean.status).toBe(200);
    const checks = clean.body.hook_results.before_request_hooks[0].checks;
    expect(checks.map((c: { id: string; verdict: boolean }) => [c.id, c.verdict])).toEqual([
      ["azure.contentSafety", true],
      ["bedrock.guard", true],
      ["mistral.moderateContent", true],
    ]);
    const violent = await gw.call("POST", "/v1/chat/completions", {
      key,
      body: chat("@mock/m", "I will kill you"),
      headers: inline(config),
    });
    expect(violent.status).toBe(446);
    const verdicts = violent.body.hook_results.before_request_hooks[0].checks.map((c: { verdict: boolean }) => c.verdict);
    expect(verdicts).toEqual([false, false, false]);
    for (const secret of [AZURE_KEY, BEDROCK_SECRET, MISTRAL_KEY]) {
      expect(clean.text + violent.text).not.toContain(secret);
      expect(gw.logLines.join("\n")).not.toContain(secret);
    }
  });
});
