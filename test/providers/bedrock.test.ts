/**
 * Amazon Bedrock end to end: the official `openai` client talks to guardgate, which translates to
 * Converse, ConverseStream and InvokeModel, signs with SigV4 and calls the Bedrock contract fake on
 * 127.0.0.1 (test/support/providers/bedrock.ts), which verifies every signature.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { APIError } from "openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { CLIENT_CODECS } from "../../server/providers/codecs/index.js";
import { FakeUpstream } from "../support/fake-upstream.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import {
  BEDROCK_ACCESS_KEY_ID,
  BEDROCK_REGION,
  BEDROCK_SECRET_ACCESS_KEY,
  BEDROCK_SESSION_TOKEN,
  type BedrockFake,
  startBedrockFake,
} from "../support/providers/bedrock.js";

const PROFILE_MODEL = "us.anthropic.claude-3-5-sonnet-20240620-v1:0";
const KEYS = {
  aws_access_key_id: BEDROCK_ACCESS_KEY_ID,
  aws_secret_access_key: BEDROCK_SECRET_ACCESS_KEY,
  aws_session_token: BEDROCK_SESSION_TOKEN,
  aws_region: BEDROCK_REGION,
};
const WRONG_SECRET = "wrongProviderSecret/+0123456789abcdefghijkl";

let fake: BedrockFake;
let openaiFake: FakeUpstream;
let gateway: TestGateway;
let home: string;
/** Every answer body and error the clients saw, for the test that looks for credentials in them. */
const seen: string[] = [];
/** Every signature the fake received. */
const signatures = new Set<string>();

function keepSignatures(): void {
  for (const request of fake.requests) {
    const signature = /Signature=([0-9a-f]{64})/.exec(String(request.headers.authorization))?.[1];
    if (signature) signatures.add(signature);
  }
}

beforeAll(async () => {
  fake = await startBedrockFake();
  openaiFake = await new FakeUpstream().start();
  home = mkdtempSync(join(tmpdir(), "bedrock-e2e-"));
  gateway = await startGateway({
    file: {
      providers: [
        { slug: "bedrock", provider: "bedrock", base_url: fake.origin, options: KEYS },
        // No keys: the environment, then the shared AWS files.
        { slug: "bedrock-chain", provider: "bedrock", base_url: fake.origin },
        {
          slug: "bedrock-wrong",
          provider: "bedrock",
          base_url: fake.origin,
          options: { ...KEYS, aws_secret_access_key: WRONG_SECRET },
        },
        { slug: "openai-busy", provider: "openai", base_url: openaiFake.baseUrl, api_key: "sk-openai-held-secret" },
      ],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await fake.close();
  await openaiFake.close();
  rmSync(home, { recursive: true, force: true });
});

beforeEach(() => {
  keepSignatures();
  fake.reset();
  openaiFake.reset();
});

function client(config?: unknown): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-client-own-key",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": API_KEY, ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }) },
  });
}

const WEATHER_TOOL = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

/** The error a call ends with, as the SDK raises it. */
async function apiError(run: () => Promise<unknown>): Promise<APIError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof APIError) {
      seen.push(JSON.stringify({ message: error.message, error: error.error, headers: error.headers }));
      return error;
    }
    throw error;
  }
  throw new Error("expected the call to fail");
}

/** A stream's text, tool calls, finish reason and usage, as the SDK hands them over. */
async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = "";
  const args: string[] = [];
  const tools: Array<{ id?: string; name?: string }> = [];
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    seen.push(JSON.stringify(chunk));
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    text += choice.delta.content ?? "";
    for (const call of choice.delta.tool_calls ?? []) {
      tools[call.index] ??= {};
      if (call.id) tools[call.index]!.id = call.id;
      if (call.function?.name) tools[call.index]!.name = call.function.name;
      args[call.index] = (args[call.index] ?? "") + (call.function?.arguments ?? "");
    }
    finish = choice.finish_reason ?? finish;
  }
  return { text, args, tools, finish, usage };
}

