/**
 * A target as the output side and the stream relay read it, once its provider is resolved and its
 * input side evaluated. Apart from the outcomes, which carry it, so the relay's types need not
 * import the outcome module that holds the relay.
 */
import type { Evaluation } from "../../core/index.js";
import type { RoutingNode } from "../routing/build.js";
import type { ResolvedProvider } from "../providers/provider.js";
import type { Admission } from "../request-gate.js";
import type { PhaseContext } from "./phases.js";

/** A target once its provider is resolved and its input side evaluated. */
export interface Leaf {
  node: RoutingNode;
  provider: ResolvedProvider;
  /** The body sent upstream: override_params, model resolution and input transforms applied. */
  request: Record<string, unknown>;
  phase: PhaseContext;
  /** The synchronous input evaluation, when the target has synchronous input guardrails. */
  input?: Evaluation;
  /** The request gate's admission, settled with the answer's usage when the request is logged. */
  admission?: Admission;
}
