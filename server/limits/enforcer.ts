/**
 * Rate limits and budgets on the request path. A request is admitted against every scope that
 * applies to it (the workspace, the integration as provisioned to the workspace, the provider) and
 * settled after the response with its token usage and cost. Refusals say which limit and when to
 * retry: 429 with `retry-after` for rate limits, 402 once a budget is spent.
 */
import { GuardgateError } from "../../core/index.js";
import { type GatewayStatusCode, gatewayStatus } from "../error-codes.js";
import type { SpendFilter } from "../store/log-types.js";
import type { Budget, ModelPrice, RateLimit } from "../store/types.js";
import type { Counters } from "./counters.js";
import { costOf, type TokenUsage } from "./prices.js";

const MINUTE = 60_000;

/** A limit refusal, with the HTTP status (its code's line in error-codes.ts) and headers to answer with. */
export class LimitError extends GuardgateError {
  readonly status: number;
  readonly headers: Record<string, string>;
  declare readonly code: GatewayStatusCode;
  constructor(code: GatewayStatusCode, message: string, headers: Record<string, string> = {}) {
    super(code, message);
    this.status = gatewayStatus(code);
    this.headers = headers;
  }
}

/** One set of limits a request counts against. */
export interface LimitScope {
  /** Names the scope in messages: `provider "openai-prod"`. */
  label: string;
  /** Counter key prefix, unique per scope: `provider:prv_…`. */
  key: string;
  rate_limit: RateLimit | null;
  budget: Budget | null;
  /** The logs whose cost this scope's budget counts, to seed it after a restart. */
  spend: SpendFilter;
}

/** What admission decided; handed back to `settle`. */
export interface Admission {
  scopes: LimitScope[];
  price: ModelPrice | undefined;
}

/** Options of the enforcer. */
export interface EnforcerOptions {
  counters: Counters;
  /** Spend recorded in the logs (the store's `logs.spend`). */
  spend: (filter: SpendFilter) => Promise<number>;
  now?: () => number;
}

function monthStart(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

function nextMonthStart(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

function formatAmount(value: number): string {
  return value.toFixed(value < 1 ? 4 : 2);
}

/** Applies rate limits and budgets with shared counters. */
export class LimitEnforcer {
  readonly #counters: Counters;
  readonly #spend: (filter: SpendFilter) => Promise<number>;
  readonly #now: () => number;

  constructor(options: EnforcerOptions) {
    this.#counters = options.counters;
    this.#spend = options.spend;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Admits a request or throws a LimitError. Request counts are taken only when every scope
   * admits; a refusal gives back what earlier scopes took.
   */
  async admit(scopes: readonly LimitScope[], model: string | undefined, price: ModelPrice | undefined): Promise<Admission> {
    const now = this.#now();
    for (const scope of scopes) {
      if (!scope.budget) continue;
      if (!price) {
        throw new LimitError(
          "model_price_unknown",
          `${scope.label} has a budget, but model "${model ?? "(none)"}" has no price, so its spend cannot be counted; add the model to the integration's pricing`,
        );
      }
      const spent = await this.#budgetSpent(scope, scope.budget, now);
      if (spent >= scope.budget.limit) {
        const period =
          scope.budget.period === "monthly"
            ? ` this month; it renews on ${nextMonthStart(now).toISOString().slice(0, 10)}`
            : "; raise the budget to continue";
        throw new LimitError(
          "budget_exhausted",
          `the budget of ${scope.label} is spent (${formatAmount(spent)} of ${formatAmount(scope.budget.limit)})${period}`,
        );
      }
    }
    for (const scope of scopes) {
      const tpm = scope.rate_limit?.tokens_per_minute;
      if (tpm === undefined) continue;
      // A take of 0 under limit - 1 asks "is the count below the limit?" and changes nothing.
      const result = await this.#counters.take(`${scope.key}:tpm`, MINUTE, tpm - 1, 0, now);
      if (!result.allowed) throw this.#rateError(scope, `${tpm} tokens per minute`, result.retryAfterMs);
    }
    const taken: LimitScope[] = [];
    for (const scope of scopes) {
      const rpm = scope.rate_limit?.requests_per_minute;
      if (rpm === undefined) continue;
      const result = await this.#counters.take(`${scope.key}:rpm`, MINUTE, rpm, 1, now);
      if (!result.allowed) {
        for (const back of taken) await this.#counters.add(`${back.key}:rpm`, MINUTE, -1, now);
        throw this.#rateError(scope, `${rpm} requests per minute`, result.retryAfterMs);
      }
      taken.push(scope);
    }
    return { scopes: [...scopes], price };
  }

  /** Counts a finished request's tokens and cost; resolves to the cost (null when unpriced). */
  async settle(admission: Admission, usage: TokenUsage | undefined): Promise<number | null> {
    if (!usage) return null;
    const now = this.#now();
    const tokens = usage.input_tokens + usage.output_tokens;
    const cost = admission.price ? costOf(usage, admission.price) : null;
    for (const scope of admission.scopes) {
      if (scope.rate_limit?.tokens_per_minute !== undefined && tokens > 0) {
        await this.#counters.add(`${scope.key}:tpm`, MINUTE, tokens, now);
      }
      if (scope.budget && cost !== null && cost > 0) {
        await this.#budgetSpent(scope, scope.budget, now);
        await this.#counters.addTotal(this.#budgetKey(scope, scope.budget, now), cost);
      }
    }
    return cost;
  }

  #budgetKey(scope: LimitScope, budget: Budget, now: number): string {
    return budget.period === "monthly"
      ? `${scope.key}:budget:${monthStart(now).toISOString().slice(0, 7)}`
      : `${scope.key}:budget:total`;
  }

  /** The spend counted against a budget, seeded from the logs the first time this process sees it. */
  async #budgetSpent(scope: LimitScope, budget: Budget, now: number): Promise<number> {
    const key = this.#budgetKey(scope, budget, now);
    const held = await this.#counters.total(key);
    if (held !== undefined) return held;
    const since = budget.period === "monthly" ? monthStart(now).toISOString() : undefined;
    const spent = await this.#spend({ ...scope.spend, ...(since && { since }) });
    return this.#counters.seedTotal(key, spent);
  }

  #rateError(scope: LimitScope, what: string, retryMs: number): LimitError {
    const seconds = Math.max(1, Math.ceil(retryMs / 1000));
    return new LimitError(
      "rate_limit_exceeded",
      `the rate limit of ${scope.label} (${what}) is reached; retry after ${seconds} s`,
      { "retry-after": String(seconds) },
    );
  }
}