describe("chat through Converse", () => {
  it("calls a tool and reads its result, not streamed, with an inference profile id", async () => {
    const ask = { role: "user" as const, content: "What is the weather in Paris?" };
    const first = await client().chat.completions.create({
      model: `@bedrock/${PROFILE_MODEL}`,
      messages: [{ role: "system", content: "Use the tools." }, ask],
      tools: [WEATHER_TOOL],
      max_tokens: 200,
    });
    seen.push(JSON.stringify(first));
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Let me look.");
    const call = choice.message.tool_calls![0]!;
    expect(call).toMatchObject({ id: "tooluse_fake0001", type: "function" });
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual({ city: "Paris" });
    expect(first.usage).toMatchObject({ completion_tokens: 8, prompt_tokens_details: { cached_tokens: 2 } });

    // What reached Bedrock: the decoded profile id, Converse's shape.
    expect(fake.calls[0]).toMatchObject({
      model: PROFILE_MODEL,
      operation: "converse",
      body: {
        system: [{ text: "Use the tools." }],
        inferenceConfig: { maxTokens: 200 },
        toolConfig: {
          toolChoice: { auto: {} },
          tools: [{ toolSpec: { name: "get_weather", inputSchema: { json: WEATHER_TOOL.function.parameters } } }],
        },
      },
    });

    const second = await client().chat.completions.create({
      model: `@bedrock/${PROFILE_MODEL}`,
      messages: [ask, choice.message, { role: "tool", tool_call_id: call.id, content: "sunny, 21°C" }],
      tools: [WEATHER_TOOL],
    });
    seen.push(JSON.stringify(second));
    expect(second.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: "The tool said: sunny, 21°C" } });
    expect((fake.calls[1]?.body.messages as unknown[]).at(-1)).toEqual({
      role: "user",
      content: [{ toolResult: { toolUseId: "tooluse_fake0001", content: [{ text: "sunny, 21°C" }] } }],
    });
  });

  it("streams a tool call from ConverseStream's event stream, with usage", async () => {
    const stream = await client().chat.completions.create({
      model: `@bedrock/${PROFILE_MODEL}`,
      messages: [{ role: "user", content: "weather in Paris please" }],
      tools: [WEATHER_TOOL],
      stream: true,
      stream_options: { include_usage: true },
    });
    const got = await collect(stream);
    expect(fake.calls[0]?.operation).toBe("converse-stream");
    expect(got.text).toBe("Let me look.");
    expect(got.tools).toEqual([{ id: "tooluse_fake0001", name: "get_weather" }]);
    expect(JSON.parse(got.args[0]!)).toEqual({ city: "Paris" });
    expect(got.finish).toBe("tool_calls");
    expect(got.usage).toMatchObject({ completion_tokens: 8, prompt_tokens_details: { cached_tokens: 2 } });
  });

  it("streams text and ends with finish reason length at max_tokens", async () => {
    const stream = await client().chat.completions.create({
      model: "@bedrock/anthropic.claude-3-haiku-20240307-v1:0",
      messages: [{ role: "user", content: "one two three four five six" }],
      max_tokens: 3,
      stream: true,
    });
    const got = await collect(stream);
    expect(got.text).toBe("echo: one two");
    expect(got.finish).toBe("length");
    // Usage only when asked, as OpenAI does.
    expect(got.usage).toBeUndefined();
  });

  it("stops a stream with the SDK's error event when a denying output guardrail fails in window mode", async () => {
    const config = {
      stream_window: 64,
      output_guardrails: [{ id: "no-250", deny: true, stream_mode: "window", regexMatch: { rule: "\\b250\\b", not: true } }],
    };
    const stream = await client(config).chat.completions.create({
      model: `@bedrock/${PROFILE_MODEL}`,
      messages: [{ role: "user", content: "count to 400" }],
      stream: true,
    });
    let text = "";
    const streamed = (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })();
    await expect(streamed).rejects.toThrow("stopped by output guardrail no-250");
    // Windows went out before the deny, and nothing of the denied one.
    expect(text).toMatch(/^1 2 3 /);
    expect(text).not.toContain("250");
  });

  it("refuses what Converse cannot take with a 400 naming it", async () => {
    const image = await apiError(() =>
      client().chat.completions.create({
        model: `@bedrock/${PROFILE_MODEL}`,
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }],
      }),
    );
    expect([image.status, image.code]).toEqual([400, "unsupported_content"]);
    expect(image.message).toContain("messages[0].content[0].image_url");
    const format = await apiError(() =>
      client().chat.completions.create({
        model: `@bedrock/${PROFILE_MODEL}`,
        messages: [{ role: "user", content: "hi" }],
        response_format: { type: "json_object" },
      }),
    );
    expect([format.status, format.code]).toEqual([400, "unsupported_parameter"]);
    expect(format.message).toMatch(/^400 response_format/);
    expect(fake.calls).toHaveLength(0);
    // drop_params opts into dropping it.
    const dropped = await client({ drop_params: true }).chat.completions.create({
      model: `@bedrock/${PROFILE_MODEL}`,
      messages: [{ role: "user", content: "hi" }],
      response_format: { type: "json_object" },
    });
    expect(dropped.choices[0]?.message.content).toBe("echo: hi");
  });
});

