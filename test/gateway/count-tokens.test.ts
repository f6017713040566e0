/**
 * `POST /v1/messages/count_tokens` through the official `@anthropic-ai/sdk` (`messages.countTokens`)
 * to the Anthropic contract fake: passed through with the provider's credential headers, resolved
 * as `/v1/messages` resolves, no log record; a provider of another kind is a 400 naming it; the
 * managed gateway's allow-lists and rate limits hold.
 */
import type { AddressInfo } from "node:net";
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";
import { AnthropicFake } from "../support/providers/anthropic.js";
import { OpenAiFake } from "../support/providers/openai.js";

const ANTHROPIC_KEY = "sk-ant-fake-count-secret-7d21";
const OPENAI_KEY = "sk-openai-fake-count-secret-3e90";

let claude: AnthropicFake;
let gpt: OpenAiFake;

beforeAll(async () => {
  claude = await new AnthropicFake(ANTHROPIC_KEY).start();
  gpt = await new OpenAiFake(OPENAI_KEY).start();
});
afterAll(async () => {
  await claude.close();
  await gpt.close();
});
beforeEach(() => {
  claude.reset();
  gpt.reset();
});

function anthropic(url: string, key: string, config?: unknown): Anthropic {
  return new Anthropic({
    baseURL: url,
    apiKey: "sk-ant-client-own-key",
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": key,
      ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }),
    },
  });
}

const question = {
  system: "You are terse.",
  messages: [{ role: "user" as const, content: "how many tokens is this" }],
  tools: [{ name: "lookup", input_schema: { type: "object" as const } }],
};

describe("count_tokens on a gateway run from a file", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({
      file: {
        providers: [
          { slug: "claude", provider: "anthropic", base_url: claude.baseUrl, api_key: ANTHROPIC_KEY },
          { slug: "gpt", provider: "openai", base_url: gpt.baseUrl, api_key: OPENAI_KEY },
        ],
      },
    });
  });
  afterAll(() => gateway.close());

  it("passes messages.countTokens through to the provider with its credential, the model's @slug/ removed", async () => {
    const counted = await anthropic(gateway.url, API_KEY).messages.countTokens({ model: "@claude/claude-x", ...question });
    // Three words of system, five of the message, ten for the tool (the fake's count).
    expect(counted).toEqual({ input_tokens: 18 });
    const [sent] = claude.requests;
    expect(sent?.url).toBe("/v1/messages/count_tokens");
    expect(sent?.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    expect(sent?.headers["anthropic-version"]).toBeDefined();
    expect(claude.bodies[0]).toEqual({ model: "claude-x", ...question });
    // Not an inference request: no record, as /v1/messages or otherwise.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gateway.logs.list()).toEqual([]);
  });

  it("resolves the provider from the config as /v1/messages does, and passes a provider's own refusal back", async () => {
    const client = anthropic(gateway.url, API_KEY, { provider: "@claude", override_params: { model: "claude-y" } });
    expect(await client.messages.countTokens({ model: "claude-x", ...question })).toEqual({ input_tokens: 18 });
    expect(claude.bodies[0]?.model).toBe("claude-y");
    // The provider's 400 for a field the count does not take comes back as the provider wrote it.
    const refused = (await client.messages
      .countTokens({ model: "claude-x", ...question, max_tokens: 10 } as never)
      .catch((e: unknown) => e)) as APIError;
    expect(refused).toBeInstanceOf(APIError);
    expect(refused.status).toBe(400);
    expect(refused.error).toMatchObject({ type: "error", error: { message: "max_tokens: Extra inputs are not permitted" } });
  });

  it("sends the caller's own key to a provider named without a slug, as /v1/messages does", async () => {
    const own = new Anthropic({
      baseURL: gateway.url,
      apiKey: ANTHROPIC_KEY,
      maxRetries: 0,
      defaultHeaders: {
        "x-gateway-api-key": API_KEY,
        "x-gateway-config": JSON.stringify({ provider: "anthropic", custom_host: claude.baseUrl }),
      },
    });
    expect(await own.messages.countTokens({ model: "claude-x", ...question })).toEqual({ input_tokens: 18 });
    expect(claude.requests[0]?.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
  });

  it("refuses a provider whose kind has no count endpoint with a 400 naming it, before any call", async () => {
    for (const model of ["@gpt/gpt-4o", "@mock/m"]) {
      const refused = (await anthropic(gateway.url, API_KEY)
        .messages.countTokens({ model, ...question })
        .catch((e: unknown) => e)) as APIError;
      expect(refused).toBeInstanceOf(APIError);
      expect(refused.status).toBe(400);
      expect(refused.error).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      expect(refused.message).toContain("/v1/messages/count_tokens cannot reach provider");
    }
    expect(gpt.requests).toHaveLength(0);
  });

  it("requires the gateway key, and never sends the caller's own key with a slug's credential", async () => {
    const refused = (await anthropic(gateway.url, "wrong-key")
      .messages.countTokens({ model: "@claude/claude-x", ...question })
      .catch((e: unknown) => e)) as APIError;
    expect(refused.status).toBe(401);
    expect(claude.requests).toHaveLength(0);
    await anthropic(gateway.url, API_KEY).messages.countTokens({ model: "@claude/claude-x", ...question });
    expect(JSON.stringify(claude.requests[0]?.headers)).not.toContain("sk-ant-client-own-key");
  });
});

describe("count_tokens on a managed gateway", () => {
  let gw: ManagedTestGateway;
  let url: string;
  beforeEach(async () => {
    gw = await startManaged();
    await gw.app.listen({ port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
    const admin = gw.keys.admin_key;
    const ws = gw.keys.workspace_id;
    const integration = await gw.call("POST", "/admin/v1/integrations", {
      key: admin,
      body: { slug: "claude", provider: "anthropic", base_url: claude.baseUrl, credentials: { api_key: ANTHROPIC_KEY } },
    });
    expect(integration.status).toBe(201);
    await gw.call("PUT", `/admin/v1/integrations/${integration.body.id}/workspaces/${ws}`, {
      key: admin,
      body: { rate_limit: { requests_per_minute: 2 } },
    });
    const provider = await gw.call("POST", `/admin/v1/workspaces/${ws}/providers`, {
      key: admin,
      body: { slug: "narrow", integration_id: integration.body.id, allowed_models: ["claude-ok"] },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  });
  afterEach(() => gw.close());

  it("holds the provider's model allow-list and the rate limits", async () => {
    const client = anthropic(url, gw.keys.api_key);
    expect(await client.messages.countTokens({ model: "@narrow/claude-ok", ...question })).toEqual({ input_tokens: 18 });
    const refused = (await client.messages
      .countTokens({ model: "@narrow/claude-no", ...question })
      .catch((e: unknown) => e)) as APIError;
    expect(refused.status).toBe(403);
    expect(refused.error).toMatchObject({
      error: {
        type: "permission_error",
        message: 'model "claude-no" is not allowed through provider "@narrow"; it allows claude-ok',
      },
    });
    expect(claude.requests).toHaveLength(1);
    // The integration's two requests a minute: the allowed count took one, so one more passes.
    await client.messages.countTokens({ model: "@narrow/claude-ok", ...question });
    const limited = (await client.messages
      .countTokens({ model: "@narrow/claude-ok", ...question })
      .catch((e: unknown) => e)) as APIError;
    expect(limited.status).toBe(429);
    expect(claude.requests).toHaveLength(2);
  });
});
