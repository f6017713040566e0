/**
 * The streamed answer: upstream events passed through as they complete, with nothing added to
 * their timing, and — when strict compliance is off — a first `hook_results` event with the input
 * side and a last one, before `[DONE]` / `message_stop`, with the output side evaluated on the
 * streamed text (spec §6). Output guardrails never run on an empty text.
 *
 * A deny on the output side cannot take back text already sent: the last event reports it and
 * the log records it. Terminal events are held back here, which is where holding text back
 * (bounded unchecked text) will hook in.
 */
import type { Evaluation, HookResults } from "../../core/index.js";
import { ThreadShare } from "../../core/internal.js";
import { FORMATS, type FormatName, formatOfRequestType } from "../formats/index.js";
import { SseSplitter } from "../upstream/sse.js";
import type { Leaf } from "./outcome.js";

/** The longest a stream keeps the thread between turns given to other requests. */
const RELAY_SLICE_MS = 2;

/** How a relayed stream ended, for the log. */
export interface RelaySummary {
  text: string;
  /** The response body the streamed text amounts to. */
  body: Record<string, unknown>;
  output?: Evaluation;
  outputSkipped: boolean;
  error?: unknown;
}

/** The `hook_results` event in the endpoint's format. */
export function hookEvent(format: FormatName, hookResults: Partial<HookResults>): Buffer {
  return FORMATS[format].hookEvent(hookResults);
}

/** Relays one stream; `evaluateOutput` runs the synchronous output side on the streamed body. */
export async function* relayStream(options: {
  leaf: Leaf;
  format: FormatName;
  strict: boolean;
  source: AsyncIterable<Buffer>;
  evaluateOutput: (body: Record<string, unknown>) => Promise<Evaluation | undefined>;
  /** Told when the stream ends; the stream's own end waits for what it returns (a durable log). */
  onEnd: (summary: RelaySummary) => void | Promise<void>;
}): AsyncGenerator<Buffer> {
  const { leaf, format } = options;
  const reportHooks = !options.strict && (leaf.node.input.sync.length > 0 || leaf.node.output.sync.length > 0);
  const accumulated = formatOfRequestType(leaf.phase.requestType).streamText(leaf.phase.requestType);
  const splitter = new SseSplitter();
  // A source that has its events at hand (the mock, a burst of buffered chunks) would otherwise be
  // relayed to its end in one go: the socket takes the writes at once, so nothing waits for I/O.
  const share = new ThreadShare(RELAY_SLICE_MS);
  const held: Buffer[] = [];
  let error: unknown;
  let output: Evaluation | undefined;
  let outputSkipped = false;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    return options.onEnd({ text: accumulated.text(), body: accumulated.body(), ...(output && { output }), outputSkipped, error });
  };
  try {
    if (reportHooks) yield hookEvent(format, { before_request_hooks: leaf.input?.results ?? [] });
    try {
      for await (const chunk of options.source) {
        const out: Buffer[] = [];
        for (const event of splitter.push(chunk)) {
          const turn = share.due();
          if (turn) await turn;
          // Once the terminal event arrived, whatever follows waits with it.
          if (held.length || accumulated.isTerminal(event)) {
            held.push(event.raw);
            continue;
          }
          accumulated.add(event);
          out.push(event.raw);
        }
        if (out.length) yield out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out);
      }
      const rest = splitter.flush();
      if (rest) {
        if (held.length || accumulated.isTerminal(rest)) held.push(rest.raw);
        else {
          accumulated.add(rest);
          yield rest.raw;
        }
      }
    } catch (caught) {
      error = caught;
    }
    if (leaf.node.output.sync.length) {
      if (accumulated.text() === "") outputSkipped = true;
      else output = await options.evaluateOutput(accumulated.body());
    }
    // A broken upstream stream ends here: nothing more is sent, the log has the rest.
    if (error === undefined) {
      if (reportHooks && output) yield hookEvent(format, { after_request_hooks: output.results });
      for (const event of held) yield event;
    }
  } finally {
    await end();
  }
}
