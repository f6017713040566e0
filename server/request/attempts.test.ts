import { describe, expect, it } from "vitest";
import type { HookResults } from "../../index.js";
import { appendHookResults } from "./attempts.js";

const hooks = { before_request_hooks: [], after_request_hooks: [] } as unknown as HookResults;

describe("appendHookResults", () => {
  it("gives the same JSON as spreading hook_results into the parsed body", () => {
    for (const text of ['{"id":"a","choices":[{"index":0}]}', '  {\n  "id": "a",\n  "n": 1\n}\n', "{}", " { } "]) {
      const body = JSON.parse(text) as Record<string, unknown>;
      const out = appendHookResults(text, body, hooks);
      expect(JSON.parse(out)).toEqual({ ...body, hook_results: hooks });
      expect(Object.keys(JSON.parse(out) as object).at(-1)).toBe("hook_results");
    }
  });

  it("keeps the upstream's own bytes before the added member", () => {
    const text = '{"content":"caf\\u00e9 \\"quoted\\"","usage":{"total_tokens":3}}';
    const out = appendHookResults(text, JSON.parse(text) as Record<string, unknown>, hooks);
    expect(out.startsWith(text.slice(0, -1))).toBe(true);
  });
});