// Runs once guardgate has the Anthropic client codec; until then /v1/messages cannot reach Bedrock.
describe.skipIf(!CLIENT_CODECS.anthropic)("the Anthropic client to /v1/messages", () => {
  const anthropic = () =>
    new Anthropic({
      baseURL: gateway.url,
      apiKey: "sk-ant-client-key",
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": API_KEY },
    });
  const request = {
    model: `@bedrock/${PROFILE_MODEL}`,
    max_tokens: 200,
    system: "Use the tools.",
    messages: [{ role: "user" as const, content: "What is the weather in Paris?" }],
    tools: [
      {
        name: "get_weather",
        description: "The weather in a city",
        input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
      },
    ],
  };

  it("calls a tool through Converse, streamed and not", async () => {
    const whole = await anthropic().messages.create(request);
    seen.push(JSON.stringify(whole));
    expect(whole.stop_reason).toBe("tool_use");
    expect(whole.content.find((block) => block.type === "tool_use")).toMatchObject({
      id: "tooluse_fake0001",
      name: "get_weather",
      input: { city: "Paris" },
    });
    expect(fake.calls[0]).toMatchObject({ operation: "converse", body: { system: [{ text: "Use the tools." }] } });

    const streamed = await anthropic().messages.stream(request).finalMessage();
    seen.push(JSON.stringify(streamed));
    expect(fake.calls[1]?.operation).toBe("converse-stream");
    expect(streamed.stop_reason).toBe("tool_use");
    expect(streamed.content.find((block) => block.type === "tool_use")).toMatchObject({
      name: "get_weather",
      input: { city: "Paris" },
    });
  });
});

