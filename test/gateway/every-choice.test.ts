/**
 * Output guardrails read everything the client receives, through the official `openai` and
 * `@anthropic-ai/sdk` clients: every choice of an `n: 2` answer and every tool call's arguments
 * (OpenAI `tool_calls[].function.arguments`, Anthropic `tool_use.input` and its streamed
 * `input_json_delta`), every output item of a Responses answer (its `output_text` parts and
 * `function_call` arguments), streamed and not. A guardrail may opt out of tool arguments with
 * `tool_arguments: false`; what a stream cannot redact in place (Anthropic tool input) is refused
 * with a 400 naming the guardrail.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  functionCallItem,
  messageItem,
  responseObject,
  ResponsesEventWriter,
  responsesUsage,
} from "../../server/formats/responses-events.js";
import { FakeUpstream } from "../support/fake-upstream.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
  gateway = await startGateway({
    file: {
      providers: [
        { slug: "up", provider: "openai", base_url: upstream.baseUrl, api_key: "sk-server-held" },
        { slug: "upa", provider: "anthropic", base_url: upstream.baseUrl, api_key: "sk-ant-server-held" },
      ],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

beforeEach(() => upstream.reset());

const gatewayHeaders = (config: unknown) => ({ "x-gateway-api-key": API_KEY, "x-gateway-config": JSON.stringify(config) });
const openai = (config: unknown) =>
  new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "sk-unused", maxRetries: 0, defaultHeaders: gatewayHeaders(config) });
const anthropic = (config: unknown) =>
  new Anthropic({ baseURL: gateway.url, apiKey: "sk-unused", maxRetries: 0, defaultHeaders: gatewayHeaders(config) });

const DENY = {
  output_guardrails: [{ id: "falcon", deny: true, "default.contains": { operator: "none", words: ["falcon"] } }],
};
const REDACT = {
  output_guardrails: [{ id: "ssn", "default.regexReplace": { rule: "\\d{3}-\\d{2}-\\d{4}", redactText: "[SSN]" } }],
};
const SSN = "123-45-6789";

/** The status of the error a call ended with (undefined when it succeeded), and what it resolved to. */
async function outcome<T>(run: () => Promise<T>): Promise<{ status?: number; message?: string; value?: T }> {
  try {
    return { value: await run() };
  } catch (error) {
    const { status, message } = error as { status?: number; message?: string };
    if (typeof status !== "number") throw error;
    return { status, message: message ?? "" };
  }
}

