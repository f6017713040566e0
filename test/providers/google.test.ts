/**
 * End to end through the official `openai` and `@anthropic-ai/sdk` clients: guardgate in front of
 * the Gemini API and Vertex AI contract fakes (test/support/providers/google.ts) on 127.0.0.1. Chats with tool
 * calls, streamed and not, embeddings, a stream stopped by an output guardrail, a blocked prompt,
 * Google's errors, and no key, token or private key in any answer, error or log.
 */
import { generateKeyPairSync } from "node:crypto";
import { Writable } from "node:stream";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { type GoogleFake, startGoogleProviderFake } from "../support/providers/google.js";

let fake: GoogleFake;
let gateway: TestGateway;
const logLines: string[] = [];
/** Every body the gateway answered the clients, streamed or not. */
const answers: Array<Promise<string>> = [];

beforeAll(async () => {
  fake = await startGoogleProviderFake();
  const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString();
  const vertexOptions = {
    vertex_region: fake.region,
    vertex_project_id: fake.project,
    vertex_service_account_json: fake.serviceAccount,
  };
  gateway = await startGateway({
    logBodies: true,
    logger: {
      level: "debug",
      stream: new Writable({
        write(chunk, _encoding, callback) {
          logLines.push(String(chunk));
          callback();
        },
      }),
    },
    file: {
      providers: [
        { slug: "gemini", provider: "google", base_url: fake.geminiBaseUrl, api_key: fake.apiKey },
        {
          slug: "gemini-wrong-key",
          provider: "google",
          base_url: fake.geminiBaseUrl,
          api_key: "AIzaSy-not-the-key-000000000000",
        },
        // The service account given as its JSON text, as a key file's content would be pasted.
        {
          slug: "vertex",
          provider: "vertex-ai",
          base_url: fake.vertexBaseUrl,
          options: { ...vertexOptions, vertex_service_account_json: JSON.stringify(fake.serviceAccount) },
        },
        {
          slug: "vertex-wrong-key",
          provider: "vertex-ai",
          base_url: fake.vertexBaseUrl,
          options: { ...vertexOptions, vertex_service_account_json: { ...fake.serviceAccount, private_key: otherKey } },
        },
      ],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await fake.close();
});

beforeEach(() => fake.reset());

function client(config?: unknown): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-unused-by-google",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": API_KEY, ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }) },
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      answers.push(response.clone().text());
      return response;
    },
  });
}

