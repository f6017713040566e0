/**
 * The gateway's log for a person at a terminal: each pino JSON line becomes one readable line
 * (`12:04:05 INFO  POST /v1/chat/completions 200 12 ms  req=0194…`). A log collector reading a
 * pipe or file still gets pino's JSON (cli/serve.ts chooses). A line that is not JSON passes as
 * it is.
 */
import { Writable } from "node:stream";

const LEVELS: Readonly<Record<number, string>> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO ",
  40: "WARN ",
  50: "ERROR",
  60: "FATAL",
};

/** pino's own fields, shown in their place on the line rather than as `key=value`. */
const OWN = new Set(["level", "time", "pid", "hostname", "msg", "reqId", "req", "res", "responseTime", "err", "v"]);

/** Fastify's line on listening: the start-up lines already say the address, in plain words. */
const LISTENING = /^Server listening at /;

interface PinoLine {
  level?: number;
  time?: number;
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
  [key: string]: unknown;
}

function clock(time: number | undefined): string {
  const date = time === undefined ? new Date() : new Date(time);
  return date.toTimeString().slice(0, 8);
}

function value(v: unknown): string {
  if (typeof v === "string") return /\s/.test(v) || v === "" ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

/** One readable line for a pino line (no newline); undefined for a line left out. */
export function formatLogLine(line: PinoLine): string | undefined {
  const message = line.msg ?? "";
  if (LISTENING.test(message)) return undefined;
  const parts = [clock(line.time), LEVELS[line.level ?? 30] ?? String(line.level)];
  if (line.req?.method && line.res?.statusCode !== undefined) {
    // An access line: what was asked and how it was answered says it all.
    parts.push(`${line.req.method} ${line.req.url ?? ""} ${line.res.statusCode}`);
    if (line.responseTime !== undefined) parts.push(`${Math.round(line.responseTime)} ms`);
    if (message !== "request completed") parts.push(message);
  } else parts.push(message);
  const extras = Object.entries(line)
    .filter(([key, v]) => !OWN.has(key) && v !== undefined)
    .map(([key, v]) => `${key}=${value(v)}`);
  if (line.err?.message) extras.unshift(`error=${value(line.err.message)}`);
  if (line.reqId) extras.push(`req=${line.reqId}`);
  let text = parts.join(" ");
  if (extras.length) text += `  ${extras.join(" ")}`;
  // A failure's stack is worth its lines; it is rare.
  if ((line.level ?? 30) >= 50 && line.err?.stack) text += `\n${line.err.stack.replace(/^/gm, "    ")}`;
  return text;
}

/** A stream for pino that writes readable lines to `out`. */
export function prettyLogStream(out: NodeJS.WritableStream): Writable {
  let pending = "";
  return new Writable({
    write(chunk, _encoding, done) {
      pending += String(chunk);
      let end: number;
      while ((end = pending.indexOf("\n")) !== -1) {
        const raw = pending.slice(0, end);
        pending = pending.slice(end + 1);
        if (!raw) continue;
        let text: string | undefined = raw;
        try {
          const parsed = JSON.parse(raw) as unknown;
          if (parsed && typeof parsed === "object") text = formatLogLine(parsed as PinoLine);
        } catch {
          // Not pino's: shown as it came.
        }
        if (text !== undefined) out.write(`${text}\n`);
      }
      done();
    },
  });
}