const sse = (value: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(value)}\n\n`;

/** A chat answer with two choices. */
function twoChoices(first: string, second: string) {
  return {
    id: "chatcmpl-2",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: [first, second].map((content, index) => ({
      index,
      message: { role: "assistant", content, refusal: null },
      logprobs: null,
      finish_reason: "stop",
    })),
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
  };
}

/** The same, streamed: the two choices' words interleaved chunk by chunk, as the API sends them. */
function twoChoiceEvents(route: "chat" | "completions", first: string, second: string): string[] {
  const words = [first.split(" "), second.split(" ")];
  const events: string[] = [];
  const chunk = (index: number, piece: string | null, finish: string | null) =>
    route === "chat"
      ? sse({
          id: "c",
          object: "chat.completion.chunk",
          created: 1,
          model: "m",
          choices: [{ index, delta: piece === null ? {} : { content: piece }, finish_reason: finish }],
        })
      : sse({
          id: "c",
          object: "text_completion",
          created: 1,
          model: "m",
          choices: [{ index, text: piece ?? "", finish_reason: finish }],
        });
  for (let i = 0; i < Math.max(words[0]!.length, words[1]!.length); i++) {
    for (const index of [0, 1]) {
      const word = words[index]![i];
      if (word !== undefined) events.push(chunk(index, i ? ` ${word}` : word, null));
    }
  }
  events.push(chunk(0, null, "stop"), chunk(1, null, "stop"), "data: [DONE]\n\n");
  return events;
}

async function chat(config: unknown, stream: boolean) {
  const client = openai(config);
  const body = { model: "@up/m", n: 2, messages: [{ role: "user" as const, content: "two answers" }] };
  if (!stream) return (await client.chat.completions.create(body)).choices.map((c) => c.message.content ?? "");
  const texts = ["", ""];
  for await (const chunk of await client.chat.completions.create({ ...body, stream: true }))
    for (const choice of chunk.choices) texts[choice.index] += choice.delta.content ?? "";
  return texts;
}

async function completions(config: unknown, stream: boolean) {
  const client = openai(config);
  const body = { model: "@up/m", n: 2, prompt: "two answers" };
  if (!stream) return (await client.completions.create(body)).choices.map((c) => c.text);
  const texts = ["", ""];
  for await (const chunk of await client.completions.create({ ...body, stream: true }))
    for (const choice of chunk.choices) texts[choice.index] += choice.text;
  return texts;
}

describe("every choice of an n: 2 answer is checked", () => {
  const routes = { chat, completions } as const;
  for (const route of ["chat", "completions"] as const) {
    const answer = (first: string, second: string) =>
      route === "chat"
        ? twoChoices(first, second)
        : {
            ...twoChoices(first, second),
            object: "text_completion",
            choices: [first, second].map((text, index) => ({ index, text, logprobs: null, finish_reason: "stop" })),
          };

    it(`denies on ${route} when only the second choice fails, streamed and not`, async () => {
      upstream.enqueue({ kind: "json", body: answer("a fine answer", "the falcon plan") });
      expect((await outcome(() => routes[route](DENY, false))).status).toBe(446);
      upstream.enqueue({ kind: "events", events: twoChoiceEvents(route, "a fine answer", "the falcon plan") });
      const streamed = await outcome(() => routes[route](DENY, true));
      expect(streamed.status).toBe(446);
      expect(JSON.stringify(streamed.value ?? "")).not.toContain("falcon");
      upstream.enqueue({ kind: "json", body: answer("a fine answer", "another fine one") });
      expect((await outcome(() => routes[route](DENY, false))).value).toEqual(["a fine answer", "another fine one"]);
    });

    it(`holds the second choice on ${route} while the first streams: a late deny in it stops the stream before it leaves`, async () => {
      const clean = Array.from({ length: 120 }, (_, i) => `word${i}`).join(" ");
      const late = `${Array.from({ length: 100 }, (_, i) => `fine${i}`).join(" ")} and then the falcon plan`;
      upstream.enqueue({ kind: "events", events: twoChoiceEvents(route, clean, late) });
      const texts = ["", ""];
      const streamed = (async () => {
        const client = openai(DENY);
        const chunks =
          route === "chat"
            ? await client.chat.completions.create({
                model: "@up/m",
                n: 2,
                stream: true,
                messages: [{ role: "user", content: "go" }],
              })
            : await client.completions.create({ model: "@up/m", n: 2, stream: true, prompt: "go" });
        for await (const chunk of chunks)
          for (const choice of chunk.choices)
            texts[choice.index] += "delta" in choice ? (choice.delta.content ?? "") : choice.text;
      })();
      // Text went out before the deny (window mode), then the stream ended with the error event the SDK raises.
      await expect(streamed).rejects.toThrow("stopped by output guardrail falcon");
      expect(texts[0]!.length).toBeGreaterThan(0);
      expect(texts[1]).toContain("fine50");
      expect(texts[1]).not.toContain("falcon");
    });

    it(`redacts the second choice on ${route}, streamed and not: a stream of two choices is asked whole and sent choice after choice`, async () => {
      upstream.enqueue({ kind: "json", body: answer("first is clean", `second says ${SSN}`) });
      expect((await outcome(() => routes[route](REDACT, false))).value).toEqual(["first is clean", "second says [SSN]"]);
      upstream.enqueue({ kind: "json", body: answer("first is clean", `second says ${SSN}`) });
      expect((await outcome(() => routes[route](REDACT, true))).value).toEqual(["first is clean", "second says [SSN]"]);
      expect(upstream.requests[1]?.body.stream).toBeUndefined();
      expect(upstream.requests[1]?.body.n).toBe(2);
      // Long enough for several windows, the redactions in both choices, one across the choices' seam.
      const long = (tag: string) => Array.from({ length: 150 }, (_, i) => `${tag}${i}`).join(" ");
      upstream.enqueue({ kind: "json", body: answer(`${long("a")} ${SSN}`, `${SSN} ${long("b")} ${SSN} end`) });
      expect((await outcome(() => routes[route](REDACT, true))).value).toEqual([
        `${long("a")} [SSN]`,
        `[SSN] ${long("b")} [SSN] end`,
      ]);
    });
  }
});

/** A chat answer that calls a tool with these arguments. */
function toolAnswer(args: string) {
  return {
    id: "chatcmpl-t",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "send", arguments: args } }],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ],
  };
}

/** The same, streamed in pieces of the arguments. */
function toolEvents(args: string): string[] {
  const chunk = (delta: unknown, finish: string | null) =>
    sse({
      id: "c",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const pieces = args.match(/.{1,6}/gs) ?? [];
  return [
    chunk(
      {
        role: "assistant",
        content: null,
        tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "send", arguments: "" } }],
      },
      null,
    ),
    ...pieces.map((piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null)),
    chunk({}, "tool_calls"),
    "data: [DONE]\n\n",
  ];
}

async function toolCall(config: unknown, stream: boolean): Promise<string> {
  const client = openai(config);
  const body = {
    model: "@up/m",
    messages: [{ role: "user" as const, content: "send it" }],
    tools: [{ type: "function" as const, function: { name: "send", parameters: { type: "object" } } }],
  };
  if (!stream) {
    const call = (await client.chat.completions.create(body)).choices[0]?.message.tool_calls?.[0];
    return call?.type === "function" ? call.function.arguments : "";
  }
  let args = "";
  for await (const chunk of await client.chat.completions.create({ ...body, stream: true }))
    args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
  return args;
}

describe("tool-call arguments are checked on chat", () => {
  const FALCON_ARGS = JSON.stringify({ to: "press", body: "the falcon plan in full" });
  const SSN_ARGS = JSON.stringify({ to: "hr", body: `number ${SSN} attached` });

  it("denies arguments that fail, streamed and not", async () => {
    upstream.enqueue({ kind: "json", body: toolAnswer(FALCON_ARGS) });
    expect((await outcome(() => toolCall(DENY, false))).status).toBe(446);
    upstream.enqueue({ kind: "events", events: toolEvents(FALCON_ARGS) });
    const streamed = await outcome(() => toolCall(DENY, true));
    expect(streamed.status).toBe(446);
    expect(streamed.value ?? "").not.toContain("falcon");
  });

  it("redacts arguments, streamed and not", async () => {
    const redacted = JSON.stringify({ to: "hr", body: "number [SSN] attached" });
    upstream.enqueue({ kind: "json", body: toolAnswer(SSN_ARGS) });
    expect((await outcome(() => toolCall(REDACT, false))).value).toBe(redacted);
    upstream.enqueue({ kind: "events", events: toolEvents(SSN_ARGS) });
    expect((await outcome(() => toolCall(REDACT, true))).value).toBe(redacted);
  });

  it("leaves them out for a guardrail with tool_arguments: false, which still reads the text", async () => {
    const optedOut = { output_guardrails: [{ ...DENY.output_guardrails[0], tool_arguments: false }] };
    upstream.enqueue({ kind: "json", body: toolAnswer(FALCON_ARGS) });
    expect((await outcome(() => toolCall(optedOut, false))).value).toBe(FALCON_ARGS);
    upstream.enqueue({ kind: "events", events: toolEvents(FALCON_ARGS) });
    expect((await outcome(() => toolCall(optedOut, true))).value).toBe(FALCON_ARGS);
    upstream.enqueue({
      kind: "json",
      body: { ...twoChoices("the falcon plan", "x"), choices: twoChoices("the falcon plan", "x").choices.slice(0, 1) },
    });
    expect((await outcome(() => toolCall(optedOut, false))).status).toBe(446);
  });
});

/** An Anthropic answer with a text block and a tool_use block. */
function anthropicToolAnswer(input: Record<string, unknown>) {
  return {
    id: "msg_t",
    type: "message",
    role: "assistant",
    model: "claude",
    content: [
      { type: "text", text: "Sending now." },
      { type: "tool_use", id: "toolu_1", name: "send", input },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 3 },
  };
}

function anthropicToolEvents(input: Record<string, unknown>): string[] {
  const json = JSON.stringify(input);
  return [
    sse(
      {
        type: "message_start",
        message: {
          id: "msg_t",
          type: "message",
          role: "assistant",
          model: "claude",
          content: [],
          stop_reason: null,
          usage: { input_tokens: 3, output_tokens: 0 },
        },
      },
      "message_start",
    ),
    sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
    sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Sending now." } }, "content_block_delta"),
    sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
    sse(
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "send", input: {} } },
      "content_block_start",
    ),
    ...(json.match(/.{1,6}/gs) ?? []).map((piece) =>
      sse(
        { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: piece } },
        "content_block_delta",
      ),
    ),
    sse({ type: "content_block_stop", index: 1 }, "content_block_stop"),
    sse(
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 3 } },
      "message_delta",
    ),
    sse({ type: "message_stop" }, "message_stop"),
  ];
}

async function anthropicTool(config: unknown, stream: boolean): Promise<unknown> {
  const client = anthropic(config);
  const body = {
    model: "@upa/claude",
    max_tokens: 64,
    messages: [{ role: "user" as const, content: "send it" }],
    tools: [{ name: "send", input_schema: { type: "object" as const } }],
  };
  if (!stream) {
    const message = await client.messages.create(body);
    return message.content.find((block) => block.type === "tool_use")?.input;
  }
  let json = "";
  for await (const event of await client.messages.create({ ...body, stream: true }))
    if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") json += event.delta.partial_json;
  return json;
}

describe("tool_use input is checked on messages", () => {
  it("denies input that fails, streamed (input_json_delta) and not", async () => {
    const input = { to: "press", body: "the falcon plan" };
    upstream.enqueue({ kind: "json", body: anthropicToolAnswer(input) });
    expect((await outcome(() => anthropicTool(DENY, false))).status).toBe(446);
    upstream.enqueue({ kind: "events", events: anthropicToolEvents(input) });
    const streamed = await outcome(() => anthropicTool(DENY, true));
    expect(streamed.status).toBe(446);
    expect(String(streamed.value ?? "")).not.toContain("falcon");
    upstream.enqueue({ kind: "events", events: anthropicToolEvents({ to: "team", body: "all fine" }) });
    expect((await outcome(() => anthropicTool(DENY, true))).value).toBe(JSON.stringify({ to: "team", body: "all fine" }));
  });

  it("redacts the strings of the input in place; a streamed tool_use it cannot redact is refused with a 400 naming it", async () => {
    upstream.enqueue({ kind: "json", body: anthropicToolAnswer({ to: "hr", body: `number ${SSN}`, copies: 2 }) });
    expect((await outcome(() => anthropicTool(REDACT, false))).value).toEqual({ to: "hr", body: "number [SSN]", copies: 2 });
    const refused = await outcome(() => anthropicTool(REDACT, true));
    expect(refused.status).toBe(400);
    // The SDK's message carries the error body as JSON, quotes escaped.
    expect(refused.message).toMatch(/guardrail \\?"ssn\\?"/);
    expect(refused.message).toContain("tool_arguments: false");
    expect(upstream.requests).toHaveLength(1);
  });
});

type Item = Record<string, unknown>;

/** A Responses answer of these output items. */
function responsesAnswer(output: Item[]): Item {
  return responseObject({ id: "resp_1", model: "m", createdAt: 1, status: "completed", output, usage: responsesUsage(1, 2) });
}

/** Its typed-event stream: every text part word by word, arguments in six-character pieces. */
function responsesEvents(output: Item[]): string[] {
  const response = responsesAnswer(output);
  const writer = new ResponsesEventWriter();
  const events = [...writer.created(response)];
  output.forEach((item, index) => {
    if (item.type !== "message") events.push(...writer.functionCall(index, item, String(item.arguments).match(/.{1,6}/gs) ?? []));
    else
      events.push(
        ...writer.message(
          index,
          item,
          (item.content as Item[]).map((part) => String(part.text).split(/(?<= )/)),
        ),
      );
  });
  events.push(writer.finished(response));
  return events.map(String);
}

/** Each output item's text as the client holds it: a message's parts joined by newlines, a call's arguments. */
function itemTexts(output: ReadonlyArray<{ type: string; content?: unknown; arguments?: unknown }>): string[] {
  return output.map((item) =>
    item.type === "function_call"
      ? String(item.arguments)
      : ((item.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? "").join("\n"),
  );
}

/**
 * The texts of a Responses answer through `responses.create` or `responses.stream`; a stream's
 * texts are those its deltas delivered, which its final response (built from the done events and
 * `response.completed`) must repeat.
 */
async function responsesCall(config: unknown, stream: boolean, live: string[][] = []): Promise<string[]> {
  const body = { model: "@up/m", input: "go" };
  if (!stream) return itemTexts((await openai(config).responses.create(body)).output);
  const events = openai(config).responses.stream(body);
  events.on(
    "response.output_text.delta",
    (e) => ((live[e.output_index] ??= [])[e.content_index] = (live[e.output_index]?.[e.content_index] ?? "") + e.delta),
  );
  events.on("response.function_call_arguments.delta", (e) => ((live[e.output_index] ??= [""])[0] += e.delta));
  const final = itemTexts((await events.finalResponse()).output);
  expect(final).toEqual(live.map((parts) => parts.join("\n")));
  return final;
}

describe("every output item of a Responses answer is checked", () => {
  const message = (id: string, ...texts: string[]) => messageItem(id, texts);
  const call = (args: string) => functionCallItem("fc_1", "call_1", "send", args);
  const FALCON_ARGS = JSON.stringify({ to: "press", body: "the falcon plan in full" });

  it("denies when only the second message item fails, streamed and not", async () => {
    const output = [message("msg_1", "a fine answer"), message("msg_2", "the falcon plan")];
    upstream.enqueue({ kind: "json", body: responsesAnswer(output) });
    expect((await outcome(() => responsesCall(DENY, false))).status).toBe(446);
    upstream.enqueue({ kind: "events", events: responsesEvents(output) });
    const live: string[][] = [];
    expect((await outcome(() => responsesCall(DENY, true, live))).status).toBe(446);
    expect(JSON.stringify(live)).not.toContain("falcon");
    const clean = [message("msg_1", "a fine answer"), message("msg_2", "another fine one")];
    upstream.enqueue({ kind: "json", body: responsesAnswer(clean) });
    expect((await outcome(() => responsesCall(DENY, false))).value).toEqual(["a fine answer", "another fine one"]);
  });

  it("holds a later item while an earlier one streams: a late deny in it stops the stream before it leaves", async () => {
    const clean = Array.from({ length: 120 }, (_, i) => `word${i}`).join(" ");
    const late = `${Array.from({ length: 100 }, (_, i) => `fine${i}`).join(" ")} and then the falcon plan`;
    upstream.enqueue({ kind: "events", events: responsesEvents([message("msg_1", clean), message("msg_2", late)]) });
    const live: string[][] = [];
    // Text went out before the deny (window mode), then the error event the SDK raises.
    await expect(responsesCall(DENY, true, live)).rejects.toThrow("stopped by output guardrail falcon");
    expect(live[0]?.[0]?.length).toBeGreaterThan(0);
    expect(live[1]?.[0]).toContain("fine50");
    expect(JSON.stringify(live)).not.toContain("falcon");
  });

  it("redacts every text part and a function call's arguments in place, streamed and not", async () => {
    const output = [
      message("msg_1", "first is clean", `second part ${SSN}`),
      call(JSON.stringify({ to: "hr", body: `number ${SSN} attached` })),
      message("msg_2", `${SSN} last`),
    ];
    const redacted = [
      "first is clean\nsecond part [SSN]",
      JSON.stringify({ to: "hr", body: "number [SSN] attached" }),
      "[SSN] last",
    ];
    upstream.enqueue({ kind: "json", body: responsesAnswer(output) });
    expect((await outcome(() => responsesCall(REDACT, false))).value).toEqual(redacted);
    upstream.enqueue({ kind: "events", events: responsesEvents(output) });
    expect((await outcome(() => responsesCall(REDACT, true))).value).toEqual(redacted);
  });

  it("denies function call arguments that fail, streamed and not; tool_arguments: false leaves them out but reads the text", async () => {
    const output = [message("msg_1", "Sending now."), call(FALCON_ARGS)];
    upstream.enqueue({ kind: "json", body: responsesAnswer(output) });
    expect((await outcome(() => responsesCall(DENY, false))).status).toBe(446);
    upstream.enqueue({ kind: "events", events: responsesEvents(output) });
    expect((await outcome(() => responsesCall(DENY, true))).status).toBe(446);
    const optedOut = { output_guardrails: [{ ...DENY.output_guardrails[0], tool_arguments: false }] };
    upstream.enqueue({ kind: "json", body: responsesAnswer(output) });
    expect((await outcome(() => responsesCall(optedOut, false))).value).toEqual(["Sending now.", FALCON_ARGS]);
    upstream.enqueue({ kind: "events", events: responsesEvents(output) });
    expect((await outcome(() => responsesCall(optedOut, true))).value).toEqual(["Sending now.", FALCON_ARGS]);
    upstream.enqueue({ kind: "json", body: responsesAnswer([message("msg_1", "the falcon plan"), call("{}")]) });
    expect((await outcome(() => responsesCall(optedOut, false))).status).toBe(446);
  });
});
