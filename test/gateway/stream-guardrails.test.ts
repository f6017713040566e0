/**
 * Output guardrails that hold on streams, through the official `openai` and `@anthropic-ai/sdk`
 * streaming clients against a fake upstream speaking real SSE: a deny mid-stream stops the text
 * before the forbidden words and the SDK raises, a deny before the first byte is a 446, buffer mode
 * falls back like a non-streamed answer, a redaction reaches text split across chunks, and the
 * request log says when and by what a stream was stopped.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { API_KEY, headerJson, useGatewayWithUpstream } from "../support/gateway.js";

const fixture = useGatewayWithUpstream();

const FORBIDDEN = { id: "no-forbidden", deny: true, regexMatch: { rule: "forbidden", not: true } };

/** About `length` characters of filler words with `word` starting near character `at`. */
function textWith(word: string, at: number, length: number): string {
  const filler = (n: number) => "lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27)).slice(0, n);
  return `${filler(at)}${word} ${filler(length - at - word.length - 1)}`;
}

function openai(config: Record<string, unknown>, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    baseURL: `${fixture.gateway.url}/v1`,
    apiKey: "sk-client",
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": API_KEY,
      "x-gateway-config": headerJson({ provider: "openai", custom_host: fixture.upstream.baseUrl, ...config }),
      ...headers,
    },
  });
}

function anthropic(config: Record<string, unknown>): Anthropic {
  return new Anthropic({
    baseURL: fixture.gateway.url,
    apiKey: "sk-ant-client",
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": API_KEY,
      "x-gateway-config": headerJson({ provider: "anthropic", custom_host: fixture.upstream.baseUrl, ...config }),
    },
  });
}

/** Reads a chat stream through the SDK: the text received, and the error it raised, if any. */
async function readChat(client: OpenAI): Promise<{ text: string; error?: unknown; id?: string | null }> {
  let text = "";
  const { data: stream, response } = await client.chat.completions
    .create({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] })
    .withResponse();
  const id = response.headers.get("x-gateway-request-id");
  try {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  } catch (error) {
    return { text, error, id };
  }
  return { text, id };
}

const chatChunk = (content: string) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

describe("window mode (the default of a denying guardrail)", () => {
  it("stops a stream before a forbidden word at character 1,500 of 3,000; the SDK raises an error naming the guardrail", async () => {
    fixture.upstream.enqueue({ kind: "answer", text: textWith("forbidden", 1500, 3000) });
    const { text, error, id } = await readChat(openai({ output_guardrails: [FORBIDDEN] }));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain("no-forbidden");
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe("hooks_failed");
    expect(text).not.toContain("forb");
    expect(text.length).toBeGreaterThan(1000);
    expect(text.length).toBeLessThan(1500);
    const record = await fixture.gateway.logs.waitFor((r) => r.id === id);
    expect(record.stream_stop).toEqual({ guardrails: ["no-forbidden"], released_chars: text.length, mode: "window" });
    expect(record.error?.code).toBe("hooks_failed");
    expect(record.hook_results.after_request_hooks[0]).toMatchObject({ id: "no-forbidden", verdict: false, deny: true });
  });

  it("answers 446 before the stream starts when the forbidden word is in the first characters", async () => {
    fixture.upstream.enqueue({ kind: "answer", text: textWith("forbidden", 3, 3000) });
    const error = await readChat(openai({ output_guardrails: [FORBIDDEN] })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(446);
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe("hooks_failed");
  });

  it("answers the upstream's failure as JSON when it breaks off before any text was released", async () => {
    fixture.upstream.enqueue({ kind: "stream-break", after: 3, ending: "reset" });
    const error = await readChat(openai({ output_guardrails: [FORBIDDEN] })).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("upstream_unreachable");
  });

  it("ends the stream with an error the SDK raises when the upstream breaks off after text went out", async () => {
    fixture.upstream.enqueue({ kind: "stream-break", after: 300, ending: "reset", text: textWith("harmless", 1500, 3000) });
    const { text, error } = await readChat(openai({ output_guardrails: [FORBIDDEN] }));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("upstream_unreachable");
    expect(text.length).toBeGreaterThan(0);
  });

  it("puts hook_results in the error event when strict compliance is off", async () => {
    fixture.upstream.enqueue({ kind: "answer", text: textWith("forbidden", 1500, 3000) });
    const response = await fetch(`${fixture.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": API_KEY,
        "x-gateway-strict-compliance": "false",
        "x-gateway-config": headerJson({
          provider: "openai",
          custom_host: fixture.upstream.baseUrl,
          output_guardrails: [FORBIDDEN],
        }),
      },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const events = text.split("\n\n").filter(Boolean);
    // The check results may quote the rule; the streamed text never holds the word.
    expect(events.slice(0, -1).join("")).not.toContain("forbidden");
    expect(text).not.toContain("[DONE]");
    const last = JSON.parse(events.at(-1)?.slice("data: ".length) ?? "{}");
    expect(last.error).toMatchObject({ type: "hooks_failed", code: "hooks_failed" });
    expect(last.hook_results.after_request_hooks[0]).toMatchObject({ id: "no-forbidden", verdict: false });
  });

  it("relays a clean stream whole, with [DONE], in the upstream's chunks", async () => {
    const clean = textWith("harmless", 1500, 3000);
    fixture.upstream.enqueue({ kind: "answer", text: clean });
    const { text, error } = await readChat(openai({ output_guardrails: [FORBIDDEN] }));
    expect(error).toBeUndefined();
    expect(text).toBe(clean);
  });

  it("stops an Anthropic stream, and the SDK raises an error naming the guardrail", async () => {
    fixture.upstream.enqueue({ kind: "answer", text: textWith("forbidden", 1500, 3000) });
    let text = "";
    let error: unknown;
    try {
      const stream = anthropic({ output_guardrails: [FORBIDDEN] }).messages.stream({
        model: "claude",
        max_tokens: 100,
        messages: [{ role: "user", content: "go" }],
      });
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      }
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toContain("no-forbidden");
    expect(text.length).toBeGreaterThan(1000);
    expect(text).not.toContain("forb");
  });
});

describe("events besides text", () => {
  it("keeps tool-call chunks in their place among held text, and the upstream's usage chunk", async () => {
    const tool = (args: string) =>
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: args } }] }, finish_reason: null }] })}\n\n`;
    const usage = `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } })}\n\n`;
    fixture.upstream.enqueue({
      kind: "events",
      events: [chatChunk("Looking that up. "), tool('{"q":'), tool('"weather"}'), chatChunk("Done."), usage, "data: [DONE]\n\n"],
    });
    const stream = await openai({ output_guardrails: [FORBIDDEN] }).chat.completions.create({
      model: "m",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "go" }],
    });
    const seen: string[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (delta?.content) seen.push(`text:${delta.content}`);
      if (delta?.tool_calls) seen.push(`args:${delta.tool_calls[0]?.function?.arguments}`);
      if (chunk.usage) seen.push(`usage:${chunk.usage.total_tokens}`);
    }
    expect(seen).toEqual(["text:Looking that up. ", 'args:{"q":', 'args:"weather"}', "text:Done.", "usage:14"]);
  });
});

