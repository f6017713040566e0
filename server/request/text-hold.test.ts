/** The held-back text of a stream: what is released after a check, in which chunks, and what is kept back. */
import { describe, expect, it } from "vitest";
import { anthropic } from "../formats/anthropic.js";
import { openai } from "../formats/openai.js";
import { parseEvent } from "../formats/sse.js";
import { ReleasedTextChanged, TextHold } from "./text-hold.js";

const chat = (content: string) =>
  parseEvent(Buffer.from(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`));
const role = parseEvent(Buffer.from(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: "assistant" } }] })}\n\n`));

/** The text of released chat chunks. */
const texts = (buffers: Buffer[]) =>
  buffers.map((b) => {
    const data = JSON.parse(parseEvent(b).data) as { choices: Array<{ delta: { content?: string } }> };
    return data.choices[0]?.delta.content ?? null;
  });

function chatHold(tail: number, pieces: string[]): TextHold {
  const hold = new TextHold(openai.streamText("chatComplete"), tail);
  hold.push(role);
  for (const piece of pieces) hold.push(chat(piece));
  return hold;
}

describe("TextHold", () => {
  it("keeps back the events in the last `tail` characters after a check, and releases the rest as the upstream sent it", () => {
    const hold = chatHold(10, ["0123456789", "abcdefghij", "ABCDE"]);
    const out = hold.release(hold.pending(), false);
    expect(texts(out)).toEqual([null, "0123456789"]);
    expect(out[1]).toEqual(chat("0123456789").raw);
    expect(hold.releasedChars).toBe(10);
    expect(texts(hold.release(hold.pending(), true))).toEqual(["abcdefghij", "ABCDE"]);
  });

  it("gives a redaction that spans three events to the event where the unchanged text resumes", () => {
    const hold = chatHold(0, ["Write to ali", "ce@exam", "ple.com today."]);
    const redacted = "Write to [EMAIL] today.";
    expect(texts(hold.release(redacted, true))).toEqual([null, "Write to ", "", "[EMAIL] today."]);
  });

  it("releases unchanged text before a redaction still held back, and the redaction with a later check", () => {
    const hold = chatHold(8, ["Hello there, mail ", "bob@ex", "ample.org now and then"]);
    const first = hold.release("Hello there, mail [EMAIL] now and then", false);
    expect(texts(first).join("")).toBe("Hello there, mail ");
    // The next check reads only the text still held: from the held-back tail on.
    expect(hold.pending()).toBe("bob@example.org now and then");
    expect(texts(hold.release("[EMAIL] now and then", true)).join("")).toBe("[EMAIL] now and then");
  });

  it("releases the rest of a stream after a check of the whole text, which must keep what was released", () => {
    const hold = chatHold(4, ["alpha ", "beta ", "gamma"]);
    expect(texts(hold.release(hold.pending(), false)).join("")).toBe("alpha beta ");
    expect(texts(hold.releaseWhole("alpha beta [G]")).join("")).toBe("[G]");
  });

  it("refuses a transformation of text already released", () => {
    const hold = chatHold(0, ["secret words"]);
    hold.release(hold.pending(), false);
    expect(() => hold.releaseWhole("[REDACTED] words")).toThrow(ReleasedTextChanged);
  });

  it("re-writes Anthropic text blocks, keeping the newline that joins them out of the block's own text", () => {
    const event = (value: Record<string, unknown>) =>
      parseEvent(Buffer.from(`event: ${String(value.type)}\ndata: ${JSON.stringify(value)}\n\n`));
    const hold = new TextHold(anthropic.streamText("messages"), 0);
    hold.push(event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
    hold.push(event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "first" } }));
    hold.push(event({ type: "content_block_stop", index: 0 }));
    hold.push(event({ type: "content_block_start", index: 1, content_block: { type: "text", text: "mail a@b.co" } }));
    expect(hold.pending()).toBe("first\nmail a@b.co");
    const out = hold.release("first\nmail [EMAIL]", true).map((b) => JSON.parse(parseEvent(b).data));
    expect(out[3]).toMatchObject({ type: "content_block_start", content_block: { type: "text", text: "mail [EMAIL]" } });
    expect(out[1]).toMatchObject({ delta: { text: "first" } });
  });
});

describe("TextHold, several choices", () => {
  const choice = (index: number, content: string) =>
    parseEvent(Buffer.from(`data: ${JSON.stringify({ choices: [{ index, delta: { content }, finish_reason: null }] })}\n\n`));
  const released = (buffers: Buffer[]) =>
    buffers.map((b) => {
      const data = JSON.parse(parseEvent(b).data) as { choices: Array<{ index: number; delta: { content?: string } }> };
      return `${data.choices[0]?.index}:${data.choices[0]?.delta.content ?? ""}`;
    });

  it("gives a window check each choice's own pending text, and keeps each choice's own tail", () => {
    const hold = new TextHold(openai.streamText("chatComplete"), 4);
    for (const [index, piece] of [
      [0, "123-"],
      [1, "hello "],
      [0, "45-"],
      [1, "there "],
      [0, "6789"],
    ] as const)
      hold.push(choice(index, piece));
    expect(hold.pendingTexts()).toEqual(
      new Map([
        [0, "123-45-6789"],
        [1, "hello there "],
      ]),
    );
    // Each choice's last four characters are held: the events carrying them wait, and so does all after them.
    expect(released(hold.release(hold.pendingTexts(), false))).toEqual(["0:123-", "1:hello ", "0:45-"]);
    expect(hold.pendingTexts()).toEqual(
      new Map([
        [0, "6789"],
        [1, "there "],
      ]),
    );
  });

  it("writes a redaction back into the choice it was found in", () => {
    const hold = new TextHold(openai.streamText("chatComplete"), 0);
    for (const [index, piece] of [
      [0, "my 123-"],
      [1, "fine"],
      [0, "45-6789 ok"],
    ] as const)
      hold.push(choice(index, piece));
    const out = released(hold.release(new Map([[0, "my [SSN] ok"]]), true));
    expect(out.join("|")).not.toContain("6789");
    expect(
      out
        .filter((piece) => piece.startsWith("0:"))
        .map((piece) => piece.slice(2))
        .join(""),
    ).toBe("my [SSN] ok");
    expect(out).toContain("1:fine");
  });
});
