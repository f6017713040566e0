/**
 * The differential harness of the enforcement guarantee: fast-check generates answers (chat with
 * one to three choices, content as a string or an array of parts, tool calls, the legacy
 * function_call, text completions, Anthropic messages with text and tool_use blocks, Responses API
 * answers with several message and function_call output items; with and without an SSN, tool
 * arguments with and without JSON escapes), renders each as the plain JSON
 * answer and as a stream (deltas split anywhere, choices interleaved in any order, the bytes cut
 * anywhere: whole, event by event, each event in halves, at random points, byte by byte), and runs
 * both through a real gateway over sockets, under a policy that denies an SSN and one that
 * redacts it. What the client rebuilds must agree: the verdict, and the text of every choice.
 * Responses answers also run with the stream held in each `stream_mode`: in `after` mode the
 * stream is not held, so it must deliver the upstream's text as it was and report the JSON
 * answer's verdict in its last `hook_results`.
 */
import fc from "fast-check";
import { startGateway, gatewayHeaders, type TestGateway } from "../support/gateway.js";
import { startServer, sendJson, type LocalServer } from "../support/http-server.js";
import {
  allText,
  type Rebuilt,
  rebuildAnthropicStream,
  rebuildJson,
  rebuildOpenAiStream,
  rebuildResponsesStream,
} from "../support/rebuilt-answer.js";
import {
  functionCallItem,
  messageItem,
  responseObject,
  ResponsesEventWriter,
  responsesUsage,
} from "../../server/formats/responses-events.js";

export const SSN = "123-45-6789";
const RULE = "\\d{3}-\\d{2}-\\d{4}";

/** A text block or tool call's arguments (string values only, as tools take them). */
type Args = Record<string, string>;

export interface ChatChoice {
  content: string;
  /** Content as an array of text parts (Mistral), not a string. */
  parts: boolean;
  tools: Args[];
  legacy?: Args;
}

export type Answer =
  | { kind: "chat"; choices: ChatChoice[]; escape: boolean }
  | { kind: "complete"; choices: string[] }
  | { kind: "messages"; blocks: Array<{ text: string } | { input: Args }>; escape: boolean }
  /** A Responses answer: message items (one or two output_text parts) and function_call items. */
  | { kind: "responses"; items: Array<{ texts: string[] } | { input: Args }>; escape: boolean };

/** How a stream is rendered: a seed for where deltas split and choices interleave, and how the bytes are cut. */
export interface Rendering {
  seed: number;
  cut: "whole" | "events" | "halves" | "points" | "bytes";
  /** Characters per checked window (the config's stream_window). */
  window: number;
  /** The config's stream_mode; when absent, each guardrail's default. */
  mode?: "window" | "buffer" | "after";
}

/** One generated case. */
export interface Case {
  answer: Answer;
  rendering: Rendering;
}

// Words that stress the reader: escapes in JSON, multi-byte characters, digits near the SSN's shape.
const WORDS = [
  "alpha",
  "beta",
  "plan",
  "the",
  "é",
  "naïve",
  "👩‍💻",
  '"q"',
  "back\\slash",
  "line\nbreak",
  "\t",
  "123",
  "45",
  "-",
  "6789",
  "x-y",
];

const text: fc.Arbitrary<string> = fc
  .tuple(fc.array(fc.constantFrom(...WORDS), { maxLength: 30 }), fc.option(fc.nat(), { nil: undefined }))
  .map(([words, at]) => {
    const out = [...words];
    if (at !== undefined) out.splice(at % (out.length + 1), 0, SSN);
    return out.join(" ");
  });

const args: fc.Arbitrary<Args> = fc.dictionary(fc.constantFrom("to", "body", "note"), text, { minKeys: 1, maxKeys: 3 });

const chat: fc.Arbitrary<Answer> = fc.record({
  kind: fc.constant("chat" as const),
  choices: fc.array(
    fc.record(
      { content: text, parts: fc.boolean(), tools: fc.array(args, { maxLength: 2 }), legacy: args },
      { requiredKeys: ["content", "parts", "tools"] },
    ),
    { minLength: 1, maxLength: 3 },
  ),
  escape: fc.boolean(),
});

const complete: fc.Arbitrary<Answer> = fc.record({
  kind: fc.constant("complete" as const),
  choices: fc.array(text, { minLength: 1, maxLength: 3 }),
});

const messages: fc.Arbitrary<Answer> = fc.record({
  kind: fc.constant("messages" as const),
  blocks: fc.array(fc.oneof(fc.record({ text }), fc.record({ input: args })), { minLength: 1, maxLength: 3 }),
  escape: fc.boolean(),
});

