/** Guardrail phases, each in a span of its own under the request's (see tracer.ts). */
import { SpanKind } from "@opentelemetry/api";
import type { Guardrail } from "../../core/index.js";
import { Phases } from "../request/phases.js";
import { failSpan, gatewayTracer } from "./tracer.js";

type Side = "input" | "output";

/** Phases that report each synchronous and asynchronous phase as a span. */
export class TracedPhases extends Phases {
  override sync(...args: Parameters<Phases["sync"]>): ReturnType<Phases["sync"]> {
    const [side, guardrails] = args;
    if (!guardrails.length) return super.sync(...args);
    return gatewayTracer().startActiveSpan(
      `guardrails ${side}`,
      { kind: SpanKind.INTERNAL, attributes: attributes(side, guardrails, false) },
      async (span) => {
        try {
          const evaluation = await super.sync(...args);
          if (evaluation) span.setAttribute("guardgate.guardrail.status", evaluation.status);
          return evaluation;
        } catch (error) {
          failSpan(span, error);
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  override async(...args: Parameters<Phases["async"]>): ReturnType<Phases["async"]> {
    const [side, guardrails] = args;
    if (!guardrails.length) return super.async(...args);
    return gatewayTracer().startActiveSpan(
      `guardrails ${side} async`,
      { kind: SpanKind.INTERNAL, attributes: attributes(side, guardrails, true) },
      (span) =>
        super.async(...args).then((results) => {
          span.setAttribute("guardgate.guardrail.failed", results.filter((result) => !result.verdict).length);
          span.end();
          return results;
        }),
    );
  }
}

function attributes(side: Side, guardrails: Guardrail[], async: boolean) {
  return {
    "guardgate.guardrail.side": side,
    "guardgate.guardrail.async": async,
    "guardgate.guardrail.ids": guardrails.map((guardrail) => guardrail.id),
  };
}