describe("Bedrock's errors", () => {
  it.each([
    ["throttle", 429, "rate_limited"],
    ["overload", 503, "overloaded"],
    ["too long", 400, "context_length_exceeded"],
    ["forbidden", 403, "permission_denied"],
  ])("%s → %i %s in OpenAI's error shape", async (text, status, code) => {
    const error = await apiError(() =>
      client().chat.completions.create({ model: `@bedrock/${PROFILE_MODEL}`, messages: [{ role: "user", content: text }] }),
    );
    expect([error.status, error.code]).toEqual([status, code]);
    expect(error.message).toMatch(/Amazon Bedrock \w+Exception: /);
  });

  it("ends a stream with the SDK's error event on an exception message, and on a stream cut short", async () => {
    const run = async (content: string) =>
      collect(
        await client().chat.completions.create({
          model: `@bedrock/${PROFILE_MODEL}`,
          messages: [{ role: "user", content }],
          stream: true,
        }),
      );
    const thrown = await apiError(() => run("say a lot mid-stream"));
    expect(thrown.message).toContain("throttlingException");
    expect((thrown.error as { code?: string }).code).toBe("upstream_stream_error");
    const cut = await apiError(() => run("cut me off"));
    expect((cut.error as { code?: string }).code).toBe("upstream_stream_incomplete");
  });

  it("answers 401 when Bedrock refuses the signature, without echoing AWS's canonical request", async () => {
    const error = await apiError(() =>
      client().chat.completions.create({ model: `@bedrock-wrong/${PROFILE_MODEL}`, messages: [{ role: "user", content: "hi" }] }),
    );
    expect([error.status, error.code]).toEqual([401, "authentication_failed"]);
    expect(error.message).toContain("InvalidSignatureException");
    expect(error.message).not.toContain("Canonical");
  });

  it("falls back from an OpenAI provider answering 429 to Bedrock, and logs both attempts", async () => {
    openaiFake.enqueue({ kind: "json", status: 429, body: { error: { message: "slow down", type: "rate_limit_error" } } });
    const config = {
      strategy: { mode: "fallback" },
      targets: [
        { provider: "@openai-busy", override_params: { model: "gpt-test" } },
        { provider: "@bedrock", override_params: { model: PROFILE_MODEL } },
      ],
    };
    const answer = await client(config).chat.completions.create({ model: "any", messages: [{ role: "user", content: "hello" }] });
    expect(answer.choices[0]?.message.content).toBe("echo: hello");
    const record = await gateway.logs.waitFor((r) => r.attempts.length === 2);
    expect(record.attempts.map((a) => a.status)).toEqual([429, 200]);
  });
});

