import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors.js";
import type { JsonOutcome, Leaf, Outcome } from "./attempts.js";
import type { RequestContext } from "./context.js";
import { compose, type Dispatch, type Interceptor, passedBackHeaders, retrying, type TargetCall } from "./target-call.js";

function answer(status: number): JsonOutcome {
  return { kind: "json", status, headers: {} };
}

function callOf(retry?: { attempts: number; onStatusCodes: number[] }): TargetCall {
  const leaf = {
    node: { path: "targets[0]", settings: { ...(retry && { retry }) }, input: { sync: [] }, output: { sync: [] } },
    provider: { kind: "http", name: "openai" },
    request: {},
    phase: { requestType: "chatComplete", metadata: {}, headers: {} },
  } as unknown as Leaf;
  const ctx = {
    endpoint: { errorStyle: "openai" },
    signal: new AbortController().signal,
  } as unknown as RequestContext;
  return { ctx, leaf, attempt: 0, facts: {} };
}

describe("the target call stack", () => {
  it("runs interceptors outermost first, each handing the call to the one below, the bottom last", async () => {
    const seen: string[] = [];
    const step =
      (name: string): Interceptor =>
      async (call, next) => {
        seen.push(`${name}>`);
        const outcome = await next(call);
        seen.push(`<${name}`);
        return outcome;
      };
    const bottom: Dispatch = async () => {
      seen.push("bottom");
      return answer(200);
    };
    const dispatch = compose([step("a"), step("b")], bottom);
    expect((await dispatch(callOf())).status).toBe(200);
    expect(seen).toEqual(["a>", "b>", "bottom", "<b", "<a"]);
  });

  it("lets an interceptor answer without calling what lies below", async () => {
    let called = false;
    const dispatch = compose([async () => answer(446)], async () => {
      called = true;
      return answer(200);
    });
    expect((await dispatch(callOf())).status).toBe(446);
    expect(called).toBe(false);
  });

  it("retries the listed statuses with a fresh attempt number and facts, returning every attempt with the answer", async () => {
    const statuses = [503, 429, 200];
    const attempts: number[] = [];
    const facts = new Set<object>();
    const dispatch = compose([retrying({ baseDelayMs: 0 })], async (call) => {
      attempts.push(call.attempt);
      facts.add(call.facts);
      return answer(statuses.shift() as number);
    });
    const call = callOf({ attempts: 3, onStatusCodes: [429, 503] });
    const outcome: Outcome = await dispatch(call);
    expect(outcome.status).toBe(200);
    expect(attempts).toEqual([0, 1, 2]);
    expect(facts.size).toBe(3);
    expect(outcome.attempts?.map((a) => a.status)).toEqual([503, 429, 200]);
  });

  it("turns a gateway error below into the target's answer, and stops after the allowed attempts", async () => {
    const dispatch = compose([retrying({ baseDelayMs: 0 })], async () => {
      throw new GatewayError("upstream_unreachable", "the upstream could not be reached");
    });
    const call = callOf({ attempts: 1, onStatusCodes: [502] });
    const outcome = await dispatch(call);
    expect(outcome).toMatchObject({ kind: "json", status: 502, error: { code: "upstream_unreachable" } });
    expect(outcome.attempts?.map((a) => a.error?.code)).toEqual(["upstream_unreachable", "upstream_unreachable"]);
  });
});

describe("the upstream response headers passed back", () => {
  it("are those any format names, by exact name or prefix, and Retry-After, whatever the provider's format", () => {
    const passed = passedBackHeaders({
      "retry-after": "2",
      "x-request-id": "req_1",
      "x-ratelimit-remaining-requests": "9",
      "openai-processing-ms": "12",
      "request-id": "req_2",
      "anthropic-ratelimit-tokens-remaining": "100",
      "set-cookie": ["a=1", "b=2"],
      "x-requested-by": "no",
      "content-type": "application/json",
      server: "upstream",
      "anthropic-version": "2023-06-01",
    });
    expect(passed).toEqual({
      "retry-after": "2",
      "x-request-id": "req_1",
      "x-ratelimit-remaining-requests": "9",
      "openai-processing-ms": "12",
      "request-id": "req_2",
      "anthropic-ratelimit-tokens-remaining": "100",
    });
  });

  it("joins a repeated header's values", () => {
    expect(passedBackHeaders({ "x-ratelimit-limit-requests": ["10", "20"] as unknown as string })).toEqual({
      "x-ratelimit-limit-requests": "10, 20",
    });
  });
});
