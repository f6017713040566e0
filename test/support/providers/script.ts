/**
 * What a provider contract fake answers, format-neutral: a turn (text and tool calls, the stop,
 * the usage), a provider error, or a stream cut before its end. Each fake writes these in its own
 * wire format; with nothing queued it answers "echo: <last user text>".
 */

/** A tool call the model makes. */
export interface ScriptedToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** One answer of the model. */
export interface ScriptedTurn {
  text?: string;
  tools?: ScriptedToolCall[];
  /** Why it stopped; by default "tool" when it calls tools, else "end". */
  stop?: "end" | "length" | "tool" | "stop_sequence" | "filter";
  usage?: { input: number; output: number; cached?: number };
}

/** How the next request is answered. */
export type Scripted =
  | { kind: "turn"; turn: ScriptedTurn }
  /** The provider's error answer, in its own error type. */
  | { kind: "error"; status: number; type: string; message: string; code?: string; headers?: Record<string, string> }
  /** A stream cut after this many events, without its terminal event. */
  | { kind: "cut"; after: number }
  /** An error event in the middle of a stream, after this many events. */
  | { kind: "stream-error"; after: number; type: string; message: string };

/** Splits a text into word pieces as a model's tokens come; a JSON text into pieces of `size` characters. */
export function pieces(text: string, size?: number): string[] {
  if (size) {
    const out: string[] = [];
    for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
    return out;
  }
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

export const DEFAULT_USAGE = { input: 11, output: 7, cached: 0 };
