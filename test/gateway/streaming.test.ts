/**
 * Streaming (spec §6) over raw HTTP: passthrough of split reads and split characters, hook_results
 * events, statuses decided before the first byte, output guardrails on the streamed text only,
 * and upstream streams that break, stall, or are abandoned by the client.
 */
import { describe, expect, it } from "vitest";
import { streamEvents } from "../support/fake-upstream.js";
import { gatewayHeaders, useGatewayWithUpstream } from "../support/gateway.js";

const fixture = useGatewayWithUpstream();

interface Event {
  event?: string;
  data: string;
}

function parseEvents(text: string): Event[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join("\n");
      return event === undefined ? { data } : { event, data };
    });
}

const chatText = (events: Event[]) =>
  events
    .filter((e) => e.data.startsWith("{") && !e.data.startsWith('{"hook_results"') && !e.data.startsWith('{"error"'))
    .map((e) => (JSON.parse(e.data) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? "")
    .join("");

async function stream(
  config: Record<string, unknown>,
  content: string,
  extra: Record<string, string> = {},
  route = "/v1/chat/completions",
) {
  const response = await fetch(`${fixture.gateway.url}${route}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...gatewayHeaders({ provider: "openai", custom_host: fixture.upstream.baseUrl, ...config }, extra),
    },
    body: JSON.stringify(
      route === "/v1/completions"
        ? { model: "m", prompt: content, stream: true }
        : { model: "m", stream: true, messages: [{ role: "user", content }] },
    ),
  });
  const text = await response.text();
  return { response, text, events: parseEvents(text), id: response.headers.get("x-gateway-request-id") };
}

const loose = { "x-gateway-strict-compliance": "false" };

describe("stream passthrough", () => {
  it("relays an upstream stream split into 1-byte reads, multi-byte characters intact", async () => {
    const text = "naïve café — 日本語のテキスト 🎉🎉 done";
    fixture.upstream.enqueue({ kind: "answer", text, chunkBytes: 1 });
    const config = { output_guardrails: [{ regexMatch: { rule: "日本語" } }] };
    const { response, events } = await stream(config, "go", loose);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(chatText(events)).toBe(text);
    expect(events.at(-1)?.data).toBe("[DONE]");
    const last = JSON.parse(events.at(-2)?.data ?? "{}") as {
      hook_results: { after_request_hooks: Array<{ verdict: boolean }> };
    };
    expect(last.hook_results.after_request_hooks[0]?.verdict).toBe(true);
  });

  it("passes the upstream's own bytes through unchanged when no guardrail is attached", async () => {
    const { text } = await stream({}, "byte for byte");
    expect(text).toBe(streamEvents("/v1/chat/completions", { model: "m" }, "echo: byte for byte").join(""));
  });

  it("streams completions with hook_results chunks", async () => {
    const config = { input_guardrails: [{ wordCount: { minWords: 1 } }], output_guardrails: [{ wordCount: { minWords: 1 } }] };
    const { events } = await stream(config, "complete this", loose, "/v1/completions");
    expect(events[0]?.data).toContain('"before_request_hooks"');
    expect(events.at(-2)?.data).toContain('"after_request_hooks"');
    expect(events.at(-1)?.data).toBe("[DONE]");
  });
});

describe("statuses on streams", () => {
  it("starts the stream with 246 when an input guardrail without deny fails", async () => {
    const { response, events } = await stream({ input_guardrails: [{ wordCount: { minWords: 50 } }] }, "too short", loose);
    expect(response.status).toBe(246);
    expect(JSON.parse(events[0]?.data ?? "{}").hook_results.before_request_hooks[0].verdict).toBe(false);
  });

  it("answers 446 as JSON before any byte is streamed, without calling the upstream", async () => {
    const { response, text } = await stream(
      { input_guardrails: [{ deny: true, wordCount: { minWords: 50 } }] },
      "too short",
      loose,
    );
    expect(response.status).toBe(446);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(JSON.parse(text).error.type).toBe("hooks_failed");
    expect(fixture.upstream.requests).toHaveLength(0);
  });

  it("returns an upstream error status as JSON, and falls back on it", async () => {
    fixture.upstream.enqueue({ kind: "json", status: 503, body: { error: { message: "down" } } });
    const { response, events } = await stream(
      { strategy: { mode: "fallback" }, targets: [{ override_params: { model: "a" } }, { override_params: { model: "b" } }] },
      "fall back",
    );
    expect(response.status).toBe(200);
    expect(chatText(events)).toBe("echo: fall back");
    expect(fixture.upstream.requests.map((r) => r.body.model)).toEqual(["a", "b"]);
  });
});

describe("output guardrails on streams", () => {
  it("never evaluate an empty text, and the log says so; a stream of tool calls only is checked on its arguments", async () => {
    const chunk = (delta: unknown) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
    const toolChunk = (args: string) => chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] });
    const config = { output_guardrails: [{ deny: true, wordCount: { minWords: 1 } }] };
    fixture.upstream.enqueue({ kind: "events", events: [chunk({ role: "assistant" }), chunk({}), "data: [DONE]\n\n"] });
    const empty = await stream(config, "say nothing", loose);
    expect(empty.events.filter((e) => e.data.includes('"after_request_hooks"'))).toHaveLength(0);
    expect(empty.events.at(-1)?.data).toBe("[DONE]");
    const record = await fixture.gateway.logs.waitFor((r) => r.id === empty.id);
    expect(record.stream_output_skipped).toBe(true);
    expect(record.hook_results.after_request_hooks).toEqual([]);

    fixture.upstream.enqueue({ kind: "events", events: [toolChunk('{"city"'), toolChunk(':"Oslo"}'), "data: [DONE]\n\n"] });
    const tools = await stream(config, "call a tool", loose);
    const [hooks] = tools.events.filter((e) => e.data.includes('"after_request_hooks"'));
    expect(JSON.parse(hooks?.data ?? "{}").hook_results.after_request_hooks[0]).toMatchObject({ verdict: true });
    expect(tools.events.at(-1)?.data).toBe("[DONE]");
    expect((await fixture.gateway.logs.waitFor((r) => r.id === tools.id)).stream_output_skipped).toBeUndefined();
  });

  it("in after mode, an output deny is reported in the last event and recorded, the text having gone out", async () => {
    fixture.upstream.defaultText = "leaking the secret now";
    const { response, events, id } = await stream(
      { output_guardrails: [{ deny: true, stream_mode: "after", regexMatch: { rule: "secret", not: true } }] },
      "x",
      loose,
    );
    expect(response.status).toBe(200);
    expect(chatText(events)).toBe("leaking the secret now");
    expect(JSON.parse(events.at(-2)?.data ?? "{}").hook_results.after_request_hooks[0]).toMatchObject({
      verdict: false,
      deny: true,
    });
    expect((await fixture.gateway.logs.waitFor((r) => r.id === id)).stream_output_denied).toBe(true);
  });

  it("asynchronous output guardrails run on the streamed text and report to the log only", async () => {
    const { events, id } = await stream(
      { output_guardrails: [{ async: true, wordCount: { maxWords: 1 } }] },
      "several words here",
      loose,
    );
    expect(events.some((e) => e.data.includes("hook_results"))).toBe(false);
    const record = await fixture.gateway.logs.waitFor((r) => r.id === id);
    expect(record.hook_results.after_request_hooks[0]).toMatchObject({ async: true, verdict: false });
  });
});

describe("broken streams", () => {
  it("ends the relayed stream when the upstream resets mid-way, and logs the failure", async () => {
    fixture.upstream.enqueue({ kind: "stream-break", after: 3, ending: "reset" });
    const { response, events, id } = await stream({ output_guardrails: [{ wordCount: { minWords: 1 } }] }, "x", loose);
    expect(response.status).toBe(200);
    expect(chatText(events)).toBe("one two three ");
    expect(events.some((e) => e.data === "[DONE]")).toBe(false);
    expect(JSON.parse(events.at(-1)?.data ?? "{}").error.code).toBe("upstream_unreachable");
    const record = await fixture.gateway.logs.waitFor((r) => r.id === id);
    expect(record.error?.code).toBe("upstream_unreachable");
  });

  it("ends the relayed stream when the upstream stalls past request_timeout", async () => {
    fixture.upstream.enqueue({ kind: "stream-break", after: 2, ending: "stall" });
    const { events, id } = await stream({ request_timeout: 300 }, "x");
    expect(chatText(events)).toBe("one two ");
    expect(JSON.parse(events.at(-1)?.data ?? "{}").error.code).toBe("upstream_timeout");
    expect((await fixture.gateway.logs.waitFor((r) => r.id === id)).error?.code).toBe("upstream_timeout");
  });

  it("hangs up on the upstream when the client goes away mid-stream", async () => {
    fixture.upstream.enqueue({ kind: "stream-break", after: 2, ending: "stall" });
    const controller = new AbortController();
    const response = await fetch(`${fixture.gateway.url}/v1/chat/completions`, {
      method: "POST",
      signal: controller.signal,
      headers: {
        "content-type": "application/json",
        ...gatewayHeaders({ provider: "openai", custom_host: fixture.upstream.baseUrl }),
      },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    const deadline = Date.now() + 5000;
    while (fixture.upstream.abandoned === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fixture.upstream.abandoned).toBeGreaterThanOrEqual(1);
  });
});

describe("the mock provider", () => {
  it("streams mock_response in the endpoint's format", async () => {
    const response = await fetch(`${fixture.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...gatewayHeaders(undefined, loose) },
      body: JSON.stringify({
        model: "@mock/anything",
        stream: true,
        mock_response: "mocked words",
        messages: [{ role: "user", content: "x" }],
      }),
    });
    expect(chatText(parseEvents(await response.text()))).toBe("mocked words");
  });
});
