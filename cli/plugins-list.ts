/**
 * `guardgate plugins list [--config FILE] [--plugin SPEC]... [--json]`: every loaded plugin (the
 * built-in ones, those of a gateway config file and those named) with its class and source, and
 * each of its checks with its sides, kind, time limit and parameters. A plugin that fails to load
 * is reported as the gateway would at start.
 */
import { type CheckInfo, createEngine, GuardgateError, type JsonSchema, type PluginInfo } from "../core/index.js";
import { builtinPlugins } from "../plugins/builtin.js";
import { loadGatewayFile } from "../server/sources/config-file.js";
import { type CommandArgs, type Flag, parseCommand, printHelp } from "./args.js";
import type { Command } from "./command.js";

const ARGS = {
  usage: ["plugins list [--config FILE] [--plugin SPEC]... [--json]"],
  flags: {
    config: {
      type: "string",
      value: "FILE",
      help: "load the plugins of this gateway config file, resolved from its folder, as\nguardgate serve --config FILE does",
    },
    plugin: {
      type: "string",
      multiple: true,
      value: "SPEC",
      help: "also load this plugin (package name resolved from the current folder, or a path\nto a module file or package folder); may be repeated",
    },
    json: {
      type: "boolean",
      default: false,
      help: "print {plugins: [{id, name, description, class, apiVersion, source,\nchecks: [{id, sides, kind, parameters (JSON Schema), ...}]}]}",
    },
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

/** A short type of a parameter's schema: `string`, `integer[]`, `"any" | "all"`. */
export function schemaType(schema: unknown): string {
  if (!schema || typeof schema !== "object") return "any";
  const s = schema as JsonSchema;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if ("const" in s) return JSON.stringify(s.const);
  for (const key of ["oneOf", "anyOf"] as const) {
    if (Array.isArray(s[key])) return [...new Set((s[key] as unknown[]).map(schemaType))].join(" | ");
  }
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === "string" ? [s.type] : [];
  if (types.length === 0) return "any";
  return types.map((t) => (t === "array" ? `${schemaType(s.items)}[]` : t)).join(" | ");
}

/** The lines describing one check's parameters. */
function parameterLines(check: CheckInfo): string[] {
  const properties = (check.parameters.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((check.parameters.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) return ["    (no parameters)"];
  const width = Math.max(...names.map((n) => n.length));
  return names.map((name) => {
    const p = properties[name] ?? {};
    const facts = [schemaType(p)];
    if (required.has(name)) facts.push("required");
    if ("default" in p) facts.push(`default ${JSON.stringify(p.default)}`);
    const description = typeof p.description === "string" ? `  ${p.description}` : "";
    return `    ${name.padEnd(width)}  ${facts.join(", ")}${description}`;
  });
}

/** The plain-text listing. */
export function renderPlugins(plugins: PluginInfo[], checks: CheckInfo[]): string {
  const lines: string[] = [];
  for (const plugin of plugins) {
    lines.push(`${plugin.id} (${plugin.class}, apiVersion ${plugin.apiVersion}) from ${plugin.source}`);
    if (plugin.description) lines.push(`  ${plugin.description}`);
    for (const check of checks.filter((c) => c.plugin === plugin.id)) {
      const transforms = check.transforms ? ", transforms" : "";
      lines.push(
        `  ${check.id}  sides: ${check.sides.join(", ")}; ${check.kind}${transforms}; time limit ${check.defaultTimeout} ms`,
      );
      lines.push(`    ${check.description}`);
      lines.push(...parameterLines(check));
    }
    lines.push("");
  }
  return lines.join("\n");
}

const pluginsList: Command = async (argv) => {
  try {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    if (help) return printHelp(ARGS, true);
    const [action, ...extra] = positionals;
    if (action !== "list")
      throw new GuardgateError("usage", action ? `unknown action "${action}"; use: plugins list` : "use: plugins list");
    if (extra.length) throw new GuardgateError("usage", `unexpected argument "${extra[0]}"`);
    const gateway = values.config ? await loadGatewayFile(values.config) : undefined;
    const engine = await createEngine({
      builtins: builtinPlugins,
      plugins: [...(gateway?.file.plugins ?? []), ...(values.plugin ?? [])],
      ...(gateway && { baseDir: gateway.dir }),
    });
    const plugins = engine.plugins();
    const checks = engine.checks();
    await engine.close();
    if (values.json) {
      const listing = plugins.map((p) => ({ ...p, checks: checks.filter((c) => c.plugin === p.id) }));
      process.stdout.write(`${JSON.stringify({ plugins: listing }, null, 2)}\n`);
    } else {
      process.stdout.write(renderPlugins(plugins, checks));
    }
    return 0;
  } catch (error) {
    if (error instanceof GuardgateError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`guardgate plugins: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  }
};

export default pluginsList;
