/** What every subcommand module exports, apart from the `guardgate` command that loads it (main.ts). */

/** A subcommand: runs with its arguments and resolves to the exit code. */
export type Command = (args: string[]) => Promise<number>;
