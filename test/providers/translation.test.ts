/**
 * OpenAI ⇄ Anthropic translation end to end: the official `openai` client through guardgate to the
 * Anthropic contract fake, and the official `@anthropic-ai/sdk` client to the OpenAI contract fake,
 * streamed and not, with tool calls; the same guardrails giving the same verdicts on all four
 * combinations of client and provider format; window-mode enforcement stopping translated streams
 * with the error event each SDK raises; parameters a provider cannot honour refused by name unless
 * `drop_params`; provider errors in the client's terms; and no provider key anywhere it could leak.
 */
import Anthropic, { APIError as AnthropicError } from "@anthropic-ai/sdk";
import OpenAI, { APIError as OpenAiError } from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RequestLogRecord } from "../../server/logs/record.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { AnthropicFake } from "../support/providers/anthropic.js";
import { OpenAiFake } from "../support/providers/openai.js";
import type { ScriptedTurn } from "../support/providers/script.js";

const ANTHROPIC_KEY = "sk-ant-fake-provider-secret-4f1c9e";
const OPENAI_KEY = "sk-openai-fake-provider-secret-8b2d7a";

let claude: AnthropicFake;
let gpt: OpenAiFake;
let gateway: TestGateway;

beforeAll(async () => {
  claude = await new AnthropicFake(ANTHROPIC_KEY).start();
  gpt = await new OpenAiFake(OPENAI_KEY).start();
  gateway = await startGateway({
    file: {
      providers: [
        { slug: "claude", provider: "anthropic", base_url: claude.baseUrl, api_key: ANTHROPIC_KEY },
        { slug: "gpt", provider: "openai", base_url: gpt.baseUrl, api_key: OPENAI_KEY },
      ],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await claude.close();
  await gpt.close();
});

beforeEach(() => {
  claude.reset();
  gpt.reset();
});

function headers(config?: unknown): Record<string, string> {
  return {
    "x-gateway-api-key": API_KEY,
    ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }),
  };
}

function openai(config?: unknown): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "sk-client-unused", maxRetries: 0, defaultHeaders: headers(config) });
}

function anthropic(config?: unknown): Anthropic {
  return new Anthropic({ baseURL: gateway.url, apiKey: "sk-ant-client-unused", maxRetries: 0, defaultHeaders: headers(config) });
}

const WEATHER_TOOL = {
  name: "get_weather",
  description: "The weather in a city",
  schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};
const CALL: ScriptedTurn = {
  text: "Let me look up Paris.",
  tools: [{ id: "toolu_01", name: "get_weather", input: { city: "Paris", unit: "celsius" } }],
  usage: { input: 40, output: 12, cached: 16 },
};

const openAiTools = [
  {
    type: "function" as const,
    function: { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, parameters: WEATHER_TOOL.schema },
  },
];
const anthropicTools = [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.schema }];

const requestIdOf = (response: Response) => response.headers.get("x-gateway-request-id") ?? "";
const recordOf = (response: Response): Promise<RequestLogRecord> =>
  gateway.logs.waitFor((record) => record.id === requestIdOf(response));

