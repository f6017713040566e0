import { describe, expect, it } from "vitest";
import { requestId } from "./log-id.js";

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request ids", () => {
  it("are UUIDv7 whose first 48 bits are the creation time in ms", () => {
    const before = Date.now();
    const id = requestId();
    const after = Date.now();
    expect(id).toMatch(V7);
    const ms = Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it("sort by the millisecond they were made in and do not repeat", async () => {
    const first = Array.from({ length: 2000 }, requestId);
    await new Promise((resolve) => setTimeout(resolve, 2));
    const second = Array.from({ length: 2000 }, requestId);
    expect(new Set([...first, ...second]).size).toBe(4000);
    for (const id of [...first, ...second]) expect(id).toMatch(V7);
    expect(first.every((a) => second.every((b) => a < b))).toBe(true);
  });
});
