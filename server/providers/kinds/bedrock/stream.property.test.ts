/**
 * The ConverseStream decoder over generated streams: any events cut into reads any way give the
 * chunks of the whole bytes, and a long message dripped in small reads costs each byte one copy.
 */
import { EventStreamCodec } from "@smithy/core/event-streams";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cut, cuttings, PROPERTY_RUNS, readsOf } from "../../../../test/support/fragments.js";
import type { Json } from "../../kind.js";
import { chatChunks, EventStreamSplitter } from "./stream.js";

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString("utf8"),
  (text) => Buffer.from(text, "utf8"),
);

function event(type: string, payload: Json): Buffer {
  return Buffer.from(
    codec.encode({
      headers: {
        ":event-type": { type: "string", value: type },
        ":content-type": { type: "string", value: "application/json" },
        ":message-type": { type: "string", value: "event" },
      },
      body: Buffer.from(JSON.stringify(payload)),
    }),
  );
}

/** A block of text deltas or of a tool call's input pieces. */
const block = fc.oneof(
  fc.record({ kind: fc.constant("text" as const), pieces: fc.array(fc.string({ unit: "grapheme" }), { maxLength: 6 }) }),
  fc.record({
    kind: fc.constant("tool" as const),
    name: fc.string({ minLength: 1, maxLength: 8 }),
    pieces: fc.array(fc.string(), { maxLength: 4 }),
  }),
);

const answer = fc.record({
  blocks: fc.array(block, { maxLength: 4 }),
  stop: fc.constantFrom("end_turn", "tool_use", "max_tokens"),
  tokens: fc.nat({ max: 5000 }),
});

type Answer = typeof answer extends fc.Arbitrary<infer A> ? A : never;

function messagesOf(generated: Answer): Buffer {
  const messages = [event("messageStart", { role: "assistant" })];
  for (const [index, b] of generated.blocks.entries()) {
    const start = b.kind === "tool" ? { toolUse: { toolUseId: `tu_${index}`, name: b.name } } : {};
    messages.push(event("contentBlockStart", { start, contentBlockIndex: index }));
    for (const piece of b.pieces) {
      const delta = b.kind === "tool" ? { toolUse: { input: piece } } : { text: piece };
      messages.push(event("contentBlockDelta", { delta, contentBlockIndex: index }));
    }
    messages.push(event("contentBlockStop", { contentBlockIndex: index }));
  }
  messages.push(event("messageStop", { stopReason: generated.stop }));
  const usage = { inputTokens: 3, outputTokens: generated.tokens, totalTokens: generated.tokens + 3 };
  messages.push(event("metadata", { usage, metrics: { latencyMs: 1 } }));
  return Buffer.concat(messages);
}

/** The chunks, without the id and time each run makes up. */
async function chunksOf(reads: Buffer[]): Promise<Json[]> {
  const out: Json[] = [];
  for await (const chunk of chatChunks(readsOf(reads), { model: "m" })) out.push({ ...chunk, id: "", created: 0 });
  return out;
}

describe("ConverseStream over generated streams", () => {
  it("gives the chunks of the whole bytes however the reads cut them", async () => {
    await fc.assert(
      fc.asyncProperty(answer, cuttings, async (generated, cutting) => {
        const bytes = messagesOf(generated);
        expect(await chunksOf(cut(bytes, cutting))).toEqual(await chunksOf([bytes]));
      }),
      PROPERTY_RUNS,
    );
  });

  it("cuts several messages in one read and one message over thousands of reads alike", async () => {
    const generated: Answer = { blocks: [{ kind: "text", pieces: ["x".repeat(20_000), "y"] }], stop: "end_turn", tokens: 1 };
    const bytes = messagesOf(generated);
    const whole = await chunksOf([bytes]);
    expect(await chunksOf(cut(bytes, { kind: "size", size: 3 }))).toEqual(whole);
    expect(whole.map((c) => (c.choices as Json[])[0]?.delta)).toContainEqual({ content: "y" });
  });
});

describe("EventStreamSplitter work", () => {
  const message = event("contentBlockDelta", { delta: { text: "z".repeat(1 << 20) }, contentBlockIndex: 0 });

  it.each([1, 16, 512, 4096])("copies each byte of a 1 MB message once, however small the reads (%i bytes)", (size) => {
    const splitter = new EventStreamSplitter();
    const messages: Buffer[] = [];
    for (let at = 0; at < message.length; at += size) messages.push(...splitter.push(message.subarray(at, at + size)));
    expect(messages).toHaveLength(1);
    expect(messages[0]?.equals(message)).toBe(true);
    expect(splitter.work.received).toBe(message.length);
    expect(splitter.work.copied).toBeLessThanOrEqual(message.length);
  });
});
