/**
 * End to end through the official `@anthropic-ai/sdk` client on `/v1/messages`, and the streamed
 * `hook_results` event read over raw HTTP (spec §6: provider SDKs do not surface it).
 */
import Anthropic, { APIError } from "@anthropic-ai/sdk";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
  gateway = await startGateway({
    file: { providers: [{ slug: "claude", provider: "anthropic", base_url: upstream.baseUrl, api_key: "sk-ant-server-secret" }] },
  });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

beforeEach(() => upstream.reset());

function client(config?: unknown, headers: Record<string, string> = {}): Anthropic {
  return new Anthropic({
    baseURL: gateway.url,
    apiKey: "sk-ant-client-key",
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": API_KEY,
      ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }),
      ...headers,
    },
  });
}

const viaFake = () => ({ provider: "anthropic", custom_host: upstream.baseUrl });
const ask = (content: string) => ({ model: "claude-test", max_tokens: 64, messages: [{ role: "user" as const, content }] });
type HookResults = { before_request_hooks: Array<Record<string, unknown>>; after_request_hooks: Array<Record<string, unknown>> };

describe("guardrails through the Anthropic SDK", () => {
  it("passes with 200, forwarding the caller's x-api-key to a named provider", async () => {
    const config = { ...viaFake(), output_guardrails: [{ wordCount: { minWords: 1 } }] };
    const { data, response } = await client(config).messages.create(ask("hello claude")).withResponse();
    expect(response.status).toBe(200);
    expect(data.content[0]).toMatchObject({ type: "text", text: "echo: hello claude" });
    expect((data as unknown as { hook_results: HookResults }).hook_results.after_request_hooks[0]).toMatchObject({
      verdict: true,
    });
    expect(upstream.requests[0]?.headers["x-api-key"]).toBe("sk-ant-client-key");
    expect(upstream.requests[0]?.headers["anthropic-version"]).toBeDefined();
    expect(upstream.requests[0]?.path).toBe("/v1/messages");
  });

  it("answers 246 on a failed guardrail without deny", async () => {
    const config = { ...viaFake(), input_guardrails: [{ wordCount: { minWords: 10 } }] };
    const { response } = await client(config).messages.create(ask("short")).withResponse();
    expect(response.status).toBe(246);
  });

  it("denies with 446 in the Anthropic envelope, with hook_results, and no upstream call", async () => {
    const config = { ...viaFake(), input_guardrails: [{ deny: true, regexMatch: { rule: "(?i)password", not: true } }] };
    const error = (await client(config)
      .messages.create(ask("my password is hunter2"))
      .catch((e: unknown) => e)) as APIError;
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(446);
    const body = error.error as { type: string; error: { type: string; message: string }; hook_results: HookResults };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("hooks_failed");
    expect(body.hook_results.before_request_hooks[0]).toMatchObject({ verdict: false, deny: true });
    expect(upstream.requests).toHaveLength(0);
  });

  it("a 446's thrown APIError names the denying guardrails in error.error.guardrails and in x-gateway-denied-by", async () => {
    const config = {
      ...viaFake(),
      input_guardrails: [{ id: "no-passwords", deny: true, regexMatch: { rule: "(?i)password", not: true } }],
    };
    const input = (await client(config)
      .messages.create(ask("my password is hunter2"))
      .catch((e: unknown) => e)) as APIError;
    expect(input).toBeInstanceOf(APIError);
    // @anthropic-ai/sdk keeps the whole body as `error`: the envelope's `error` is inside it.
    const body = input.error as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({
      type: "hooks_failed",
      side: "input",
      guardrails: ["no-passwords"],
      checks: ["default.regexMatch"],
    });
    expect(input.headers?.get("x-gateway-denied-by")).toBe("no-passwords");

    upstream.defaultText = "a very long answer indeed";
    const outputConfig = {
      ...viaFake(),
      stream_mode: "buffer",
      output_guardrails: [{ id: "brief", deny: true, wordCount: { maxWords: 2 } }],
    };
    for (const stream of [false, true]) {
      const output = (await client(outputConfig)
        .messages.create({ ...ask("tell me"), stream })
        .catch((e: unknown) => e)) as APIError;
      expect(output).toBeInstanceOf(APIError);
      expect(output.status).toBe(446);
      expect((output.error as { error: Record<string, unknown> }).error).toMatchObject({ side: "output", guardrails: ["brief"] });
      expect(output.headers?.get("x-gateway-denied-by")).toBe("brief");
    }
  });

  it("a stream stopped mid-way raises an APIError whose error.error names the guardrail too", async () => {
    upstream.defaultText = `${"all is well here and now ".repeat(8)}the secret is out`;
    const config = {
      ...viaFake(),
      stream_mode: "window",
      stream_window: 20,
      output_guardrails: [{ id: "no-secrets", deny: true, regexMatch: { rule: "secret", not: true } }],
    };
    const stream = await client(config).messages.create({ ...ask("talk"), stream: true });
    let text = "";
    const error = await (async () => {
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      }
    })().catch((e: unknown) => e);
    expect(text).toContain("all is well");
    expect(text).not.toContain("secret");
    expect(error).toBeInstanceOf(APIError);
    expect(((error as APIError).error as { error: unknown }).error).toMatchObject({
      type: "hooks_failed",
      side: "output",
      guardrails: ["no-secrets"],
    });
  });

  it("uses the slug's own credential for @slug/model and drops the client's x-api-key", async () => {
    await client().messages.create({ ...ask("via slug"), model: "@claude/claude-slugged" });
    expect(upstream.requests[0]?.headers["x-api-key"]).toBe("sk-ant-server-secret");
    expect(upstream.requests[0]?.body.model).toBe("claude-slugged");
  });

  it("streams through the SDK, unchanged under strict compliance", async () => {
    const stream = await client(viaFake()).messages.create({ ...ask("stream me"), stream: true });
    let text = "";
    for await (const event of stream) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    }
    expect(text).toBe("echo: stream me");
  });

  it("sends hook_results events on a /v1/messages stream when strict compliance is off (raw HTTP)", async () => {
    const config = {
      ...viaFake(),
      input_guardrails: [{ wordCount: { minWords: 1 } }],
      output_guardrails: [{ deny: true, stream_mode: "after", regexMatch: { rule: "forbidden", not: true } }],
    };
    upstream.defaultText = "this is forbidden text";
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": API_KEY,
        "x-gateway-config": JSON.stringify(config),
        "x-gateway-strict-compliance": "false",
        "x-api-key": "sk-ant-client-key",
      },
      body: JSON.stringify({ ...ask("go"), stream: true }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const events = text
      .split("\n\n")
      .filter(Boolean)
      .map((block) => ({
        event: /^event: (.*)$/m.exec(block)?.[1],
        data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null") as Record<string, unknown>,
      }));
    const names = events.map((e) => e.event);
    // After message_start, which the SDK needs first: what comes before it never reaches its listeners.
    expect(names[0]).toBe("message_start");
    expect(names[1]).toBe("hook_results");
    expect(names.at(-1)).toBe("message_stop");
    expect(names.at(-2)).toBe("hook_results");
    const first = events[1]?.data.hook_results as HookResults;
    expect(first.before_request_hooks[0]).toMatchObject({ verdict: true });
    // In after mode the output deny cannot retract streamed text: the last hook event reports it.
    const last = events.at(-2)?.data.hook_results as HookResults;
    expect(last.after_request_hooks[0]).toMatchObject({ verdict: false, deny: true });
    const record = await gateway.logs.waitFor((r) => r.id === response.headers.get("x-gateway-request-id"));
    expect(record.stream_output_denied).toBe(true);
  });

  it.each([
    ["after", 1000],
    ["window", 4],
  ])(
    "delivers both hook_results events to messages.stream() listeners when strict compliance is off (%s mode, events split every %i bytes)",
    async (mode, chunkBytes) => {
      const config = {
        ...viaFake(),
        input_guardrails: [{ wordCount: { minWords: 1 } }],
        stream_window: 8,
        output_guardrails: [{ deny: true, stream_mode: mode, regexMatch: { rule: "forbidden", not: true } }],
      };
      upstream.enqueue({ kind: "answer", text: "a streamed answer in several words", chunkBytes });
      const stream = client(config, { "x-gateway-strict-compliance": "false" }).messages.stream(ask("go"));
      const hooks: HookResults[] = [];
      const types: string[] = [];
      stream.on("streamEvent", (event) => {
        const hook = (event as unknown as { hook_results?: HookResults }).hook_results;
        if (hook) hooks.push(hook);
        types.push(hook ? "hook_results" : event.type);
      });
      const message = await stream.finalMessage();
      expect(message.content[0]).toMatchObject({ type: "text", text: "a streamed answer in several words" });
      expect(types.slice(0, 2)).toEqual(["message_start", "hook_results"]);
      expect(types.at(-1)).toBe("message_stop");
      expect(hooks).toHaveLength(2);
      expect(hooks[0]!.before_request_hooks[0]).toMatchObject({ verdict: true });
      expect(hooks[1]!.after_request_hooks[0]).toMatchObject({ verdict: true });
    },
  );

  it("places the opening hook_results after message_start however the upstream's reads cut the stream, in every mode", async () => {
    const words = fc.array(fc.constantFrom("alpha", "beta", "gamma", "déjà", "vu", "😀"), { minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(
        words,
        fc.integer({ min: 1, max: 64 }),
        fc.constantFrom("after", "window", "buffer"),
        async (list, chunkBytes, mode) => {
          const text = list.join(" ");
          upstream.enqueue({ kind: "answer", text, chunkBytes });
          const config = {
            ...viaFake(),
            stream_window: 8,
            input_guardrails: [{ wordCount: { minWords: 1 } }],
            output_guardrails: [{ deny: true, stream_mode: mode, regexMatch: { rule: "forbidden", not: true } }],
          };
          const response = await fetch(`${gateway.url}/v1/messages`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-gateway-api-key": API_KEY,
              "x-gateway-config": JSON.stringify(config),
              "x-gateway-strict-compliance": "false",
              "x-api-key": "sk-ant-client-key",
            },
            body: JSON.stringify({ ...ask("go"), stream: true }),
          });
          const events = (await response.text())
            .split("\n\n")
            .filter(Boolean)
            .map((block) => ({
              event: /^event: (.*)$/m.exec(block)?.[1],
              data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null") as Record<string, unknown>,
            }));
          const names = events.map((e) => e.event);
          expect(names.slice(0, 2)).toEqual(["message_start", "hook_results"]);
          expect(names.filter((n) => n === "hook_results")).toHaveLength(2);
          expect(names.slice(-2)).toEqual(["hook_results", "message_stop"]);
          const streamed = events
            .filter((e) => e.event === "content_block_delta")
            .map((e) => (e.data.delta as { text: string }).text)
            .join("");
          expect(streamed).toBe(text);
        },
      ),
      { seed: 16, numRuns: 24 },
    );
  });
});
