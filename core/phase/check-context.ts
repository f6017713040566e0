/**
 * The context a check's `run` gets (CheckContext of the plugin API). One is made per check run, so
 * its shape matters to V8's garbage collector as much as to plugin authors; see RunContext.
 */
import type { CheckContext, CheckSettings } from "../plugin-api.js";
import type { Guardrail, RequestType, Side } from "../types.js";
import type { Content } from "./state.js";
import type { PhaseTask } from "./task.js";

/**
 * The context a check's `run` gets; its `signal` is made on first read (by the getter given, or
 * here when none is). A class with the getter on
 * its prototype, not an object literal: a literal whose getter closes over each check's state gets
 * a hidden class of its own, which V8 keeps until a full collection, and with it everything the
 * check allocated — garbage collection took 40% of a cheap phase's time before this.
 */
export class RunContext implements CheckContext {
  declare guardrailId: string;
  declare side: Side;
  declare requestType: RequestType;
  declare text: string;
  declare request: unknown;
  declare response?: unknown;
  declare metadata: Record<string, string>;
  declare headers: Record<string, string>;
  declare model?: string;
  declare provider?: string;
  declare credentials?: Record<string, unknown>;
  declare settings: CheckSettings;
  declare toolArguments: boolean;
  readonly #signal: (() => AbortSignal) | undefined;
  /** The check's own signal when no getter was given: made on first read, aborted by `stop`. */
  #controller: AbortController | undefined = undefined;
  #stopped: Error | undefined = undefined;

  constructor(
    guardrail: Guardrail,
    task: PhaseTask,
    requestType: RequestType,
    content: Content,
    credentials: Record<string, unknown> | undefined,
    signal?: () => AbortSignal,
  ) {
    this.guardrailId = guardrail.id;
    this.side = task.side;
    this.toolArguments = guardrail.toolArguments !== false;
    this.requestType = requestType;
    this.text = content.located.text;
    this.request = content.request;
    this.response = content.response;
    this.metadata = task.metadata ?? {};
    this.headers = task.headers ?? {};
    if (task.model !== undefined) this.model = task.model;
    if (task.provider !== undefined) this.provider = task.provider;
    if (credentials !== undefined) this.credentials = credentials;
    this.settings = task.settings ?? {};
    this.#signal = signal;
  }

  get signal(): AbortSignal {
    if (this.#signal) return this.#signal();
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#stopped) this.#controller.abort(this.#stopped);
    }
    return this.#controller.signal;
  }

  /** Cancels the check (its time limit passed, or the phase was cancelled), when it holds its own signal. */
  stop(error: Error): void {
    this.#stopped = error;
    this.#controller?.abort(error);
  }
}
