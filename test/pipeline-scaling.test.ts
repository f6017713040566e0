/**
 * The catastrophe guard for the request path's own helpers (not the checks: check-scaling does
 * those): the body's shape and depth, the evaluated text, token counting, the streamed text, the
 * logged body and its redaction, on adversarial shapes — long runs of one character, of one
 * punctuation mark, of whitespace, many tiny messages, deep nesting, 4 MB bodies. Each helper's
 * cost on 8n is compared with its cost on n: about 8 when linear, 64 when quadratic. Memory
 * effects alone stretch that ratio (serialising 64 K tiny objects costs JSON.stringify itself 30
 * times what 8 K cost here), so the ratio is taken relative to JSON.stringify's on the same
 * bodies, a linear reference: about 1 when linear, 8 when quadratic. Generous bounds (the machine
 * is shared); no absolute speed is asserted.
 */
import { describe, expect, it } from "vitest";
import { locateText } from "../core/index.js";
import { keptBody } from "../server/logs/body-cap.js";
import { redactedJson } from "../server/logs/redact.js";
import { assertRequestShape, jsonTextDepth } from "../server/request/open.js";
import { formatOfRequestType } from "../server/formats/index.js";
import { usageOf } from "../server/request/usage.js";
import { SseSplitter } from "../server/formats/sse.js";
import { adversarialTexts } from "./adversarial-texts.js";

/** Growth of a helper's cost over the growth of JSON.stringify's: 1 when linear, 8 when quadratic. */
const RELATIVE_BOUND = 3;
const RATIO_FLOOR_MS = 60;
/** 8n: a quarter of the 4 MB a body may carry by default. */
const N = 1 << 20;

type Shape = (length: number) => Record<string, unknown>;

/** Request bodies of about `length` characters, by adversarial shape. */
const SHAPES: Record<string, Shape> = {
  ...Object.fromEntries(
    ["one long word", "one punctuation mark", "whitespace", "nested objects", "mixed scripts"].map((name) => [
      name,
      (length: number) => ({
        model: "m",
        messages: [{ role: "user", content: adversarialTexts(length)[name] as string }],
      }),
    ]),
  ),
  "many tiny messages": (length) => ({
    model: "m",
    messages: Array.from({ length: Math.floor(length / 16) }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: "hi" })),
  }),
};

/** Helpers of the request path, each given one body. */
const HELPERS: Record<string, (body: Record<string, unknown>) => unknown> = {
  "request shape": (body) => assertRequestShape("chatComplete", body),
  "body depth": (body) => jsonTextDepth(JSON.stringify(body)),
  "evaluated text": (body) => locateText("input", "chatComplete", body),
  "token count": (body) => usageOf("chatComplete", body, { choices: [] }, ""),
  "logged body": (body) => keptBody(body, 64 * 1024),
  "redacted record": (body) => redactedJson({ request: body }, ["sk-secret-value-123"]),
  "streamed text": (body) => {
    const text = locateText("input", "chatComplete", body).text;
    const gathered = formatOfRequestType("chatComplete").streamText("chatComplete");
    const splitter = new SseSplitter();
    // Streamed in 16-character deltas, the worst case for gathering the text.
    for (let at = 0; at < text.length; at += 16 * 256) {
      const events: string[] = [];
      for (let i = at; i < Math.min(text.length, at + 16 * 256); i += 16) {
        events.push(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text.slice(i, i + 16) } }] })}\n\n`);
      }
      for (const event of splitter.push(Buffer.from(events.join("")))) gathered.add(event);
    }
    return gathered.text().length;
  },
};

async function timed(helper: (body: Record<string, unknown>) => unknown, body: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  await helper(body);
  return performance.now() - started;
}

describe.each(Object.entries(HELPERS))("%s", (_name, helper) => {
  it.each(Object.entries(SHAPES))(
    "grows linearly on %s",
    async (_shape, shape) => {
      const small = shape(N / 8);
      const large = shape(N);
      // Best of three each: the first runs warm caches and compile, and the machine is shared.
      const best = async (body: Record<string, unknown>) => {
        let ms = Infinity;
        for (let i = 0; i < 3; i++) ms = Math.min(ms, await timed(helper, body));
        return ms;
      };
      const reference = async (body: Record<string, unknown>) => {
        let ms = Infinity;
        for (let i = 0; i < 3; i++) ms = Math.min(ms, await timed((b) => JSON.stringify(b), body));
        return ms;
      };
      // A quadratic helper fails every attempt; a linear one only when other work stole the CPU.
      let relative = Infinity;
      for (let attempt = 0; attempt < 3 && relative >= RELATIVE_BOUND; attempt++) {
        const smallMs = await best(small);
        const largeMs = await best(large);
        expect(largeMs).toBeLessThan(10_000);
        const growth = Math.max(8, (await reference(large)) / Math.max(await reference(small), 0.5));
        relative = largeMs > RATIO_FLOOR_MS ? largeMs / Math.max(smallMs, 1) / growth : 0;
      }
      expect(relative).toBeLessThan(RELATIVE_BOUND);
    },
    60_000,
  );
});

it("handles a 4 MB body of each shape", async () => {
  for (const shape of Object.values(SHAPES)) {
    const body = shape(4 * N);
    for (const helper of Object.values(HELPERS)) await helper(body);
  }
}, 120_000);