const WEATHER: OpenAI.ChatCompletionTool = {
  type: "function",
  function: {
    name: "weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  },
};

const SERVICES = [
  ["Gemini API", "gemini", "gemini-2.0-flash"],
  ["Vertex AI", "vertex", "gemini-2.0-flash"],
] as const;

async function recordOf(id: string | null) {
  return gateway.logs.waitFor((r) => r.id === id);
}

describe.each(SERVICES)("the openai client through guardgate to %s", (_name, slug, model) => {
  const at = `@${slug}/${model}`;

  it("chats with a tool call, then sends the tool's result back", async () => {
    fake.enqueue({ kind: "tool", name: "weather", args: { city: "Paris" } });
    const { data, response } = await client()
      .chat.completions.create({
        model: at,
        messages: [
          { role: "system", content: "Use tools." },
          { role: "user", content: "Weather in Paris?" },
        ],
        tools: [WEATHER],
        tool_choice: "required",
        max_tokens: 64,
      })
      .withResponse();
    const call = data.choices[0]?.message.tool_calls?.[0];
    expect(data.choices[0]?.finish_reason).toBe("tool_calls");
    expect(call?.type === "function" && call.function).toEqual({ name: "weather", arguments: '{"city":"Paris"}' });
    expect(data.usage?.prompt_tokens).toBeGreaterThan(0);

    const sent = fake.requests[0];
    expect(sent?.service).toBe(slug === "gemini" ? "gemini" : "vertex");
    expect(sent?.method).toBe("generateContent");
    expect(sent?.body).toMatchObject({
      systemInstruction: { parts: [{ text: "Use tools." }] },
      contents: [{ role: "user", parts: [{ text: "Weather in Paris?" }] }],
      generationConfig: { maxOutputTokens: 64 },
      tools: [{ functionDeclarations: [{ name: "weather", parameters: { type: "OBJECT", required: ["city"] } }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY" } },
    });
    if (slug === "gemini") expect(sent?.headers["x-goog-api-key"]).toBe(fake.apiKey);
    else expect(sent?.headers.authorization).toMatch(/^Bearer ya29\./);
    expect(sent?.headers["x-gateway-api-key"]).toBeUndefined();
    expect((await recordOf(response.headers.get("x-gateway-request-id"))).status).toBe(200);

    fake.enqueue({ kind: "text", text: "It is 21 °C in Paris." });
    const second = await client().chat.completions.create({
      model: at,
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: null, tool_calls: [call as OpenAI.ChatCompletionMessageToolCall] },
        { role: "tool", tool_call_id: call?.id ?? "", content: '{"celsius":21}' },
      ],
      tools: [WEATHER],
    });
    expect(second.choices[0]?.message.content).toBe("It is 21 °C in Paris.");
    expect(fake.requests[1]?.body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris?" }] },
      { role: "model", parts: [{ functionCall: { name: "weather", args: { city: "Paris" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "weather", response: { celsius: 21 } } }] },
    ]);
  });

  it("streams a tool call as one tool-call delta, then the usage", async () => {
    fake.enqueue({ kind: "tool", name: "weather", args: { city: "Rome" } });
    const stream = await client().chat.completions.create({
      model: at,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "Weather in Rome?" }],
      tools: [WEATHER],
    });
    const calls: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(calls).toEqual([
      {
        index: 0,
        id: expect.stringMatching(/^call_/),
        type: "function",
        function: { name: "weather", arguments: '{"city":"Rome"}' },
      },
    ]);
    expect(finish).toBe("tool_calls");
    expect(usage?.total_tokens).toBeGreaterThan(0);
    expect(fake.requests[0]?.method).toBe("streamGenerateContent");
  });

  it("streams text delta by delta, the log keeping the safety ratings of the stream", async () => {
    const text = "The quick brown fox jumps over the lazy dog, twice over.";
    fake.enqueue({ kind: "text", text });
    const { data: stream, response } = await client()
      .chat.completions.create({ model: at, stream: true, messages: [{ role: "user", content: "go" }] })
      .withResponse();
    const deltas: string[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content);
    expect(deltas.join("")).toBe(text);
    expect(deltas.length).toBeGreaterThan(3);
    const record = await recordOf(response.headers.get("x-gateway-request-id"));
    expect(record.provider_filters).toMatchObject({
      source: "gemini_safety_filter",
      filtered: false,
      completion: { hate_speech: { filtered: false, severity: "negligible" } },
    });
  });

  it("stops a stream in window mode when a denying output guardrail matches, with the SDK's error", async () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 10} `).join("");
    fake.enqueue({ kind: "text", text: `${words(60)}the forbidden phrase ${words(60)}` });
    const config = {
      stream_window: 16,
      output_guardrails: [
        { id: "no-phrase", deny: true, stream_mode: "window", regexMatch: { rule: "forbidden phrase", not: true } },
      ],
    };
    let streamed = "";
    let error: unknown;
    try {
      const stream = await client(config).chat.completions.create({
        model: at,
        stream: true,
        messages: [{ role: "user", content: "go" }],
      });
      for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toMatchObject({ code: "hooks_failed" });
    expect(streamed).not.toContain("forbidden");
    expect(streamed.length).toBeGreaterThan(0);
    const record = await gateway.logs.waitFor(
      (r) => r.stream_stop?.guardrails.includes("no-phrase") === true && r.provider === `@${slug}`,
    );
    expect(record.stream_stop?.mode).toBe("window");
  });

  it("ends a stream that stops before its candidate finished with the SDK's error, logged as incomplete", async () => {
    fake.enqueue({ kind: "cut", text: "The start of an answer that never" });
    let streamed = "";
    let error: unknown;
    try {
      const stream = await client().chat.completions.create({
        model: at,
        stream: true,
        messages: [{ role: "user", content: "go" }],
      });
      for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toMatchObject({ code: "upstream_stream_incomplete" });
    expect("The start of an answer that never".startsWith(streamed)).toBe(true);
    const record = await gateway.logs.waitFor((r) => r.error?.code === "upstream_stream_incomplete" && r.provider === `@${slug}`);
    expect(record.stream).toBe(true);
  });

  it("answers a blocked prompt with a 400 naming the reason, and logs Google's feedback", async () => {
    fake.enqueue({ kind: "blocked", reason: "PROHIBITED_CONTENT" });
    const error = (await client()
      .chat.completions.create({ model: at, messages: [{ role: "user", content: "something forbidden" }] })
      .catch((e: unknown) => e)) as APIError;
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(400);
    expect(error.code).toBe("provider_blocked_prompt");
    expect(error.message).toContain("PROHIBITED_CONTENT");
    const record = await recordOf(error.headers?.get("x-gateway-request-id") ?? null);
    expect(record.error?.code).toBe("provider_blocked_prompt");
    expect(record.provider_filters).toMatchObject({
      source: "gemini_safety_filter",
      filtered: true,
      prompt: { prohibited_content: { filtered: true, detected: true }, harassment: { filtered: false, severity: "negligible" } },
    });
    expect(record.attempts.at(-1)?.provider_filters).toEqual(record.provider_filters);
  });

  it("ends a stream whose prompt was blocked with the SDK's error naming the reason", async () => {
    fake.enqueue({ kind: "blocked", reason: "SAFETY" });
    let error: unknown;
    try {
      const stream = await client().chat.completions.create({
        model: at,
        stream: true,
        messages: [{ role: "user", content: "x" }],
      });
      for await (const chunk of stream) expect(chunk.choices[0]?.delta.content ?? "").toBe("");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toMatchObject({
      code: "provider_blocked_prompt",
      message: expect.stringContaining("SAFETY"),
    });
  });

  it("finishes an answer the safety filter stopped with content_filter, and logs the ratings", async () => {
    const ratings = [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }];
    fake.enqueue({ kind: "text", text: "", finishReason: "SAFETY", safetyRatings: ratings });
    const { data, response } = await client()
      .chat.completions.create({ model: at, messages: [{ role: "user", content: "how to" }] })
      .withResponse();
    expect(data.choices[0]?.finish_reason).toBe("content_filter");
    expect(data.choices[0]?.message.content).toBe("");
    const record = await recordOf(response.headers.get("x-gateway-request-id"));
    expect(record.provider_filters).toEqual({
      source: "gemini_safety_filter",
      filtered: true,
      completion: { dangerous_content: { filtered: true, severity: "high" }, safety: { filtered: true, detected: true } },
    });
  });

  it("embeds texts as an OpenAI embeddings list", async () => {
    const embedding = await client().embeddings.create({
      model: `@${slug}/text-embedding-004`,
      input: ["a", "bbb"],
      dimensions: 4,
    });
    expect(embedding.data.map((d) => d.embedding)).toEqual([
      [1, 1.1, 1.2, 1.3].map(Math.fround),
      [3, 3.1, 3.2, 3.3].map(Math.fround),
    ]);
    expect(fake.requests[0]?.method).toBe(slug === "gemini" ? "batchEmbedContents" : "predict");
    // The SDK asks for base64 unless told otherwise; floats come as Google sent them.
    const floats = await client().embeddings.create({
      model: `@${slug}/text-embedding-004`,
      input: "bb",
      encoding_format: "float",
    });
    expect(floats.data[0]?.embedding).toEqual([2, 2.1, 2.2]);
    if (slug === "vertex") expect(embedding.usage.prompt_tokens).toBe(2);
  });

  it("answers Google's 429 with retry-after from its RetryInfo", async () => {
    fake.enqueue({
      kind: "error",
      status: 429,
      name: "RESOURCE_EXHAUSTED",
      message: "Resource has been exhausted (e.g. check quota).",
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "12s" }],
    });
    const error = (await client()
      .chat.completions.create({ model: at, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(429);
    expect(error.headers?.get("retry-after")).toBe("12");
    expect(error.code).toBe("rate_limited");
  });

  it("answers a prompt over the model's limit with context_length_exceeded", async () => {
    fake.enqueue({
      kind: "error",
      status: 400,
      name: "INVALID_ARGUMENT",
      message: "The input token count (2000001) exceeds the maximum number of tokens allowed (1048576).",
    });
    const error = (await client()
      .chat.completions.create({ model: at, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(400);
    expect(error.code).toBe("context_length_exceeded");
  });

  it("refuses a parameter Gemini cannot honour, naming it, unless drop_params is set", async () => {
    const ask = { model: at, messages: [{ role: "user" as const, content: "hi" }], logprobs: true };
    const error = (await client()
      .chat.completions.create(ask)
      .catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(400);
    expect(error.code).toBe("unsupported_parameter");
    expect(error.message).toContain("logprobs");
    expect(fake.requests).toHaveLength(0);
    const dropped = await client({ drop_params: true }).chat.completions.create(ask);
    expect(dropped.choices[0]?.message.content).toBe("echo: hi");
  });

  it("inlines a base64 image, and refuses an https image URL it would have to fetch, naming where", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    const image = (url: string) => ({
      model: at,
      messages: [
        {
          role: "user" as const,
          content: [
            { type: "text" as const, text: "What is this?" },
            { type: "image_url" as const, image_url: { url } },
          ],
        },
      ],
    });
    await client().chat.completions.create(image(`data:image/png;base64,${png}`));
    expect(fake.requests[0]?.body.contents).toEqual([
      { role: "user", parts: [{ text: "What is this?" }, { inlineData: { mimeType: "image/png", data: png } }] },
    ]);
    const error = (await client()
      .chat.completions.create(image("https://example.com/cat.png"))
      .catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(400);
    expect(error.code).toBe("unsupported_content");
    expect(error.message).toContain("messages[0].content[1].image_url.url");
    expect(fake.requests).toHaveLength(1);
  });
});

// `/v1/messages` reaches Gemini through the Anthropic client codec and the same backends.
describe.each(SERVICES)("the Anthropic client through guardgate to %s", (_name, slug, model) => {
  const at = `@${slug}/${model}`;
  const anthropic = (config?: unknown) =>
    new Anthropic({
      baseURL: gateway.url,
      apiKey: "sk-ant-unused-by-google",
      maxRetries: 0,
      defaultHeaders: {
        "x-gateway-api-key": API_KEY,
        ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }),
      },
    });
  const tools = [
    {
      name: "weather",
      description: "The weather in a city",
      input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
    },
  ];

  it("gets a tool call, not streamed", async () => {
    fake.enqueue({ kind: "tool", name: "weather", args: { city: "Paris" } });
    const message = await anthropic().messages.create({
      model: at,
      max_tokens: 100,
      system: "Use tools.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools,
    });
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "weather", input: { city: "Paris" } });
    expect(fake.requests[0]?.body.systemInstruction).toEqual({ parts: [{ text: "Use tools." }] });
  });

  it("gets a tool call, streamed", async () => {
    fake.enqueue({ kind: "tool", name: "weather", args: { city: "Rome" } });
    const message = await anthropic()
      .messages.stream({ model: at, max_tokens: 100, messages: [{ role: "user", content: "Weather in Rome?" }], tools })
      .finalMessage();
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.find((b) => b.type === "tool_use")).toMatchObject({ name: "weather", input: { city: "Rome" } });
  });

  it("is stopped in window mode by a denying output guardrail, with the SDK's error", async () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 10} `).join("");
    fake.enqueue({ kind: "text", text: `${words(60)}the forbidden phrase ${words(60)}` });
    const config = {
      stream_window: 16,
      output_guardrails: [{ deny: true, stream_mode: "window", regexMatch: { rule: "forbidden phrase", not: true } }],
    };
    let text = "";
    let error: unknown;
    try {
      const stream = await anthropic(config).messages.create({
        model: at,
        max_tokens: 500,
        stream: true,
        messages: [{ role: "user", content: "go" }],
      });
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      }
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(text).not.toContain("forbidden");
  });
});