const responses: fc.Arbitrary<Answer> = fc.record({
  kind: fc.constant("responses" as const),
  items: fc.array(fc.oneof(fc.record({ texts: fc.array(text, { minLength: 1, maxLength: 2 }) }), fc.record({ input: args })), {
    minLength: 1,
    maxLength: 4,
  }),
  escape: fc.boolean(),
});

const rendering = {
  seed: fc.integer(),
  cut: fc.constantFrom("whole" as const, "events" as const, "halves" as const, "points" as const, "bytes" as const),
  window: fc.constantFrom(8, 24, 200),
};

/** Generated cases. */
export const cases: fc.Arbitrary<Case> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      answer: fc.oneof({ weight: 3, arbitrary: chat }, { weight: 1, arbitrary: complete }, { weight: 2, arbitrary: messages }),
      rendering: fc.record(rendering),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      answer: responses,
      rendering: fc.record(
        { ...rendering, mode: fc.constantFrom("window" as const, "buffer" as const, "after" as const) },
        { requiredKeys: ["seed", "cut", "window"] },
      ),
    }),
  },
);

/** A small seeded generator, so a rendering is a pure function of its case. */
function random(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) as number;
  };
}

/** A tool's arguments as JSON text, its dashes escaped (`\u002d`) when asked. */
function argsJson(value: Args, escape: boolean): string {
  const json = JSON.stringify(value);
  return escape ? json.replaceAll("-", "\\u002d") : json;
}

/** A text in pieces cut at random points (an empty text: none). */
function split(value: string, next: (n: number) => number): string[] {
  const chars = Array.from(value);
  const pieces: string[] = [];
  let at = 0;
  while (at < chars.length) {
    const size = 1 + next(Math.min(12, chars.length - at));
    pieces.push(chars.slice(at, at + size).join(""));
    at += size;
  }
  return pieces;
}

/** A Responses answer's output items. */
function outputItems(answer: Extract<Answer, { kind: "responses" }>): Array<Record<string, unknown>> {
  return answer.items.map((item, i) =>
    "texts" in item
      ? messageItem(`msg_${i}`, item.texts)
      : functionCallItem(`fc_${i}`, `call_${i}`, "send", argsJson(item.input, answer.escape)),
  );
}

/** A Responses answer's response object. */
function responseOf(answer: Extract<Answer, { kind: "responses" }>): Record<string, unknown> {
  const usage = responsesUsage(1, 1);
  return responseObject({ id: "resp", model: "m", createdAt: 1, status: "completed", output: outputItems(answer), usage });
}

/** The plain JSON answer. */
export function jsonOf(answer: Answer): Record<string, unknown> {
  if (answer.kind === "responses") return responseOf(answer);
  if (answer.kind === "messages") {
    return {
      id: "msg",
      type: "message",
      role: "assistant",
      model: "c",
      content: answer.blocks.map((block, i) =>
        "text" in block
          ? { type: "text", text: block.text }
          : { type: "tool_use", id: `t${i}`, name: "send", input: block.input },
      ),
      stop_reason: "end_turn",
      usage: { input_tokens: 1, output_tokens: 1 },
    };
  }
  if (answer.kind === "complete") {
    return {
      id: "c",
      object: "text_completion",
      created: 1,
      model: "m",
      choices: answer.choices.map((t, index) => ({ index, text: t, finish_reason: "stop" })),
    };
  }
  return {
    id: "c",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: answer.choices.map((choice, index) => {
      const content = choice.parts ? (choice.content ? [{ type: "text", text: choice.content }] : []) : choice.content;
      const called = choice.tools.length > 0 || choice.legacy !== undefined;
      return {
        index,
        message: {
          role: "assistant",
          content: called && !choice.content ? null : content,
          ...(choice.tools.length && {
            tool_calls: choice.tools.map((tool, k) => ({
              id: `call_${k}`,
              type: "function",
              function: { name: "send", arguments: argsJson(tool, answer.escape) },
            })),
          }),
          ...(choice.legacy && { function_call: { name: "send", arguments: argsJson(choice.legacy, answer.escape) } }),
        },
        finish_reason: "stop",
      };
    }),
  };
}

