/**
 * `guardgate plugin new NAME [--dir DIR] [--id ID] [--guardgate SPEC]`: writes a plugin package
 * that passes its own tests out of the box (see plugin-scaffold.ts).
 */
import path from "node:path";
import { GuardgateError } from "../core/index.js";
import { type CommandArgs, type Flag, parseCommand, printHelp } from "./args.js";
import type { Command } from "./command.js";
import { scaffoldPlugin } from "./plugin-scaffold.js";

const ARGS = {
  usage: ["plugin new NAME [--dir DIR] [--id ID] [--guardgate SPEC]"],
  about:
    "Writes a plugin package NAME (an npm package name) into ./NAME's last segment, or DIR:\npackage.json, tsconfig.json, src/ with an example check, test/ (node:test with\nguardgate/testing), bench/latency.ts and a README.",
  flags: {
    dir: { type: "string", value: "DIR", help: "folder to write (must be empty or absent)" },
    id: { type: "string", value: "ID", help: "plugin id (check ids are ID.<check>); derived from NAME by default" },
    guardgate: {
      type: "string",
      value: "SPEC",
      help: "version spec of the guardgate dependency; by default file:<this installation>,\nwhich installs offline",
    },
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

const plugin: Command = async (argv) => {
  try {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    if (help) return printHelp(ARGS, true);
    const [action, name, ...extra] = positionals;
    if (action !== "new")
      throw new GuardgateError("usage", action ? `unknown action "${action}"; use: plugin new NAME` : "use: plugin new NAME");
    if (!name) throw new GuardgateError("usage", "plugin new needs the package NAME");
    if (extra.length) throw new GuardgateError("usage", `unexpected argument "${extra[0]}"`);
    const result = await scaffoldPlugin({
      name,
      ...(values.dir !== undefined && { dir: values.dir }),
      ...(values.id !== undefined && { id: values.id }),
      ...(values.guardgate !== undefined && { guardgate: values.guardgate }),
    });
    const where = path.relative(process.cwd(), result.dir) || ".";
    process.stdout.write(
      [
        `wrote plugin "${result.pluginId}" (package ${name}) to ${where}:`,
        ...result.files.map((f) => `  ${f}`),
        "",
        "next:",
        `  cd ${where}`,
        "  npm install",
        "  npm test",
        "  npm run bench",
        "",
      ].join("\n"),
    );
    return 0;
  } catch (error) {
    if (error instanceof GuardgateError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`guardgate plugin: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  }
};

export default plugin;