describe("across providers", () => {
  it("falls back from the Gemini API answering 429 to Vertex AI, the log recording both attempts", async () => {
    fake.enqueue({ kind: "error", status: 429, name: "RESOURCE_EXHAUSTED", message: "Quota exceeded" });
    const config = {
      strategy: { mode: "fallback", on_status_codes: [429] },
      targets: [
        { provider: "@gemini", override_params: { model: "gemini-2.0-flash" } },
        { provider: "@vertex", override_params: { model: "gemini-2.0-flash" } },
      ],
    };
    const { data, response } = await client(config)
      .chat.completions.create({ model: "any", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe("echo: hello");
    expect(fake.requests.map((r) => r.service)).toEqual(["gemini", "vertex"]);
    const record = await recordOf(response.headers.get("x-gateway-request-id"));
    expect(record.attempts.map((a) => [a.provider, a.status])).toEqual([
      ["@gemini", 429],
      ["@vertex", 200],
    ]);
  });

  it("reaches the Gemini API by name, with the config's api_key", async () => {
    const config = { provider: "google", api_key: fake.apiKey, custom_host: fake.geminiBaseUrl };
    const data = await client(config).chat.completions.create({
      model: "gemini-2.0-flash",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(data.choices[0]?.message.content).toBe("echo: hi");
    expect(fake.requests[0]?.headers["x-goog-api-key"]).toBe(fake.apiKey);
    // Without a key there is nothing to call with.
    const error = (await client({ provider: "google", custom_host: fake.geminiBaseUrl })
      .chat.completions.create({ model: "gemini-2.0-flash", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(400);
    expect(error.code).toBe("provider_not_configured");
    expect(fake.requests).toHaveLength(1);
  });
});

describe("a Vertex AI provider given in a config", () => {
  const named = (options: Record<string, unknown>) => ({
    provider: "vertex-ai",
    custom_host: fake.vertexBaseUrl,
    vertex_region: fake.region,
    vertex_project_id: fake.project,
    vertex_service_account_json: fake.serviceAccount,
    ...options,
  });
  const ask = { model: "gemini-2.0-flash", messages: [{ role: "user" as const, content: "hi" }] };

  it("is reached with the config's service account", async () => {
    const data = await client(named({})).chat.completions.create(ask);
    expect(data.choices[0]?.message.content).toBe("echo: hi");
    expect(fake.requests[0]?.service).toBe("vertex");
  });

  it("cannot send its token request to the private network or the metadata service", async () => {
    for (const host of ["169.254.169.254", "10.0.0.7"]) {
      const account = { ...fake.serviceAccount, token_uri: `http://${host}/token` };
      const error = (await client(named({ vertex_service_account_json: account }))
        .chat.completions.create(ask)
        .catch((e: unknown) => e)) as APIError;
      expect(error.status).toBe(400);
      expect(error.code).toBe("custom_host_refused");
    }
    expect(fake.requests).toHaveLength(0);
  });

  it("cannot put anything but a region name in the endpoint's host", async () => {
    const error = (await client(named({ vertex_region: "evil.example/x?" }))
      .chat.completions.create(ask)
      .catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(400);
    expect(error.message).toContain("vertex_region");
  });
});

describe("credentials", () => {
  it("a Vertex AI token is asked once and reused while it lives", async () => {
    const before = fake.tokensIssued().length;
    for (let i = 0; i < 3; i++)
      await client().chat.completions.create({ model: "@vertex/gemini-2.0-flash", messages: [{ role: "user", content: "hi" }] });
    // Every Vertex AI call of this file so far, these three included, went out with one token.
    expect(fake.tokensIssued()).toHaveLength(1);
    expect(before).toBe(1);
    expect(new Set(fake.requests.map((r) => r.headers.authorization)).size).toBe(1);
  });

  it("a service account whose key the token endpoint refuses is a 502 provider_auth_failed", async () => {
    const error = (await client()
      .chat.completions.create({ model: "@vertex-wrong-key/gemini-2.0-flash", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(502);
    expect(error.code).toBe("provider_auth_failed");
    expect(error.message).toContain("invalid_grant");
    expect(fake.requests).toHaveLength(0);
  });

  it("a Gemini key Google refuses is a 401", async () => {
    const error = (await client()
      .chat.completions.create({ model: "@gemini-wrong-key/gemini-2.0-flash", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as APIError;
    expect(error.status).toBe(401);
    expect(error.code).toBe("invalid_api_key");
  });

  it("no key, token or private key appears in any answer, error or log", async () => {
    const secrets = [
      fake.apiKey,
      "AIzaSy-not-the-key-000000000000",
      ...fake.tokensIssued(),
      // Any line of the PEM body would betray the key.
      ...fake.serviceAccount.private_key.split("\n").filter((line) => line.length > 20 && !line.startsWith("-----")),
    ];
    expect(fake.tokensIssued().length).toBeGreaterThan(0);
    const bodies = await Promise.all(answers);
    expect(bodies.length).toBeGreaterThan(20);
    const haystacks = {
      answers: bodies.join("\n"),
      records: JSON.stringify(gateway.logs.list()),
      "server log": logLines.join(""),
    };
    for (const [where, text] of Object.entries(haystacks)) {
      for (const secret of secrets) expect(text.includes(secret), `${where} holds a secret`).toBe(false);
      // A JWT assertion or its signature would start so.
      expect(/eyJhbGciOiJSUzI1Ni/.test(text), `${where} holds a JWT`).toBe(false);
    }
  });
});
