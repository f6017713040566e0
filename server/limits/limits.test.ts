import { describe, expect, it } from "vitest";
import { MemoryCounters, retryAfterMs, slidingCount } from "./counters.js";
import { LimitEnforcer, LimitError, type LimitScope } from "./enforcer.js";
import { costOf, priceOf } from "./prices.js";

const MIN = 60_000;

describe("sliding window", () => {
  it("weights the previous window by its overlap", () => {
    expect(slidingCount(10, 0, MIN, 0)).toBe(10);
    expect(slidingCount(10, 2, MIN, 30_000)).toBe(7);
  });

  it("computes when a refused take would fit", () => {
    // Previous 10, current 0, limit 5 at the window start: 10 * (1 - e) <= 4 at e = 0.6.
    expect(retryAfterMs(10, 0, MIN, 0, 5, 1)).toBe(36_000);
    // Current window alone is full: wait into the next window until 5 * (1 - e) <= 4.
    expect(retryAfterMs(0, 5, MIN, 10_000, 5, 1)).toBe(50_000 + 12_000);
  });

  it("takes up to the limit, refuses beyond it, and frees up as the window slides", async () => {
    const counters = new MemoryCounters();
    const t0 = 5 * MIN;
    for (let i = 0; i < 3; i++) expect((await counters.take("k", MIN, 3, 1, t0)).allowed).toBe(true);
    const refused = await counters.take("k", MIN, 3, 1, t0 + 1000);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect((await counters.take("k", MIN, 3, 1, t0 + refused.retryAfterMs + 1000)).allowed).toBe(true);
    expect((await counters.take("k", MIN, 3, 1, t0 + 3 * MIN)).allowed).toBe(true);
  });
});

describe("prices", () => {
  it("prices dated model names as their base, integration prices first, mock free", () => {
    expect(priceOf("gpt-4o-mini-2024-07-18", "openai")).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf("gpt-4o-2024-08-06", "openai")).toEqual({ input: 2.5, output: 10 });
    expect(priceOf("gpt-4o", "openai", { "gpt-4o": { input: 1, output: 1 } })).toEqual({ input: 1, output: 1 });
    expect(priceOf("anything", "mock")).toEqual({ input: 0, output: 0 });
    expect(priceOf("unknown-model", "openai")).toBeUndefined();
    expect(costOf({ input_tokens: 1_000_000, output_tokens: 500_000 }, { input: 2, output: 8 })).toBe(6);
  });
});

describe("LimitEnforcer", () => {
  function setup(spent = 0) {
    let now = 10 * MIN;
    const spendQueries: unknown[] = [];
    const enforcer = new LimitEnforcer({
      counters: new MemoryCounters(),
      spend: async (filter) => {
        spendQueries.push(filter);
        return spent;
      },
      now: () => now,
    });
    return { enforcer, spendQueries, advance: (ms: number) => (now += ms) };
  }
  const scope = (over: Partial<LimitScope>): LimitScope => ({
    label: 'provider "p"',
    key: "provider:p",
    rate_limit: null,
    budget: null,
    spend: { provider_id: "p" },
    ...over,
  });
  const price = { input: 1_000_000, output: 1_000_000 };

  it("answers 429 with retry-after once requests per minute are used, and gives back partial takes", async () => {
    const { enforcer } = setup();
    const wide = scope({ key: "wide", label: "workspace w", rate_limit: { requests_per_minute: 3 } });
    const narrow = scope({ rate_limit: { requests_per_minute: 2 } });
    await enforcer.admit([wide, narrow], "m", price);
    await enforcer.admit([wide, narrow], "m", price);
    const error = await enforcer.admit([wide, narrow], "m", price).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimitError);
    expect(error).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect((error as LimitError).message).toContain('provider "p" (2 requests per minute)');
    expect(Number((error as LimitError).headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // The refused request was given back to the wider scope: it still has one request left.
    await enforcer.admit([wide], "m", price);
    await expect(enforcer.admit([wide], "m", price)).rejects.toMatchObject({ status: 429 });
  });

  it("refuses once tokens per minute are used up, counting tokens at settlement", async () => {
    const { enforcer, advance } = setup();
    const tpm = scope({ rate_limit: { tokens_per_minute: 100 } });
    const admission = await enforcer.admit([tpm], "m", price);
    await enforcer.settle(admission, { input_tokens: 80, output_tokens: 30 });
    await expect(enforcer.admit([tpm], "m", price)).rejects.toMatchObject({ status: 429 });
    advance(2 * MIN);
    await expect(enforcer.admit([tpm], "m", price)).resolves.toBeDefined();
  });

  it("answers 402 once a budget is spent, seeded from the logs once", async () => {
    const { enforcer, spendQueries } = setup(0.5);
    const budgeted = scope({ budget: { limit: 1, period: "monthly" } });
    const admission = await enforcer.admit([budgeted], "m", { input: 0.25, output: 0.25 });
    expect(spendQueries).toHaveLength(1);
    expect(spendQueries[0]).toMatchObject({ provider_id: "p", since: expect.stringMatching(/-01T00:00:00.000Z$/) });
    const cost = await enforcer.settle(admission, { input_tokens: 1_000_000, output_tokens: 1_000_000 });
    expect(cost).toBe(0.5);
    const error = await enforcer.admit([budgeted], "m", price).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 402, code: "budget_exhausted" });
    expect((error as Error).message).toMatch(
      /budget of provider "p" is spent \(1\.00 of 1\.00\) this month; it renews on \d{4}-\d{2}-01/,
    );
    expect(spendQueries).toHaveLength(1);
  });

  it("refuses an unpriced model when a budget applies, and ignores price otherwise", async () => {
    const { enforcer } = setup();
    await expect(enforcer.admit([scope({ budget: { limit: 5, period: "total" } })], "mystery", undefined)).rejects.toMatchObject({
      status: 400,
      code: "model_price_unknown",
    });
    await expect(
      enforcer.admit([scope({ rate_limit: { requests_per_minute: 5 } })], "mystery", undefined),
    ).resolves.toBeDefined();
  });
});
