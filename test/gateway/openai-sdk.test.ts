/**
 * End to end through the official `openai` client: the SDK points its base URL at guardgate, which
 * calls a fake upstream on 127.0.0.1.
 */
import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { openGate } from "../support/redact-plugin.js";

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
  gateway = await startGateway({
    file: {
      providers: [{ slug: "fake-openai", provider: "openai", base_url: upstream.baseUrl, api_key: "sk-server-held-secret" }],
      guardrails: [
        {
          id: "no-ssn",
          side: "input",
          async: false,
          deny: true,
          checks: [{ id: "default.regexMatch", parameters: { rule: "\\d{3}-\\d{2}-\\d{4}", not: true } }],
        },
      ],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

beforeEach(() => upstream.reset());

/** A client whose requests carry `config` in x-gateway-config. */
function client(config?: unknown, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-client-own-key",
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": API_KEY,
      ...(config !== undefined && { "x-gateway-config": typeof config === "string" ? config : JSON.stringify(config) }),
      ...headers,
    },
  });
}

const viaFake = () => ({ provider: "openai", custom_host: upstream.baseUrl });
const ask = (content: string) => ({ model: "gpt-test", messages: [{ role: "user" as const, content }] });
type WithHooks = {
  hook_results?: { before_request_hooks: Array<Record<string, unknown>>; after_request_hooks: Array<Record<string, unknown>> };
};

