/**
 * Gemini's safety filter, as the request log keeps provider filters (server/logs/record.ts,
 * ProviderFilters): each harm category's worst rating on the prompt (`promptFeedback.safetyRatings`)
 * and on the answer (each candidate's `safetyRatings`, over every event of a stream), a blocked
 * prompt's `blockReason` or a stopped answer's `finishReason` as a filtered verdict of its own, and
 * whether anything was blocked. Categories lose their `HARM_CATEGORY_` prefix (`hate_speech`);
 * a rating's severity is Vertex AI's `severity` where it gives one, else its `probability`.
 */
import { isObject } from "../../../../core/internal.js";
import type { FilterVerdict, ProviderFilters } from "../../../logs/record.js";
import type { CallFacts, Json } from "../../kind.js";

const SOURCE = "gemini_safety_filter";
const RANK: Readonly<Record<string, number>> = { negligible: 0, low: 1, medium: 2, high: 3 };

/** Finish reasons of an answer Gemini's filters stopped. */
export const FILTERED_FINISH_REASONS: ReadonlySet<string> = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
]);

/** Gathers Gemini's verdicts into a call's facts, worst first, across candidates and stream events. */
export class SafetyFacts {
  readonly #facts: CallFacts | undefined;

  constructor(facts: CallFacts | undefined) {
    this.#facts = facts;
  }

  #filters(): ProviderFilters {
    const facts = this.#facts as CallFacts;
    facts.provider_filters ??= { source: SOURCE, filtered: false };
    return facts.provider_filters;
  }

  #verdict(side: "prompt" | "completion", name: string, now: FilterVerdict): void {
    if (!this.#facts) return;
    const filters = this.#filters();
    const verdicts = (filters[side] ??= {});
    verdicts[name] = worse(verdicts[name], now);
    if (now.filtered) filters.filtered = true;
  }

  #ratings(side: "prompt" | "completion", ratings: unknown): void {
    if (!Array.isArray(ratings)) return;
    for (const rating of ratings) {
      if (!isObject(rating) || typeof rating.category !== "string") continue;
      const verdict: FilterVerdict = { filtered: rating.blocked === true };
      const severity = severityOf(rating);
      if (severity !== undefined) verdict.severity = severity;
      this.#verdict(side, rating.category.replace(/^HARM_CATEGORY_/, "").toLowerCase(), verdict);
    }
  }

  /** An answer's `promptFeedback`: the prompt's ratings, and its block. */
  prompt(feedback: unknown): void {
    if (!isObject(feedback)) return;
    this.#ratings("prompt", feedback.safetyRatings);
    const reason = feedback.blockReason;
    if (typeof reason === "string" && reason !== "BLOCK_REASON_UNSPECIFIED") {
      this.#verdict("prompt", reason.toLowerCase(), { filtered: true, detected: true });
    }
  }

  /** One candidate of an answer or of a stream event. */
  candidate(candidate: Json): void {
    this.#ratings("completion", candidate.safetyRatings);
    const reason = candidate.finishReason;
    if (typeof reason === "string" && FILTERED_FINISH_REASONS.has(reason)) {
      this.#verdict("completion", reason.toLowerCase(), { filtered: true, detected: true });
    }
  }
}

function severityOf(rating: Json): string | undefined {
  if (typeof rating.severity === "string" && rating.severity !== "HARM_SEVERITY_UNSPECIFIED") {
    return rating.severity.replace(/^HARM_SEVERITY_/, "").toLowerCase();
  }
  if (typeof rating.probability === "string" && rating.probability !== "HARM_PROBABILITY_UNSPECIFIED") {
    return rating.probability.toLowerCase();
  }
  return undefined;
}

/** The worse of two verdicts: filtered over not, then the higher severity, then detected over not. */
function worse(before: FilterVerdict | undefined, now: FilterVerdict): FilterVerdict {
  if (!before) return now;
  const merged: FilterVerdict = { filtered: before.filtered || now.filtered };
  const severity = rank(now.severity) > rank(before.severity) ? now.severity : before.severity;
  if (severity !== undefined) merged.severity = severity;
  if (before.detected !== undefined || now.detected !== undefined) {
    merged.detected = before.detected === true || now.detected === true;
  }
  return merged;
}

function rank(severity: string | undefined): number {
  return severity === undefined ? -1 : (RANK[severity] ?? 0);
}
