/**
 * The Responses API translated through the chat form, end to end: the official `openai` client's
 * responses.create and responses.stream through guardgate to the Anthropic, Bedrock and Gemini
 * contract fakes, with one function tool's round trip (function_call → function_call_output →
 * final text), and previous_response_id continuing a conversation the gateway kept.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { AnthropicFake } from "../support/providers/anthropic.js";
import {
  BEDROCK_ACCESS_KEY_ID,
  BEDROCK_REGION,
  BEDROCK_SECRET_ACCESS_KEY,
  type BedrockFake,
  startBedrockFake,
} from "../support/providers/bedrock.js";
import { type GoogleFake, startGoogleProviderFake } from "../support/providers/google.js";
import type { ScriptedTurn } from "../support/providers/script.js";

const ANTHROPIC_KEY = "sk-ant-fake-provider-secret-77aa10";

let claude: AnthropicFake;
let bedrock: BedrockFake;
let google: GoogleFake;
let gateway: TestGateway;

beforeAll(async () => {
  claude = await new AnthropicFake(ANTHROPIC_KEY).start();
  bedrock = await startBedrockFake();
  google = await startGoogleProviderFake();
  const awsKeys = {
    aws_access_key_id: BEDROCK_ACCESS_KEY_ID,
    aws_secret_access_key: BEDROCK_SECRET_ACCESS_KEY,
    aws_region: BEDROCK_REGION,
  };
  gateway = await startGateway({
    file: {
      settings: { log_bodies: true },
      providers: [
        { slug: "claude", provider: "anthropic", base_url: claude.baseUrl, api_key: ANTHROPIC_KEY },
        { slug: "bedrock", provider: "bedrock", base_url: bedrock.origin, options: awsKeys },
        { slug: "gemini", provider: "google", base_url: google.geminiBaseUrl, api_key: google.apiKey },
      ],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await claude.close();
  await bedrock.close();
  await google.close();
});

beforeEach(() => {
  claude.reset();
  bedrock.reset();
  google.reset();
});

function openai(): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-client-unused",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": API_KEY },
  });
}

const MODEL = "@claude/claude-sonnet-4-5";
const TOOLS = [
  {
    type: "function" as const,
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    strict: false,
  },
];
const CALL: ScriptedTurn = { tools: [{ id: "toolu_01", name: "get_weather", input: { city: "Paris" } }] };
const FINAL: ScriptedTurn = { text: "It is sunny in Paris." };

/** The Anthropic request the fake received last. */
function lastSent(): Record<string, unknown> {
  return JSON.parse(claude.requests.at(-1)?.body ?? "{}") as Record<string, unknown>;
}