describe("buffer mode", () => {
  it("answers 446 and falls back to a second target, as a non-streamed answer would", async () => {
    fixture.upstream.enqueue(
      { kind: "answer", text: textWith("forbidden", 1500, 3000) },
      { kind: "answer", text: "a clean answer" },
    );
    const config = {
      strategy: { mode: "fallback", on_status_codes: [446] },
      output_guardrails: [{ ...FORBIDDEN, stream_mode: "buffer" }],
      targets: [{ override_params: { model: "a" } }, { override_params: { model: "b" } }],
    };
    const { text, error } = await readChat(openai(config));
    expect(error).toBeUndefined();
    expect(text).toBe("a clean answer");
    expect(fixture.upstream.requests.map((r) => r.body.model)).toEqual(["a", "b"]);
  });

  it("answers 446 before any byte when nothing falls back", async () => {
    fixture.upstream.enqueue({ kind: "answer", text: textWith("forbidden", 2900, 3000) });
    const error = await readChat(openai({ output_guardrails: [{ ...FORBIDDEN, stream_mode: "buffer" }] })).catch(
      (e: unknown) => e,
    );
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(446);
  });

  it("retries a 246 the output side caused, as for a JSON answer", async () => {
    fixture.upstream.enqueue({ kind: "answer", text: "too short" }, { kind: "answer", text: "a longer answer of seven words" });
    const config = {
      retry: { attempts: 1, on_status_codes: [246] },
      output_guardrails: [{ stream_mode: "buffer", wordCount: { minWords: 5 } }],
    };
    const { text, error } = await readChat(openai(config));
    expect(error).toBeUndefined();
    expect(text).toBe("a longer answer of seven words");
    expect(fixture.upstream.requests).toHaveLength(2);
  });

  it("starts the stream with a real 246 when a guardrail without deny fails", async () => {
    fixture.upstream.enqueue({ kind: "answer", text: "two words" });
    const response = await openai({ output_guardrails: [{ stream_mode: "buffer", wordCount: { minWords: 5 } }] })
      .chat.completions.create({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] })
      .asResponse();
    expect(response.status).toBe(246);
    expect(await response.text()).toContain('"content":"words"');
  });
});

