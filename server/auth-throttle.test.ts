import { describe, expect, it } from "vitest";
import { AuthThrottle } from "./auth-throttle.js";

describe("AuthThrottle", () => {
  it("stops a source at its Nth failed key for one window, then lets it try again", () => {
    let now = 1_000_000;
    const throttle = new AuthThrottle({ failures: 3, windowMs: 60_000, now: () => now });
    expect(throttle.retryAfter("a")).toBe(0);
    expect(throttle.failed("a")).toEqual({ failures: 1, stopped: false, retryAfterSeconds: 0 });
    expect(throttle.failed("a")).toMatchObject({ failures: 2, stopped: false });
    expect(throttle.retryAfter("a")).toBe(0);
    expect(throttle.failed("a")).toEqual({ failures: 3, stopped: true, retryAfterSeconds: 0 });
    expect(throttle.retryAfter("a")).toBe(60);
    // A key looked up while the source was being stopped is answered as a stopped source's.
    now += 10_000;
    expect(throttle.failed("a")).toEqual({ failures: 4, stopped: false, retryAfterSeconds: 50 });
    now -= 10_000;
    // Another source is not held by it.
    expect(throttle.retryAfter("b")).toBe(0);
    now += 59_001;
    expect(throttle.retryAfter("a")).toBe(1);
    now += 1_000;
    expect(throttle.retryAfter("a")).toBe(0);
    expect(throttle.failed("a")).toMatchObject({ failures: 1, stopped: false });
  });

  it("counts failures within a window only", () => {
    let now = 0;
    const throttle = new AuthThrottle({ failures: 2, windowMs: 1_000, now: () => now });
    throttle.failed("a");
    now = 1_500;
    expect(throttle.failed("a")).toMatchObject({ failures: 1, stopped: false });
    expect(throttle.failed("a")).toMatchObject({ failures: 2, stopped: true });
  });

  it("holds a bounded number of sources, forgetting the least recent", () => {
    const throttle = new AuthThrottle({ failures: 1, maxSources: 2 });
    throttle.failed("a");
    throttle.failed("b");
    throttle.failed("c");
    expect(throttle.retryAfter("a")).toBe(0);
    expect(throttle.retryAfter("b")).toBeGreaterThan(0);
    expect(throttle.retryAfter("c")).toBeGreaterThan(0);
  });
});
