/**
 * How the Responses API writes its answers: the response object and its output items, and the
 * typed server-sent events of a stream (`event: <type>` with a `data:` object carrying the same
 * `type` and a `sequence_number`), as the official SDKs read them. Everything that writes a
 * Responses answer (the mock, a translated provider's stream) frames it here.
 */
import { randomUUID } from "node:crypto";

type Obj = Record<string, unknown>;

/** A new id with the prefix the Responses API gives that kind of object (`resp`, `msg`, `fc`). */
export function responsesId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "")}`;
}

/** One typed event as its bytes. */
export function responsesEvent(type: string, fields: Obj, sequence: number): Buffer {
  return Buffer.from(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: sequence })}\n\n`);
}

/** A usage object with its detail fields, which the SDKs' types declare. */
export function responsesUsage(input: number, output: number): Obj {
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

/** What a response object is built from; the rest of its fields take the API's defaults. */
export interface ResponseInit {
  id: string;
  model: string;
  /** Unix seconds. */
  createdAt: number;
  status: "in_progress" | "completed" | "incomplete" | "failed";
  output: Obj[];
  usage?: Obj | null;
  /** Request fields the response object repeats (`instructions`, `tools`, `previous_response_id`, …). */
  request?: Obj;
  error?: Obj | null;
  incompleteDetails?: Obj | null;
}

/** Request fields a response object repeats, with the value it takes when the request left them out. */
const ECHOED: ReadonlyArray<[string, unknown]> = [
  ["instructions", null],
  ["max_output_tokens", null],
  ["metadata", {}],
  ["parallel_tool_calls", true],
  ["previous_response_id", null],
  ["reasoning", { effort: null, summary: null }],
  ["store", true],
  ["temperature", 1],
  ["text", { format: { type: "text" } }],
  ["tool_choice", "auto"],
  ["tools", []],
  ["top_p", 1],
  ["truncation", "disabled"],
  ["user", null],
];

/** A response object. */
export function responseObject(init: ResponseInit): Obj {
  const request = init.request ?? {};
  const echoed = Object.fromEntries(ECHOED.map(([name, fallback]) => [name, request[name] ?? fallback]));
  return {
    id: init.id,
    object: "response",
    created_at: init.createdAt,
    status: init.status,
    error: init.error ?? null,
    incomplete_details: init.incompleteDetails ?? null,
    model: init.model,
    output: init.output,
    ...echoed,
    usage: init.usage ?? null,
  };
}

/** An assistant message output item. */
export function messageItem(id: string, texts: readonly string[], status = "completed"): Obj {
  return {
    type: "message",
    id,
    status,
    role: "assistant",
    content: texts.map((text) => ({ type: "output_text", text, annotations: [], logprobs: [] })),
  };
}

/** A function call output item. */
export function functionCallItem(id: string, callId: string, name: string, args: string, status = "completed"): Obj {
  return { type: "function_call", id, call_id: callId, name, arguments: args, status };
}

/**
 * Writes one stream's events in order, numbering them. The item methods write an item whole
 * (added, its text in `pieces`, done); `created` and `finished` open and close the stream.
 */
export class ResponsesEventWriter {
  #sequence = 0;

  /** One event, numbered. */
  event(type: string, fields: Obj): Buffer {
    return responsesEvent(type, fields, this.#sequence++);
  }

  /** `response.created` and `response.in_progress` for a response without output yet. */
  *created(response: Obj): Generator<Buffer> {
    const opening = { ...response, status: "in_progress", output: [], usage: null };
    yield this.event("response.created", { response: opening });
    yield this.event("response.in_progress", { response: opening });
  }

  /** A message item at `index`: its parts' text in the given pieces (one list per part). */
  *message(index: number, item: Obj, pieces: ReadonlyArray<readonly string[]>): Generator<Buffer> {
    const id = item.id;
    yield this.event("response.output_item.added", {
      output_index: index,
      item: { ...item, status: "in_progress", content: [] },
    });
    const parts = Array.isArray(item.content) ? (item.content as Obj[]) : [];
    for (const [k, part] of parts.entries()) {
      const text = typeof part.text === "string" ? part.text : "";
      const empty = { ...part, text: "" };
      const at = { item_id: id, output_index: index, content_index: k };
      yield this.event("response.content_part.added", { ...at, part: empty });
      for (const delta of pieces[k] ?? [text]) {
        if (delta) yield this.event("response.output_text.delta", { ...at, delta, logprobs: [] });
      }
      yield this.event("response.output_text.done", { ...at, text, logprobs: [] });
      yield this.event("response.content_part.done", { ...at, part });
    }
    yield this.event("response.output_item.done", { output_index: index, item });
  }

  /** A function call item at `index`, its arguments in the given pieces. */
  *functionCall(index: number, item: Obj, pieces?: readonly string[]): Generator<Buffer> {
    const args = typeof item.arguments === "string" ? item.arguments : "";
    yield this.event("response.output_item.added", {
      output_index: index,
      item: { ...item, arguments: "", status: "in_progress" },
    });
    const at = { item_id: item.id, output_index: index };
    for (const delta of pieces ?? [args]) {
      if (delta) yield this.event("response.function_call_arguments.delta", { ...at, delta });
    }
    yield this.event("response.function_call_arguments.done", { ...at, arguments: args });
    yield this.event("response.output_item.done", { output_index: index, item });
  }

  /** Any other item at `index`, whole. */
  *item(index: number, item: Obj): Generator<Buffer> {
    yield this.event("response.output_item.added", { output_index: index, item });
    yield this.event("response.output_item.done", { output_index: index, item });
  }

  /** The closing event its status names: `response.completed`, `.incomplete` or `.failed`. */
  finished(response: Obj): Buffer {
    const status = response.status === "incomplete" || response.status === "failed" ? response.status : "completed";
    return this.event(`response.${status}`, { response });
  }
}

/** A whole response object as the stream that would have carried it; a message's one part split into `pieces` when given. */
export function* responseAsEvents(response: Obj, pieces?: readonly string[]): Generator<Buffer> {
  const writer = new ResponsesEventWriter();
  yield* writer.created(response);
  const output = Array.isArray(response.output) ? (response.output as Obj[]) : [];
  for (const [index, item] of output.entries()) {
    if (item.type === "message") yield* writer.message(index, item, pieces && index === 0 ? [pieces] : []);
    else if (item.type === "function_call") yield* writer.functionCall(index, item);
    else yield* writer.item(index, item);
  }
  yield writer.finished(response);
}

/** Pieces of a text as a model's tokens come: a word and the space after it, at most 256 characters each. */
function wordPieces(text: string): string[] {
  return text.match(/\s*\S{1,256}\s*/gu) ?? (text ? [text] : []);
}

/** Pieces of a function call's arguments: 32 characters each, as a model writes JSON a few tokens at a time. */
function argumentPieces(args: string): string[] {
  return args.match(/[\s\S]{1,32}/gu) ?? [];
}

/** A whole response object as the stream that would have carried it, every text word by word and every call's arguments in pieces. */
export function* responseAsPieces(response: Obj): Generator<Buffer> {
  const writer = new ResponsesEventWriter();
  yield* writer.created(response);
  const output = Array.isArray(response.output) ? (response.output as Obj[]) : [];
  for (const [index, item] of output.entries()) {
    if (item.type === "message") {
      const parts = Array.isArray(item.content) ? (item.content as Obj[]) : [];
      yield* writer.message(
        index,
        item,
        parts.map((part) => wordPieces(typeof part.text === "string" ? part.text : "")),
      );
    } else if (item.type === "function_call") {
      yield* writer.functionCall(index, item, argumentPieces(typeof item.arguments === "string" ? item.arguments : ""));
    } else yield* writer.item(index, item);
  }
  yield writer.finished(response);
}