describe("responses to the Anthropic fake, translated", () => {
  it("runs a function tool's round trip with responses.create", async () => {
    claude.enqueue({ kind: "turn", turn: CALL }, { kind: "turn", turn: FINAL });
    const client = openai();
    const first = await client.responses.create({
      model: MODEL,
      instructions: "Be brief.",
      input: "Weather in Paris?",
      tools: TOOLS,
    });
    const call = first.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({
      type: "function_call",
      call_id: "toolu_01",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    });
    expect(first.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(lastSent()).toMatchObject({ system: "Be brief.", tools: [{ name: "get_weather" }] });

    const second = await client.responses.create({
      model: MODEL,
      input: [
        { role: "user", content: "Weather in Paris?" },
        ...first.output.filter((item) => item.type === "function_call"),
        { type: "function_call_output", call_id: "toolu_01", output: "sunny, 21°C" },
      ],
      tools: TOOLS,
    });
    expect(second.output_text).toBe("It is sunny in Paris.");
    expect(second.status).toBe("completed");
    const messages = lastSent().messages as Array<{ role: string; content: unknown }>;
    expect(messages.at(-1)).toMatchObject({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "sunny, 21°C" }],
    });
  });

  it("runs the same round trip with responses.stream", async () => {
    claude.enqueue({ kind: "turn", turn: CALL }, { kind: "turn", turn: FINAL });
    const client = openai();
    const deltas: string[] = [];
    const first = await client.responses.stream({ model: MODEL, input: "Weather in Paris?", tools: TOOLS }).finalResponse();
    const call = first.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ call_id: "toolu_01", arguments: '{"city":"Paris"}' });
    const stream = client.responses.stream({
      model: MODEL,
      input: [
        { role: "user", content: "Weather in Paris?" },
        { type: "function_call", call_id: "toolu_01", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "toolu_01", output: "sunny" },
      ],
      tools: TOOLS,
    });
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const second = await stream.finalResponse();
    expect(second.output_text).toBe("It is sunny in Paris.");
    expect(deltas.join("")).toBe("It is sunny in Paris.");
  });

  it("continues a conversation by previous_response_id, sending the provider the turns before", async () => {
    claude.enqueue(
      { kind: "turn", turn: { text: "Nice to meet you, Ada." } },
      { kind: "turn", turn: { text: "Your name is Ada." } },
    );
    const client = openai();
    const first = await client.responses.create({ model: MODEL, input: "My name is Ada." });
    const second = await client.responses.create({ model: MODEL, input: "What is my name?", previous_response_id: first.id });
    expect(second.output_text).toBe("Your name is Ada.");
    expect(second.previous_response_id).toBe(first.id);
    expect(lastSent().messages).toEqual([
      { role: "user", content: [{ type: "text", text: "My name is Ada." }] },
      { role: "assistant", content: [{ type: "text", text: "Nice to meet you, Ada." }] },
      { role: "user", content: [{ type: "text", text: "What is my name?" }] },
    ]);
    const stored = await client.responses.retrieve(second.id);
    expect(stored.output_text).toBe("Your name is Ada.");
  });

  it("keeps a streamed response too: previous_response_id continues it, and GET reads it back", async () => {
    claude.enqueue(
      { kind: "turn", turn: { text: "Nice to meet you, Ada." } },
      { kind: "turn", turn: { text: "Your name is Ada." } },
    );
    const client = openai();
    const first = await client.responses.stream({ model: MODEL, input: "My name is Ada." }).finalResponse();
    const stored = await client.responses.retrieve(first.id);
    expect(stored).toMatchObject({ id: first.id, status: "completed" });
    expect(stored.output_text).toBe("Nice to meet you, Ada.");
    const second = await client.responses
      .stream({ model: MODEL, input: "What is my name?", previous_response_id: first.id })
      .finalResponse();
    expect(second.output_text).toBe("Your name is Ada.");
    expect(lastSent().messages).toEqual([
      { role: "user", content: [{ type: "text", text: "My name is Ada." }] },
      { role: "assistant", content: [{ type: "text", text: "Nice to meet you, Ada." }] },
      { role: "user", content: [{ type: "text", text: "What is my name?" }] },
    ]);
    const items = await client.responses.inputItems.list(second.id);
    expect(items.data.map((item) => item.type)).toEqual(["message", "message", "message"]);
  });

  it("keeps a held stream as the client received it, redactions and all, under the id it was sent", async () => {
    claude.enqueue({ kind: "turn", turn: { text: "your code is 98765 and more words to fill a window or two" } });
    const config = { stream_mode: "window", stream_window: 8, output_guardrails: [{ "test.redactDigits": {} }] };
    const client = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: "sk-client-unused",
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": API_KEY, "x-gateway-config": JSON.stringify(config) },
    });
    const first = await client.responses.stream({ model: MODEL, input: "code?" }).finalResponse();
    expect(first.output_text).toBe("your code is [NUMBER] and more words to fill a window or two");
    const stored = await openai().responses.retrieve(first.id);
    expect(stored).toMatchObject({ id: first.id, model: first.model, status: "completed" });
    expect(stored.output_text).toBe(first.output_text);
    expect(stored.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
  });

  it("continues a streamed function call by previous_response_id with only the tool's output", async () => {
    claude.enqueue({ kind: "turn", turn: CALL }, { kind: "turn", turn: FINAL });
    const client = openai();
    const first = await client.responses.stream({ model: MODEL, input: "Weather in Paris?", tools: TOOLS }).finalResponse();
    const second = await client.responses.create({
      model: MODEL,
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: "toolu_01", output: "sunny" }],
      tools: TOOLS,
    });
    expect(second.output_text).toBe("It is sunny in Paris.");
    expect(lastSent().messages).toMatchObject([
      { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "sunny" }] },
    ]);
  });

  it("keeps nothing with store: false, and refuses an unknown previous_response_id with a 404", async () => {
    claude.enqueue({ kind: "turn", turn: { text: "ok" } });
    const client = openai();
    const unstored = await client.responses.create({ model: MODEL, input: "hi", store: false });
    await expect(client.responses.retrieve(unstored.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(
      client.responses.create({ model: MODEL, input: "again", previous_response_id: unstored.id }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

/** A function tool's round trip on `model`: the call, then its result answered with text, JSON or streamed. */
async function roundTrip(model: string, stream: boolean) {
  const client = openai();
  const ask = { model, input: "What is the weather in Paris?", tools: TOOLS };
  const first = stream ? await client.responses.stream(ask).finalResponse() : await client.responses.create(ask);
  const call = first.output.find((item) => item.type === "function_call");
  expect(call).toMatchObject({ type: "function_call", name: "get_weather" });
  expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ city: "Paris" });
  const callId = (call as { call_id: string }).call_id;
  const next = {
    model,
    input: [
      { role: "user" as const, content: "What is the weather in Paris?" },
      { type: "function_call" as const, call_id: callId, name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output" as const, call_id: callId, output: "sunny" },
    ],
    tools: TOOLS,
  };
  if (!stream) return (await client.responses.create(next)).output_text;
  const second = client.responses.stream(next);
  let deltas = "";
  second.on("response.output_text.delta", (event) => (deltas += event.delta));
  const final = await second.finalResponse();
  expect(deltas).toBe(final.output_text);
  return final.output_text;
}

describe("responses to the Bedrock fake, translated to Converse", () => {
  const model = "@bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0";
  for (const stream of [false, true]) {
    it(`runs a function tool's round trip with responses.${stream ? "stream" : "create"}`, async () => {
      expect(await roundTrip(model, stream)).toBe("The tool said: sunny");
      const sent = bedrock.calls.at(-1);
      expect(sent?.operation).toBe(stream ? "converse-stream" : "converse");
      const messages = sent?.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
      expect(messages.at(-1)?.content[0]).toMatchObject({ toolResult: { content: [{ text: "sunny" }] } });
    });
  }
});

describe("responses to the Gemini fake, translated to generateContent", () => {
  const model = "@gemini/gemini-2.0-flash";
  for (const stream of [false, true]) {
    it(`runs a function tool's round trip with responses.${stream ? "stream" : "create"}`, async () => {
      google.enqueue(
        { kind: "tool", name: "get_weather", args: { city: "Paris" } },
        { kind: "text", text: "Sunny in Paris today." },
      );
      expect(await roundTrip(model, stream)).toBe("Sunny in Paris today.");
      const sent = google.requests.at(-1);
      expect(sent?.method).toBe(stream ? "streamGenerateContent" : "generateContent");
      const contents = sent?.body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
      expect(contents.at(-1)?.parts[0]).toMatchObject({ functionResponse: { name: "get_weather" } });
    });
  }
});
