/**
 * The engine, core's public front: a check registry with the plugins it is handed (the built-in
 * ones come from the package entry, the server or the CLI, never from core itself), a guardrail
 * source, and an executor. `evaluate` takes one side of one request, resolves its guardrails into
 * a phase task, hands it to the executor (which runs core/phase/run-phase.ts inline or in a pool
 * worker), and returns the spec's results and status. Nothing here runs a check.
 */
import path from "node:path";
import { evaluationStatus } from "./aggregate.js";
import type { GuardrailDefinition } from "./config/definition.js";
import type { ConfigWarning } from "./config/keys.js";
import { checkConfigKeys } from "./config/keys.js";
import { type NormalizedGuardrails, normalizeGuardrails, parseConfig, prepareListElement } from "./config/normalize.js";
import { joinPath } from "./config/path.js";
import { type GuardrailSource, InMemoryGuardrailSource } from "./config/source.js";
import { baseRequestType, locateText } from "./content.js";
import { ConfigError, GuardgateError } from "./errors.js";
import { type Executor, type ExecutorContext, InlineExecutor } from "./executor.js";
import type { CheckSettings } from "./plugin-api.js";
import { type LoadedPlugin, loadBuiltinPlugin, loadPlugin, type PluginSpec } from "./plugin-loader.js";
import { AutoExecutor, type AutoOptions } from "./pool/auto-executor.js";
import { PoolExecutor, type PoolOptions } from "./pool/pool-executor.js";
import { type CheckInfo, CheckRegistry, type PluginInfo } from "./registry.js";
import { type DataSettlement, settleResultData } from "./result-data.js";
import type { PhaseResult, PhaseTask } from "./phase/task.js";
import type { Guardrail, GuardrailResult, GuardrailStatus, RequestType, Side } from "./types.js";
import { checksToLoad, loadChecks, type WarmReport } from "./warm.js";

/** Options of `createEngine`. */
export interface EngineOptions {
  /**
   * Module URLs of the plugins shipped with guardgate (plugins/builtin.ts): registered first and
   * reported as built in. The package entry's `createEngine` fills it in.
   */
  builtins?: readonly string[];
  /** Extra plugins: objects, package names, or paths. */
  plugins?: PluginSpec[];
  /** Guardrail records to seed the in-memory source with. */
  guardrails?: GuardrailDefinition[];
  /** A source for guardrail ids (the store); replaces the in-memory one. */
  source?: GuardrailSource;
  /** Folder package names and relative plugin paths are resolved from; defaults to the cwd. */
  baseDir?: string;
  settings?: CheckSettings;
  /**
   * How phases run: "inline" (on the calling thread), "pool" (worker threads with hard time limits;
   * plugins given as objects are refused), "auto" (per phase, by measured cost; see
   * core/pool/auto-executor.ts), or a factory. The default is "auto" when a plugin is loaded from a
   * path or a package (code that is not guardgate's and may never yield runs in the pool, under
   * its time limit), else "inline". Ask for "inline" to keep every check on the calling thread.
   */
  executor?: ExecutorChoice | ((context: ExecutorContext) => Executor);
  /** Worker pool options, for "pool" and "auto": size, resource limits, cut-off margin. */
  pool?: PoolOptions;
  /** Options of the "auto" executor: inline budget and text ceiling. */
  auto?: AutoOptions;
}

/** The executors the engine can build itself. */
export type ExecutorChoice = "inline" | "pool" | "auto";

/** A guardrail as `evaluate` accepts it: an id, a full definition, or a shorthand object. */
export type GuardrailInput = string | GuardrailDefinition | Record<string, unknown>;

/** Options of `engine.evaluate`. */
export interface EvaluateOptions {
  side: Side;
  /** Guardrails for this side: ids (records, async by default) or inline definitions (sync by default). */
  guardrails?: GuardrailInput[];
  /** A config (object or JSON string) whose list for `side` is evaluated. */
  config?: unknown;
  /** Guardrails already prepared by `engine.prepare`, for callers that cache them. */
  prepared?: Guardrail[];
  requestType: RequestType | string;
  request: unknown;
  /** Required on the output side. */
  response?: unknown;
  metadata?: Record<string, string>;
  headers?: Record<string, string>;
  model?: string;
  provider?: string;
  credentials?: Record<string, Record<string, unknown>>;
  /** Aborting it cancels the outstanding checks (client gone); their results show AbortError. */
  signal?: AbortSignal;
  /** Once a synchronous guardrail denies, cancel the other synchronous guardrails' outstanding checks. */
  stopOnDeny?: boolean;
}

