/**
 * Policies a client cannot skip, end to end through the official `openai` and `@anthropic-ai/sdk`
 * clients against a managed gateway on a real socket, with the organisation's providers on a fake
 * upstream: a policy's output guardrails hold every streamed route whatever the client's config
 * says, and a model-scoped policy holds every target that calls a model in its scope, however the
 * request names the provider.
 */
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";

let gw: ManagedTestGateway;
let upstream: FakeUpstream;
let baseUrl: string;
let admin: string;

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
  gw = await startManaged();
  admin = gw.keys.admin_key;
  await gw.app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
  // The organisation's stored keys: `@scr` (OpenAI format) and `@scra` (Anthropic format).
  for (const [slug, provider] of [
    ["scr", "openai"],
    ["scra", "anthropic"],
  ] as const) {
    const created = await gw.call("POST", "/admin/v1/integrations", {
      key: admin,
      body: { slug, provider, base_url: upstream.baseUrl, credentials: { api_key: `sk-org-${slug}` } },
    });
    expect(created.status).toBe(201);
    const provisioned = await gw.call("PUT", `/admin/v1/integrations/${created.body.id}/workspaces/${gw.keys.workspace_id}`, {
      key: admin,
      body: {},
    });
    expect(provisioned.status).toBe(200);
  }
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

beforeEach(async () => {
  upstream.reset();
  const listed = await gw.call("GET", "/admin/v1/policies", { key: admin });
  for (const policy of listed.body.data as Array<{ id: string }>) {
    expect((await gw.call("DELETE", `/admin/v1/policies/${policy.id}`, { key: admin })).status).toBe(204);
  }
});

function headers(config?: unknown, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "x-gateway-api-key": gw.keys.api_key,
    ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }),
    ...extra,
  };
}

function openai(config?: unknown, extra?: Record<string, string>): OpenAI {
  return new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: "sk-unused", maxRetries: 0, defaultHeaders: headers(config, extra) });
}

function anthropic(config?: unknown, extra?: Record<string, string>): Anthropic {
  return new Anthropic({ baseURL: baseUrl, apiKey: "sk-unused", maxRetries: 0, defaultHeaders: headers(config, extra) });
}

/** What a call came to: the text the client received and the status of the error that ended it, if any. */
interface Received {
  text: string;
  status?: number;
}

async function received(run: (into: { text: string }) => Promise<void>): Promise<Received> {
  const into = { text: "" };
  try {
    await run(into);
    return { text: into.text };
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (typeof status !== "number") throw error;
    return { text: into.text, status };
  }
}

type Route = "chat" | "completions" | "messages" | "responses";
const ROUTES: readonly Route[] = ["chat", "completions", "messages", "responses"];

/** One call of a route through its SDK, streamed or not, with the provider named by `model`. */
function call(route: Route, stream: boolean, content: string, model: string, config?: unknown, extra?: Record<string, string>) {
  return received(async (into) => {
    if (route === "chat") {
      const client = openai(config, extra);
      const body = { model, messages: [{ role: "user" as const, content }] };
      if (!stream) {
        into.text = (await client.chat.completions.create(body)).choices[0]?.message.content ?? "";
        return;
      }
      for await (const chunk of await client.chat.completions.create({ ...body, stream: true }))
        into.text += chunk.choices[0]?.delta.content ?? "";
    } else if (route === "completions") {
      const client = openai(config, extra);
      const body = { model, prompt: content };
      if (!stream) {
        into.text = (await client.completions.create(body)).choices[0]?.text ?? "";
        return;
      }
      for await (const chunk of await client.completions.create({ ...body, stream: true }))
        into.text += chunk.choices[0]?.text ?? "";
    } else if (route === "responses") {
      const client = openai(config, extra);
      const body = { model, input: content };
      if (!stream) {
        into.text = (await client.responses.create(body)).output_text;
        return;
      }
      for await (const event of await client.responses.create({ ...body, stream: true }))
        if (event.type === "response.output_text.delta") into.text += event.delta;
    } else {
      const client = anthropic(config, extra);
      const body = { model, max_tokens: 64, messages: [{ role: "user" as const, content }] };
      if (!stream) {
        const message = await client.messages.create(body);
        into.text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
        return;
      }
      for await (const event of await client.messages.create({ ...body, stream: true }))
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") into.text += event.delta.text;
    }
  });
}

const slugOf = (route: Route) => (route === "messages" ? "@scra" : "@scr");

async function savePolicy(body: Record<string, unknown>) {
  const saved = await gw.call("POST", "/admin/v1/policies", { key: admin, body });
  expect(saved.status).toBe(201);
}

