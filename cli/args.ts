/**
 * The subcommands' arguments: a command declares its flags once, as data (type, value name, what
 * it does). `parseArgs` (node:util) parses them strictly, so an unknown flag is an error naming it,
 * and `--help` is rendered from the same declaration, so the help lists every flag the command
 * takes and no other.
 */
import { parseArgs } from "node:util";

/** One flag of a command. */
export interface Flag {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  default?: string | boolean;
  /** The value's name in the help (FILE, N, ID); string flags only. */
  value?: string;
  /** What the flag does; each line after the first is indented under it. */
  help: string;
}

/** A command's arguments and its help. */
export interface CommandArgs<O extends Record<string, Flag>> {
  /** The usage lines after `guardgate `, e.g. `keys list [--workspace ID]`. */
  usage: string[];
  /** A paragraph between the usage and the list. */
  about?: string;
  /** Actions and arguments, described before the flags (name, then what it is). */
  entries?: Record<string, string>;
  flags: O;
  /** False for a command that takes no arguments besides its flags: one given is an error. */
  positionals?: boolean;
  /** A paragraph after the list (exit status, …). */
  footer?: string;
}

const HELP_FLAG = { type: "boolean", short: "h" } as const;

/** `--data-dir DIR`, for the commands that work on the store. */
export const DATA_DIR_FLAG = {
  type: "string",
  value: "DIR",
  help: "the data folder (default GUARDGATE_DATA_DIR or ./.guardgate)",
} as const satisfies Flag;

/** `--config FILE`, for the commands that load the plugins a gateway's config file names. */
export const CONFIG_PLUGINS_FLAG = {
  type: "string",
  value: "FILE",
  help: "the gateway's config file, whose plugins to load",
} as const satisfies Flag;

/** `--plugin SPEC`, repeated, for the commands that validate guardrails. */
export const GUARDRAIL_PLUGIN_FLAG = {
  type: "string",
  multiple: true,
  value: "SPEC",
  help: "a plugin the guardrails' checks come from (package name or path); may be repeated",
} as const satisfies Flag;

/** `--plugin`, `--config` and `--data-dir`: the flags of a command that opens the store and validates guardrails. */
export const STORE_PLUGIN_FLAGS = {
  plugin: GUARDRAIL_PLUGIN_FLAG,
  config: CONFIG_PLUGINS_FLAG,
  "data-dir": DATA_DIR_FLAG,
} as const satisfies Record<string, Flag>;

/** `--organization ID`, for the commands that act in the store's first organization by default. */
export const ORGANIZATION_FLAG = {
  type: "string",
  value: "ID",
  help: "the organization (default: the first)",
} as const satisfies Flag;

/** What `parseArgs` is given for a command. */
interface ParseConfig<O extends Record<string, Flag>> {
  args: string[];
  options: O & { help: typeof HELP_FLAG };
  allowPositionals: boolean;
  strict: true;
}

/** The values and positionals of a command, typed by its flags. */
export type Parsed<O extends Record<string, Flag>> = ReturnType<typeof parseArgs<ParseConfig<O>>>;

/** The widest first column the help aligns to; a longer name puts its text on the next line. */
const COLUMN = 22;

/** A command's `--help`. */
export function helpOf<O extends Record<string, Flag>>(args: CommandArgs<O>): string {
  const rows: [string, string][] = [...Object.entries(args.entries ?? {})];
  for (const [name, flag] of Object.entries(args.flags)) {
    const value = flag.type === "string" && flag.value ? ` ${flag.value}` : "";
    // A one-letter flag is shown in its short form only (-n N).
    const names = name === flag.short ? `-${name}` : `${flag.short ? `-${flag.short}, ` : ""}--${name}`;
    const label = `${names}${value}`;
    rows.push([label, flag.help]);
  }
  rows.push(["-h, --help", "this help"]);
  const width = Math.min(COLUMN, Math.max(...rows.map(([label]) => label.length)) + 2);
  const indent = " ".repeat(width + 2);
  const list = rows.flatMap(([label, text]) => {
    const [first = "", ...rest] = text.split("\n");
    const head = label.length + 2 > width ? [`  ${label}`, `${indent}${first}`] : [`  ${label.padEnd(width)}${first}`];
    return [...head, ...rest.map((line) => `${indent}${line}`)];
  });
  const usage = args.usage.flatMap((form, i) => {
    const [first = "", ...rest] = form.split("\n");
    const head = `${i === 0 ? "usage:" : "      "} guardgate ${first}`;
    // A long form goes on under its first argument, whatever indent the text gave it.
    const argument = head.search(/ [-[(]/);
    const indent = " ".repeat(argument < 0 ? 17 : argument + 1);
    return [head, ...rest.map((line) => `${indent}${line.trim()}`)];
  });
  return [...usage, ...(args.about ? ["", args.about] : []), "", ...list, ...(args.footer ? ["", args.footer] : [])].join("\n");
}

/**
 * Parses a command's arguments strictly (an unknown flag throws a `parseArgs` error naming it);
 * `help` is true when --help or -h was given.
 */
export function parseCommand<const O extends Record<string, Flag>>(
  args: CommandArgs<O>,
  argv: string[],
): Parsed<O> & { help: boolean } {
  const config: ParseConfig<O> = {
    args: argv,
    options: { ...args.flags, help: HELP_FLAG } as O & { help: typeof HELP_FLAG },
    allowPositionals: args.positionals ?? true,
    strict: true,
  };
  const { values, positionals } = parseArgs(config);
  return { values, positionals, help: (values as { help?: boolean }).help === true };
}

/** Writes a command's help to stdout; resolves to the exit code (0 when asked for, 2 when the arguments were missing). */
export function printHelp<O extends Record<string, Flag>>(args: CommandArgs<O>, asked: boolean): number {
  process.stdout.write(`${helpOf(args)}\n`);
  return asked ? 0 : 2;
}
