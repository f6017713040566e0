/**
 * The API for check authors: `defineCheck` and `definePlugin`. A check is metadata (data) plus one
 * `run` function, like an ESLint rule: the registry validates parameters against the metadata,
 * the docs are generated from it, and the console renders forms from it.
 */
import type { CheckKind, PluginClass, RequestType, Side, StreamScopeRule } from "./types.js";

/** A JSON Schema object (draft 2020-12 unless `$schema` says otherwise). */
export type JsonSchema = Record<string, unknown>;

/**
 * Gateway settings a check may need: the network policy for checks that call out (core/net).
 * Private, loopback and link-local addresses are refused unless a setting here allows them;
 * cloud metadata addresses are refused whatever the settings say.
 */
export interface CheckSettings {
  /** Let checks call private, loopback and link-local addresses (refused by default: SSRF). */
  allowPrivateAddresses?: boolean;
  /** Let checks call loopback addresses only (127.0.0.0/8, ::1): a receiver on the same machine. */
  allowLoopback?: boolean;
  /**
   * Host names that may resolve to private, loopback or link-local addresses although the two
   * settings above are off: an exact name (`hooks.internal`) or every subdomain of one
   * (`*.corp.example`). IP literals may be listed too.
   */
  internalHosts?: string[];
  /**
   * Model folders declared by name in the gateway's config file (`models:`), as absolute paths:
   * checks that load a model accept such a name in place of a folder.
   */
  models?: Record<string, string>;
  /**
   * The SHA-256 of each declared model folder's lock file, by absolute folder path, where the
   * config file pins one (`models.NAME.lock_sha256`): such a folder loads only with that lock.
   */
  modelLocks?: Record<string, string>;
  /**
   * What a refused call tells the user to change. The library names its own options by default;
   * the gateway names its config-file key, which is what its users change.
   */
  refusalAdvice?: string;
}

/** Everything a check can see when it runs. */
export interface CheckContext {
  /** Id of the guardrail this check runs in. */
  guardrailId: string;
  side: Side;
  requestType: RequestType;
  /**
   * The evaluated text: the last message (input side); on the output side every choice, with the
   * tool-call arguments unless the guardrail set `tool_arguments: false`.
   */
  text: string;
  /** Whether the output text includes tool-call arguments (the guardrail's `tool_arguments`, default true). */
  toolArguments?: boolean;
  /** The request body (never mutate it; return a transform instead). */
  request: unknown;
  /** The response body, on the output side. */
  response?: unknown;
  /** Request metadata (`x-gateway-metadata`), strings only. */
  metadata: Record<string, string>;
  /** Model of the request after provider resolution and `override_params`, when known. */
  model?: string;
  /** Provider slug or name, when known. */
  provider?: string;
  /**
   * Request headers a check may read. `authorization` may be among them (the jwt check verifies
   * it), so a check that sends anything out must drop credential headers itself.
   */
  headers: Record<string, string>;
  /** Credentials for this plugin, from the service's integration or `parameters.credentials`. */
  credentials?: Record<string, unknown>;
  /** Aborted when the result is no longer needed or the time limit passed. */
  signal: AbortSignal;
  settings: CheckSettings;
}

/** What a check's `run` returns. */
export interface CheckOutcome {
  verdict: boolean;
  data?: Record<string, unknown>;
  /** The evaluated text after the check's change (redaction, stripping). */
  transformedText?: string;
  /** A whole new request body, for checks that change more than the evaluated text. */
  transformedRequest?: unknown;
  /** A whole new response body, likewise. */
  transformedResponse?: unknown;
  log?: string;
}

/** Documentation of one field of a check's `data`. */
export interface DataFieldDoc {
  type: string;
  description: string;
  /**
   * True when the field carries the evaluated text or a part of it: withheld from a denied side's
   * results and from a side a check transformed (core/result-data.ts). `textExcerpt` always is.
   * For an object field that also says where (offsets, lengths), the names of its members that
   * carry text: only those are withheld, so the rest still says where the text was.
   */
  echoesText?: boolean | readonly string[];
}

/**
 * One example of a check: its parameters, what it runs on, and what it decides there. Only
 * `parameters` is needed to show it; `verdict` (and `data`, `transformedText`) make it a test case.
 */
export interface CheckExample {
  parameters: Record<string, unknown>;
  description?: string;
  /** The evaluated text: the last user message (input side) or the reply (output side). */
  text?: string;
  /** The side it runs on; the check's first side when absent. */
  side?: Side;
  /** `chatComplete` when absent. */
  requestType?: RequestType;
  /** The model of the request, for checks that judge it. */
  model?: string;
  /** Request metadata (`x-gateway-metadata`). */
  metadata?: Record<string, string>;
  /** Request headers. */
  headers?: Record<string, string>;
  /** The verdict the check gives on this example. */
  verdict?: boolean;
  /** Fields the check's `data` holds on this example, each equal to the value given (other fields are not compared). */
  data?: Record<string, unknown>;
  /** The evaluated text after the check's transform, for checks that transform. */
  transformedText?: string;
}

