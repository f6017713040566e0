/**
 * Azure's content filter results, as the request log keeps them (server/logs/record.ts,
 * ProviderFilters): each category's worst verdict on the prompt (`prompt_filter_results`, or a
 * refused prompt's `innererror.content_filter_result`) and on the completion (each choice's
 * `content_filter_results`), and whether anything was filtered (a category, or a finish reason
 * `content_filter`). Azure OpenAI documentation, "Content filtering": the annotations' fields.
 */
import { isObject } from "../../../../core/internal.js";
import type { FilterVerdict, ProviderFilters } from "../../../logs/record.js";
import type { CallFacts, Json } from "../../kind.js";

const SOURCE = "azure_content_filter";
const SEVERITY_RANK: Readonly<Record<string, number>> = { safe: 0, low: 1, medium: 2, high: 3 };

/** Gathers verdicts into the call's facts, worst first, across answers, choices and chunks. */
export class FilterFacts {
  readonly #facts: CallFacts;

  constructor(facts: CallFacts) {
    this.#facts = facts;
  }

  #filters(): ProviderFilters {
    this.#facts.provider_filters ??= { source: SOURCE, filtered: false };
    return this.#facts.provider_filters;
  }

  /** One `content_filter_results` object (category → verdict) on one side. */
  #categories(side: "prompt" | "completion", results: unknown): void {
    if (!isObject(results)) return;
    for (const [category, value] of Object.entries(results)) {
      if (!isObject(value) || typeof value.filtered !== "boolean") continue;
      const filters = this.#filters();
      const verdicts = (filters[side] ??= {});
      verdicts[category] = worse(verdicts[category], value);
      if (value.filtered) filters.filtered = true;
    }
  }

  /** An answer or a stream chunk of the chat or completions API. */
  answer(body: Json): void {
    for (const entry of arrayOf(body.prompt_filter_results)) {
      if (isObject(entry)) this.#categories("prompt", entry.content_filter_results);
    }
    for (const choice of arrayOf(body.choices)) {
      if (!isObject(choice)) continue;
      this.#categories("completion", choice.content_filter_results);
      if (choice.finish_reason === "content_filter") this.#filters().filtered = true;
    }
  }

  /** An error answer: a prompt the filter refused (code `content_filter`, verdicts in `innererror`). */
  error(body: Json): void {
    const error = body.error;
    if (!isObject(error)) return;
    const inner = isObject(error.innererror) ? error.innererror : undefined;
    if (inner) this.#categories("prompt", inner.content_filter_result);
    if (error.code === "content_filter" || inner?.code === "ResponsibleAIPolicyViolation") this.#filters().filtered = true;
  }
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The worse of two verdicts: filtered over not, then the higher severity, then detected over not. */
function worse(before: FilterVerdict | undefined, value: Json): FilterVerdict {
  const now: FilterVerdict = { filtered: value.filtered === true };
  if (typeof value.severity === "string") now.severity = value.severity;
  if (typeof value.detected === "boolean") now.detected = value.detected;
  if (!before) return now;
  const merged: FilterVerdict = { filtered: before.filtered || now.filtered };
  const severity = rank(now.severity) > rank(before.severity) ? now.severity : before.severity;
  if (severity !== undefined) merged.severity = severity;
  if (before.detected !== undefined || now.detected !== undefined)
    merged.detected = before.detected === true || now.detected === true;
  return merged;
}

function rank(severity: string | undefined): number {
  return severity === undefined ? -1 : (SEVERITY_RANK[severity] ?? 0);
}
