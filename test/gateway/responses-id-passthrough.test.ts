/**
 * The Responses API's id routes for responses that passed through: an id guardgate did not store
 * goes to the OpenAI provider the request's gateway headers resolve, as `POST /v1/responses` went,
 * and the provider's answer (a 404 included) comes back through the official `openai` client.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { ResponsesUpstream } from "../support/responses-upstream.js";

let upstream: ResponsesUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await new ResponsesUpstream().start();
  gateway = await startGateway({ file: { settings: { log_bodies: true } } });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

beforeEach(() => upstream.reset());

function client(config?: Record<string, unknown>): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-client-own-key",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": API_KEY, ...(config && { "x-gateway-config": JSON.stringify(config) }) },
  });
}

const openaiConfig = () => ({ provider: "openai", custom_host: upstream.baseUrl });

describe("id routes of responses the provider keeps", () => {
  it("reads a response and its input items from the provider, with the caller's key", async () => {
    const openai = client(openaiConfig());
    const created = await openai.responses.create({ model: "gpt-test", input: "hello" });
    const read = await openai.responses.retrieve(created.id);
    expect(read).toMatchObject({ id: created.id, output_text: "echo: hello" });
    const items = await openai.responses.inputItems.list(created.id, { limit: 5 });
    expect(items.data).toMatchObject([{ type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] }]);
    const [get, list] = upstream.requests.slice(1);
    expect(get).toMatchObject({ method: "GET", path: `/v1/responses/${created.id}` });
    expect(get?.headers.authorization).toBe("Bearer sk-client-own-key");
    expect(list?.method).toBe("GET");
    expect(list?.path).toMatch(new RegExp(`^/v1/responses/${created.id}/input_items\\?.*limit=5`));
  });

  it("deletes at the provider, whose 404 afterwards comes back as the client's NotFoundError", async () => {
    const openai = client(openaiConfig());
    const created = await openai.responses.create({ model: "gpt-test", input: "bye" });
    expect(await openai.responses.delete(created.id)).toMatchObject({ id: created.id, deleted: true });
    expect(upstream.requests.at(-1)).toMatchObject({ method: "DELETE", path: `/v1/responses/${created.id}` });
    expect(upstream.stored.has(created.id)).toBe(false);
    const gone = await openai.responses.retrieve(created.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect((gone as InstanceType<typeof OpenAI.NotFoundError>).message).toContain(`Response with id '${created.id}' not found.`);
  });

  it("passes the provider's refusal of a cancel back", async () => {
    const openai = client(openaiConfig());
    const created = await openai.responses.create({ model: "gpt-test", input: "hi" });
    const refused = await openai.responses.cancel(created.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(upstream.requests.at(-1)).toMatchObject({ method: "POST", path: `/v1/responses/${created.id}/cancel` });
  });

  it("answers the gateway's own 404 when the headers name no provider, or one reached through chat", async () => {
    const created = await client(openaiConfig()).responses.create({ model: "gpt-test", input: "hi" });
    const calls = upstream.requests.length;
    for (const openai of [client(), client({ provider: "anthropic", api_key: "sk-ant-unused", custom_host: upstream.baseUrl })]) {
      const error = await openai.responses.retrieve(created.id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("response_not_found");
    }
    expect(upstream.requests).toHaveLength(calls);
  });
});
