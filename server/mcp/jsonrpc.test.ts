import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { McpMessageError, parseBody, readMessage } from "./jsonrpc.js";

describe("parseBody", () => {
  it("reads requests, notifications, responses and batches", () => {
    expect(parseBody('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).toEqual({
      messages: [{ jsonrpc: "2.0", id: 1, method: "tools/list" }],
      batch: false,
    });
    const { messages, batch } = parseBody(
      '[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"a","result":{}}]',
    );
    expect([messages.length, batch]).toEqual([2, true]);
  });

  it("names what is wrong, and where in a batch", () => {
    expect(() => parseBody('[{"jsonrpc":"2.0","id":1,"method":"x"},{"jsonrpc":"2.0","id":{},"method":"x"}]')).toThrow(
      /message 1 of the batch: "id" must be a string/,
    );
    expect(() => readMessage({ jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "m" } })).toThrow(/exactly one/);
    expect(() => readMessage({ jsonrpc: "2.0", id: 1.5, method: "x" })).toThrow(/integer/);
  });

  it("whatever the text, a body is messages or an McpMessageError with a 4xx, never another error (property, seeded)", () => {
    const message = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant("2.0"), fc.jsonValue()),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.jsonValue()),
        method: fc.oneof(fc.constantFrom("tools/call", "initialize", ""), fc.jsonValue()),
        params: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()),
        result: fc.jsonValue(),
        error: fc.oneof(fc.record({ code: fc.integer(), message: fc.string() }), fc.jsonValue()),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      message.map((m) => JSON.stringify(m)),
      fc.array(message, { maxLength: 4 }).map((m) => JSON.stringify(m)),
      message.map((m) => JSON.stringify(m).slice(0, -1)),
    );
    fc.assert(
      fc.property(body, (text) => {
        try {
          const { messages } = parseBody(text);
          for (const m of messages) expect(m.jsonrpc).toBe("2.0");
        } catch (error) {
          expect(error).toBeInstanceOf(McpMessageError);
          expect((error as McpMessageError).status).toBe(400);
        }
      }),
      { seed: 35, numRuns: 500 },
    );
  });
});
