import { describe, expect, it } from "vitest";
import { parseEvent, SseSplitter } from "./sse.js";

function feed(splitter: SseSplitter, bytes: Buffer, size: number) {
  const events = [];
  for (let offset = 0; offset < bytes.length; offset += size)
    events.push(...splitter.push(bytes.subarray(offset, offset + size)));
  return events;
}

describe("SseSplitter", () => {
  const text = 'data: {"a":1}\n\nevent: ping\ndata: {}\n\ndata: [DONE]\n\n';

  it.each([1, 2, 3, 7, 1000])("cuts the same events whatever the read size (%i bytes)", (size) => {
    const events = feed(new SseSplitter(), Buffer.from(text), size);
    expect(events.map((e) => [e.event, e.data])).toEqual([
      [undefined, '{"a":1}'],
      ["ping", "{}"],
      [undefined, "[DONE]"],
    ]);
    expect(Buffer.concat(events.map((e) => e.raw)).toString()).toBe(text);
  });

  it("keeps multi-byte characters split across reads whole", () => {
    const bytes = Buffer.from('data: {"t":"naïve 日本語 🎉"}\n\n');
    const events = feed(new SseSplitter(), bytes, 1);
    expect(JSON.parse(events[0]?.data ?? "")).toEqual({ t: "naïve 日本語 🎉" });
  });

  it("understands CRLF line endings, including a boundary split between reads", () => {
    const splitter = new SseSplitter();
    expect(splitter.push(Buffer.from("event: a\r\ndata: 1\r\n\r"))).toEqual([]);
    const events = splitter.push(Buffer.from("\ndata: 2\r\n\r\n"));
    expect(events.map((e) => [e?.event, e?.data])).toEqual([
      ["a", "1"],
      [undefined, "2"],
    ]);
  });

  it("joins multi-line data and ignores comments", () => {
    expect(parseEvent(Buffer.from(": keep-alive\ndata: line one\ndata:line two\n\n")).data).toBe("line one\nline two");
  });

  it("returns a last event that lacks its blank line on flush", () => {
    const splitter = new SseSplitter();
    expect(splitter.push(Buffer.from("data: tail"))).toEqual([]);
    expect(splitter.flush()?.data).toBe("tail");
    expect(splitter.flush()).toBeUndefined();
  });

  it("refuses an event larger than its limit", () => {
    const splitter = new SseSplitter(16);
    expect(() => splitter.push(Buffer.from(`data: ${"x".repeat(32)}`))).toThrow(/exceeds 16 bytes/);
  });
});

describe("SseSplitter framing as the SDKs read it", () => {
  const sizes = [1, 2, 3, 5, 1000];

  it.each(sizes)("ends an event at a blank line of CR-only line endings (%i-byte reads)", (size) => {
    const splitter = new SseSplitter();
    const events = [...feed(splitter, Buffer.from("event: a\rdata: 1\r\rdata: 2\r\r"), size), splitter.flush()];
    expect(events.map((e) => [e?.event, e?.data])).toEqual([
      ["a", "1"],
      [undefined, "2"],
    ]);
  });

  it.each(sizes)("ends an event at any pair of line endings: LF then CR, CRLF then LF (%i-byte reads)", (size) => {
    const text = "data: 1\n\rdata: 2\r\n\ndata: 3\r\r\ndata: 4\n\r\n";
    const events = feed(new SseSplitter(), Buffer.from(text), size);
    expect(events.map((e) => e.data)).toEqual(["1", "2", "3", "4"]);
    expect(Buffer.concat(events.map((e) => e.raw)).toString()).toBe(text);
  });

  it("reads a field after a byte order mark, on the first line or any other", () => {
    const events = feed(new SseSplitter(), Buffer.from("\uFEFFdata: secret\n\nevent: x\n\uFEFFdata: more\n\n"), 1);
    expect(events.map((e) => [e.event, e.data])).toEqual([
      [undefined, "secret"],
      ["x", "more"],
    ]);
  });

  it("waits for the byte after a CR that may be a CRLF's, and cuts it at the end of the stream", () => {
    const splitter = new SseSplitter();
    expect(splitter.push(Buffer.from("data: 1\r\r"))).toEqual([]);
    expect(splitter.push(Buffer.from("\ndata: 2\r\r")).map((e) => e.raw.toString())).toEqual(["data: 1\r\r\n"]);
    expect(splitter.flush()?.data).toBe("2");
  });
});

describe("SseSplitter work", () => {
  const event = Buffer.from(`data: {"t":"${"x".repeat(1 << 20)}"}\n\n`);

  it.each([1, 16, 512, 4096])("copies each byte of a 1 MB event once, however small the reads (%i bytes)", (size) => {
    const splitter = new SseSplitter(2 << 20);
    const events = feed(splitter, event, size);
    expect(events).toHaveLength(1);
    expect(events[0]?.raw.equals(event)).toBe(true);
    expect(splitter.work.received).toBe(event.length);
    expect(splitter.work.copied).toBeLessThanOrEqual(event.length);
  });
});
