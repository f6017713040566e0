/**
 * Where the process log goes when no stream is given: stdout through pino's asynchronous
 * destination, buffered. Lines gather in memory and are written in one call once 8 KB wait, or at
 * the latest a quarter of a second after the last write, so a busy gateway makes one write per
 * fifty-odd access lines instead of one per request, and a quiet one still shows each line at
 * once to the eye. Nothing is lost on the way out: pino writes what is held synchronously when
 * the process exits (SIGTERM included, since `guardgate serve` ends by exiting), and
 * `flushAccessLog` does it when an app closes.
 *
 * The destination holds bytes, not text: in its text mode sonic-boom appends each line to the
 * held string and then measures that string's bytes, which flattens it, so every line copied the
 * whole buffer again (about 8 KB of garbage per access line). Each line is encoded once instead
 * (a slice of Node's shared buffer pool) and the held lines are joined once per write.
 */
import { type DestinationStream, pino } from "pino";

/** Bytes held before a write. */
const BUFFER_BYTES = 8 * 1024;

/** The longest a line waits for a write, ms. */
const FLUSH_MS = 250;

type Destination = ReturnType<typeof pino.destination>;

/** A buffered destination and the stream pino writes its lines to. */
export interface BufferedDestination {
  destination: Destination;
  stream: DestinationStream;
}

/** A buffered asynchronous destination on a file descriptor, taking pino's lines as bytes. */
export function bufferedDestination(fd: number): BufferedDestination {
  const destination = pino.destination({
    dest: fd,
    sync: false,
    minLength: BUFFER_BYTES,
    periodicFlush: FLUSH_MS,
    contentMode: "buffer",
  });
  // pino writes strings; `destination.write` is read per call, since pino replaces it on EPIPE.
  const stream = { write: (line: string) => destination.write(Buffer.from(line) as unknown as string) };
  return { destination, stream };
}

let stdout: BufferedDestination | undefined;

/** The process's one buffered stdout destination (one per process, whatever the number of apps). */
export function accessDestination(): DestinationStream {
  stdout ??= bufferedDestination(1);
  return stdout.stream;
}

/** Writes whatever the destination holds, synchronously (an app that closes calls it). */
export function flushAccessLog(): void {
  try {
    stdout?.destination.flushSync();
  } catch {
    // Not open yet, or a write is in flight: that write carries the lines, and exit flushes the rest.
  }
}
