/**
 * The providers' SSE stream readers over generated streams: OpenAI chunks, an Anthropic message
 * stream and a Gemini (and Vertex) stream, written with any line endings (LF, CRLF, CR), keep-alive
 * comments and a byte order mark, and cut into reads any way, give what the whole bytes give, and
 * what was written.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cut, cuttings, PROPERTY_RUNS, readsOf } from "../../test/support/fragments.js";
import type { Json } from "./kind.js";
import { chunksOfMessageStream } from "./kinds/anthropic/stream.js";
import { SafetyFacts } from "./kinds/google/filters.js";
import { chatChunks as geminiChunks } from "./kinds/google/stream.js";
import { openAiChunks } from "./kinds/openai/stream.js";

/** How a stream's events are written: its line ending, a byte order mark, comments between events. */
const framing = fc.record({
  ending: fc.constantFrom("\n", "\r\n", "\r"),
  bom: fc.boolean(),
  comments: fc.boolean(),
});
type Framing = typeof framing extends fc.Arbitrary<infer F> ? F : never;

/** The bytes of events (`[name, data]`) written in a framing. */
function sse(events: [string | undefined, string][], f: Framing): Buffer {
  const e = f.ending;
  let text = f.bom ? "\uFEFF" : "";
  for (const [i, [name, data]] of events.entries()) {
    if (f.comments && i % 2 === 0) text += `: keep-alive${e}${e}`;
    if (name !== undefined) text += `event: ${name}${e}`;
    text += `data: ${data}${e}${e}`;
  }
  return Buffer.from(text);
}

const text = fc.string({ unit: "grapheme", maxLength: 12 });
const pieces = fc.array(text, { minLength: 1, maxLength: 8 });

async function all<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

/** A chunk without the time each run makes up. */
const timeless = (chunk: Json): Json => ({ ...chunk, created: 0 });

describe("OpenAI chunks over generated streams", () => {
  it("reads the chunks written, however the framing and the reads cut them", async () => {
    await fc.assert(
      fc.asyncProperty(pieces, framing, cuttings, async (texts, f, cutting) => {
        const written = texts.map((content, i) => ({
          id: "c",
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta: i ? { content } : { role: "assistant", content }, finish_reason: null }],
        }));
        const bytes = sse([...written.map((c): [undefined, string] => [undefined, JSON.stringify(c)]), [undefined, "[DONE]"]], f);
        expect(await all(openAiChunks(readsOf(cut(bytes, cutting))))).toEqual(written);
      }),
      // Found before the splitter read a byte order mark as the SDKs do.
      { ...PROPERTY_RUNS, examples: [[[""], { ending: "\n", bom: true, comments: false }, { kind: "once", at: 0 }]] },
    );
  });
});

describe("an Anthropic message stream over generated streams", () => {
  it("gives the chunks of the whole bytes, and the text written, however the reads cut them", async () => {
    await fc.assert(
      fc.asyncProperty(pieces, fc.array(fc.string(), { maxLength: 4 }), framing, cuttings, async (texts, json, f, cutting) => {
        const events: [string, Json][] = [
          ["message_start", { type: "message_start", message: { id: "msg_1", model: "claude", usage: { input_tokens: 3 } } }],
          ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
          ...texts.map((t): [string, Json] => [
            "content_block_delta",
            { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: t } },
          ]),
          ["content_block_stop", { type: "content_block_stop", index: 0 }],
          [
            "content_block_start",
            { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "tu", name: "f", input: {} } },
          ],
          ...json.map((p): [string, Json] => [
            "content_block_delta",
            { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: p } },
          ]),
          ["content_block_stop", { type: "content_block_stop", index: 1 }],
          ["ping", { type: "ping" }],
          ["message_delta", { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } }],
          ["message_stop", { type: "message_stop" }],
        ];
        const bytes = sse(
          events.map(([name, data]) => [name, JSON.stringify(data)]),
          f,
        );
        const whole = (await all(chunksOfMessageStream(readsOf([bytes]), { model: "m" }))).map(timeless);
        const pieced = (await all(chunksOfMessageStream(readsOf(cut(bytes, cutting)), { model: "m" }))).map(timeless);
        expect(pieced).toEqual(whole);
        const content = pieced.map((c) => ((c.choices as Json[])[0]?.delta as Json | undefined)?.content ?? "").join("");
        expect(content).toBe(texts.join(""));
      }),
      // Found before the splitter ended events at CR-only blank lines.
      { ...PROPERTY_RUNS, examples: [[[""], [], { ending: "\r", bom: false, comments: false }, { kind: "once", at: 0 }]] },
    );
  });
});

describe("a Gemini stream over generated streams", () => {
  /** Parts for each of several candidates, interleaved in events as generated. */
  const candidates = fc.array(fc.record({ candidate: fc.nat({ max: 2 }), text }), { minLength: 1, maxLength: 10 });

  it("gives the chunks of the whole bytes, each candidate's text in its choice, however the reads cut them", async () => {
    await fc.assert(
      fc.asyncProperty(candidates, framing, cuttings, async (parts, f, cutting) => {
        const used = [...new Set(parts.map((p) => p.candidate))];
        const events = parts.map((p, i) => ({
          candidates: [{ index: p.candidate, content: { role: "model", parts: [{ text: p.text }] } }],
          ...(i === 0 && { responseId: "r1" }),
        }));
        events.push({
          candidates: used.map((index) => ({ index, content: { role: "model", parts: [] }, finishReason: "STOP" })),
        });
        const bytes = sse(
          events.map((e) => [undefined, JSON.stringify(e)]),
          f,
        );
        const read = async (reads: Buffer[]) =>
          (await all(geminiChunks(readsOf(reads), { model: "gemini" }, "Gemini API", new SafetyFacts(undefined)))).map(timeless);
        const pieced = await read(cut(bytes, cutting));
        expect(pieced).toEqual(await read([bytes]));
        for (const index of used) {
          const got = pieced
            .flatMap((c) => c.choices as Json[])
            .filter((choice) => choice.index === index)
            .map((choice) => (choice.delta as Json).content ?? "")
            .join("");
          expect(got).toBe(
            parts
              .filter((p) => p.candidate === index)
              .map((p) => p.text)
              .join(""),
          );
        }
      }),
      // Found before the splitter ended events at CR-only blank lines.
      {
        ...PROPERTY_RUNS,
        examples: [[[{ candidate: 0, text: "" }], { ending: "\r", bom: false, comments: false }, { kind: "size", size: 1 }]],
      },
    );
  });
});
