/**
 * Every deterministic check of the default plugin, with its first example's parameters, in every
 * request shape the engine evaluates, on each side the check declares: the engine must return a
 * well-formed result with no error, and a transform must leave a body of the same shape. New
 * checks are picked up from the registry without changes here.
 */
import { describe, expect, it } from "vitest";
import { type CheckInfo, type CheckResult, createEngine, locateText, type RequestType, type Side } from "../index.js";

const engine = await createEngine();
const checks: CheckInfo[] = engine.checks().filter((c) => c.plugin === "default" && c.kind === "deterministic");

const image = { type: "image_url", image_url: { url: "https://example.com/cat.png" } };
const anthropicImage = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };

/** One request or response shape: its request type and the bodies for a text. */
interface Shape {
  name: string;
  side: Side;
  requestType: RequestType;
  bodies(text: string): { request: unknown; response?: unknown };
}

const chatRequest = { model: "gpt-4o", messages: [{ role: "user", content: "Hi" }] };
const messagesRequest = { model: "claude", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] };

const SHAPES: Shape[] = [
  {
    name: "chat, string content",
    side: "input",
    requestType: "chatComplete",
    bodies: (text) => ({
      request: {
        model: "gpt-4o",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: text },
        ],
      },
    }),
  },
  {
    name: "chat, content parts (image first)",
    side: "input",
    requestType: "chatComplete",
    bodies: (text) => ({
      request: {
        model: "gpt-4o",
        messages: [{ role: "user", content: [image, { type: "text", text }, { type: "text", text: "Thanks." }] }],
      },
    }),
  },
  {
    name: "completions, prompt string",
    side: "input",
    requestType: "complete",
    bodies: (text) => ({ request: { model: "m", prompt: text } }),
  },
  {
    name: "completions, prompt array",
    side: "input",
    requestType: "complete",
    bodies: (text) => ({ request: { model: "m", prompt: [text, "A second prompt."] } }),
  },
  {
    name: "embeddings, input string",
    side: "input",
    requestType: "embed",
    bodies: (text) => ({ request: { model: "e", input: text } }),
  },
  {
    name: "embeddings, input array",
    side: "input",
    requestType: "embed",
    bodies: (text) => ({ request: { model: "e", input: [text, "another"] } }),
  },
  {
    name: "messages, string content",
    side: "input",
    requestType: "messages",
    bodies: (text) => ({
      request: { model: "claude", max_tokens: 100, system: "Be brief.", messages: [{ role: "user", content: text }] },
    }),
  },
  {
    name: "messages, content blocks (image first)",
    side: "input",
    requestType: "messages",
    bodies: (text) => ({
      request: {
        model: "claude",
        max_tokens: 100,
        messages: [{ role: "user", content: [anthropicImage, { type: "text", text }] }],
      },
    }),
  },
  {
    name: "chat completion response",
    side: "output",
    requestType: "chatComplete",
    bodies: (text) => ({
      request: chatRequest,
      response: {
        id: "c",
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      },
    }),
  },
  {
    name: "completions response",
    side: "output",
    requestType: "complete",
    bodies: (text) => ({
      request: { model: "m", prompt: "Hi" },
      response: { id: "c", choices: [{ index: 0, text, finish_reason: "stop" }] },
    }),
  },
  {
    name: "messages response",
    side: "output",
    requestType: "messages",
    bodies: (text) => ({
      request: messagesRequest,
      response: { id: "m", type: "message", role: "assistant", content: [{ type: "text", text }], stop_reason: "end_turn" },
    }),
  },
];

const SAMPLE_TEXT = "Hello there. This is a sample text with 42 words or so.";

function expectWellFormed(result: CheckResult | undefined, id: string): void {
  expect(result).toBeDefined();
  const r = result as CheckResult;
  expect(r.error, JSON.stringify(r.error)).toBeUndefined();
  expect(r.id).toBe(id);
  expect(typeof r.verdict).toBe("boolean");
  expect(typeof r.data).toBe("object");
  expect(r.data).not.toBeNull();
  expect(Array.isArray(r.data)).toBe(false);
  expect(typeof r.execution_time).toBe("number");
  expect(r.execution_time).toBeGreaterThanOrEqual(0);
  expect(typeof r.transformed).toBe("boolean");
  expect(new Date(r.created_at).toISOString()).toBe(r.created_at);
  expect(r.log === null || typeof r.log === "string").toBe(true);
  expect(r.fail_on_error).toBe(false);
  // Results cross worker threads and land in logs: they must survive both.
  expect(() => structuredClone(r)).not.toThrow();
  expect(() => JSON.stringify(r)).not.toThrow();
}

/**
 * A body's skeleton: every value replaced by its type, objects by their keys' skeletons, arrays by
 * the set of their elements' skeletons (so a prefix part or message added beside others of the same
 * kind keeps the skeleton, while a content array flattened to a string does not).
 */
function skeleton(value: unknown): unknown {
  if (Array.isArray(value)) return { array: [...new Set(value.map((v) => JSON.stringify(skeleton(v))))].sort() };
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, skeleton((value as Record<string, unknown>)[k])]),
    );
  }
  return value === null ? "null" : typeof value;
}

const cases = checks.flatMap((check) =>
  SHAPES.filter((shape) => check.sides.includes(shape.side)).map(
    (shape) => [`${check.id} · ${shape.side} · ${shape.name}`, check, shape] as const,
  ),
);

describe("every deterministic default check in every request shape", () => {
  it.each(cases)("%s", async (_name, check, shape) => {
    const example = check.examples[0];
    const text = example?.text ?? SAMPLE_TEXT;
    const { request, response } = shape.bodies(text);
    const evaluation = await engine.evaluate({
      side: shape.side,
      requestType: shape.requestType,
      request,
      ...(response !== undefined && { response }),
      guardrails: [{ checks: [{ id: check.id, parameters: example?.parameters ?? {} }] }],
    });
    expect(evaluation.results).toHaveLength(1);
    const guardrail = evaluation.results[0];
    expect(guardrail?.checks).toHaveLength(1);
    expectWellFormed(guardrail?.checks[0], check.id);
    expect([200, 246]).toContain(evaluation.status);
    const before = shape.side === "input" ? request : response;
    const after = shape.side === "input" ? evaluation.request : evaluation.response;
    expect(skeleton(after)).toEqual(skeleton(before));
    expect(locateText(shape.side, shape.requestType, after).slots.length).toBeGreaterThan(0);
  });
});

it("has an example with parameters for every default check, and runs each on at least one shape", () => {
  for (const check of checks) {
    expect(check.examples.length, check.id).toBeGreaterThan(0);
    expect(
      cases.some(([, c]) => c.id === check.id),
      check.id,
    ).toBe(true);
  }
});
