/**
 * What `guardgate serve` says as it starts and stops: plain lines for a person at a terminal, and
 * pino lines otherwise, so a log collector reading stdout gets one JSON line format throughout
 * (the gateway's own log is pino's). They are written whatever `--log-level` says: they carry the
 * address, the store and what was loaded, which an operator always needs.
 */
import { pino } from "pino";

/** Writes start-up and stop lines. */
export interface StartupLines {
  /** Whether the lines are for a person (stdout is a terminal). */
  readonly terminal: boolean;
  info(message: string, fields?: object): void;
  /** A line that asks for attention: stderr at a terminal, a pino warn line otherwise. */
  warn(message: string, fields?: object): void;
}

/** Start-up lines for `out` (stdout), with warnings on `err` (stderr) at a terminal. */
export function startupLines(
  out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): StartupLines {
  if (out.isTTY === true) {
    return {
      terminal: true,
      info: (message) => void out.write(`${message}\n`),
      warn: (message) => void err.write(`${message}\n`),
    };
  }
  const log = pino({ level: "info" }, out);
  return {
    terminal: false,
    info: (message, fields = {}) => log.info(fields, message),
    warn: (message, fields = {}) => log.warn(fields, message),
  };
}
