/**
 * A model-scoped policy holds a target by what it calls, whatever the request wrote: through a
 * managed gateway on a real socket, with the organisation's Gemini, Vertex AI, Azure OpenAI and
 * Bedrock records, each spelling that names a model in scope (a provider's own prefix, a
 * deployment, a deployment alias, an inference profile or ARN, a fallback or load-balanced target,
 * a provider header, the hook routes) is denied like the plain name, streamed and not.
 */
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";
import { type GoogleFake, startGoogleProviderFake } from "../support/providers/google.js";

let gw: ManagedTestGateway;
let google: GoogleFake;
let upstream: FakeUpstream;
let baseUrl: string;
let admin: string;

const BEDROCK_KEYS = { aws_access_key_id: "AKIAFAKE00000000", aws_secret_access_key: "fake/secret", aws_region: "us-west-2" };

async function integrate(slug: string, provider: string, baseUrlOf: string, credentials: Record<string, unknown>) {
  const created = await gw.call("POST", "/admin/v1/integrations", {
    key: admin,
    body: { slug, provider, base_url: baseUrlOf, credentials },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const provisioned = await gw.call("PUT", `/admin/v1/integrations/${created.body.id}/workspaces/${gw.keys.workspace_id}`, {
    key: admin,
    body: {},
  });
  expect(provisioned.status).toBe(200);
}

beforeAll(async () => {
  google = await startGoogleProviderFake();
  upstream = await new FakeUpstream().start();
  gw = await startManaged();
  admin = gw.keys.admin_key;
  await gw.app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
  await integrate("gem", "google", google.geminiBaseUrl, { api_key: google.apiKey });
  await integrate("vtx", "vertex-ai", google.vertexBaseUrl, {
    options: {
      vertex_region: google.region,
      vertex_project_id: google.project,
      vertex_service_account_json: JSON.stringify(google.serviceAccount),
    },
  });
  await integrate("azd", "azure-openai", `${upstream.origin}/openai`, {
    api_key: "az-key",
    options: { deployment_id: "gpt-4o" },
  });
  await integrate("aza", "azure-openai", `${upstream.origin}/openai`, {
    api_key: "az-key",
    options: { azure_deployments: { fast: "gpt-4o" } },
  });
  await integrate("bed", "bedrock", upstream.origin, { options: BEDROCK_KEYS });
  await integrate("scr", "openai", upstream.baseUrl, { api_key: "sk-org-scr" });
});

afterAll(async () => {
  await gw?.close();
  await google?.close();
  await upstream?.close();
});

beforeEach(async () => {
  upstream.reset();
  google.reset();
  const listed = await gw.call("GET", "/admin/v1/policies", { key: admin });
  for (const policy of listed.body.data as Array<{ id: string }>) {
    expect((await gw.call("DELETE", `/admin/v1/policies/${policy.id}`, { key: admin })).status).toBe(204);
  }
});

async function savePolicy(id: string, models: string[], side: "input" | "output" = "input") {
  const guardrail =
    side === "input"
      ? { id: "short", async: false, deny: true, "default.wordCount": { maxWords: 3 } }
      : { id: "no-falcon", async: false, deny: true, "default.contains": { operator: "none", words: ["falcon"] } };
  const saved = await gw.call("POST", "/admin/v1/policies", {
    key: admin,
    body: { id, scope: { models }, [`${side}_guardrails`]: [guardrail] },
  });
  expect(saved.status).toBe(201);
}

/** A chat call through the OpenAI SDK: the text received, and the status of the error that ended it. */
async function chat(model: string, content: string, stream: boolean, config?: unknown, extra: Record<string, string> = {}) {
  const client = new OpenAI({
    baseURL: `${baseUrl}/v1`,
    apiKey: "sk-unused",
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": gw.keys.api_key,
      ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }),
      ...extra,
    },
  });
  let text = "";
  try {
    const body = { model, messages: [{ role: "user" as const, content }] };
    if (stream) {
      for await (const chunk of await client.chat.completions.create({ ...body, stream: true }))
        text += chunk.choices[0]?.delta.content ?? "";
    } else {
      text = (await client.chat.completions.create(body)).choices[0]?.message.content ?? "";
    }
    return { text };
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (typeof status !== "number") throw error;
    return { text, status };
  }
}

const LONG = "far too many words for this policy";
const FLASH = "gemini-2.0-flash";

