/**
 * The failure contract every partner plugin is tested against: for each way the service can
 * fail (401, 403, 429 with retry-after, 5xx, time-out, a body that is not JSON, an answer that
 * lacks what the verdict needs), the check errors naming the service and what happened, its
 * verdict is false, and no secret of the credentials appears anywhere in the evaluation.
 */
import { expect } from "vitest";
import type { CheckResult } from "../../../core/index.js";
import type { Fault, PartnerFake } from "./fake.js";
import type { PartnerRunResult } from "./evaluate.js";

/** A failure and the words its check error must contain. */
interface FailureCase {
  fault: Fault;
  says: RegExp;
}

/** The failure cases, for a service named `name`; `incomplete` is an answer lacking a needed field. */
export function failureCases(name: string, incomplete: unknown): FailureCase[] {
  const n = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return [
    { fault: { status: 401, message: "bad key" }, says: new RegExp(`^${n} refused the credentials, HTTP 401`) },
    {
      fault: { status: 403, message: "not permitted" },
      says: new RegExp(`^${n} denied access with these credentials, HTTP 403`),
    },
    {
      fault: { status: 429, message: "slow down", headers: { "retry-after": "30" } },
      says: new RegExp(`^${n} is rate limiting this key, HTTP 429.*retry after 30 s$`),
    },
    { fault: { status: 503, message: "overloaded" }, says: new RegExp(`^${n} failed, HTTP 503`) },
    { fault: { status: 400, message: "invalid body" }, says: new RegExp(`^${n} rejected the call, HTTP 400`) },
    { fault: "malformed", says: new RegExp(`^${n} answered HTTP 200 with a body that is not JSON`) },
    { fault: { body: incomplete }, says: new RegExp(`^${n}'s answer has (no|a \\w+ for) \``) },
    { fault: "hang", says: new RegExp(`^${n} did not answer within the time limit of 300 ms$`) },
  ];
}

/** The check errored as `says` describes, failing closed under failOnError. */
export function expectPartnerError(result: CheckResult, says: RegExp): void {
  expect(result.verdict).toBe(false);
  expect(result.fail_on_error).toBe(true);
  expect(result.error, JSON.stringify(result)).toMatchObject({ name: "PartnerError" });
  expect((result.error as { message: string }).message).toMatch(says);
}

/**
 * Runs every failure case against `fake` with `run` (which must set `timeout: 300` and
 * `failOnError: true`), and checks no secret leaks into any evaluation.
 */
export async function expectFailureContract(
  fake: PartnerFake,
  name: string,
  incomplete: unknown,
  secrets: readonly string[],
  run: () => Promise<PartnerRunResult>,
): Promise<void> {
  for (const { fault, says } of failureCases(name, incomplete)) {
    fake.fail(fault);
    const { result, json } = await run();
    if (typeof fault === "object" && "status" in fault) {
      expect(result.error, `HTTP ${fault.status}`).toBeDefined();
    }
    if (fault === "hang" && (result.error as { name?: string } | undefined)?.name === "TimeoutError") {
      // The runner's time limit and the call's are the same: either may report first.
      expect((result.error as { message: string }).message).toMatch(/time limit of 300 ms/);
    } else {
      expectPartnerError(result, says);
    }
    for (const secret of secrets) expect(json).not.toContain(secret);
  }
}
