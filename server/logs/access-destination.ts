/**
 * Where the process log goes when no stream is given: stdout through pino's asynchronous
 * destination, buffered. Lines gather in memory and are written in one call once 8 KB wait, or at
 * the latest a quarter of a second after the last write, so a busy gateway makes one write per
 * fifty-odd access lines instead of one per request, and a quiet one still shows each line at
 * once to the eye. Nothing is lost on the way out: pino writes what is held synchronously when
 * the process exits (SIGTERM included, since `guardgate serve` ends by exiting), and
 * `flushAccessLog` does it when an app closes.
 */
import { type DestinationStream, pino } from "pino";

/** Bytes held before a write. */
const BUFFER_BYTES = 8 * 1024;

/** The longest a line waits for a write, ms. */
const FLUSH_MS = 250;

type Destination = ReturnType<typeof pino.destination>;

let stdout: Destination | undefined;

/** The process's one buffered stdout destination (one per process, whatever the number of apps). */
export function accessDestination(): DestinationStream {
  stdout ??= pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES, periodicFlush: FLUSH_MS });
  return stdout;
}

/** Writes whatever the destination holds, synchronously (an app that closes calls it). */
export function flushAccessLog(): void {
  try {
    stdout?.flushSync();
  } catch {
    // Not open yet, or a write is in flight: that write carries the lines, and exit flushes the rest.
  }
}
