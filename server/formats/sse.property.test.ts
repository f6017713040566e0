/**
 * The SSE splitter over generated streams: any events (fields, comments, unknown fields, a byte
 * order mark, LF, CRLF and CR line endings mixed), cut into reads any way, give the events of the
 * whole bytes, and the events the official OpenAI and Anthropic SDKs read from the same bytes, so
 * no framing carries text past the gateway's checks that a client's SDK would read.
 */
import { _iterSSEMessages as anthropicMessages } from "@anthropic-ai/sdk/core/streaming";
import fc from "fast-check";
import { _iterSSEMessages as openAiMessages } from "openai/core/streaming";
import { describe, expect, it } from "vitest";
import { cut, cuttings, PROPERTY_RUNS } from "../../test/support/fragments.js";
import { type SseEvent, SseSplitter } from "./sse.js";

const ENDINGS = ["\n", "\r\n", "\r"] as const;
type Ending = (typeof ENDINGS)[number];

interface Line {
  field: "data" | "event" | "id" | "retry" | "comment" | "bare-data" | "bare-event";
  value: string;
  spaces: number;
  ending: Ending;
}

interface GeneratedEvent {
  lines: Line[];
  blank: Ending;
}

/** Text of a line's value: anything but a line ending. */
const value = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom("a", "é", "日", "🎉", ":", " ", "\uFEFF", "{", '"'),
      fc.string({ unit: "binary", maxLength: 1 }),
    ),
  })
  .map((s) => s.replace(/[\r\n]/g, ""));

const line: fc.Arbitrary<Line> = fc.record({
  field: fc.constantFrom("data", "data", "data", "event", "id", "retry", "comment", "bare-data", "bare-event"),
  value,
  spaces: fc.integer({ min: 0, max: 2 }),
  ending: fc.constantFrom(...ENDINGS),
});

const event: fc.Arbitrary<GeneratedEvent> = fc.record({
  lines: fc.array(line, { maxLength: 5 }),
  blank: fc.constantFrom(...ENDINGS),
});

const stream = fc.record({
  bom: fc.boolean(),
  events: fc.array(event, { maxLength: 8 }),
  /** A last event cut off before its blank line: only the splitter's flush reads it. */
  tail: fc.option(fc.array(line, { minLength: 1, maxLength: 3 }), { nil: undefined }),
});

/** The stream's text; an LF right after a CR ending is written CRLF, so the two stay two line endings. */
function textOf(generated: { bom: boolean; events: GeneratedEvent[]; tail?: Line[] | undefined }, withTail: boolean): string {
  let text = generated.bom ? "\uFEFF" : "";
  const end = (ending: Ending) => {
    text += ending === "\n" && text.endsWith("\r") ? "\r\n" : ending;
  };
  const write = (l: Line) => {
    const pad = " ".repeat(l.spaces);
    if (l.field === "comment") text += `:${pad}${l.value}`;
    else if (l.field === "bare-data") text += "data";
    else if (l.field === "bare-event") text += "event";
    else text += `${l.field}:${pad}${l.value}`;
    end(l.ending);
  };
  for (const e of generated.events) {
    for (const l of e.lines) write(l);
    end(e.blank);
  }
  if (withTail && generated.tail) {
    for (const l of generated.tail) write(l);
    // Without its blank line; a trailing CR would make it one.
    text = text.replace(/\r$/, "");
  }
  return text;
}

function split(reads: Buffer[]): { events: SseEvent[]; rest: SseEvent | undefined } {
  const splitter = new SseSplitter();
  const events = reads.flatMap((read) => splitter.push(read));
  return { events, rest: splitter.flush() };
}

const fields = (e: SseEvent | undefined) => e && { raw: e.raw.toString("latin1"), event: e.event, data: e.data };

/** What an SDK dispatches: an event with a name or data (the SDKs skip one with neither). */
const dispatched = (events: { event?: string | null | undefined; data: string }[]) =>
  events.filter((e) => e.event || e.data !== "").map((e) => ({ event: e.event || null, data: e.data }));

async function sdkEvents(reads: Buffer[], parser: typeof openAiMessages): Promise<{ event: string | null; data: string }[]> {
  const body = (async function* () {
    for (const read of reads) yield new Uint8Array(read);
  })();
  const out = [];
  for await (const message of parser({ body } as unknown as Response, new AbortController())) {
    out.push({ event: message.event, data: message.data });
  }
  return out;
}

describe("SseSplitter over generated streams", () => {
  it("cuts the events of the whole bytes however the reads cut them", () => {
    fc.assert(
      fc.property(stream, cuttings, (generated, cutting) => {
        const bytes = Buffer.from(textOf(generated, true));
        const whole = split([bytes]);
        const pieces = split(cut(bytes, cutting));
        expect(pieces.events.map(fields)).toEqual(whole.events.map(fields));
        expect(fields(pieces.rest)).toEqual(fields(whole.rest));
        expect(
          Buffer.concat([...pieces.events.map((e) => e.raw), pieces.rest?.raw ?? Buffer.alloc(0)]).length,
        ).toBeLessThanOrEqual(bytes.length);
      }),
      PROPERTY_RUNS,
    );
  });

  it("reads the events the OpenAI and Anthropic SDKs read, however the reads cut them", async () => {
    await fc.assert(
      fc.asyncProperty(stream, cuttings, async (generated, cutting) => {
        const reads = cut(Buffer.from(textOf(generated, false)), cutting);
        const { events, rest } = split(reads);
        const ours = dispatched([...events, ...(rest ? [rest] : [])]);
        expect(ours).toEqual(dispatched(await sdkEvents(reads, openAiMessages)));
        expect(ours).toEqual(dispatched(await sdkEvents(reads, anthropicMessages as unknown as typeof openAiMessages)));
      }),
      // Found before the splitter ended events at CR-only blank lines.
      {
        ...PROPERTY_RUNS,
        examples: [
          [
            {
              bom: false,
              events: [
                { lines: [{ field: "data", value: "", spaces: 0, ending: "\n" }], blank: "\r" },
                { lines: [{ field: "data", value: "", spaces: 0, ending: "\n" }], blank: "\n" },
              ],
              tail: undefined,
            },
            { kind: "places", at: [] },
          ],
        ],
      },
    );
  });
});
