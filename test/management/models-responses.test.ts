/**
 * `GET /v1/models` and `GET /v1/models/{id}` through the official `openai` client: each model says
 * whether a `/v1/responses` request reaches it passed through (OpenAI, Azure OpenAI) or
 * translated through its chat form (every other kind); an unknown model is a 404 in OpenAI's
 * envelope, which the client raises as NotFoundError.
 */
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";

let gw: ManagedTestGateway;
let client: OpenAI;

beforeAll(async () => {
  gw = await startManaged();
  const ws = gw.keys.workspace_id;
  const integrations = [
    { slug: "openai-prod", provider: "openai", credentials: { api_key: "sk-models-test-1" }, allowed_models: ["gpt-4o"] },
    {
      slug: "claude-prod",
      provider: "anthropic",
      credentials: { api_key: "sk-ant-models-test-2" },
      allowed_models: ["claude-sonnet-4-5"],
    },
    {
      slug: "gemini-prod",
      provider: "google",
      credentials: { api_key: "AIza-models-test-3" },
      allowed_models: ["gemini-2.0-flash"],
    },
  ];
  for (const body of integrations) {
    const created = await gw.call("POST", "/admin/v1/integrations", { key: gw.keys.admin_key, body });
    expect(created.status).toBe(201);
    const provisioned = await gw.call("PUT", `/admin/v1/integrations/${created.body.id as string}/workspaces/${ws}`, {
      key: gw.keys.admin_key,
      body: {},
    });
    expect(provisioned.status).toBe(200);
  }
  await gw.app.listen({ port: 0, host: "127.0.0.1" });
  client = new OpenAI({
    baseURL: `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}/v1`,
    apiKey: "unused",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gw.keys.api_key },
  });
});

afterAll(async () => {
  await gw.close();
});

describe("the model catalog and the Responses API", () => {
  it("lists each model with how a Responses request reaches it", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    const reach = Object.fromEntries(models.map((m) => [m.id, (m as unknown as { responses: string }).responses]));
    expect(reach).toMatchObject({
      "@openai-prod/gpt-4o": "passthrough",
      "@claude-prod/claude-sonnet-4-5": "translated",
      "@gemini-prod/gemini-2.0-flash": "translated",
    });
  });

  it("answers for one model, its id holding a slash", async () => {
    const model = await client.models.retrieve("@claude-prod/claude-sonnet-4-5");
    expect(model).toMatchObject({
      id: "@claude-prod/claude-sonnet-4-5",
      object: "model",
      owned_by: "anthropic",
      provider: "claude-prod",
      model: "claude-sonnet-4-5",
      responses: "translated",
    });
    expect(await client.models.retrieve("@openai-prod/gpt-4o")).toMatchObject({ responses: "passthrough" });
  });

  it("answers an unknown model with a 404 in OpenAI's envelope", async () => {
    const error = await client.models.retrieve("@claude-prod/claude-opus-0").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({
      message: "The model '@claude-prod/claude-opus-0' does not exist or you do not have access to it.",
      code: "not_found",
    });
    const raw = await gw.call("GET", "/v1/models/nope", { key: gw.keys.api_key });
    expect(raw.status).toBe(404);
    expect(raw.body).toEqual({
      error: {
        message: "The model 'nope' does not exist or you do not have access to it.",
        type: expect.any(String),
        param: null,
        code: "not_found",
      },
    });
    expect((await gw.call("GET", "/v1/models/nope")).status).toBe(401);
  });
});