describe("guardrails through the OpenAI SDK", () => {
  it("passes with 200 and hook_results when every synchronous guardrail passes", async () => {
    const config = { ...viaFake(), output_guardrails: [{ wordCount: { minWords: 1, maxWords: 50 } }] };
    const { data, response } = await client(config).chat.completions.create(ask("hello")).withResponse();
    expect(response.status).toBe(200);
    expect(data.choices[0]?.message.content).toBe("echo: hello");
    const hooks = (data as WithHooks).hook_results;
    expect(hooks?.before_request_hooks).toEqual([]);
    expect(hooks?.after_request_hooks[0]).toMatchObject({ verdict: true, type: "guardrail", async: false, deny: false });
    // The caller's own credential goes to a named provider.
    expect(upstream.requests[0]?.headers.authorization).toBe("Bearer sk-client-own-key");
    expect(upstream.requests[0]?.headers["x-gateway-api-key"]).toBeUndefined();
  });

  it("answers 246 when a guardrail without deny fails, and still calls the model", async () => {
    const config = { ...viaFake(), input_guardrails: [{ regexMatch: { rule: "please" } }] };
    const { data, response } = await client(config).chat.completions.create(ask("give me the answer")).withResponse();
    expect(response.status).toBe(246);
    expect(data.choices[0]?.message.content).toBe("echo: give me the answer");
    expect((data as WithHooks).hook_results?.before_request_hooks[0]).toMatchObject({ verdict: false, deny: false });
    expect(upstream.requests).toHaveLength(1);
  });

  it("denies with 446 and never calls the model when a deny guardrail fails on the input", async () => {
    const config = { ...viaFake(), input_guardrails: ["no-ssn"] };
    const error = await client(config)
      .chat.completions.create(ask("my ssn is 123-45-6789"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    const apiError = error as APIError;
    expect(apiError.status).toBe(446);
    expect(apiError.type).toBe("hooks_failed");
    expect(apiError.headers?.get("content-type")).toMatch(/^application\/json/);
    expect(upstream.requests).toHaveLength(0);
  });

  it("the 446 body has the peer gateway's shape with hook_results", async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": API_KEY,
        "x-gateway-config": JSON.stringify({ ...viaFake(), input_guardrails: ["no-ssn"] }),
      },
      body: JSON.stringify(ask("ssn 123-45-6789")),
    });
    expect(response.status).toBe(446);
    const body = (await response.json()) as { error: unknown } & Required<WithHooks>;
    expect(body.error).toEqual({
      message: expect.stringContaining("no-ssn"),
      type: "hooks_failed",
      param: null,
      code: null,
      side: "input",
      guardrails: ["no-ssn"],
      checks: ["default.regexMatch"],
    });
    expect(response.headers.get("x-gateway-denied-by")).toBe("no-ssn");
    expect(body.hook_results.before_request_hooks[0]).toMatchObject({ id: "no-ssn", verdict: false, deny: true });
    expect(body.hook_results.after_request_hooks).toEqual([]);
  });

  it("denies with 446 on the output side after calling the model", async () => {
    upstream.defaultText = "the secret code is 4242";
    const config = { ...viaFake(), output_guardrails: [{ deny: true, regexMatch: { rule: "secret", not: true } }] };
    const error = (await client(config)
      .chat.completions.create(ask("tell me"))
      .catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(446);
    expect(upstream.requests).toHaveLength(1);
    expect(error.type).toBe("hooks_failed");
  });

  it("a 446's thrown APIError names the denying guardrails in error.guardrails and in x-gateway-denied-by", async () => {
    const input = (await client({ ...viaFake(), input_guardrails: ["no-ssn", { id: "polite", regexMatch: { rule: "." } }] })
      .chat.completions.create(ask("my ssn is 123-45-6789"))
      .catch((e: unknown) => e)) as APIError;
    expect(input).toBeInstanceOf(APIError);
    // openai's APIError keeps the body's `error` object as `error`.
    expect(input.error).toMatchObject({
      type: "hooks_failed",
      side: "input",
      guardrails: ["no-ssn"],
      checks: ["default.regexMatch"],
    });
    expect(input.headers?.get("x-gateway-denied-by")).toBe("no-ssn");

    // Any character an inline id holds survives the header, URI-encoded.
    upstream.defaultText = "the secret code is 4242";
    const output = (await client({
      ...viaFake(),
      output_guardrails: [
        { id: "sécret,1", deny: true, regexMatch: { rule: "secret", not: true } },
        { id: "short", deny: true, wordCount: { maxWords: 2 } },
      ],
    })
      .chat.completions.create(ask("tell me"))
      .catch((e: unknown) => e)) as APIError;
    expect(output.status).toBe(446);
    expect(output.error).toMatchObject({
      side: "output",
      guardrails: ["sécret,1", "short"],
      checks: ["default.regexMatch", "default.wordCount"],
    });
    const header = output.headers?.get("x-gateway-denied-by") ?? "";
    expect(header).toBe("s%C3%A9cret%2C1,short");
    expect(header.split(",").map(decodeURIComponent)).toEqual(["sécret,1", "short"]);

    // A streamed request denied before its first byte is a 446 too, thrown by the SDK the same way.
    const streamed = (await client({
      ...viaFake(),
      output_guardrails: [{ id: "no-secrets", deny: true, regexMatch: { rule: "secret", not: true } }],
      stream_mode: "buffer",
    })
      .chat.completions.create({ ...ask("tell me"), stream: true })
      .catch((e: unknown) => e)) as APIError;
    expect(streamed).toBeInstanceOf(APIError);
    expect(streamed.status).toBe(446);
    expect(streamed.error).toMatchObject({ side: "output", guardrails: ["no-secrets"] });
    expect(streamed.headers?.get("x-gateway-denied-by")).toBe("no-secrets");
  });

  it("a stream stopped mid-way raises an APIError whose error names the guardrail too", async () => {
    upstream.defaultText = `${"all is well here and now ".repeat(8)}the secret is out`;
    const config = {
      ...viaFake(),
      stream_mode: "window",
      stream_window: 20,
      output_guardrails: [{ id: "no-secrets", deny: true, regexMatch: { rule: "secret", not: true } }],
    };
    const stream = await client(config).chat.completions.create({ ...ask("talk"), stream: true });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((e: unknown) => e);
    expect(text).toContain("all is well");
    expect(text).not.toContain("secret");
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toMatchObject({ type: "hooks_failed", side: "output", guardrails: ["no-secrets"] });
  });

  it("sends the redacted request upstream when an input guardrail transforms it", async () => {
    const config = { ...viaFake(), input_guardrails: [{ "test.redactDigits": {} }] };
    const { data, response } = await client(config).chat.completions.create(ask("call me at 5551234")).withResponse();
    expect(response.status).toBe(200);
    const sent = upstream.requests[0]?.body.messages as Array<{ content: string }>;
    expect(sent.at(-1)?.content).toBe("call me at [NUMBER]");
    expect((data as WithHooks).hook_results?.before_request_hooks[0]).toMatchObject({ transformed: true });
  });

  it("redacts the response the client receives when an output guardrail transforms it", async () => {
    upstream.defaultText = "your code is 98765";
    const config = { ...viaFake(), output_guardrails: [{ "test.redactDigits": {} }] };
    const data = await client(config).chat.completions.create(ask("code?"));
    expect(data.choices[0]?.message.content).toBe("your code is [NUMBER]");
  });

  it("asynchronous guardrails neither delay nor change the answer; their results reach the log", async () => {
    const config = {
      ...viaFake(),
      input_guardrails: [{ id: "slow-async", async: true, "test.gated": { gate: "openai-async" } }],
    };
    const { data, response } = await client(config).chat.completions.create(ask("hi")).withResponse();
    // The gated check has not finished (its gate is closed), yet the answer is here, unchanged.
    expect(response.status).toBe(200);
    expect((data as WithHooks).hook_results).toBeUndefined();
    const requestId = response.headers.get("x-gateway-request-id");
    expect(gateway.logs.list().find((r) => r.id === requestId)).toBeUndefined();
    openGate("openai-async");
    const record = await gateway.logs.waitFor((r) => r.id === requestId);
    expect(record.status).toBe(200);
    expect(record.hook_results.before_request_hooks[0]).toMatchObject({ id: "slow-async", async: true, verdict: false });
  });

  it("streams with hook_results read from the chunks' extra fields when strict compliance is off", async () => {
    const config = {
      ...viaFake(),
      input_guardrails: [{ wordCount: { minWords: 1 } }],
      output_guardrails: [{ wordCount: { minWords: 1, maxWords: 100 } }],
    };
    const stream = await client(config, { "x-gateway-strict-compliance": "false" }).chat.completions.create({
      ...ask("stream this please"),
      stream: true,
    });
    const hookChunks: WithHooks[] = [];
    let text = "";
    for await (const chunk of stream) {
      const extra = chunk as unknown as WithHooks;
      if (extra.hook_results) hookChunks.push(extra);
      else text += chunk.choices[0]?.delta?.content ?? "";
    }
    expect(text).toBe("echo: stream this please");
    expect(hookChunks).toHaveLength(2);
    expect(hookChunks[0]?.hook_results?.before_request_hooks[0]).toMatchObject({ verdict: true });
    // The output side saw the streamed text, not an empty body.
    const after = hookChunks[1]?.hook_results?.after_request_hooks[0] as {
      verdict: boolean;
      checks: Array<{ data: { wordCount: number } }>;
    };
    expect(after.verdict).toBe(true);
    expect(after.checks[0]?.data.wordCount).toBe(4);
  });

  it("streams without hook results under strict compliance (the default)", async () => {
    const config = { ...viaFake(), input_guardrails: [{ wordCount: { minWords: 1 } }] };
    const stream = await client(config).chat.completions.create({ ...ask("plain stream"), stream: true });
    const chunks: unknown[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((c) => (c as WithHooks).hook_results)).toBe(false);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it("resolves @slug/model: the slug's credential is used and the client's Authorization is not forwarded", async () => {
    const data = await client().chat.completions.create({ ...ask("hi"), model: "@fake-openai/gpt-slugged" });
    expect(data.choices[0]?.message.content).toBe("echo: hi");
    const received = upstream.requests[0];
    expect(received?.body.model).toBe("gpt-slugged");
    expect(received?.headers.authorization).toBe("Bearer sk-server-held-secret");
    expect(JSON.stringify(data)).not.toContain("sk-server-held-secret");
  });

  it("resolves the legacy virtual_key header and config key to the provider slug", async () => {
    await client(undefined, { "x-gateway-virtual-key": "fake-openai" }).chat.completions.create(ask("vk header"));
    await client({ virtual_key: "fake-openai" }).chat.completions.create(ask("vk config"));
    expect(upstream.requests).toHaveLength(2);
    for (const received of upstream.requests) expect(received.headers.authorization).toBe("Bearer sk-server-held-secret");
  });

  it("takes the model from the target's override_params when the request names none", async () => {
    const config = { targets: [{ provider: "@fake-openai", override_params: { model: "gpt-from-config" } }] };
    await client(config).chat.completions.create({ messages: [{ role: "user", content: "no model" }] } as never);
    expect(upstream.requests[0]?.body.model).toBe("gpt-from-config");
  });

  it("serves completions and embeddings", async () => {
    const config = viaFake();
    const completion = await client(config).completions.create({ model: "gpt-test", prompt: "complete me" });
    expect(completion.choices[0]?.text).toBe("echo: complete me");
    const embedding = await client(config).embeddings.create({ model: "emb", input: "embed me", encoding_format: "float" });
    expect(embedding.data[0]?.embedding).toHaveLength(3);
    expect(upstream.requests.map((r) => r.path)).toEqual(["/v1/completions", "/v1/embeddings"]);
  });
});
