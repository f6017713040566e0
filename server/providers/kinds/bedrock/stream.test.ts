import { EventStreamCodec } from "@smithy/core/event-streams";
import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../errors.js";
import type { Json } from "../../kind.js";
import { chatChunks } from "./stream.js";

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString("utf8"),
  (text) => Buffer.from(text, "utf8"),
);

function message(kind: "event" | "exception", type: string, payload: Json): Buffer {
  const typeHeader = kind === "event" ? ":event-type" : ":exception-type";
  return Buffer.from(
    codec.encode({
      headers: {
        [typeHeader]: { type: "string", value: type },
        ":content-type": { type: "string", value: "application/json" },
        ":message-type": { type: "string", value: kind },
      },
      body: Buffer.from(JSON.stringify(payload)),
    }),
  );
}

const event = (type: string, payload: Json) => message("event", type, payload);

/** The bytes in pieces of `size`, cutting through frames as a socket may. */
async function* pieces(bytes: Buffer, size: number): AsyncIterable<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function chunksOf(messages: Buffer[], size = 7): Promise<Json[]> {
  const out: Json[] = [];
  for await (const chunk of chatChunks(pieces(Buffer.concat(messages), size), { model: "m" })) out.push(chunk);
  return out;
}

async function failure(messages: Buffer[]): Promise<GatewayError> {
  try {
    await chunksOf(messages);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected the stream to fail");
}

const TOOL_STREAM = [
  event("messageStart", { role: "assistant" }),
  event("contentBlockStart", { start: {}, contentBlockIndex: 0 }),
  event("contentBlockDelta", { delta: { text: "Let" }, contentBlockIndex: 0 }),
  event("contentBlockDelta", { delta: { text: " me look." }, contentBlockIndex: 0, p: "abcdef" }),
  event("contentBlockStop", { contentBlockIndex: 0 }),
  event("contentBlockStart", { start: { toolUse: { toolUseId: "tu_1", name: "weather" } }, contentBlockIndex: 1 }),
  event("contentBlockDelta", { delta: { toolUse: { input: '{"city":' } }, contentBlockIndex: 1 }),
  event("contentBlockDelta", { delta: { toolUse: { input: '"Paris"}' } }, contentBlockIndex: 1 }),
  event("contentBlockStop", { contentBlockIndex: 1 }),
  event("messageStop", { stopReason: "tool_use" }),
  event("metadata", { usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 }, metrics: { latencyMs: 5 } }),
];

describe("ConverseStream → OpenAI chat chunks", () => {
  it("translates text and tool-call deltas message by message, whatever the byte boundaries", async () => {
    for (const size of [1, 7, 4096]) {
      const chunks = await chunksOf(TOOL_STREAM, size);
      expect(chunks.map((c) => (c.choices as Json[])[0]?.delta ?? null)).toEqual([
        { role: "assistant", content: "" },
        { content: "Let" },
        { content: " me look." },
        { tool_calls: [{ index: 0, id: "tu_1", type: "function", function: { name: "weather", arguments: "" } }] },
        { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
        { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
        {},
        null,
      ]);
      expect((chunks.at(-2)?.choices as Json[])[0]?.finish_reason).toBe("tool_calls");
      expect(chunks.at(-1)).toMatchObject({
        object: "chat.completion.chunk",
        choices: [],
        usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
      });
      expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    }
  });

  it("yields each chunk as its message arrives, before the stream ends", async () => {
    let released = false;
    async function* slow(): AsyncIterable<Buffer> {
      yield Buffer.concat(TOOL_STREAM.slice(0, 3));
      await new Promise((resolve) => setTimeout(resolve, 20));
      released = true;
      yield Buffer.concat(TOOL_STREAM.slice(3));
    }
    const iterator = chatChunks(slow(), { model: "m" })[Symbol.asyncIterator]();
    await iterator.next();
    expect((await iterator.next()).value).toMatchObject({ choices: [{ delta: { content: "Let" } }] });
    expect(released).toBe(false);
    while (!(await iterator.next()).done);
  });

  it("ends with upstream_stream_error on an exception message", async () => {
    const error = await failure([
      ...TOOL_STREAM.slice(0, 3),
      message("exception", "throttlingException", { message: "Too many tokens" }),
    ]);
    expect([error.status, error.code, error.message]).toEqual([
      502,
      "upstream_stream_error",
      "Amazon Bedrock's stream reported throttlingException: Too many tokens",
    ]);
  });

  it.each([
    ["without messageStop", TOOL_STREAM.slice(0, 9)],
    ["without metadata", TOOL_STREAM.slice(0, 10)],
    ["in the middle of a message", [...TOOL_STREAM.slice(0, 3), TOOL_STREAM[3]!.subarray(0, 20)]],
  ])("ends with upstream_stream_incomplete %s", async (_when, messages) => {
    expect((await failure(messages)).code).toBe("upstream_stream_incomplete");
  });

  it("refuses a message whose checksum fails, and a length prelude past 16 MiB", async () => {
    const corrupt = Buffer.from(TOOL_STREAM[2]!);
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 6) ^ 0xff, corrupt.length - 6);
    expect((await failure([TOOL_STREAM[0]!, corrupt])).code).toBe("upstream_invalid_response");
    const huge = Buffer.alloc(8);
    huge.writeUInt32BE(0x7fffffff, 0);
    expect((await failure([huge])).code).toBe("upstream_invalid_response");
  });
});
