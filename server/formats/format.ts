/**
 * What guardgate knows about one wire format, the OpenAI API or the Anthropic API, behind one
 * interface: its endpoints, how a provider credential travels, which client headers go upstream
 * and which come back, the error envelope, how a streamed answer's text is read and where the
 * stream ends, the `hook_results` stream frame, the usage fields, and the mock's answers. One
 * module per format implements it (openai.ts, anthropic.ts); index.ts lists them. A stream is
 * read only through `StreamText` and written to only through the format's frames (its events
 * re-written with redacted text, `hook_results`, the error event that ends a stream early), so the
 * relay and the text hold know nothing of either format. Below the interface, what every format's
 * stream shares: an event's JSON read, whole or not, and written back.
 */
import type { HookResults, RequestType } from "../../core/index.js";
import { hasDuplicateKeys } from "../../core/internal.js";
import type { SseEvent } from "./sse.js";

/** The name of a wire format, as endpoints, providers and the catalog give it. */
export type FormatName = "openai" | "anthropic" | "responses";

/** One guarded inference endpoint of a format. */
export interface FormatEndpoint {
  route: string;
  /** Appended to the provider's base URL, which ends with the version segment. */
  upstreamPath: string;
  requestType: RequestType;
}

/**
 * What one event added to one text of a streamed answer. A stream carries one text per choice
 * (`n > 1`), each held and checked on its own; an Anthropic message is one text.
 */
export interface AddedText {
  /** Which text: the choice's index (0 for a message). */
  key: number;
  /** The characters added to that text: a separator between parts, then the event's own text. */
  text: string;
  /** How many leading characters of `text` are the separator, not the event's own: a separator begins a new segment. */
  lead: number;
  /**
   * The client reads this text otherwise than it is written (JSON escapes in tool arguments,
   * tool input given whole at the start of its block): a window of it cannot be judged as raw
   * text, so the stream is held until the check of the whole answer.
   */
  opaque?: true;
}

/** Gathers the texts of one streamed answer, event by event. */
export interface StreamText {
  /** Takes an event in; says what it added to which text, one entry per piece of text it carries. */
  add(event: SseEvent): AddedText[];
  /** The event, which added text, re-written to carry `owns` (one per piece `add` read) as its texts instead. */
  rewrite(event: SseEvent, owns: readonly string[]): Buffer;
  /**
   * Each choice's segments so far (its content, each tool call's arguments, each content block:
   * the texts a newline joins), by key.
   */
  texts(): ReadonlyMap<number, readonly string[]>;
  /** All the texts so far, joined in key order. */
  text(): string;
  /** A non-streamed response body carrying the texts, for the output phase. */
  body(): Record<string, unknown>;
  /** A response body carrying only these texts (windows of the answer, by key), for the checks of one window. */
  windowBody(texts: ReadonlyMap<number, string>): Record<string, unknown>;
  /** The segments a (checked, maybe transformed) body from `body()` or `windowBody()` carries, by key, as `texts()` gives them. */
  textsOf(body: unknown): Map<number, string[]>;
  /** Whether this event ends the stream (`[DONE]`, `message_stop`): held back until the output phase ran. */
  isTerminal(event: SseEvent): boolean;
  /**
   * For formats whose events repeat texts streamed before them (the Responses API's done events
   * and `response.completed`): called, in order, for each held event sent as it came, this one
   * re-written to repeat the texts as they were sent (redacted), or undefined to send it as it came.
   */
  echo?(event: SseEvent): Buffer | undefined;
}

/** What an error envelope says. */
export interface ErrorFields {
  status: number;
  code: string | null;
  message: string;
  /** Overrides the type the status maps to (`hooks_failed`). */
  type?: string;
  param?: string | null;
  /** Which guardrails denied: added to a 446's `error`, so the error an SDK throws carries it. */
  denial?: DenialFields;
}

/** What a denial adds to its `error` object, beside the format's own fields. */
export interface DenialFields {
  side: "input" | "output";
  /** Ids of the synchronous guardrails with `deny` that failed. */
  guardrails: string[];
  /** Ids of the checks that failed in them (in the order they ran, each once). */
  checks: string[];
}

/** The mock's answer before it takes a format's shape. */
export interface MockAnswer {
  requestType: RequestType;
  text: string;
  model: string;
  /** Unix seconds. */
  created: number;
  promptTokens: number;
  completionTokens: number;
  /** The request body, for answers that mirror it (embeddings, one vector per input). */
  request: Record<string, unknown>;
}

