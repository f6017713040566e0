import { beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../index.js";
import { GatewayError } from "../errors.js";
import { ENDPOINTS, type Endpoint } from "../formats/endpoints.js";
import { RoutingResolver } from "../routing/resolver.js";
import { InMemoryConfigSource, InMemoryScopedGuardrailSource } from "../sources/memory.js";
import { type HookCall, HookIntake } from "./hook-open.js";
import { InferenceIntake, type IncomingRequest, metadataHeader, metadataOf } from "./open.js";

let engine: Engine;
let routing: RoutingResolver;
const identity = { id: "key-1", workspaceId: "team-a" };
const chat = ENDPOINTS.find((e) => e.route === "/v1/chat/completions") as Endpoint;
const signal = new AbortController().signal;
const short = { id: "short", deny: true, checks: [{ id: "default.wordCount", parameters: { maxWords: 3 } }] };

beforeAll(async () => {
  engine = await createEngine();
  routing = new RoutingResolver(
    engine,
    new InMemoryConfigSource([{ id: "support", config: { input_guardrails: [short] }, workspaceId: "team-a" }]),
  );
});

function incoming(
  headers: Record<string, string>,
  body: unknown = { messages: [{ role: "user", content: "hi" }] },
): IncomingRequest {
  return { id: "req-1", headers, body };
}

/** The refusal `read` throws, as `{status, code, message}`. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof GatewayError)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return { status: error.status, code: error.code, message: error.message };
}

describe("InferenceIntake", () => {
  it("opens a context that can be recorded before anything is read, then reads headers, routing and metadata into it", async () => {
    const intake = new InferenceIntake(routing);
    const request = incoming({
      "x-gateway-config": "support",
      "x-gateway-metadata": '{"user":"u1"}',
      "x-gateway-strict-compliance": "false",
      "x-gateway-provider": "openai",
      authorization: "Bearer sk-caller",
    });
    const opened = intake.open(chat, request, identity, signal);
    expect(opened).toMatchObject({ id: "req-1", identity, stream: false, strict: true, metadata: {} });
    expect(opened.routing.configId).toBeUndefined();
    const ctx = await intake.read(opened, request.body);
    // Reading makes a new context: the opened one, which a refusal is recorded with, stays as it was.
    expect(opened.strict).toBe(true);
    expect(ctx.strict).toBe(false);
    expect(ctx.metadata).toEqual({ user: "u1" });
    expect(ctx.headerProvider).toEqual({ provider: "openai" });
    expect(ctx.caller).toEqual({ authorization: "Bearer sk-caller" });
    expect(ctx.routing.configId).toBe("support");
    expect(ctx.routing.root.input.sync.map((g) => g.id)).toEqual(["short"]);
  });

  it("refuses, in order, a body that is no object, a body without its route's field, a bad header, an unknown config, bad metadata", async () => {
    const intake = new InferenceIntake(routing);
    // Async, so a refusal thrown at once reads as the rejection it becomes in the pipeline.
    const read = async (request: IncomingRequest) => intake.read(intake.open(chat, request, identity, signal), request.body);
    expect(await refusal(read(incoming({}, "text")))).toMatchObject({ status: 400, code: "invalid_request" });
    expect(await refusal(read(incoming({ "x-gateway-strict-compliance": "maybe" }, { model: "m" })))).toEqual({
      status: 400,
      code: "invalid_request",
      message: "messages: is required",
    });
    expect(await refusal(read(incoming({ "x-gateway-strict-compliance": "maybe", "x-gateway-config": "nope" })))).toEqual({
      status: 400,
      code: "invalid_header",
      message: "x-gateway-strict-compliance: must be true or false",
    });
    expect(await refusal(read(incoming({ "x-gateway-config": "nope", "x-gateway-metadata": "[" })))).toMatchObject({
      status: 404,
      code: "unknown_config",
    });
    expect(await refusal(read(incoming({ "x-gateway-metadata": '{"n":1}' })))).toEqual({
      status: 400,
      code: "invalid_metadata",
      message: "x-gateway-metadata.n: must be a string, not number",
    });
  });

  it("gives requests that name no provider and carry no credential one shared empty value each, read-only", async () => {
    const intake = new InferenceIntake(routing);
    // Async, so a refusal thrown at once reads as the rejection it becomes in the pipeline.
    const read = async (request: IncomingRequest) => intake.read(intake.open(chat, request, identity, signal), request.body);
    const first = await read(incoming({}));
    const second = await read(incoming({ "x-api-key": "sk-own" }));
    expect(first.caller).toEqual({});
    expect(Object.isFrozen(first.caller)).toBe(true);
    expect(second.caller).toEqual({ apiKey: "sk-own" });
    const third = await read(incoming({}));
    expect(third.caller).toBe(first.caller);
    expect(third.headerProvider).toBe(first.headerProvider);
    expect(third.metadata).not.toBe(first.metadata);
  });
});

describe("HookIntake", () => {
  const call = (overrides: Partial<HookCall>): HookCall => ({
    identity,
    side: "input",
    requestType: undefined,
    requestTypeField: "request_type",
    request: { messages: [{ role: "user", content: "hi" }] },
    response: undefined,
    metadata: undefined,
    headers: { "x-team": "a", authorization: "Bearer secret" },
    peer: false,
    ...overrides,
  });
  let intake: HookIntake;
  beforeAll(() => {
    intake = new HookIntake({ registry: engine.registry, routing, guardrails: new InMemoryScopedGuardrailSource([short]) });
  });

  it("reads a guardrail list and a config the same way, each saying where its guardrails came from", async () => {
    const listed = await intake.read(call({ guardrails: ["short", { wordCount: { minWords: 1 } }] }));
    expect(listed.guardrails.map((g) => g.id)).toEqual(["short", expect.any(String)]);
    expect(listed.origin).toEqual({ inline: [listed.guardrails[1]?.id] });
    const configured = await intake.read(call({ config: "support" }));
    expect(configured.guardrails.map((g) => g.id)).toEqual(["short"]);
    expect(configured.origin).toEqual({ configId: "support", inline: [] });
    // Credentials never reach checks.
    expect(configured.phase).toMatchObject({ requestType: "chatComplete", headers: { "x-team": "a" }, workspaceId: "team-a" });
    expect(configured.phase.headers.authorization).toBeUndefined();
  });

  it("on the peer's webhook, makes every guardrail count, drops metadata that is not a string and shows checks no headers", async () => {
    const ctx = await intake.read(
      call({
        guardrails: [{ id: "later", async: true, wordCount: { maxWords: 3 } }],
        metadata: { user: "u1", n: 1 },
        requestType: "complete",
        requestTypeField: "requestType",
        provider: "openai",
        peer: true,
      }),
    );
    expect(ctx.guardrails.map((g) => g.async)).toEqual([false]);
    expect(ctx.phase).toEqual({
      requestType: "complete",
      metadata: { user: "u1" },
      headers: {},
      provider: "openai",
      workspaceId: "team-a",
    });
  });

  it("refuses a request type it does not know, naming the field that named it", async () => {
    expect(await refusal(intake.read(call({ config: "support", requestType: "chat", requestTypeField: "requestType" })))).toEqual(
      {
        status: 400,
        code: "invalid_request_type",
        message: 'requestType: "chat" is not one of chatComplete, complete, embed, messages, responses',
      },
    );
  });
});

describe("metadata", () => {
  it("is one reading: strict refuses what is not an object of strings, naming where; lenient drops it", () => {
    const good = { a: "1" };
    expect(metadataOf(good, "metadata", true)).toBe(good);
    expect(() => metadataOf({ a: 1 }, "metadata", true)).toThrow("metadata.a: must be a string, not number");
    expect(() => metadataOf(["a"], "metadata", true)).toThrow("metadata: must be a JSON object of strings");
    expect(metadataOf({ a: "1", b: 2 }, "metadata", false)).toEqual({ a: "1" });
    expect(metadataOf("text", "metadata", false)).toEqual({});
    expect(metadataHeader("  ")).toEqual({});
    expect(() => metadataHeader("{")).toThrow(/^x-gateway-metadata: is not valid JSON/);
  });
});