/** What `engine.evaluate` returns. */
export interface Evaluation {
  /** 200, 246 or 446, over synchronous guardrails (spec §3). */
  status: GuardrailStatus;
  /** True when every synchronous guardrail passed. */
  verdict: boolean;
  /** Results of the synchronous guardrails. */
  results: GuardrailResult[];
  /** Results of the asynchronous guardrails, for the log; they never change the status. */
  asyncResults: GuardrailResult[];
  /** The request, transformed when a synchronous input guardrail changed it. */
  request: unknown;
  /** The response, transformed when a synchronous output guardrail changed it. */
  response: unknown;
  transformed: boolean;
  warnings: ConfigWarning[];
}

/** The guardrail engine. */
export interface Engine {
  readonly registry: CheckRegistry;
  readonly source: GuardrailSource;
  readonly executor: Executor;
  /** Normalises the guardrail keys of a config (or a target of one) into prepared lists. */
  normalize(config: unknown, options?: { path?: string; scope?: { workspaceId?: string } }): Promise<NormalizedGuardrails>;
  evaluate(options: EvaluateOptions): Promise<Evaluation>;
  /**
   * `evaluate` with the evaluation itself rather than a promise when nothing had to be awaited:
   * `prepared` guardrails whose phase ran through without waiting (core/phase/run-phase-now.ts).
   * A caller that awaits nothing else saves the promise and the turn of the microtask queue that
   * resumes it behind every other request's work. Throws where `evaluate` rejects.
   */
  evaluateNow(options: EvaluateOptions): Evaluation | Promise<Evaluation>;
  /**
   * Starts the executor's threads and loads what the enabled checks of these guardrails need, in
   * every thread that may run them (core/warm.ts); what fails to load is reported, not thrown.
   */
  warm(guardrails: readonly Guardrail[]): Promise<WarmReport>;
  /** Metadata of every registered check. */
  checks(): CheckInfo[];
  plugins(): PluginInfo[];
  close(): Promise<void>;
}

async function buildExecutor(options: EngineOptions, context: ExecutorContext): Promise<Executor> {
  // Plugins from modules are code nobody here reviewed: by default they never run on the caller's thread.
  const choice = options.executor ?? (context.plugins.some((p) => p.moduleUrl !== undefined) ? "auto" : "inline");
  if (typeof choice === "function") return choice(context);
  switch (choice) {
    case "inline": {
      // Checks that must run in a worker still do; the workers load only plugins from modules.
      const plugins = context.plugins.filter((p) => p.moduleUrl !== undefined);
      const builtins = context.builtins ?? [];
      return new InlineExecutor(context.registry, {
        pool: () => new PoolExecutor({ registry: context.registry, plugins, builtins }, options.pool),
      });
    }
    case "auto":
      return new AutoExecutor(context, {
        ...(options.pool && { pool: options.pool }),
        ...(options.auto && { auto: options.auto }),
      });
    case "pool": {
      const pool = new PoolExecutor(context, options.pool);
      try {
        await pool.ready();
      } catch (error) {
        await pool.close();
        throw error;
      }
      return pool;
    }
    default:
      throw new ConfigError("executor", `${JSON.stringify(choice)} is not one of "inline", "pool", "auto" or a factory`);
  }
}