describe("the openai client to an Anthropic provider", () => {
  const ask = {
    model: "@claude/claude-test",
    max_tokens: 300,
    temperature: 0.2,
    stop: ["END"],
    user: "user-42",
    messages: [
      { role: "system" as const, content: "Be brief." },
      { role: "user" as const, content: "Weather in Paris?" },
    ],
    tools: openAiTools,
    tool_choice: "auto" as const,
    parallel_tool_calls: false,
  };

  it("makes a tool call, not streamed, and sends the result back", async () => {
    claude.enqueue({ kind: "turn", turn: CALL });
    const { data, response } = await openai().chat.completions.create(ask).withResponse();
    expect(response.status).toBe(200);
    const choice = data.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.content).toBe("Let me look up Paris.");
    const call = choice?.message.tool_calls?.[0];
    expect(call).toMatchObject({ id: "toolu_01", type: "function", function: { name: "get_weather" } });
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({
      city: "Paris",
      unit: "celsius",
    });
    expect(data.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 });
    expect(data.usage?.prompt_tokens_details?.cached_tokens).toBe(16);
    expect(claude.bodies[0]).toEqual({
      model: "claude-test",
      max_tokens: 300,
      temperature: 0.2,
      stop_sequences: ["END"],
      metadata: { user_id: "user-42" },
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }],
      tools: anthropicTools,
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
    });
    expect(claude.requests[0]?.headers["x-api-key"]).toBe(ANTHROPIC_KEY);

    const next = await openai().chat.completions.create({
      ...ask,
      messages: [
        ...ask.messages,
        { role: "assistant", content: choice?.message.content ?? null, tool_calls: choice?.message.tool_calls ?? [] },
        { role: "tool", tool_call_id: "toolu_01", content: "18 degrees, sunny" },
      ],
    });
    expect(next.choices[0]?.message.content).toBe('echo: result: "18 degrees, sunny"');
    expect((claude.bodies[1]?.messages as unknown[]).slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me look up Paris." },
          { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris", unit: "celsius" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "18 degrees, sunny" }] },
    ]);
  });

  it("streams a tool call chunk by chunk, with the usage when asked", async () => {
    claude.enqueue({ kind: "turn", turn: CALL });
    const stream = await openai().chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } });
    let text = "";
    let args = "";
    let name = "";
    let id = "";
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    let argumentChunks = 0;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      text += delta?.content ?? "";
      for (const call of delta?.tool_calls ?? []) {
        if (call.id) id = call.id;
        name += call.function?.name ?? "";
        if (call.function?.arguments) {
          args += call.function.arguments;
          argumentChunks++;
        }
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("Let me look up Paris.");
    expect([id, name]).toEqual(["toolu_01", "get_weather"]);
    expect(JSON.parse(args)).toEqual({ city: "Paris", unit: "celsius" });
    // The fake sends the input's JSON in six-character pieces: each is a delta of its own.
    expect(argumentChunks).toBeGreaterThan(3);
    expect(finish).toBe("tool_calls");
    expect(usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 16 } });
    expect(claude.bodies[0]?.stream).toBe(true);
  });

  it("sends images, URL and base64, as image blocks", async () => {
    await openai().chat.completions.create({
      model: "@claude/claude-test",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Compare" },
            { type: "image_url", image_url: { url: "https://images.example/cat.png" } },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
    });
    expect(claude.bodies[0]?.max_tokens).toBe(4096);
    expect((claude.bodies[0]?.messages as Array<{ content: unknown }>)[0]?.content).toEqual([
      { type: "text", text: "Compare" },
      { type: "image", source: { type: "url", url: "https://images.example/cat.png" } },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
    ]);
  });
});