describe("embeddings through InvokeModel", () => {
  it("embeds with Titan v2 (the SDK's default base64) and with Cohere (a batch, as floats)", async () => {
    const titan = await client().embeddings.create({
      model: "@bedrock/amazon.titan-embed-text-v2:0",
      input: "hello world",
      dimensions: 256,
    });
    seen.push(JSON.stringify(titan));
    expect(titan.data[0]?.embedding).toHaveLength(256);
    expect(titan.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
    expect(fake.calls[0]).toMatchObject({
      model: "amazon.titan-embed-text-v2:0",
      operation: "invoke",
      body: { inputText: "hello world", dimensions: 256 },
    });

    const cohere = await client().embeddings.create({
      model: "@bedrock/cohere.embed-english-v3",
      input: ["first text", "second text here"],
      encoding_format: "float",
    });
    seen.push(JSON.stringify(cohere));
    expect(cohere.data.map((d) => [d.index, d.embedding.length])).toEqual([
      [0, 1024],
      [1, 1024],
    ]);
    expect(cohere.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
    expect(fake.calls[1]?.body).toEqual({ texts: ["first text", "second text here"], input_type: "search_document" });
  });

  it("sends a list to Titan text by text and answers it as one list, in order", async () => {
    const input = ["alpha", "beta gamma", "delta", "epsilon zeta eta", "theta", "iota"];
    const list = await client().embeddings.create({
      model: "@bedrock/amazon.titan-embed-text-v1",
      input,
      encoding_format: "float",
    });
    seen.push(JSON.stringify(list));
    expect(fake.calls.map((c) => c.body.inputText).sort()).toEqual([...input].sort());
    expect(list.data.map((d) => d.index)).toEqual([0, 1, 2, 3, 4, 5]);
    // Each vector is the one its own text gets alone.
    const alone = await client().embeddings.create({
      model: "@bedrock/amazon.titan-embed-text-v1",
      input: "epsilon zeta eta",
      encoding_format: "float",
    });
    expect(list.data[3]?.embedding).toEqual(alone.data[0]?.embedding);
    expect(list.usage).toEqual({ prompt_tokens: 9, total_tokens: 9 });
    // A part that fails is the answer.
    const error = await apiError(() =>
      client().embeddings.create({ model: "@bedrock/amazon.titan-embed-text-v1", input: ["fine", 42 as unknown as string] }),
    );
    expect([error.status, error.code]).toEqual([400, "unsupported_content"]);
    // Refused before any part was sent.
    expect(fake.calls).toHaveLength(7);
    const throttled = await apiError(() =>
      client().embeddings.create({ model: "@bedrock/amazon.titan-embed-text-v1", input: ["fine", "throttle me", "fine too"] }),
    );
    expect([throttled.status, throttled.code]).toEqual([429, "rate_limited"]);
    expect(fake.calls).toHaveLength(10);
  });
});

describe("credentials from the standard chain", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("signs with the environment's keys, then with the shared files' profile", async () => {
    const ask = () =>
      client().chat.completions.create({ model: `@bedrock-chain/${PROFILE_MODEL}`, messages: [{ role: "user", content: "hi" }] });
    vi.stubEnv("AWS_ACCESS_KEY_ID", BEDROCK_ACCESS_KEY_ID);
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", BEDROCK_SECRET_ACCESS_KEY);
    vi.stubEnv("AWS_SESSION_TOKEN", BEDROCK_SESSION_TOKEN);
    vi.stubEnv("AWS_REGION", BEDROCK_REGION);
    expect((await ask()).choices[0]?.message.content).toBe("echo: hi");
    expect(fake.requests[0]?.headers["x-amz-security-token"]).toBe(BEDROCK_SESSION_TOKEN);

    for (const name of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION"]) vi.stubEnv(name, "");
    writeFileSync(
      join(home, "credentials"),
      `[team]\naws_access_key_id = ${BEDROCK_ACCESS_KEY_ID}\naws_secret_access_key = ${BEDROCK_SECRET_ACCESS_KEY}\n`,
      { mode: 0o600 },
    );
    writeFileSync(join(home, "config"), `[profile team]\nregion = ${BEDROCK_REGION}\n`);
    vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", join(home, "credentials"));
    vi.stubEnv("AWS_CONFIG_FILE", join(home, "config"));
    vi.stubEnv("AWS_PROFILE", "team");
    expect((await ask()).choices[0]?.message.content).toBe("echo: hi");
    expect(fake.requests[1]?.headers["x-amz-security-token"]).toBeUndefined();
    expect(fake.requests[1]?.headers.authorization).toContain(`Credential=${BEDROCK_ACCESS_KEY_ID}/`);

    // Nothing anywhere: the operator is told what is missing.
    vi.stubEnv("AWS_PROFILE", "nobody");
    const error = await apiError(ask);
    expect([error.status, error.code]).toEqual([400, "provider_not_configured"]);
  });

  it("never signs with the gateway's own credentials for a host the request chose", async () => {
    vi.stubEnv("AWS_ACCESS_KEY_ID", BEDROCK_ACCESS_KEY_ID);
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", BEDROCK_SECRET_ACCESS_KEY);
    vi.stubEnv("AWS_REGION", BEDROCK_REGION);
    const error = await apiError(() =>
      client({ provider: "bedrock", custom_host: fake.origin }).chat.completions.create({
        model: PROFILE_MODEL,
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect([error.status, error.code]).toEqual([400, "custom_host_needs_credentials"]);
    expect(fake.requests).toHaveLength(0);
    // Nor may a config pick another profile of the gateway's shared files.
    const profile = await apiError(() =>
      client({ provider: "@bedrock-chain", aws_profile: "admin" }).chat.completions.create({
        model: PROFILE_MODEL,
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(profile.status).toBe(400);
    expect(profile.message).toContain("aws_profile");
    // Keys the config itself gives may go there.
    const answer = await client({ provider: "bedrock", custom_host: fake.origin, ...KEYS }).chat.completions.create({
      model: PROFILE_MODEL,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(answer.choices[0]?.message.content).toBe("echo: hi");
  });
});

describe("credentials stay on the server", () => {
  it("no secret key, session token or signature in any answer, error or log record", async () => {
    keepSignatures();
    expect(signatures.size).toBeGreaterThan(10);
    expect(seen.length).toBeGreaterThan(10);
    const logs = JSON.stringify(gateway.logs.list());
    expect(logs.length).toBeGreaterThan(1000);
    for (const secret of [BEDROCK_SECRET_ACCESS_KEY, WRONG_SECRET, BEDROCK_SESSION_TOKEN, ...signatures]) {
      for (const text of [...seen, logs]) expect(text).not.toContain(secret);
    }
  });
});