/** A problem with parameters that a schema cannot express (one bound above another, say). */
export interface ParameterProblem {
  /** The parameter at fault, named in the error's path; omit when the problem is the whole set. */
  parameter?: string;
  message: string;
}

/** A check as its author defines it. */
export interface CheckDefinition<P = Record<string, unknown>> {
  /** Id inside its plugin, e.g. `wordCount`; the full id is `<plugin>.<id>`. */
  id: string;
  /** Display name; defaults to the id. */
  name?: string;
  description: string;
  sides: readonly Side[];
  /** JSON Schema of the parameters, with defaults. */
  parameters: JsonSchema;
  /** Defaults to `deterministic`. */
  kind?: CheckKind;
  /**
   * True when the check must run in a worker thread whatever the executor (inline, auto or pool):
   * it computes for tens of milliseconds without yielding (a neural model's inference), which
   * would stall the event loop, and it keeps per-thread state (a loaded model) that belongs in a
   * worker.
   */
  runsInPool?: boolean;
  /**
   * What these parameters make of the check when they make it more than its declaration says: a
   * check that hands some texts on to a neural model or a remote judge needs that kind's time
   * limit, and a worker thread for the model. Asked once, when a guardrail is loaded.
   */
  configured?(parameters: P): { kind?: CheckKind; runsInPool?: boolean } | undefined;
  /** True when the check may return a transform; such checks compose in check order. */
  transforms?: boolean;
  /**
   * On streams: the longest match the check must see whole, in characters. The gateway holds that
   * many characters back at the end of a checked window (64 when absent, at most 256), so a match
   * still arriving is never released in part (docs/streaming.md).
   */
  streamHoldChars?: number;
  /**
   * On streams held in `window` mode: whether the check judges each window (with its held-back
   * tail) or only the whole answer at the end (docs/streaming.md); `{windowWhen: {...}}` when
   * parameters decide (`regexMatch` looks for a match with `not: true`, requires one without).
   * `window` when absent.
   */
  streamScope?: StreamScopeRule;
  /**
   * Long-form documentation (Markdown) for the generated reference: how the check decides, its
   * limits, measured precision and recall.
   */
  notes?: string;
  /** Documentation of the `data` fields it returns. */
  data?: Record<string, DataFieldDoc>;
  /**
   * Examples for the docs and the console, each with the verdict the check gives on it: like an
   * ESLint rule's valid and invalid cases, they are run through a real engine (`runExamples` of
   * `guardgate/testing`), so an example that no longer holds fails a test instead of misleading a reader.
   */
  examples?: CheckExample[];
  /** Request types this check can evaluate; all when absent. */
  requestTypes?: readonly RequestType[];
  /**
   * False for a check that judges something other than the evaluated text (the model, metadata,
   * headers, the whole context). A check that reads the text is not run when the body has none
   * (an embedding response, an answer with only tool calls): its result says so as an error.
   */
  readsText?: boolean;
  /**
   * Load-time validation beyond the schema: runs after the schema passed, when a guardrail is
   * loaded, so a bad combination is a config error and never a failure at request time.
   */
  validate?(parameters: P): ParameterProblem | undefined;
  /**
   * Loads into the calling thread what `run` would load on first use (a model, a table), so the
   * first request does not pay for it. The gateway calls it at start for the checks its configs
   * and policies name, in the main thread and in every worker, before it reports ready.
   */
  load?(parameters: P, settings: CheckSettings): void | Promise<void>;
  run(context: CheckContext, parameters: P): CheckOutcome | Promise<CheckOutcome>;
}

/** A plugin: a named set of checks with a plan class. */
export interface PluginDefinition {
  id: string;
  name?: string;
  description?: string;
  /** Plan class (spec §5). */
  class: PluginClass;
  /** Version of this plugin API the plugin was written for. */
  apiVersion: 1;
  /** JSON Schema of the credentials its checks need, if any. */
  credentials?: JsonSchema;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a plugin mixes checks with different parameter types
  checks: ReadonlyArray<CheckDefinition<any>>;
}

/** The plugin API versions this engine can load. */
export const SUPPORTED_API_VERSIONS: readonly number[] = [1];

/** Declares a check; returns it unchanged with its types checked. */
export function defineCheck<P = Record<string, unknown>>(check: CheckDefinition<P>): CheckDefinition<P> {
  return check;
}

/** Declares a plugin; a plugin module's default export is this value. */
export function definePlugin(plugin: PluginDefinition): PluginDefinition {
  return plugin;
}