describe("the Anthropic client to an OpenAI-format provider", () => {
  const ask = {
    model: "@gpt/gpt-test",
    max_tokens: 300,
    system: [{ type: "text" as const, text: "Be brief." }],
    stop_sequences: ["END"],
    metadata: { user_id: "user-42" },
    messages: [{ role: "user" as const, content: "Weather in Paris?" }],
    tools: anthropicTools,
    tool_choice: { type: "any" as const },
  };

  it("makes a tool call, not streamed, and sends the result back", async () => {
    gpt.enqueue({ kind: "turn", turn: CALL });
    const { data, response } = await anthropic().messages.create(ask).withResponse();
    expect(response.status).toBe(200);
    expect(data.stop_reason).toBe("tool_use");
    expect(data.content).toEqual([
      { type: "text", text: "Let me look up Paris." },
      { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris", unit: "celsius" } },
    ]);
    expect(data.usage).toMatchObject({ input_tokens: 24, output_tokens: 12, cache_read_input_tokens: 16 });
    expect(gpt.bodies[0]).toEqual({
      model: "gpt-test",
      max_tokens: 300,
      stop: ["END"],
      user: "user-42",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris?" },
      ],
      tools: openAiTools,
      tool_choice: "required",
    });
    expect(gpt.requests[0]?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);

    const next = await anthropic().messages.create({
      ...ask,
      tool_choice: { type: "auto" },
      messages: [
        ...ask.messages,
        { role: "assistant", content: data.content },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_01", content: [{ type: "text", text: "18 degrees, sunny" }] },
            { type: "text", text: "And tomorrow?" },
          ],
        },
      ],
    });
    expect(next.content[0]).toMatchObject({ type: "text", text: "echo: And tomorrow?" });
    expect((gpt.bodies[1]?.messages as unknown[]).slice(2)).toEqual([
      {
        role: "assistant",
        content: "Let me look up Paris.",
        tool_calls: [
          { id: "toolu_01", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' } },
        ],
      },
      { role: "tool", tool_call_id: "toolu_01", content: "18 degrees, sunny" },
      { role: "user", content: [{ type: "text", text: "And tomorrow?" }] },
    ]);
  });

  it("streams a tool call as content blocks, the final message whole", async () => {
    gpt.enqueue({ kind: "turn", turn: CALL });
    const stream = anthropic().messages.stream(ask);
    const kinds: string[] = [];
    let partials = 0;
    stream.on("streamEvent", (event) => {
      kinds.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") partials++;
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      { type: "text", text: "Let me look up Paris." },
      { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris", unit: "celsius" } },
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({ input_tokens: 24, output_tokens: 12, cache_read_input_tokens: 16 });
    expect(kinds[0]).toBe("message_start");
    expect(kinds.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(partials).toBeGreaterThan(3);
    expect(gpt.bodies[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("sends base64 and URL images as image parts", async () => {
    await anthropic().messages.create({
      model: "@gpt/gpt-test",
      max_tokens: 10,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
            { type: "image", source: { type: "url", url: "https://images.example/dog.jpg" } },
            { type: "text", text: "What are these?" },
          ],
        },
      ],
    });
    expect((gpt.bodies[0]?.messages as Array<{ content: unknown }>)[0]?.content).toEqual([
      { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } },
      { type: "image_url", image_url: { url: "https://images.example/dog.jpg" } },
      { type: "text", text: "What are these?" },
    ]);
  });
});

/** The four ways a request can go: client format × provider format. */
const COMBINATIONS = [
  { name: "openai → openai", client: "openai", model: "@gpt/m" },
  { name: "openai → anthropic", client: "openai", model: "@claude/m" },
  { name: "anthropic → anthropic", client: "anthropic", model: "@claude/m" },
  { name: "anthropic → openai", client: "anthropic", model: "@gpt/m" },
] as const;
type Combination = (typeof COMBINATIONS)[number];

/** Sends one request over raw HTTP; the answer's text and the request's log record. */
async function send(combination: Combination, config: unknown, stream: boolean) {
  const openAiClient = combination.client === "openai";
  const body = {
    model: combination.model,
    max_tokens: 100,
    messages: [{ role: "user", content: "What is the weather in Paris?" }],
    ...(openAiClient ? { tools: openAiTools } : { tools: anthropicTools }),
    ...(stream && { stream: true }),
  };
  const response = await fetch(`${gateway.url}/v1/${openAiClient ? "chat/completions" : "messages"}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers(config) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { response, text, record: await recordOf(response) };
}

/** What the guardrails said, side by side, without timings. */
function verdicts(record: RequestLogRecord) {
  const side = (
    results: Array<{ id: string; verdict: boolean; deny: boolean; checks: Array<{ id: string; verdict: boolean }> }>,
  ) => results.map((g) => ({ id: g.id, verdict: g.verdict, deny: g.deny, checks: g.checks.map((c) => [c.id, c.verdict]) }));
  return {
    input: side(record.hook_results.before_request_hooks as never),
    output: side(record.hook_results.after_request_hooks as never),
  };
}

/** Queues the answer at the fake the combination reaches. */
function queueAnswer(combination: Combination, turn: ScriptedTurn): void {
  (combination.model.startsWith("@claude/") ? claude : gpt).enqueue({ kind: "turn", turn });
}

describe("guardrails see the same text whatever the formats", () => {
  const turn: ScriptedTurn = {
    text: "Sunny there, no umbrella needed.",
    tools: [{ id: "call_9", name: "get_weather", input: { city: "Paris" } }],
  };
  const config = {
    input_guardrails: [{ id: "asks-paris", checks: [{ id: "default.regexMatch", parameters: { rule: "Paris" } }] }],
    output_guardrails: [
      { id: "says-sunny", checks: [{ id: "default.regexMatch", parameters: { rule: "Sunny there" } }] },
      // Only the tool call's input names the city: an OpenAI answer's checks read its arguments' JSON,
      // an Anthropic answer's the strings inside its input, and both hold "Paris".
      { id: "tool-city", checks: [{ id: "default.regexMatch", parameters: { rule: "Paris" } }] },
      { id: "no-umbrella", checks: [{ id: "default.regexMatch", parameters: { rule: "umbrella", not: true } }] },
    ],
  };

  for (const stream of [false, true]) {
    it(`gives the same hook_results on all four combinations (${stream ? "streamed" : "not streamed"})`, async () => {
      const seen = [];
      for (const combination of COMBINATIONS) {
        queueAnswer(combination, turn);
        const { response, record } = await send(combination, config, stream);
        // A failed guardrail without deny: 246 on a whole answer; a stream has begun with 200.
        expect(response.status, combination.name).toBe(stream ? 200 : 246);
        seen.push(verdicts(record));
      }
      expect(seen[0]).toEqual({
        input: [{ id: "asks-paris", verdict: true, deny: false, checks: [["default.regexMatch", true]] }],
        output: [
          { id: "says-sunny", verdict: true, deny: false, checks: [["default.regexMatch", true]] },
          { id: "tool-city", verdict: true, deny: false, checks: [["default.regexMatch", true]] },
          { id: "no-umbrella", verdict: false, deny: false, checks: [["default.regexMatch", false]] },
        ],
      });
      for (const other of seen.slice(1)) expect(other).toEqual(seen[0]);
    });
  }

  it("denies alike on all four: a 446 on a whole answer", async () => {
    const deny = {
      output_guardrails: [
        { id: "no-umbrella", deny: true, checks: [{ id: "default.regexMatch", parameters: { rule: "umbrella", not: true } }] },
      ],
    };
    for (const combination of COMBINATIONS) {
      queueAnswer(combination, turn);
      const { response, text } = await send(combination, deny, false);
      expect(response.status, combination.name).toBe(446);
      expect(text).toContain("no-umbrella");
      expect(text).not.toContain("umbrella needed");
    }
  });
});

describe("window-mode enforcement on translated streams", () => {
  const long = `${"all is well here and now ".repeat(8)}the secret is out and more words follow`;
  const config = (model: string) => ({
    stream_mode: "window",
    stream_window: 20,
    output_guardrails: [{ id: "no-secrets", deny: true, regexMatch: { rule: "secret", not: true } }],
    override_params: { model },
  });

  it("stops an Anthropic stream read by the openai client with the error event it raises", async () => {
    claude.enqueue({ kind: "turn", turn: { text: long } });
    const stream = await openai(config("@claude/m")).chat.completions.create({
      model: "ignored",
      stream: true,
      messages: [{ role: "user", content: "talk" }],
    });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((e: unknown) => e);
    expect(text).toContain("all is well");
    expect(text).not.toContain("secret");
    expect(error).toBeInstanceOf(OpenAiError);
    expect((error as OpenAiError).error).toMatchObject({ type: "hooks_failed", side: "output", guardrails: ["no-secrets"] });
  });

  it("stops an OpenAI-format stream read by the Anthropic client with the error event it raises", async () => {
    gpt.enqueue({ kind: "turn", turn: { text: long } });
    const stream = await anthropic(config("@gpt/m")).messages.create({
      model: "ignored",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: "talk" }],
    });
    let text = "";
    const error = await (async () => {
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      }
    })().catch((e: unknown) => e);
    expect(text).toContain("all is well");
    expect(text).not.toContain("secret");
    expect(error).toBeInstanceOf(AnthropicError);
    expect(((error as AnthropicError).error as { error: unknown }).error).toMatchObject({
      type: "hooks_failed",
      side: "output",
      guardrails: ["no-secrets"],
    });
  });
});

describe("buffer and after modes on translated streams", () => {
  const long = "a very long answer indeed, with the secret at its end";
  const config = (model: string, mode: "buffer" | "after") => ({
    stream_mode: mode,
    output_guardrails: [{ id: "no-secrets", deny: true, regexMatch: { rule: "secret", not: true } }],
    override_params: { model },
  });

  it("buffer mode answers 446 before any byte, to either SDK", async () => {
    claude.enqueue({ kind: "turn", turn: { text: long } });
    const fromOpenAi = (await openai(config("@claude/m", "buffer"))
      .chat.completions.create({ model: "x", stream: true, messages: [{ role: "user", content: "talk" }] })
      .catch((e: unknown) => e)) as OpenAiError;
    expect(fromOpenAi).toBeInstanceOf(OpenAiError);
    expect(fromOpenAi.status).toBe(446);

    gpt.enqueue({ kind: "turn", turn: { text: long } });
    const fromAnthropic = (await anthropic(config("@gpt/m", "buffer"))
      .messages.create({ model: "x", max_tokens: 50, stream: true, messages: [{ role: "user", content: "talk" }] })
      .catch((e: unknown) => e)) as AnthropicError;
    expect(fromAnthropic).toBeInstanceOf(AnthropicError);
    expect(fromAnthropic.status).toBe(446);
  });

  it("after mode streams all of it and records the denial", async () => {
    claude.enqueue({ kind: "turn", turn: { text: long } });
    const { data: stream, response } = await openai(config("@claude/m", "after"))
      .chat.completions.create({ model: "x", stream: true, messages: [{ role: "user", content: "talk" }] })
      .withResponse();
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe(long);
    expect((await recordOf(response)).stream_output_denied).toBe(true);
  });
});

describe("fallback across formats", () => {
  it("falls back from an overloaded Anthropic provider (529, a 503 once translated) to an OpenAI one, and logs both attempts", async () => {
    claude.enqueue({ kind: "error", status: 529, type: "overloaded_error", message: "Overloaded" });
    const config = {
      strategy: { mode: "fallback", on_status_codes: [503] },
      targets: [{ override_params: { model: "@claude/c" } }, { override_params: { model: "@gpt/g" } }],
    };
    const { data, response } = await openai(config)
      .chat.completions.create({ model: "x", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe("echo: hello");
    const record = await recordOf(response);
    expect(record.attempts.map((a) => a.status)).toEqual([503, 200]);
    expect([claude.bodies.length, gpt.bodies.length]).toEqual([1, 1]);
  });
});

describe("the caller's own provider key", () => {
  it("goes on in the provider's header whichever SDK sent it", async () => {
    const viaOpenAi = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: ANTHROPIC_KEY,
      maxRetries: 0,
      defaultHeaders: headers({ provider: "anthropic", custom_host: claude.baseUrl }),
    });
    const chat = await viaOpenAi.chat.completions.create({ model: "claude-test", messages: [{ role: "user", content: "hi" }] });
    expect(chat.choices[0]?.message.content).toBe("echo: hi");
    expect(claude.requests[0]?.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    expect(claude.requests[0]?.headers.authorization).toBeUndefined();

    const viaAnthropic = new Anthropic({
      baseURL: gateway.url,
      apiKey: OPENAI_KEY,
      maxRetries: 0,
      defaultHeaders: headers({ provider: "openai", custom_host: gpt.baseUrl }),
    });
    const message = await viaAnthropic.messages.create({
      model: "gpt-test",
      max_tokens: 5,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(message.content[0]).toMatchObject({ text: "echo: hi" });
    expect(gpt.requests[0]?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(gpt.requests[0]?.headers["x-api-key"]).toBeUndefined();
  });
});

describe("parameters a provider cannot honour", () => {
  it("refuses top_k to an OpenAI-format provider by name, and drops it under drop_params", async () => {
    const ask = { model: "@gpt/m", max_tokens: 10, top_k: 5, messages: [{ role: "user" as const, content: "hi" }] };
    const error = (await anthropic()
      .messages.create(ask)
      .catch((e: unknown) => e)) as AnthropicError;
    expect(error).toBeInstanceOf(AnthropicError);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/top_k: .*cannot honour this parameter.*drop_params/);
    expect(gpt.bodies).toHaveLength(0);

    const dropped = await anthropic({ drop_params: true }).messages.create(ask);
    expect(dropped.content[0]).toMatchObject({ text: "echo: hi" });
    expect(gpt.bodies[0]).not.toHaveProperty("top_k");
  });

  it("refuses a JSON response format to Anthropic by name, and drops it under drop_params", async () => {
    const ask = {
      model: "@claude/m",
      response_format: { type: "json_object" as const },
      messages: [{ role: "user" as const, content: "hi" }],
    };
    const error = (await openai()
      .chat.completions.create(ask)
      .catch((e: unknown) => e)) as OpenAiError;
    expect(error.status).toBe(400);
    expect(error.code).toBe("unsupported_parameter");
    expect(error.message).toMatch(/^400 response_format: Anthropic has no JSON mode/);
    expect(claude.bodies).toHaveLength(0);

    const dropped = await openai({ drop_params: true }).chat.completions.create(ask);
    expect(dropped.choices[0]?.message.content).toBe("echo: hi");
    expect(claude.bodies[0]).not.toHaveProperty("response_format");
  });

  it("refuses n > 1 and a parameter Anthropic has no word for (logprobs)", async () => {
    for (const extra of [{ n: 2 }, { logprobs: true }]) {
      const error = (await openai()
        .chat.completions.create({ model: "@claude/m", messages: [{ role: "user", content: "hi" }], ...extra })
        .catch((e: unknown) => e)) as OpenAiError;
      expect(error.status).toBe(400);
      expect(error.code).toBe("unsupported_parameter");
      expect(error.message).toContain(`400 ${Object.keys(extra)[0]}: `);
    }
  });

  it("keeps /v1/completions passthrough-only, saying why", async () => {
    const error = (await openai()
      .completions.create({ model: "@claude/m", prompt: "hi" })
      .catch((e: unknown) => e)) as OpenAiError;
    expect(error.status).toBe(400);
    expect(error.code).toBe("provider_format_mismatch");
    expect(error.message).toMatch(/speaks the anthropic format and is reached from chat routes only/);
  });
});

describe("provider errors in the client's terms", () => {
  it("an Anthropic overload (529) is a 503 overloaded_error to the openai client", async () => {
    claude.enqueue({ kind: "error", status: 529, type: "overloaded_error", message: "Overloaded" });
    const error = (await openai()
      .chat.completions.create({ model: "@claude/m", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as OpenAiError;
    expect(error.status).toBe(503);
    expect(error.type).toBe("overloaded_error");
    expect(error.message).toBe("503 Overloaded");
  });

  it("an Anthropic rate limit is a 429 with its retry-after", async () => {
    claude.enqueue({
      kind: "error",
      status: 429,
      type: "rate_limit_error",
      message: "slow down",
      headers: { "retry-after": "12" },
    });
    const error = (await openai()
      .chat.completions.create({ model: "@claude/m", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as OpenAiError;
    expect(error.status).toBe(429);
    expect(error.type).toBe("rate_limit_error");
    expect(error.headers?.get("retry-after")).toBe("12");
  });

  it("a prompt too long for Claude is context_length_exceeded", async () => {
    const message = "prompt is too long: 210000 tokens > 200000 maximum";
    claude.enqueue({ kind: "error", status: 400, type: "invalid_request_error", message });
    const error = (await openai()
      .chat.completions.create({ model: "@claude/m", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as OpenAiError;
    expect([error.status, error.code, error.message]).toEqual([400, "context_length_exceeded", `400 ${message}`]);
  });

  it("an OpenAI-format rate limit is a 429 rate_limit_error with its retry-after to the Anthropic client", async () => {
    gpt.enqueue({ kind: "error", status: 429, type: "requests", message: "Rate limit reached", headers: { "retry-after": "3" } });
    const error = (await anthropic()
      .messages.create({ model: "@gpt/m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as AnthropicError;
    expect(error.status).toBe(429);
    expect((error.error as { error: { type: string } }).error.type).toBe("rate_limit_error");
    expect(error.headers?.get("retry-after")).toBe("3");
  });

  it("a translated stream that ends without its terminal event raises upstream_stream_incomplete", async () => {
    claude.enqueue({ kind: "cut", after: 5 });
    const stream = await openai().chat.completions.create({
      model: "@claude/m",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    const error = await (async () => {
      for await (const _chunk of stream) {
        // Read to the end.
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAiError);
    expect((error as OpenAiError).code).toBe("upstream_stream_incomplete");
  });

  it("an error event in a translated stream ends it with the provider's message", async () => {
    gpt.enqueue({ kind: "stream-error", after: 3, type: "server_error", message: "The server had an error" });
    const stream = await anthropic().messages.create({
      model: "@gpt/m",
      max_tokens: 5,
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    const error = await (async () => {
      for await (const _event of stream) {
        // Read to the end.
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnthropicError);
    expect(String((error as AnthropicError).message)).toContain("The server had an error");
  });
});

describe("provider keys", () => {
  it("appear in no answer, error or log record, whichever way the call went", async () => {
    const seen: string[] = [];
    for (const combination of COMBINATIONS) {
      for (const stream of [false, true]) {
        queueAnswer(combination, CALL);
        const { text, record } = await send(combination, { output_guardrails: [{ regexMatch: { rule: "Paris" } }] }, stream);
        seen.push(text, JSON.stringify(record));
      }
    }
    // Errors, including a 401 whose message a provider may echo the key into.
    claude.enqueue({ kind: "error", status: 401, type: "authentication_error", message: `invalid x-api-key ${ANTHROPIC_KEY}` });
    gpt.enqueue({
      kind: "error",
      status: 401,
      type: "invalid_request_error",
      message: `Incorrect API key provided: ${OPENAI_KEY}`,
    });
    for (const combination of [COMBINATIONS[1], COMBINATIONS[3]]) {
      const { response, text, record } = await send(combination, undefined, false);
      expect(response.status).toBe(401);
      seen.push(text, JSON.stringify(record));
    }
    const all = seen.join("\n");
    expect(all).toContain("Paris");
    expect(all).not.toContain(ANTHROPIC_KEY);
    expect(all).not.toContain(OPENAI_KEY);
  });
});