/** Each spelling that escaped a scope written with the plain name: the scope, and how the request names the target. */
const ESCAPES: ReadonlyArray<{
  name: string;
  scope: string;
  model: string;
  config?: unknown;
  headers?: Record<string, string>;
}> = [
  { name: "Gemini's models/ prefix", scope: "@gem/gemini-*", model: `@gem/models/${FLASH}` },
  {
    name: "Vertex AI's publishers/google/models/ prefix",
    scope: "@vtx/gemini-*",
    model: `@vtx/publishers/google/models/${FLASH}`,
  },
  { name: "Azure deployment_id under another model name", scope: "@azd/gpt-4o", model: "@azd/anything-else" },
  { name: "an azure_deployments alias", scope: "@aza/gpt-4o", model: "@aza/fast" },
  {
    name: "a Bedrock cross-region inference profile",
    scope: "@bed/anthropic.claude-*",
    model: "@bed/us.anthropic.claude-3-5-sonnet-20241022-v2:0",
  },
  {
    name: "a Bedrock foundation-model ARN",
    scope: "@bed/anthropic.claude-*",
    model: "@bed/arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-3-5-sonnet-20241022-v2:0",
  },
  {
    name: "a Bedrock inference-profile ARN",
    scope: "@bed/anthropic.claude-*",
    model: "@bed/arn:aws:bedrock:us-west-2:123456789012:inference-profile/eu.anthropic.claude-3-haiku-20240307-v1:0",
  },
  {
    name: "a Bedrock application inference profile, which only AWS can resolve (held, failing closed)",
    scope: "@bed/anthropic.claude-*",
    model: "@bed/arn:aws:bedrock:us-west-2:123456789012:application-inference-profile/a1b2c3d4e5",
  },
  {
    name: "a fallback target",
    scope: "@gem/gemini-*",
    model: "gpt-4o",
    config: {
      strategy: { mode: "fallback" },
      targets: [{ virtual_key: "no-such-provider" }, { provider: "@gem", override_params: { model: `models/${FLASH}` } }],
    },
  },
  {
    name: "a load-balanced target",
    scope: "@gem/gemini-*",
    model: "@mock/m",
    config: {
      strategy: { mode: "loadbalance" },
      targets: [{ provider: "@gem", override_params: { model: `models/${FLASH}` } }],
    },
  },
  {
    name: "x-gateway-provider with a bare prefixed model",
    scope: "@gem/gemini-*",
    model: `models/${FLASH}`,
    headers: { "x-gateway-provider": "@gem" },
  },
];

describe("a model-scoped policy holds every spelling of a model in its scope", () => {
  for (const escape of ESCAPES) {
    it(`denies ${escape.name}, streamed and not`, async () => {
      await savePolicy("by-name", [escape.scope]);
      for (const stream of [false, true]) {
        const answer = await chat(escape.model, LONG, stream, escape.config, escape.headers);
        expect({ stream, ...answer }).toEqual({ stream, text: "", status: 446 });
      }
      // Nothing reached a provider.
      expect(upstream.requests).toHaveLength(0);
      expect(google.requests).toHaveLength(0);
    });
  }

  it("holds the streamed output of a prefixed Gemini name, and leaves other models alone", async () => {
    await savePolicy("no-falcon", ["@gem/gemini-*"], "output");
    for (const stream of [false, true]) {
      google.enqueue({ kind: "text", text: "the plan is called project falcon" });
      const answer = await chat(`@gem/models/${FLASH}`, "what is the plan?", stream);
      expect({ stream, ...answer }).toEqual({ stream, text: "", status: 446 });
    }
    // The model called is the canonical one the scope matched.
    expect(google.requests.map((r) => r.model)).toEqual([FLASH, FLASH]);
    upstream.defaultText = "project falcon";
    expect(await chat("@scr/gpt-4o", "hi", true)).toEqual({ text: "project falcon" });
  });

  it("calls the Azure deployment the scope matched", async () => {
    await savePolicy("by-name", ["@azd/other"]);
    const answer = await gw.call("POST", "/v1/chat/completions", {
      key: gw.keys.api_key,
      body: { model: "@azd/anything-else", messages: [{ role: "user", content: LONG }] },
    });
    expect(answer.status).toBe(200);
    expect(upstream.requests.map((r) => r.path.split("?")[0])).toEqual(["/openai/deployments/gpt-4o/chat/completions"]);
  });
});

describe("the hook routes apply policies by the same rule", () => {
  const evaluate = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    gw.call("POST", "/v1/hooks/evaluate", { key: gw.keys.api_key, body, headers });
  const request = (model: string) => ({ model, messages: [{ role: "user", content: LONG }] });
  const noop = [{ id: "any", "default.wordCount": { minWords: 1 } }];

  it("holds /v1/hooks/evaluate for a prefixed model, a provider header, and a config's targets", async () => {
    await savePolicy("by-name", ["@gem/gemini-*"]);
    const calls: Array<[string, Record<string, unknown>, Record<string, string>?]> = [
      ["a prefixed model", { side: "input", guardrails: noop, request: request(`@gem/models/${FLASH}`) }],
      ["x-gateway-provider", { side: "input", guardrails: noop, request: request(FLASH) }, { "x-gateway-provider": "@gem" }],
      [
        "a config's fallback target",
        {
          side: "input",
          config: { strategy: { mode: "fallback" }, targets: [{ provider: "@mock" }, { provider: "@gem" }] },
          request: request(`models/${FLASH}`),
        },
      ],
    ];
    for (const [way, body, headers] of calls) {
      const answer = await evaluate(body, headers);
      expect({ way, status: answer.status, verdict: answer.body.verdict }).toEqual({ way, status: 200, verdict: false });
      expect(answer.body.status).toBe(446);
    }
    // Out of scope: the policy does not run.
    const other = await evaluate({ side: "input", guardrails: noop, request: request("@scr/gpt-4o") });
    expect(other.body.status).toBe(200);
  });

  it("holds /v1/hooks/webhook for a prefixed model", async () => {
    await savePolicy("by-name", ["@gem/gemini-*"]);
    const saved = await gw.call("POST", `/admin/v1/workspaces/${gw.keys.workspace_id}/guardrails`, {
      key: admin,
      body: { id: "any", checks: [{ id: "default.wordCount", parameters: { minWords: 1 } }] },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    const answer = await gw.call("POST", "/v1/hooks/webhook?guardrails=any", {
      key: gw.keys.api_key,
      body: { request: { json: request(`@gem/models/${FLASH}`) }, eventType: "beforeRequestHook" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.verdict).toBe(false);
  });
});
