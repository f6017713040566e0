/**
 * Generates docs/checks.md, the reference of every check the engine registers, from the checks'
 * metadata (`engine.checks()`): id, description, sides, kind, parameters with types, defaults and
 * descriptions, data fields, notes and an example with the verdict the check gives on it (which
 * test/check-examples.test.ts holds true). Run with `npm run docs:checks` (which writes
 * docs/partners.md too, scripts/partner-reference.ts); a test fails
 * when the file in the repository differs from what this renders.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type CheckExample, type CheckInfo, createEngine, type PluginInfo, type StreamScopeRule } from "../core/index.js";
import { builtinPlugins } from "../plugins/builtin.js";
import { writeErrorReference } from "./error-reference.js";
import { writePartnerReference } from "./partner-reference.js";

/** Where the reference lives, relative to the repository root. */
export const REFERENCE_PATH = "docs/checks.md";

type Schema = Record<string, unknown>;

/**
 * Characters JSON.stringify leaves raw that would be invisible in the rendered file (format and
 * private-use characters, C1 controls, variation selectors, tags): escaped as JSON escapes.
 */
const HIDDEN = /[\p{Cf}\p{Co}\u0080-\u009F\u{E0000}-\u{E0FFF}]|\p{Variation_Selector}/gu;

function escapeHidden(json: string): string {
  return json.replace(HIDDEN, (char) =>
    [...char]
      .flatMap((c) => {
        const code = c.codePointAt(0) as number;
        if (code <= 0xffff) return [code];
        const offset = code - 0x10000;
        return [0xd800 + (offset >> 10), 0xdc00 + (offset & 0x3ff)];
      })
      .map((unit) => `\\u${unit.toString(16).toUpperCase().padStart(4, "0")}`)
      .join(""),
  );
}

/** A value as JSON with invisible characters escaped. */
function json(value: unknown, indent?: number): string {
  return escapeHidden(JSON.stringify(value, null, indent));
}

/** Text for a Markdown table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\r?\n+/g, " ").replace(/\|/g, "\\|");
}

/** A type's name and its constraints, separately, so arrays can name both their own and their items'. */
function typeParts(schema: Schema): { base: string; bounds: string[] } {
  if (Array.isArray(schema.enum)) return { base: schema.enum.map((v) => json(v)).join(" | "), bounds: [] };
  if ("const" in schema) return { base: json(schema.const), bounds: [] };
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === "string" ? [schema.type] : [];
  if (types.length === 0) {
    const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
    return { base: Array.isArray(alternatives) ? alternatives.map(describeType).join(" | ") : "any", bounds: [] };
  }
  if (types.length === 1 && types[0] === "array") {
    const items = typeParts((schema.items ?? {}) as Schema);
    const bounds: string[] = [];
    if (typeof schema.minItems === "number" && schema.minItems > 0) bounds.push(`at least ${schema.minItems}`);
    if (typeof schema.maxItems === "number") bounds.push(`at most ${schema.maxItems}`);
    bounds.push(...items.bounds.map((b) => `each ${b}`));
    return { base: `${items.base.includes(" ") ? `(${items.base})` : items.base}[]`, bounds };
  }
  const bounds: string[] = [];
  if (typeof schema.minimum === "number") bounds.push(`≥ ${schema.minimum}`);
  if (typeof schema.exclusiveMinimum === "number") bounds.push(`> ${schema.exclusiveMinimum}`);
  if (typeof schema.maximum === "number") bounds.push(`≤ ${schema.maximum}`);
  if (typeof schema.exclusiveMaximum === "number") bounds.push(`< ${schema.exclusiveMaximum}`);
  if (schema.minLength === 1) bounds.push("non-empty");
  else if (typeof schema.minLength === "number") bounds.push(`length ≥ ${schema.minLength}`);
  if (typeof schema.maxLength === "number") bounds.push(`length ≤ ${schema.maxLength}`);
  if (typeof schema.format === "string") bounds.push(`format ${schema.format}`);
  return { base: types.join(" | "), bounds };
}

/** A parameter's type as a reader wants it: `"any" | "all"`, `string[] (at least 1)`, `integer (≥ 0)`. */
export function describeType(schema: Schema): string {
  const { base, bounds } = typeParts(schema);
  return bounds.length ? `${base} (${bounds.join("; ")})` : base;
}

function parametersTable(schema: Schema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const names = Object.keys(properties);
  if (names.length === 0) return ["This check takes no parameters."];
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const rows = names.map((name) => {
    const p = properties[name] as Schema;
    const label = required.has(name) ? `\`${name}\` (required)` : `\`${name}\``;
    const fallback = "default" in p ? `\`${json(p.default)}\`` : "—";
    return `| ${label} | ${cell(describeType(p))} | ${cell(fallback)} | ${cell(String(p.description ?? ""))} |`;
  });
  const extra = schema.additionalProperties === false ? [] : ["", "Other parameters are accepted."];
  return ["| Parameter | Type | Default | Description |", "|---|---|---|---|", ...rows, ...extra];
}

function dataTable(data: CheckInfo["data"]): string[] {
  const fields = Object.entries(data);
  if (fields.length === 0) return ["This check documents no data fields."];
  return [
    "| Field | Type | Description |",
    "|---|---|---|",
    ...fields.map(([name, doc]) => `| \`${name}\` | ${cell(doc.type)} | ${cell(doc.description)} |`),
  ];
}

