import { describe, expect, it } from "vitest";
import { hookResultsJson, recordJson } from "./record-json.js";
import { allocatedBytes } from "../../test/support/allocated-bytes.js";

function result(id: string) {
  return {
    id,
    verdict: true,
    checks: [{ id: `${id}.check`, verdict: true, data: { count: 3, explanation: 'a "quoted" \u2028 text' } }],
    feedback: null,
  };
}

describe("recordJson", () => {
  it("writes a record with shared guardrail results as JSON.stringify does", () => {
    const input = [result("in")];
    const output = [result("out")];
    const record = {
      id: "r1",
      stream: false,
      status: 200,
      skipped: undefined,
      attempts: [
        { target: "targets[0]", status: 500, error: { code: "upstream_error", message: "x" } },
        { target: "targets[1]", status: 200, hook_results: { before_request_hooks: input, after_request_hooks: output } },
      ],
      hook_results: { before_request_hooks: [...input, result("async-in")], after_request_hooks: [...output] },
      created: new Date(0),
      request: { messages: [{ role: "user", content: "hi" }], fn: () => 1 },
    };
    expect(recordJson(record)).toBe(JSON.stringify(record));
  });

  it("writes each shared guardrail result once", () => {
    let reads = 0;
    const shared = {
      get id() {
        reads++;
        return "in";
      },
    };
    const record = {
      attempts: [{ target: "", hook_results: { before_request_hooks: [shared], after_request_hooks: [] } }],
      hook_results: { before_request_hooks: [shared], after_request_hooks: [] },
    };
    expect(recordJson(record)).toBe(
      '{"attempts":[{"target":"","hook_results":{"before_request_hooks":[{"id":"in"}],"after_request_hooks":[]}}],"hook_results":{"before_request_hooks":[{"id":"in"}],"after_request_hooks":[]}}',
    );
    expect(reads).toBe(1);
  });

  it("writes what it cannot share as JSON.stringify does", () => {
    const odd = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    const values: unknown[] = [
      { hook_results: { before_request_hooks: [undefined, () => 1, 2, null], after_request_hooks: [] } },
      { hook_results: { after_request_hooks: [], before_request_hooks: [] } },
      { hook_results: { before_request_hooks: [], after_request_hooks: [], extra: true } },
      { hook_results: "none", attempts: "none" },
      { attempts: [null, 3, { hook_results: undefined }], odd },
      { toJSON: () => ({ replaced: true }) },
      [{ hook_results: { before_request_hooks: [], after_request_hooks: [] } }],
      "text",
      42,
      undefined,
    ];
    for (const value of values) expect(recordJson(value)).toBe(JSON.stringify(value));
  });

  it("fails on a cycle as JSON.stringify does, never looping", () => {
    const record: Record<string, unknown> = { id: "r" };
    record.attempts = [{ hook_results: { before_request_hooks: [record], after_request_hooks: [] } }];
    expect(() => recordJson(record)).toThrow(TypeError);
  });

  it("writes an answer's hook_results as JSON.stringify does, and its record after it the same as without", () => {
    const input = [result("in")];
    const output = [result("out")];
    const hooks = { before_request_hooks: input, after_request_hooks: output };
    expect(hookResultsJson(hooks)).toBe(JSON.stringify(hooks));
    const record = {
      id: "r2",
      attempts: [{ target: "targets[0]", status: 200, hook_results: hooks }],
      hook_results: { before_request_hooks: [...input, result("async-in")], after_request_hooks: output },
    };
    expect(recordJson(record)).toBe(JSON.stringify(record));
  });

  it("reads each guardrail result once for the answer and its record together", () => {
    let reads = 0;
    const shared = {
      get id() {
        reads++;
        return "in";
      },
    };
    const hooks = { before_request_hooks: [shared], after_request_hooks: [] };
    const answer = hookResultsJson(hooks);
    const record = recordJson({ attempts: [{ hook_results: hooks }], hook_results: hooks });
    expect(reads).toBe(1);
    expect(answer).toBe('{"before_request_hooks":[{"id":"in"}],"after_request_hooks":[]}');
    expect(record).toContain(answer);
  });
});

describe("recordJson of a record without guardrail results", () => {
  /** A record of a request without guardrails: some thirty members, empty hook_results, one attempt. */
  function bare(): Record<string, unknown> {
    const record: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) record[`field_${i}`] = i % 3 ? `value ${i}` : i;
    record.attempts = [
      {
        target: "targets[0]",
        status: 200,
        latency_ms: 12.5,
        hook_results: { before_request_hooks: [], after_request_hooks: [] },
      },
    ];
    record.hook_results = { before_request_hooks: [], after_request_hooks: [] };
    return record;
  }

  it("is JSON.stringify's text", () => {
    expect(recordJson(bare())).toBe(JSON.stringify(bare()));
  });

  it("is written whole, not member by member: about JSON.stringify's garbage, not four times it", () => {
    const record = bare();
    const rounds = 5_000;
    for (let i = 0; i < 500; i++) recordJson(record);
    const perRecord =
      allocatedBytes(() => {
        for (let i = 0; i < rounds; i++) recordJson(record);
      }) / rounds;
    // Member by member it was about 9 KB here; a single JSON.stringify about 2 KB.
    expect(perRecord).toBeLessThan(4_000);
  });
});