describe("a policy's output guardrails hold streams whatever the client's config says", () => {
  it("denies on every route, streamed and not: the denied text never reaches the client", async () => {
    await savePolicy({
      id: "no-falcon",
      output_guardrails: [
        { id: "falcon", async: false, deny: true, "default.contains": { operator: "none", words: ["falcon"] } },
      ],
    });
    upstream.defaultText = "the plan is called project falcon";
    for (const route of ROUTES) {
      for (const stream of [false, true]) {
        const answer = await call(route, stream, "what is the plan?", `${slugOf(route)}/m`);
        expect({ route, stream, ...answer }).toEqual({ route, stream, text: "", status: 446 });
      }
    }
    // A client config with output guardrails of its own that only report, or naming the loosest
    // stream mode for its guardrails, does not loosen the policy's hold.
    const reporting = { output_guardrails: [{ id: "words", "default.wordCount": { minWords: 1 } }] };
    for (const config of [reporting, { ...reporting, stream_mode: "after" }, { stream_mode: "after" }]) {
      for (const route of ROUTES) {
        const answer = await call(route, true, "what is the plan?", `${slugOf(route)}/m`, config);
        expect({ config, route, ...answer }).toEqual({ config, route, text: "", status: 446 });
      }
    }
  });

  it("redacts on every route, streamed and not", async () => {
    await savePolicy({
      id: "mask-ssn",
      output_guardrails: [
        { id: "ssn", async: false, "default.regexReplace": { rule: "\\d{3}-\\d{2}-\\d{4}", redactText: "[SSN]" } },
      ],
    });
    upstream.defaultText = "your number is 123-45-6789 as asked";
    for (const route of ROUTES) {
      for (const stream of [false, true]) {
        const answer = await call(route, stream, "my number?", `${slugOf(route)}/m`);
        expect({ route, stream, ...answer }).toEqual({ route, stream, text: "your number is [SSN] as asked" });
      }
    }
  });
});

describe("a model-scoped policy holds every target that calls a model in its scope", () => {
  const LONG = "far too many words for this policy";
  beforeEach(async () => {
    await savePolicy({
      id: "scr-only",
      scope: { models: ["@scr/*", "@scra/*"] },
      input_guardrails: [{ id: "short", async: false, deny: true, "default.wordCount": { maxWords: 3 } }],
    });
  });

  /** The seven ways a request may name the organisation's `@scr` provider without writing `@scr/` in its model. */
  const WAYS: ReadonlyArray<{ way: string; model: string; config?: unknown; headers?: Record<string, string> }> = [
    { way: "x-gateway-virtual-key header", model: "gpt-4o", headers: { "x-gateway-virtual-key": "scr" } },
    { way: "x-gateway-provider: @scr", model: "gpt-4o", headers: { "x-gateway-provider": "@scr" } },
    { way: "config virtual_key", model: "gpt-4o", config: { virtual_key: "scr" } },
    {
      way: "targets: [{provider: @scr}]",
      model: "gpt-4o",
      config: { strategy: { mode: "single" }, targets: [{ provider: "@scr" }] },
    },
    {
      way: "targets[].override_params.model",
      model: "@mock/m",
      config: { strategy: { mode: "single" }, targets: [{ override_params: { model: "@scr/gpt-4o" } }] },
    },
    { way: "root override_params.model", model: "@mock/m", config: { override_params: { model: "@scr/gpt-4o" } } },
    {
      way: "a fallback target",
      model: "gpt-4o",
      config: { strategy: { mode: "fallback" }, targets: [{ virtual_key: "no-such-provider" }, { provider: "@scr" }] },
    },
  ];

  for (const { way, model, config, headers: extra } of WAYS) {
    it(`is not skipped through ${way}, streamed or not`, async () => {
      for (const stream of [false, true]) {
        const denied = await call("chat", stream, LONG, model, config, extra);
        expect({ stream, ...denied }).toEqual({ stream, text: "", status: 446 });
      }
      // The organisation's key was never used for the denied request.
      expect(upstream.requests).toHaveLength(0);
      const passed = await call("chat", false, "two words", model, config, extra);
      expect(passed).toEqual({ text: "echo: two words" });
      expect(upstream.requests[0]?.headers.authorization).toBe("Bearer sk-org-scr");
    });
  }

  it("holds the completions and messages routes too, and leaves models out of scope alone", async () => {
    for (const stream of [false, true]) {
      expect((await call("completions", stream, LONG, "gpt-4o", { virtual_key: "scr" })).status).toBe(446);
      expect((await call("messages", stream, LONG, "claude", undefined, { "x-gateway-provider": "@scra" })).status).toBe(446);
      expect((await call("chat", stream, LONG, "@mock/m")).status).toBeUndefined();
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it("holds the responses route too, streamed and not", async () => {
    for (const stream of [false, true]) {
      expect((await call("responses", stream, LONG, "gpt-4o", { virtual_key: "scr" })).status).toBe(446);
      expect((await call("responses", stream, LONG, "@scr/gpt-4o")).status).toBe(446);
    }
    expect(upstream.requests).toHaveLength(0);
    expect(await call("responses", true, "two words", "@scr/gpt-4o")).toEqual({ text: "echo: two words" });
    expect(upstream.requests[0]?.headers.authorization).toBe("Bearer sk-org-scr");
  });
});
