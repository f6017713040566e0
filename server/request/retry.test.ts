import { describe, expect, it } from "vitest";
import { parseRetryAfter, retryDelay, sleep } from "./retry.js";

describe("retry timing", () => {
  it("reads Retry-After in seconds or as an HTTP date", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter("0.5")).toBe(500);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it("backs off exponentially with jitter between half and the whole step, up to the cap", () => {
    const timing = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelay(0, undefined, timing, () => 0)).toBe(50);
    expect(retryDelay(0, undefined, timing, () => 1)).toBe(100);
    expect(retryDelay(2, undefined, timing, () => 0)).toBe(200);
    expect(retryDelay(10, undefined, timing, () => 1)).toBe(1000);
  });

  it("waits as long as Retry-After asks, and not at all when it asks too much", () => {
    expect(retryDelay(0, 1500, { maxRetryAfterMs: 2000 })).toBe(1500);
    expect(retryDelay(0, 5000, { maxRetryAfterMs: 2000 })).toBeUndefined();
  });

  it("sleep rejects when its signal aborts", async () => {
    const controller = new AbortController();
    const waiting = sleep(10_000, controller.signal);
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
  });
});
