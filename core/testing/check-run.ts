/**
 * One check set up to run through a real engine, as a synchronous guardrail holding that check
 * alone: what testCheck and measureCheck share.
 */
import { createEngine, type Engine, type EvaluateOptions } from "../engine.js";
import { GuardgateError } from "../errors.js";
import type { CheckDefinition, CheckSettings, PluginDefinition } from "../plugin-api.js";
import { bodyForText } from "../sample-body.js";
import type { RequestType, Side } from "../types.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any check's parameter type
export type AnyCheck = CheckDefinition<any>;

/** What to run a check on, and how. */
export interface CheckTestInput {
  /**
   * The evaluated text: it becomes the last user message (input side) or the reply (output side)
   * of a body of `requestType`. Give `text`, or the body itself as `request` / `response`.
   */
  text?: string;
  /** The request body; on the output side, the request that was answered. */
  request?: unknown;
  /** The response body, on the output side. */
  response?: unknown;
  /** The check's parameters as a config would give them (runner options like `timeout` included). */
  parameters?: Record<string, unknown>;
  /** Defaults to `output` when a response is given, else the check's first side. */
  side?: Side;
  /** Defaults to `chatComplete`. */
  requestType?: RequestType;
  metadata?: Record<string, string>;
  headers?: Record<string, string>;
  model?: string;
  provider?: string;
  /** Credentials of the plugin as an integration of the service would hold them. */
  credentials?: Record<string, unknown>;
  /**
   * The plugin the check belongs to: the whole plugin is validated as the gateway validates it
   * on load, and the result's id is `<plugin>.<check>`. Without it the check runs in a plugin
   * named `test`.
   */
  plugin?: PluginDefinition;
  /** Gateway check settings (the network policy). */
  settings?: CheckSettings;
  signal?: AbortSignal;
}

/** An engine holding the check, and the evaluate options that run it once. */
export interface CheckRun {
  engine: Engine;
  /** Full id, `<plugin>.<check>`. */
  id: string;
  side: Side;
  requestType: RequestType;
  options: EvaluateOptions;
}

function pluginOf(check: AnyCheck, plugin: PluginDefinition | undefined): PluginDefinition {
  if (!plugin) return { id: "test", class: "custom", apiVersion: 1, checks: [check] };
  if (!plugin.checks?.includes(check)) {
    throw new GuardgateError("check_not_in_plugin", `check "${check?.id}" is not one of the checks of plugin "${plugin.id}"`);
  }
  return plugin;
}

function sideOf(check: AnyCheck, input: CheckTestInput): Side {
  if (input.side) return input.side;
  if (input.response !== undefined) return "output";
  return check.sides?.[0] ?? "input";
}

/** The request and response bodies the evaluation runs on. */
function bodies(side: Side, requestType: RequestType, input: CheckTestInput): { request: unknown; response?: unknown } {
  const body = side === "input" ? "request" : "response";
  const given = side === "input" ? input.request : input.response;
  if (input.text !== undefined && given !== undefined) {
    throw new GuardgateError("invalid_test_input", `give either text or the ${body}, not both`);
  }
  if (input.text === undefined && given === undefined) {
    throw new GuardgateError("invalid_test_input", `nothing to evaluate: give text or the ${body} body`);
  }
  const evaluated = given ?? bodyForText(side, requestType, input.text as string);
  if (side === "input") return { request: evaluated };
  return { request: input.request ?? bodyForText("input", requestType, ""), response: evaluated };
}

/** Creates an engine holding the check's plugin; the caller closes it. */
export async function checkRun(check: AnyCheck, input: CheckTestInput): Promise<CheckRun> {
  const plugin = pluginOf(check, input.plugin);
  const side = sideOf(check, input);
  const requestType = input.requestType ?? "chatComplete";
  const id = `${plugin.id}.${check.id}`;
  const options: EvaluateOptions = {
    side,
    requestType,
    ...bodies(side, requestType, input),
    guardrails: [{ id: "test", checks: [{ id, parameters: input.parameters ?? {} }] }],
    ...(input.metadata && { metadata: input.metadata }),
    ...(input.headers && { headers: input.headers }),
    ...(input.model !== undefined && { model: input.model }),
    ...(input.provider !== undefined && { provider: input.provider }),
    ...(input.credentials && { credentials: { [plugin.id]: input.credentials } }),
    ...(input.signal && { signal: input.signal }),
  };
  const engine = await createEngine({ plugins: [plugin], ...(input.settings && { settings: input.settings }) });
  return { engine, id, side, requestType, options };
}
