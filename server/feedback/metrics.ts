/**
 * `guardgate_feedback_total`: feedback stored on answers. Without labels on purpose: values and
 * workspaces are unbounded sets, and the request log holds the detail.
 */
import { Counter, type Registry } from "prom-client";

/** Registers the counter in `registry`; returns the function that counts stored feedback. */
export function feedbackCounter(registry: Registry): (count: number) => void {
  const counter = new Counter({
    name: "guardgate_feedback_total",
    help: "Feedback stored on answers (POST /v1/feedback)",
    registers: [registry],
  });
  return (count) => counter.inc(count);
}
