/**
 * The `guardgate` command: one subcommand per module, loaded only when used.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "./command.js";

const commands: Record<string, { summary: string; load: () => Promise<Command> }> = {
  check: {
    summary: "evaluate guardrails on a request or response (JSON on stdin)",
    load: async () => (await import("./check.js")).default,
  },
  serve: {
    summary: "run the gateway (inference and hook endpoints) from an optional config file",
    load: async () => (await import("./serve.js")).default,
  },
  reload: {
    summary: "ask a running gateway to read its config file again (through its admin API)",
    load: async () => (await import("./reload.js")).default,
  },
  orgs: {
    summary: "list organizations, create one, set its plan and guardrails flag (operator)",
    load: async () => (await import("./orgs.js")).default,
  },
  keys: {
    summary: "create, list and revoke API keys in the store",
    load: async () => (await import("./keys.js")).default,
  },
  credentials: {
    summary: "hold credentials for a plugin's checks in the store (set, list, remove)",
    load: async () => (await import("./credentials.js")).default,
  },
  guardrails: {
    summary: "save the guardrails of a file into the store (apply FILE)",
    load: async () => (await import("./guardrails.js")).default,
  },
  policies: {
    summary: "save the policies of a file into the store, list or delete them (apply FILE, list, delete ID)",
    load: async () => (await import("./policies.js")).default,
  },
  mcp: {
    summary: "MCP servers of a workspace in the store: add FILE, list, delete, tools NAME, approve NAME TOOL",
    load: async () => (await import("./mcp.js")).default,
  },
  replay: {
    summary: "run a guardrail or policy over logged requests: what it would have passed, flagged, denied",
    load: async () => (await import("./replay.js")).default,
  },
  datasets: {
    summary: "make labelled datasets from request logs; list, show, relabel and export them as JSONL",
    load: async () => (await import("./datasets.js")).default,
  },
  eval: {
    summary: "measure a guardrail on labelled rows: precision, recall, F1, false alarms; thresholds for CI",
    load: async () => (await import("./eval.js")).default,
  },
  logs: {
    summary: "show the latest request logs of the store (tail [--follow])",
    load: async () => (await import("./logs.js")).default,
  },
  plugin: {
    summary: "write a new plugin package (plugin new NAME)",
    load: async () => (await import("./plugin.js")).default,
  },
  models: {
    summary: "pull a model folder for model.classifier from the Hugging Face hub; inspect one (labels, one timed inference)",
    load: async () => (await import("./models.js")).default,
  },
  plugins: {
    summary: "list the loaded plugins and their checks (plugins list)",
    load: async () => (await import("./plugins-list.js")).default,
  },
};

/** The list of commands, for `guardgate --help`. */
export function usage(): string {
  const column = 2 + Math.max(...Object.keys(commands).map((name) => name.length)) + 2;
  const lines = Object.entries(commands).flatMap(([name, c]) =>
    wrap(c.summary, 100 - column).map((line, i) => `${i === 0 ? `  ${name}`.padEnd(column) : " ".repeat(column)}${line}`),
  );
  return [
    "usage: guardgate <command> [options]",
    "",
    "commands:",
    ...lines,
    "",
    "guardgate <command> --help for a command's options; guardgate --version for the version",
  ].join("\n");
}

/** Words in lines of at most `width` characters (a longer word stands on its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** The installed package's version, from its package.json (the same file from source or dist). */
export async function version(): Promise<string> {
  // Core is loaded only here: `--help` and a mistyped command answer without it.
  const { packageRoot } = await import("../core/internal.js");
  return (JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

/** Runs the CLI with the given arguments; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v") {
    process.stdout.write(`${await version()}\n`);
    return 0;
  }
  if (!name || name === "--help" || name === "-h") {
    process.stdout.write(`${usage()}\n`);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`guardgate: unknown command "${name}"\n${usage()}\n`);
    return 2;
  }
  return (await command.load())(rest);
}
