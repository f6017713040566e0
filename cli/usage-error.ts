/**
 * A mistake in how a command was called (a missing flag, a bad value, no input on stdin): the
 * command prints the message and exits with status 2, where a failure of the work itself exits
 * with 1. Its own module, so that commands which open no store (check, models, serve) need not
 * load one to share it.
 */

/** A usage mistake: exit status 2 with the message. */
export class UsageError extends Error {}

/** All of stdin as text; a UsageError saying `missing` when stdin is a terminal (nothing was piped). */
export async function readStdin(missing: string): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError(missing);
  const parts: Buffer[] = [];
  for await (const part of process.stdin) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}