const sse = (value: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(value)}\n\n`;

/** The answer's stream events, deltas split and choices interleaved as the rendering's seed says. */
export function eventsOf(answer: Answer, seed: number): string[] {
  const next = random(seed);
  if (answer.kind === "responses") {
    const response = responseOf(answer);
    const writer = new ResponsesEventWriter();
    const out = [...writer.created(response)];
    outputItems(answer).forEach((item, index) => {
      const source = answer.items[index]!;
      if ("texts" in source)
        out.push(
          ...writer.message(
            index,
            item,
            source.texts.map((t) => split(t, next)),
          ),
        );
      else out.push(...writer.functionCall(index, item, split(String(item.arguments), next)));
    });
    out.push(writer.finished(response));
    return out.map((event) => event.toString("utf8"));
  }
  if (answer.kind === "messages") {
    const out = [
      sse(
        {
          type: "message_start",
          message: {
            id: "msg",
            type: "message",
            role: "assistant",
            model: "c",
            content: [],
            usage: { input_tokens: 1, output_tokens: 0 },
          },
        },
        "message_start",
      ),
    ];
    answer.blocks.forEach((block, index) => {
      if ("text" in block) {
        out.push(sse({ type: "content_block_start", index, content_block: { type: "text", text: "" } }, "content_block_start"));
        for (const piece of split(block.text, next))
          out.push(
            sse({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }, "content_block_delta"),
          );
      } else {
        out.push(
          sse(
            { type: "content_block_start", index, content_block: { type: "tool_use", id: `t${index}`, name: "send", input: {} } },
            "content_block_start",
          ),
        );
        for (const piece of split(argsJson(block.input, answer.escape), next))
          out.push(
            sse(
              { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } },
              "content_block_delta",
            ),
          );
      }
      if (next(4) === 0) out.push(sse({ type: "ping" }, "ping"));
      out.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
    });
    out.push(sse({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }, "message_delta"));
    out.push(sse({ type: "message_stop" }, "message_stop"));
    return out;
  }
  const object = answer.kind === "chat" ? "chat.completion.chunk" : "text_completion";
  const chunk = (choice: Record<string, unknown>) => sse({ id: "c", object, created: 1, model: "m", choices: [choice] });
  const sequences: string[][] = [];
  if (answer.kind === "complete") {
    answer.choices.forEach((t, index) => {
      const seq = split(t, next).map((piece) => chunk({ index, text: piece, finish_reason: null }));
      seq.push(chunk({ index, text: "", finish_reason: "stop" }));
      sequences.push(seq);
    });
  } else {
    answer.choices.forEach((choice, index) => {
      const delta = (d: Record<string, unknown>, finish: string | null = null) =>
        chunk({ index, delta: d, finish_reason: finish });
      const seq = [delta({ role: "assistant", content: "" })];
      for (const piece of split(choice.content, next))
        seq.push(delta({ content: choice.parts ? [{ type: "text", text: piece }] : piece }));
      choice.tools.forEach((tool, k) => {
        seq.push(
          delta({ tool_calls: [{ index: k, id: `call_${k}`, type: "function", function: { name: "send", arguments: "" } }] }),
        );
        for (const piece of split(argsJson(tool, answer.escape), next))
          seq.push(delta({ tool_calls: [{ index: k, function: { arguments: piece } }] }));
      });
      if (choice.legacy) {
        seq.push(delta({ function_call: { name: "send", arguments: "" } }));
        for (const piece of split(argsJson(choice.legacy, answer.escape), next))
          seq.push(delta({ function_call: { arguments: piece } }));
      }
      seq.push(delta({}, "stop"));
      sequences.push(seq);
    });
  }
  // Interleave the choices: each keeps its own order, which one goes next is drawn.
  const out: string[] = [];
  const at = sequences.map(() => 0);
  for (;;) {
    const open = sequences.map((seq, i) => (at[i]! < seq.length ? i : -1)).filter((i) => i >= 0);
    if (!open.length) break;
    const pick = open[next(open.length)] as number;
    out.push(sequences[pick]![at[pick]!++] as string);
  }
  out.push("data: [DONE]\n\n");
  return out;
}

/** The stream's bytes, cut into the pieces the upstream writes one by one. */
export function cutOf(events: string[], rendering: Rendering): Buffer[] {
  const next = random(rendering.seed ^ 0x5bd1e995);
  const all = Buffer.from(events.join(""));
  switch (rendering.cut) {
    case "whole":
      return [all];
    case "events":
      return events.map((e) => Buffer.from(e));
    case "halves":
      return events.flatMap((e) => {
        const bytes = Buffer.from(e);
        const middle = 1 + next(bytes.length - 1);
        return [bytes.subarray(0, middle), bytes.subarray(middle)];
      });
    case "bytes":
      if (all.length <= 4000) return Array.from({ length: all.length }, (_, i) => all.subarray(i, i + 1));
    // A long stream is cut at points instead, so a run stays quick.
    // falls through
    case "points": {
      const count = 1 + next(40);
      const points = [...new Set(Array.from({ length: count }, () => next(all.length)))].sort((a, b) => a - b);
      const out: Buffer[] = [];
      let from = 0;
      for (const point of points) {
        if (point > from) out.push(all.subarray(from, point));
        from = Math.max(from, point);
      }
      out.push(all.subarray(from));
      return out;
    }
  }
}

/** A running harness: a gateway and an upstream answering the current case. */
export interface Harness {
  gateway: TestGateway;
  upstream: LocalServer;
  /** Runs one case; a description of the disagreement, or undefined when JSON and stream agree. */
  check(c: Case): Promise<string | undefined>;
  close(): Promise<void>;
}

const policies = {
  deny: { output_guardrails: [{ id: "no-ssn", deny: true, "default.regexMatch": { rule: RULE, not: true } }] },
  redact: { output_guardrails: [{ id: "ssn", "default.regexReplace": { rule: RULE, redactText: "[SSN]" } }] },
} as const;

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One call's outcome. */
interface Called {
  status: number;
  rebuilt?: Rebuilt;
  body: string;
}

/** The output guardrails' verdicts a JSON body (an answer or a 446) reports. */
function verdictsOf(body: string): Pick<Rebuilt, "verdicts"> {
  try {
    const hooks = (JSON.parse(body) as { hook_results?: { after_request_hooks?: Array<{ verdict?: unknown }> } }).hook_results;
    const after = hooks?.after_request_hooks;
    return after ? { verdicts: after.map((result) => result.verdict === true) } : {};
  } catch {
    return {};
  }
}

/** Where both answers report the output guardrails' verdicts (Responses answers do), they agree. */
function sameVerdicts(where: string, plain: Called, streamed: Called): string | undefined {
  const a = plain.rebuilt?.verdicts;
  const b = streamed.rebuilt?.verdicts;
  if (a === undefined && b === undefined) return undefined;
  if (JSON.stringify(a) !== JSON.stringify(b))
    return `${where}: verdicts differ: json ${JSON.stringify(a)}, stream ${JSON.stringify(b)}`;
  return undefined;
}

/** Starts the gateway and the upstream of the harness. */
export async function startHarness(): Promise<Harness> {
  let current: Case | undefined;
  const upstream = await startServer(async (request, response) => {
    const body = JSON.parse(request.body || "{}") as { stream?: boolean };
    const c = current as Case;
    // A stream of several choices under a redaction is asked of the upstream whole (regrouped).
    if (body.stream !== true) return sendJson(response, 200, jsonOf(c.answer));
    response.socket?.setNoDelay(true);
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.flushHeaders();
    for (const piece of cutOf(eventsOf(c.answer, c.rendering.seed), c.rendering)) {
      if (response.destroyed) return;
      response.write(piece);
      await pause();
    }
    response.end();
  });
  const gateway = await startGateway({
    file: {
      providers: [
        { slug: "up", provider: "openai", base_url: `${upstream.origin}/v1`, api_key: "sk-held" },
        { slug: "upa", provider: "anthropic", base_url: `${upstream.origin}/v1`, api_key: "sk-ant-held" },
      ],
    },
  });

  async function call(
    c: Case,
    policy: keyof typeof policies,
    stream: boolean,
  ): Promise<{ status: number; rebuilt?: Rebuilt; body: string }> {
    current = c;
    const { answer } = c;
    const n = answer.kind === "messages" || answer.kind === "responses" ? 1 : answer.choices.length;
    const route = {
      chat: "/v1/chat/completions",
      complete: "/v1/completions",
      messages: "/v1/messages",
      responses: "/v1/responses",
    }[answer.kind];
    const body =
      answer.kind === "messages"
        ? { model: "@upa/c", max_tokens: 64, messages: [{ role: "user", content: "go" }] }
        : answer.kind === "chat"
          ? { model: "@up/m", messages: [{ role: "user", content: "go" }] }
          : answer.kind === "responses"
            ? { model: "@up/m", input: "go" }
            : { model: "@up/m", prompt: "go" };
    const config = {
      ...policies[policy],
      stream_window: c.rendering.window,
      ...(c.rendering.mode && { stream_mode: c.rendering.mode }),
    };
    // Responses answers carry hook_results (JSON and stream), whose verdicts are compared.
    const extra: Record<string, string> = answer.kind === "responses" ? { "x-gateway-strict-compliance": "false" } : {};
    const response = await fetch(`${gateway.url}${route}`, {
      method: "POST",
      headers: { ...gatewayHeaders(config, extra), "content-type": "application/json" },
      body: JSON.stringify({ ...body, ...(n > 1 && { n }), ...(stream && { stream: true }) }),
    });
    const text = await response.text();
    const responses = answer.kind === "responses";
    if (response.status === 446 && responses)
      return { status: 446, rebuilt: { choices: new Map(), ...verdictsOf(text) }, body: text };
    if (response.status !== 200) return { status: response.status, body: text };
    const rebuilt = !stream
      ? { ...rebuildJson(JSON.parse(text)), ...(responses && verdictsOf(text)) }
      : answer.kind === "messages"
        ? rebuildAnthropicStream(text)
        : responses
          ? rebuildResponsesStream(text)
          : rebuildOpenAiStream(text);
    return { status: 200, rebuilt, body: text };
  }

  /** A stream in `after` mode: the upstream's text as it was, and the JSON answer's verdict reported at its end. */
  function checkAfter(c: Case, where: string, plain: Called, streamed: Called): string | undefined {
    if (streamed.status !== 200 || !streamed.rebuilt) return `${where}: ${streamed.body.slice(0, 300)}`;
    if (streamed.rebuilt.error !== undefined) return `${where}: the stream ended with an error: ${streamed.rebuilt.error}`;
    if (!streamed.rebuilt.completed) return `${where}: the stream did not complete`;
    const a = JSON.stringify([...rebuildJson(jsonOf(c.answer)).choices.entries()]);
    const b = JSON.stringify([...streamed.rebuilt.choices.entries()]);
    if (a !== b) return `${where}: the stream did not deliver the upstream's text\n upstream: ${a}\n stream:   ${b}`;
    return sameVerdicts(where, plain, streamed);
  }

  async function check(c: Case): Promise<string | undefined> {
    for (const policy of ["deny", "redact"] as const) {
      const plain = await call(c, policy, false);
      const streamed = await call(c, policy, true);
      const where = `${policy}: json ${plain.status}, stream ${streamed.status}`;
      if (plain.status !== 200 && plain.status !== 446) return `${where}: the JSON answer failed: ${plain.body.slice(0, 300)}`;
      if (plain.rebuilt && allText(plain.rebuilt).includes(SSN)) return `${where}: the JSON answer delivered the SSN`;
      if (streamed.rebuilt?.inconsistent) return `${where}: ${streamed.rebuilt.inconsistent}`;
      if (c.rendering.mode === "after") {
        const disagreement = checkAfter(c, where, plain, streamed);
        if (disagreement) return disagreement;
        continue;
      }
      if (streamed.rebuilt && allText(streamed.rebuilt).includes(SSN)) return `${where}: the stream delivered the SSN`;
      if (plain.status === 446) {
        if (streamed.status === 446 || (streamed.status === 200 && streamed.rebuilt?.error !== undefined)) continue;
        return `${where}: JSON denied, the stream did not (${streamed.body.slice(0, 300)})`;
      }
      if (streamed.status !== 200 || !streamed.rebuilt) return `${where}: ${streamed.body.slice(0, 300)}`;
      if (streamed.rebuilt.error !== undefined) {
        // Anthropic tool input with escapes cannot be redacted in place: the stream fails closed, saying so.
        const refusable = policy === "redact" && c.answer.kind === "messages" && c.answer.escape;
        if (refusable && streamed.rebuilt.error.includes("cannot be rewritten in place")) continue;
        return `${where}: the stream ended with an error: ${streamed.rebuilt.error}`;
      }
      if (!streamed.rebuilt.completed) return `${where}: the stream did not complete`;
      const a = JSON.stringify([...plain.rebuilt!.choices.entries()].sort(([x], [y]) => x - y));
      const b = JSON.stringify([...streamed.rebuilt.choices.entries()].sort(([x], [y]) => x - y));
      if (a !== b) return `${where}: delivered texts differ\n json:   ${a}\n stream: ${b}`;
      const verdicts = sameVerdicts(where, plain, streamed);
      if (verdicts) return verdicts;
    }
    return undefined;
  }

  return {
    gateway,
    upstream,
    check,
    close: async () => {
      await gateway.close();
      await upstream.close();
    },
  };
}
