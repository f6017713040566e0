/**
 * The Responses API translated through the chat form, end to end: the official `openai` client's
 * responses.create and responses.stream through guardgate to the Anthropic contract fake, with
 * one function tool's round trip (function_call → function_call_output → final text), and
 * previous_response_id continuing a conversation the gateway kept.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { AnthropicFake } from "../support/providers/anthropic.js";
import type { ScriptedTurn } from "../support/providers/script.js";

const ANTHROPIC_KEY = "sk-ant-fake-provider-secret-77aa10";

let claude: AnthropicFake;
let gateway: TestGateway;

beforeAll(async () => {
  claude = await new AnthropicFake(ANTHROPIC_KEY).start();
  gateway = await startGateway({
    file: {
      settings: { log_bodies: true },
      providers: [{ slug: "claude", provider: "anthropic", base_url: claude.baseUrl, api_key: ANTHROPIC_KEY }],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await claude.close();
});

beforeEach(() => claude.reset());

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