/** Creates an engine with `options.builtins` plus `options.plugins`. */
export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  const registry = new CheckRegistry();
  const builtins: LoadedPlugin[] = [];
  for (const moduleUrl of options.builtins ?? []) {
    const plugin = await loadBuiltinPlugin(moduleUrl);
    // Built-in schemas are known to compile (test/builtin-schemas.test.ts): compiled when first used.
    registry.register(plugin.plugin, plugin.source, "on-use");
    builtins.push(plugin);
  }
  const baseDir = path.resolve(options.baseDir ?? process.cwd());
  const loaded: LoadedPlugin[] = [];
  for (const spec of options.plugins ?? []) {
    const plugin = await loadPlugin(spec, baseDir);
    registry.register(plugin.plugin, plugin.source);
    loaded.push(plugin);
  }
  const source = options.source ?? new InMemoryGuardrailSource(options.guardrails ?? []);
  const executor = await buildExecutor(options, { registry, plugins: loaded, builtins });
  const settings = options.settings ?? {};
  // The data fields of each check that echo the evaluated text, read once from its data docs.
  const echoes = new Map<string, readonly string[]>();
  const echoesOf = (id: string): readonly string[] => {
    let fields = echoes.get(id);
    if (!fields) {
      const data = registry.get(id)?.definition.data ?? {};
      fields = Object.entries(data).flatMap(([name, doc]) =>
        doc.echoesText === true ? [name] : Array.isArray(doc.echoesText) ? doc.echoesText.map((m: string) => `${name}.${m}`) : [],
      );
      echoes.set(id, fields);
    }
    return fields;
  };

  const resolveGuardrails = async (o: EvaluateOptions): Promise<{ guardrails: Guardrail[]; warnings: ConfigWarning[] }> => {
    const given = [o.prepared, o.guardrails, o.config].filter((x) => x !== undefined).length;
    if (given !== 1) throw new ConfigError("", "evaluate needs exactly one of guardrails, config or prepared");
    if (o.prepared) return { guardrails: o.prepared, warnings: [] };
    if (o.config !== undefined) {
      const config = parseConfig(o.config, "config");
      const keyWarnings = checkConfigKeys(config, "config");
      const normalized = await normalizeGuardrails(config, { registry, source }, "config");
      return { guardrails: normalized[o.side], warnings: [...keyWarnings, ...normalized.warnings] };
    }
    if (!Array.isArray(o.guardrails)) throw new ConfigError("guardrails", "must be an array");
    const prepared = await Promise.all(
      o.guardrails.map((g, i) => prepareListElement(g, o.side, joinPath("guardrails", i), { registry, source })),
    );
    return { guardrails: prepared.map((p) => p.guardrail), warnings: prepared.flatMap((p) => p.warnings) };
  };

  return {
    registry,
    source,
    executor,
    normalize: (config, o = {}) =>
      normalizeGuardrails(config, { registry, source, ...(o.scope && { scope: o.scope }) }, o.path ?? ""),
    async evaluate(o) {
      return evaluateNow(o);
    },
    evaluateNow,
    warm(guardrails) {
      const request = { checks: checksToLoad(registry, guardrails), settings };
      return executor.warm ? executor.warm(request) : loadChecks(registry, request);
    },
    checks: () => registry.checks(),
    plugins: () => registry.plugins(),
    close: () => executor.close(),
  };

  /** One side of one request through the executor: its evaluation, or a promise of it when something waited. */
  function evaluateNow(o: EvaluateOptions): Evaluation | Promise<Evaluation> {
    if (o.side !== "input" && o.side !== "output") throw new ConfigError("side", 'must be "input" or "output"');
    const requestType = baseRequestType(String(o.requestType));
    if (!requestType) {
      throw new GuardgateError(
        "invalid_request_type",
        `requestType: "${o.requestType}" is not one of chatComplete, complete, embed, messages, responses`,
      );
    }
    if (o.side === "output" && o.response === undefined) {
      throw new GuardgateError("response_required", "response: the output side needs the response to evaluate");
    }
    // Prepared guardrails need no resolving: taken as they are, without a promise and a tick.
    if (o.prepared && o.guardrails === undefined && o.config === undefined) return runSide(o, requestType, o.prepared, []);
    return resolveGuardrails(o).then(({ guardrails, warnings }) => runSide(o, requestType, guardrails, warnings));
  }

  /** Runs a side's resolved guardrails and settles what their results may show. */
  function runSide(
    o: EvaluateOptions,
    requestType: RequestType,
    guardrails: Guardrail[],
    warnings: ConfigWarning[],
  ): Evaluation | Promise<Evaluation> {
    // Assigned, not spread: every phase builds one, and each spread is an object of its own.
    const task: PhaseTask = { side: o.side, requestType, request: o.request, response: o.response, guardrails, settings };
    if (o.metadata) task.metadata = o.metadata;
    if (o.headers) task.headers = o.headers;
    if (o.model !== undefined) task.model = o.model;
    if (o.provider !== undefined) task.provider = o.provider;
    if (o.credentials) task.credentials = o.credentials;
    if (o.stopOnDeny) task.stopOnDeny = true;
    if (!guardrails.length)
      return settled(o, requestType, { results: [], request: o.request, response: o.response, transformed: false }, warnings);
    // A phase of synchronous checks comes back as a value: no await, no turn of the microtask queue.
    const ran = executor.runNow ? executor.runNow(task, o.signal) : executor.run(task, o.signal);
    return ran instanceof Promise
      ? ran.then((phase) => settled(o, requestType, phase, warnings))
      : settled(o, requestType, ran, warnings);
  }

  /** The evaluation of a phase that ran: the verdict, the results split by kind, their data settled. */
  function settled(o: EvaluateOptions, requestType: RequestType, phase: PhaseResult, warnings: ConfigWarning[]): Evaluation {
    // One pass: the synchronous results decide, the asynchronous ones go to the log.
    const results: GuardrailResult[] = [];
    const asyncResults: GuardrailResult[] = [];
    let verdict = true;
    for (const result of phase.results) {
      if (result.async) asyncResults.push(result);
      else {
        results.push(result);
        if (!result.verdict) verdict = false;
      }
    }
    const status = evaluationStatus(results);
    const settlement: DataSettlement = { denied: status === 446, echoes: echoesOf };
    if (phase.transformed) {
      settlement.transformedText = locateText(o.side, requestType, o.side === "input" ? phase.request : phase.response).text;
    }
    settleResultData(phase.results, settlement);
    return {
      status,
      verdict,
      results,
      asyncResults,
      request: phase.request,
      response: phase.response,
      transformed: phase.transformed,
      warnings,
    };
  }
}
