/**
 * A check's examples as test cases, the way ESLint's RuleTester runs a rule's valid and invalid
 * cases: each example runs through a real engine, and what the check decided is compared with
 * the verdict, data fields and transformed text the example states. The docs show the same
 * examples, so a reader never sees an example the check no longer agrees with.
 */
import { isDeepStrictEqual } from "node:util";
import type { CheckExample, CheckSettings, PluginDefinition } from "../plugin-api.js";
import type { CheckResult } from "../types.js";
import type { AnyCheck } from "./check-run.js";
import { evaluateCheck } from "./test-check.js";

/** How to run a check's examples. */
export interface ExampleOptions {
  /** The plugin the check belongs to (see CheckTestInput.plugin). */
  plugin?: PluginDefinition;
  /** Gateway check settings (the network policy). */
  settings?: CheckSettings;
  /** Credentials of the plugin, for checks that call a service. */
  credentials?: Record<string, unknown>;
}

/** One example, run. */
export interface ExampleRun {
  /** `example 1`, with the example's description when it has one. */
  name: string;
  example: CheckExample;
  result: CheckResult;
  /** The evaluated text after the check's transform. */
  text: string;
  /** Where the check disagreed with the example, in words; empty when it agreed. */
  problems: string[];
}

function nameOf(example: CheckExample, index: number): string {
  return `example ${index + 1}${example.description ? ` (${example.description})` : ""}`;
}

function shown(value: unknown): string {
  return value === undefined ? "absent" : JSON.stringify(value);
}

/** Where `result` and `text` disagree with what `example` states. */
function problemsOf(example: CheckExample, result: CheckResult, text: string): string[] {
  const problems: string[] = [];
  if (example.verdict === undefined) problems.push("states no verdict");
  if (result.error !== undefined)
    problems.push(`errored: ${shown((result.error as { message?: unknown }).message ?? result.error)}`);
  if (example.verdict !== undefined && result.verdict !== example.verdict) {
    problems.push(`verdict ${result.verdict}, the example states ${example.verdict}`);
  }
  for (const [field, expected] of Object.entries(example.data ?? {})) {
    const actual = result.data?.[field];
    if (!isDeepStrictEqual(actual, expected))
      problems.push(`data.${field} is ${shown(actual)}, the example states ${shown(expected)}`);
  }
  if (example.transformedText !== undefined && text !== example.transformedText) {
    problems.push(`transformed text is ${shown(text)}, the example states ${shown(example.transformedText)}`);
  }
  return problems;
}

/**
 * Runs every example of `check` through a real engine, one evaluation each, and says where the
 * check disagrees with an example. A test asserts that no run has problems.
 */
export async function runExamples(check: AnyCheck, options: ExampleOptions = {}): Promise<ExampleRun[]> {
  const runs: ExampleRun[] = [];
  for (const [index, example] of (check.examples ?? []).entries()) {
    const { result, text } = await evaluateCheck(check, {
      text: example.text ?? "",
      parameters: example.parameters,
      ...(example.side && { side: example.side }),
      ...(example.requestType && { requestType: example.requestType }),
      ...(example.model !== undefined && { model: example.model }),
      ...(example.metadata && { metadata: example.metadata }),
      ...(example.headers && { headers: example.headers }),
      ...(options.plugin && { plugin: options.plugin }),
      ...(options.settings && { settings: options.settings }),
      ...(options.credentials && { credentials: options.credentials }),
    });
    const name = nameOf(example, index);
    runs.push({ name, example, result, text, problems: problemsOf(example, result, text).map((p) => `${name}: ${p}`) });
  }
  return runs;
}
