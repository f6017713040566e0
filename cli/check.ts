/**
 * `guardgate check`: evaluates a guardrail file (one guardrail or a config) on a request or a
 * response read from stdin (or built from --text), prints the evaluation as JSON on stdout, and
 * exits 0 when every synchronous guardrail passed, 1 when one failed, 2 on bad input.
 */
import { readFile } from "node:fs/promises";
import { bodyForText, createEngine, GuardgateError, type RequestType, type Side } from "../core/index.js";
import { builtinPlugins } from "../plugins/builtin.js";
import { type CommandArgs, type Flag, parseCommand, printHelp } from "./args.js";
import type { Command } from "./command.js";
import { readStdin, UsageError } from "./usage-error.js";

const ARGS = {
  usage: [
    "check --guardrail FILE [--side input|output] [--request-type TYPE] [--text TEXT] [--plugin SPEC]... [--allow-loopback]",
  ],
  flags: {
    guardrail: {
      type: "string",
      value: "FILE",
      help: "JSON file holding one guardrail ({id, checks, ...}) or a config\n(input_guardrails, output_guardrails, before_request_hooks, ...)",
    },
    side: { type: "string", value: "SIDE", help: "input (default; the guardrail's own side when it has one) or output" },
    "request-type": {
      type: "string",
      default: "chatComplete",
      value: "TYPE",
      help: "chatComplete (default), complete, embed or messages",
    },
    text: { type: "string", value: "TEXT", help: "evaluate this text instead of a request/response body read from stdin" },
    plugin: {
      type: "string",
      multiple: true,
      value: "SPEC",
      help: "load another plugin (package name or path); may be repeated",
    },
    "allow-loopback": {
      type: "boolean",
      help: "let checks that call out reach 127.0.0.1 and ::1 (a webhook or an LLM\njudge served on this machine); refused by default",
    },
  },
  positionals: false,
  footer: "Exit status: 0 all synchronous guardrails passed, 1 one failed, 2 bad input.",
} as const satisfies CommandArgs<Record<string, Flag>>;

// Re-exported where it used to live, for the benchmarks that build bodies with it.
export { bodyForText };

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON: ${(error as Error).message}`);
  }
}

const check: Command = async (argv) => {
  let engine: Awaited<ReturnType<typeof createEngine>> | undefined;
  try {
    const { values, help } = parseCommand(ARGS, argv);
    if (help) return printHelp(ARGS, true);
    if (!values.guardrail) throw new UsageError("--guardrail FILE is required");
    let fileText: string;
    try {
      fileText = await readFile(values.guardrail, "utf8");
    } catch (error) {
      throw new UsageError(`cannot read ${values.guardrail}: ${(error as Error).message}`);
    }
    const file = parseJson(fileText, values.guardrail) as Record<string, unknown>;
    const isGuardrail = file !== null && typeof file === "object" && !Array.isArray(file) && "checks" in file;
    const side = (values.side ?? (isGuardrail && typeof file.side === "string" ? file.side : "input")) as Side;
    if (side !== "input" && side !== "output") throw new UsageError(`--side must be input or output, not "${side}"`);
    const requestType = values["request-type"] as RequestType;
    if (!["chatComplete", "complete", "embed", "messages", "responses"].includes(requestType)) {
      throw new UsageError(`--request-type must be chatComplete, complete, embed, messages or responses, not "${requestType}"`);
    }
    const body =
      values.text !== undefined
        ? bodyForText(side, requestType, values.text)
        : parseJson(await readStdin("no input: pipe a JSON body on stdin or give --text"), "stdin");
    engine = await createEngine({
      builtins: builtinPlugins,
      plugins: values.plugin ?? [],
      ...(values["allow-loopback"] && { settings: { allowLoopback: true } }),
    });
    const evaluation = await engine.evaluate({
      side,
      requestType,
      ...(isGuardrail ? { guardrails: [file] } : { config: file }),
      request: side === "input" ? body : {},
      ...(side === "output" && { response: body }),
    });
    for (const warning of evaluation.warnings) process.stderr.write(`warning: ${warning.message}\n`);
    process.stdout.write(`${JSON.stringify(evaluation, null, 2)}\n`);
    return evaluation.verdict ? 0 : 1;
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof GuardgateError ||
      (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
    ) {
      process.stderr.write(`guardgate check: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  } finally {
    await engine?.close();
  }
};

export default check;
