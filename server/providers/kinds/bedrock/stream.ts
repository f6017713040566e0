/**
 * A ConverseStream answer as OpenAI chat chunks, message by message as the bytes arrive (Amazon
 * Bedrock API Reference, ConverseStream; AWS event stream encoding). The body is a sequence of
 * binary event-stream messages, each framed by its total length and checked by its CRCs, which
 * AWS's own codec (@smithy/core/event-streams) decodes. Events: messageStart, contentBlockStart (a
 * tool call's id and name), contentBlockDelta (text, or a tool call's partial JSON input),
 * contentBlockStop, messageStop (the stop reason), metadata (the usage). An exception message
 * (`:message-type` exception, e.g. throttlingException) ends the stream with a GatewayError, and so
 * does an end without messageStop and metadata, so the client's stream ends with an error event
 * rather than looking complete. Messages are cut linearly in the bytes received (EventStreamSplitter).
 */
import type { EventStreamCodec, Message } from "@smithy/core/event-streams";
import { GatewayError } from "../../../errors.js";
import { ByteQueue, type DecoderWork } from "../../../formats/sse.js";
import type { Json } from "../../kind.js";
import { awsMessage } from "./errors.js";
import { chatUsage, completionId, finishReason } from "./response.js";

/** AWS's event stream messages are at most 16 MiB; a larger length prelude is a broken stream, never an allocation. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Prelude (total and headers length, CRC) and message CRC. */
const FRAMING_BYTES = 16;

let codec: Promise<EventStreamCodec> | undefined;

function eventCodec(): Promise<EventStreamCodec> {
  codec ??= import("@smithy/core/event-streams").then(
    ({ EventStreamCodec }) =>
      new EventStreamCodec(
        (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"),
        (text) => Buffer.from(text, "utf8"),
      ),
  );
  return codec;
}

/**
 * Cuts a byte stream into event-stream messages by their length preludes. Pending bytes stay in the
 * chunks they came in and a message is joined once, when its last byte arrived, so a message
 * dripped in small reads costs each byte one copy at most.
 */
export class EventStreamSplitter {
  readonly #queue = new ByteQueue();

  /** Bytes received and bytes copied to join messages, for tests that hold the work linear. */
  get work(): Readonly<DecoderWork> {
    return this.#queue.work;
  }

  /** Bytes waiting for the rest of their message. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Adds bytes; returns the messages they complete. */
  push(chunk: Buffer): Buffer[] {
    const queue = this.#queue;
    queue.push(chunk);
    const messages: Buffer[] = [];
    for (let length = queue.peekUInt32BE(); length !== undefined; length = queue.peekUInt32BE()) {
      if (length < FRAMING_BYTES || length > MAX_MESSAGE_BYTES) {
        throw new GatewayError(
          "upstream_invalid_response",
          `Amazon Bedrock's event stream announced a message of ${length} bytes`,
        );
      }
      if (queue.length < length) break;
      messages.push(queue.take(length));
    }
    return messages;
  }
}

/** The whole messages of a byte stream, each as soon as its last byte arrived. */
export async function* eventMessages(source: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const splitter = new EventStreamSplitter();
  for await (const chunk of source) yield* splitter.push(chunk);
  if (splitter.pending) {
    throw new GatewayError("upstream_stream_incomplete", "Amazon Bedrock's event stream ended in the middle of a message");
  }
}

function decode(events: EventStreamCodec, bytes: Buffer): Message {
  try {
    return events.decode(bytes);
  } catch (error) {
    throw new GatewayError(
      "upstream_invalid_response",
      `Amazon Bedrock's event stream sent a message that does not decode: ${(error as Error).message}`,
    );
  }
}

function header(message: Message, name: string): string | undefined {
  const value = message.headers[name]?.value;
  return typeof value === "string" ? value : undefined;
}

function payload(message: Message): Json {
  const text = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength).toString("utf8");
  try {
    const value = JSON.parse(text === "" ? "{}" : text) as unknown;
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Json;
  } catch {
    // Answered below.
  }
  throw new GatewayError("upstream_invalid_response", "Amazon Bedrock's event stream sent an event that is not a JSON object");
}

/** The error an exception message of the stream ends it with. */
function streamException(message: Message): GatewayError {
  const type = header(message, ":exception-type") ?? header(message, ":error-code") ?? "an error";
  const said = awsMessage(payload(message).message ?? header(message, ":error-message"));
  return new GatewayError("upstream_stream_error", `Amazon Bedrock's stream reported ${type}${said ? `: ${said}` : ""}`);
}

/** OpenAI chat chunks for a ConverseStream body; the last one carries the usage. */
export async function* chatChunks(source: AsyncIterable<Buffer>, chat: Json): AsyncIterable<Json> {
  const events = await eventCodec();
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Json, finish: string | null = null): Json => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: chat.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  /** Converse's content block index → OpenAI's tool call index. */
  const tools = new Map<number, number>();
  let stopped = false;
  let metered = false;
  for await (const bytes of eventMessages(source)) {
    const message = decode(events, bytes);
    const kind = header(message, ":message-type");
    if (kind === "exception" || kind === "error") throw streamException(message);
    const event = payload(message);
    const block = typeof event.contentBlockIndex === "number" ? event.contentBlockIndex : 0;
    switch (header(message, ":event-type")) {
      case "messageStart":
        yield chunk({ role: "assistant", content: "" });
        break;
      case "contentBlockStart": {
        const use = (event.start as { toolUse?: { toolUseId?: unknown; name?: unknown } } | undefined)?.toolUse;
        if (!use) break;
        const index = tools.size;
        tools.set(block, index);
        yield chunk({
          tool_calls: [{ index, id: use.toolUseId, type: "function", function: { name: use.name, arguments: "" } }],
        });
        break;
      }
      case "contentBlockDelta": {
        const delta = (event.delta ?? {}) as { text?: unknown; toolUse?: { input?: unknown } };
        if (typeof delta.text === "string") yield chunk({ content: delta.text });
        else if (typeof delta.toolUse?.input === "string") {
          const index = tools.get(block);
          if (index === undefined) {
            throw new GatewayError(
              "upstream_invalid_response",
              `Amazon Bedrock's stream sent tool input for content block ${block}, which started no tool call`,
            );
          }
          yield chunk({ tool_calls: [{ index, function: { arguments: delta.toolUse.input } }] });
        }
        // Reasoning and citation deltas have no place in an OpenAI chat chunk.
        break;
      }
      case "messageStop":
        stopped = true;
        yield chunk({}, finishReason(event.stopReason));
        break;
      case "metadata":
        metered = true;
        yield { id, object: "chat.completion.chunk", created, model: chat.model, choices: [], usage: chatUsage(event.usage) };
        break;
      default:
      // contentBlockStop, and events added to the API later, say nothing a chunk carries.
    }
  }
  if (!stopped || !metered) {
    throw new GatewayError(
      "upstream_stream_incomplete",
      `Amazon Bedrock's stream ended without its ${stopped ? "metadata" : "messageStop"} event`,
    );
  }
}