describe("redaction on streams", () => {
  it("redacts an e-mail address split across three chunks", async () => {
    fixture.upstream.enqueue({
      kind: "events",
      events: [chatChunk("Please write to ali"), chatChunk("ce@exam"), chatChunk("ple.com about it today."), "data: [DONE]\n\n"],
    });
    const { text, error } = await readChat(
      openai({ output_guardrails: [{ pii: { categories: ["EMAIL_ADDRESS"], redact: true } }] }),
    );
    expect(error).toBeUndefined();
    expect(text).toBe("Please write to [EMAIL_ADDRESS] about it today.");
  });

  it("redacts in window mode over a long stream, chunk boundaries kept elsewhere", async () => {
    const before = textWith("x", 400, 800);
    const after = textWith("y", 400, 800);
    fixture.upstream.enqueue({ kind: "answer", text: `${before} bob@example.org ${after}` });
    const { text } = await readChat(openai({ output_guardrails: [{ pii: { categories: ["EMAIL_ADDRESS"], redact: true } }] }));
    expect(text).toBe(`${before} [EMAIL_ADDRESS] ${after}`);
  });
});

describe("redaction on the other routes", () => {
  it("redacts text-completion chunks on /v1/completions", async () => {
    const piece = (text: string) =>
      `data: ${JSON.stringify({ id: "cmpl", object: "text_completion", created: 1, model: "m", choices: [{ index: 0, text, finish_reason: null }] })}\n\n`;
    fixture.upstream.enqueue({ kind: "events", events: [piece("Call +1 415 55"), piece("5 0132 now."), "data: [DONE]\n\n"] });
    const stream = await openai({
      output_guardrails: [{ pii: { categories: ["PHONE_NUMBER"], redact: true } }],
    }).completions.create({
      model: "m",
      prompt: "go",
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
    expect(text).toBe("Call [PHONE_NUMBER] now.");
  });

  it("redacts an Anthropic stream read through the SDK", async () => {
    const delta = (text: string) =>
      `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })}\n\n`;
    const named = (name: string, value: Record<string, unknown>) =>
      `event: ${name}\ndata: ${JSON.stringify({ type: name, ...value })}\n\n`;
    fixture.upstream.enqueue({
      kind: "events",
      events: [
        named("message_start", {
          message: {
            id: "msg",
            type: "message",
            role: "assistant",
            model: "claude",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 3, output_tokens: 0 },
          },
        }),
        named("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
        delta("Mail carol@"),
        delta("example"),
        delta(".net for help."),
        named("content_block_stop", { index: 0 }),
        named("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 7 } }),
        named("message_stop", {}),
      ],
    });
    const message = await anthropic({ output_guardrails: [{ pii: { categories: ["EMAIL_ADDRESS"], redact: true } }] })
      .messages.stream({ model: "claude", max_tokens: 100, messages: [{ role: "user", content: "go" }] })
      .finalMessage();
    expect(message.content).toHaveLength(1);
    expect(message.content[0]).toMatchObject({ type: "text", text: "Mail [EMAIL_ADDRESS] for help." });
    expect(message.usage.output_tokens).toBe(7);
  });
});

describe("after mode", () => {
  it("streams the text freely and reports the deny, as before", async () => {
    fixture.upstream.enqueue({ kind: "answer", text: textWith("forbidden", 1500, 3000) });
    const { text, error, id } = await readChat(openai({ output_guardrails: [{ ...FORBIDDEN, stream_mode: "after" }] }));
    expect(error).toBeUndefined();
    expect(text).toContain("forbidden");
    const record = await fixture.gateway.logs.waitFor((r) => r.id === id);
    expect(record.stream_output_denied).toBe(true);
    expect(record.stream_stop).toBeUndefined();
  });

  it("a config-level stream_mode applies to guardrails that name none", async () => {
    fixture.upstream.enqueue({ kind: "answer", text: textWith("forbidden", 1500, 3000) });
    const { text, error } = await readChat(openai({ stream_mode: "after", output_guardrails: [FORBIDDEN] }));
    expect(error).toBeUndefined();
    expect(text).toContain("forbidden");
  });
});

describe("stream_mode in configs", () => {
  it.each([
    [{ output_guardrails: [{ ...FORBIDDEN, stream_mode: "later" }] }, "output_guardrails[0].stream_mode"],
    [{ stream_mode: "hold" }, "stream_mode"],
    [{ stream_window: 0 }, "stream_window"],
    [{ targets: [{ stream_mode: "window" }, { stream_mode: "all" }] }, "targets[1].stream_mode"],
  ])("refuses %j with a 400 naming %s", async (config, where) => {
    const error = await readChat(openai(config)).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as Error).message).toContain(where);
  });
});