/** What an example's request carries besides its text, in words: `the model \`gpt-4o\``. */
function exampleRequest(example: CheckExample): string[] {
  const parts: string[] = [];
  if (example.side) parts.push(`on the ${example.side} side`);
  if (example.requestType) parts.push(`request type \`${example.requestType}\``);
  if (example.model !== undefined) parts.push(`the model \`${example.model}\``);
  if (example.metadata) parts.push(`metadata \`${json(example.metadata)}\``);
  if (example.headers) parts.push(`headers \`${json(example.headers)}\``);
  return parts;
}

/** The verdict an example states, with the data fields and transformed text it states. */
function exampleVerdict(example: CheckExample): string {
  const parts = [`**Verdict:** ${example.verdict ? "passes" : "fails"} (\`verdict: ${example.verdict}\`)`];
  if (example.data) parts.push(`, with \`data\` holding \`${json(example.data)}\``);
  if (example.transformedText !== undefined) parts.push(`; the evaluated text becomes \`${json(example.transformedText)}\``);
  return `${parts.join("")}.`;
}

function exampleSection(check: CheckInfo): string[] {
  const example = check.examples[0];
  if (!example) return [];
  const lines = ["#### Example", ""];
  if (example.description) lines.push(example.description, "");
  lines.push("```json", json({ id: check.id, parameters: example.parameters }, 2), "```");
  const request = exampleRequest(example);
  if (request.length) lines.push("", `The request: ${request.join("; ")}.`);
  if (example.text !== undefined) lines.push("", "Evaluated text (as a JSON string):", "", "```json", json(example.text), "```");
  if (example.verdict !== undefined) lines.push("", exampleVerdict(example));
  return lines;
}

/** What a check judges on a stream held in window mode, in words (docs/streaming.md). */
function describeStreamScope(scope: StreamScopeRule): string {
  const whole = "the whole answer, once, when the stream ended";
  if (scope === "window") return "each window with its held-back tail";
  if (scope === "whole") return whole;
  const when = Object.entries(scope.windowWhen)
    .map(([name, value]) => `\`${name}\` is \`${JSON.stringify(value)}\``)
    .join(" and ");
  return `each window with its held-back tail when ${when}; else ${whole}`;
}

function checkSection(check: CheckInfo): string[] {
  const lines = [
    `<a id="${check.id}"></a>`,
    "",
    `### \`${check.id}\` — ${check.name}`,
    "",
    check.description,
    "",
    `- **Sides:** ${check.sides.join(", ")}`,
    `- **Kind:** ${check.kind} (default time limit ${check.defaultTimeout} ms)`,
    `- **Transforms the content:** ${check.transforms ? "yes" : "no"}`,
    `- **On a stream held in window mode:** ${describeStreamScope(check.streamScope)}`,
    "",
    "#### Parameters",
    "",
    ...parametersTable(check.parameters),
    "",
    "#### Data",
    "",
    ...dataTable(check.data),
    "",
  ];
  if (check.notes.trim()) lines.push("#### Notes", "", check.notes.trim(), "");
  const example = exampleSection(check);
  if (example.length) lines.push(...example, "");
  return lines;
}

/** Renders the reference for the given checks, grouped by plugin in registration order. */
export function renderCheckReference(checks: CheckInfo[], plugins: PluginInfo[]): string {
  const lines = [
    "# Check reference",
    "",
    "<!-- Generated by `npm run docs:checks` from the checks' metadata. Do not edit by hand: a test fails when this file is out of date. -->",
    "",
    `Every check guardgate registers out of the box: ${checks.length} checks in ${plugins.length} plugin${plugins.length === 1 ? "" : "s"}.`,
    'A check is used in a guardrail as `{"id": "<plugin>.<check>", "parameters": {...}}`; parameters are validated against the schema below when the guardrail is loaded, and missing ones take their defaults.',
    "Every check also accepts the runner options `failOnError`, `is_enabled`, `timeout` (ms) and `credentials` among its parameters.",
    "",
    "| Check | Sides | Kind | Description |",
    "|---|---|---|---|",
    ...checks.map((c) => `| [\`${c.id}\`](#${c.id}) | ${c.sides.join(", ")} | ${c.kind} | ${cell(c.description)} |`),
    "",
  ];
  for (const plugin of plugins) {
    lines.push(`## Plugin \`${plugin.id}\` — ${plugin.name}`, "");
    if (plugin.description) lines.push(plugin.description, "");
    lines.push(`Plan class: ${plugin.class}.`, "");
    for (const check of checks.filter((c) => c.plugin === plugin.id)) lines.push(...checkSection(check));
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** Renders the reference of the checks a default engine registers. */
export async function renderBuiltinReference(): Promise<string> {
  const engine = await createEngine({ builtins: builtinPlugins });
  try {
    return renderCheckReference(engine.checks(), engine.plugins());
  } finally {
    await engine.close();
  }
}

/** Writes docs/checks.md under `root`. */
export async function writeCheckReference(root: string): Promise<string> {
  const target = path.join(root, REFERENCE_PATH);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, await renderBuiltinReference());
  return target;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // Run from dist/scripts: the repository root is two folders up.
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
  Promise.all([writeCheckReference(root), writePartnerReference(root), writeErrorReference(root)]).then(
    (targets) => {
      for (const target of targets) process.stdout.write(`wrote ${path.relative(process.cwd(), target) || target}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`docs:checks: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