/** A wire format. */
export interface WireFormat {
  readonly name: FormatName;
  /** How messages name a provider of this format: "an OpenAI-compatible". */
  readonly label: string;
  readonly endpoints: readonly FormatEndpoint[];
  /** The headers carrying a provider's secret. */
  credentialHeaders(secret: string): Record<string, string>;
  /** The caller's own secret, when the format's SDKs send one the gateway passes on as the provider credential. */
  callerSecret(caller: { authorization?: string; apiKey?: string }): string | undefined;
  /** Client headers passed to the upstream. */
  readonly forwardedHeaders: readonly string[];
  /** Client headers passed to the upstream only with the caller's own credential: they select the caller's account. */
  readonly forwardedWithCallerCredential: readonly string[];
  /** Headers an upstream call of this format carries when the client sent none. */
  readonly upstreamDefaults: Readonly<Record<string, string>>;
  /** The upstream response headers of this format passed back to the client: exact names and name prefixes, lower case. */
  readonly passedBack: { readonly names: readonly string[]; readonly prefixes: readonly string[] };
  /** The error body (without `hook_results`). */
  errorBody(fields: ErrorFields): Record<string, unknown>;
  /** The `hook_results` frame of a stream (spec §6). */
  hookEvent(hookResults: Partial<HookResults>): Buffer;
  /**
   * Where the stream's opening `hook_results` goes when the format's SDKs drop events before a
   * first one: `out` (whole events) with `hook` placed after that event, or undefined when `out`
   * does not hold it yet. Without it the opening event goes first.
   */
  placeOpeningHook?(out: Buffer, hook: Buffer): Buffer | undefined;
  /**
   * The event ending a stream that failed after it began, shaped so the format's SDKs raise it;
   * `after` is the last bytes the client was sent, for a format whose events are numbered.
   */
  streamError(fields: ErrorFields, hookResults?: Partial<HookResults>, after?: Buffer): Buffer;
  /** The accumulator of a streamed answer's text for one of the format's request types. */
  streamText(requestType: RequestType): StreamText;
  /**
   * A non-streamed answer as the stream the client asked for, its texts one after another (each
   * choice whole, then its tool calls): for answers whose streamed texts would interleave.
   */
  streamOf?(requestType: RequestType, body: Record<string, unknown>): Generator<Buffer>;
  /** Where the answer's `usage` object reports its token counts. */
  readonly usageFields: { readonly input: string; readonly output: string };
  /** The mock's non-streamed answer. */
  mockBody(answer: MockAnswer): Record<string, unknown>;
  /** The mock's streamed answer as server-sent events, one event per piece of the text. */
  mockStream(answer: MockAnswer, pieces: readonly string[]): Generator<Buffer>;
  /**
   * The stream of a `mock_response` given as a whole answer object, for a format whose answers
   * carry more than text (the Responses API's function calls): the events of that same answer.
   * Without it the stream carries the object's text.
   */
  mockObjectStream?(answer: MockAnswer, given: Record<string, unknown>): Generator<Buffer>;
}

/** An event's bytes with its `data:` replaced by `value`, its `event:` name kept. */
export function replacedEvent(event: SseEvent, value: unknown): Buffer {
  const name = event.event === undefined ? "" : `event: ${event.event}\n`;
  return Buffer.from(`${name}data: ${JSON.stringify(value)}\n\n`);
}

/** The JSON object an event's data holds, if it holds one (`[DONE]` and broken JSON do not). */
export function eventObject(data: string): Record<string, unknown> | undefined {
  if (!data || data === "[DONE]") return undefined;
  try {
    const value = JSON.parse(data) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// How the stream enforcer reads one upstream event: whether its data is whole, and the event as
// every client would read it when its JSON names a key twice.

/** Whether an event's data is complete: `[DONE]` or a JSON value that parses. */
export function isWhole(event: SseEvent): boolean {
  if (event.data === "[DONE]") return true;
  try {
    JSON.parse(event.data);
    return true;
  } catch {
    return false;
  }
}

/**
 * The event as every client reads it. An object with a key twice is read differently by different
 * parsers (the last one wins in JavaScript and Python, the first in others), while the checks read
 * it one way: such an event leaves re-written from the value the checks read.
 */
export function readAlike(event: SseEvent): SseEvent {
  if (!event.data.includes("{") || !hasDuplicateKeys(event.data)) return event;
  const value = eventObject(event.data);
  return value ? { ...event, raw: replacedEvent(event, value) } : event;
}
