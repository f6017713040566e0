/**
 * The failure cases every partner adapter is tested against, written once: a refused credential,
 * a rate limit with retry-after, a server error, a stall past the time limit, a body that is not
 * JSON, and an answer without the fields the vendor always sends. Each must end as a PartnerError
 * naming the vendor, never as a verdict, and no error may carry the credentials.
 */
import { expect, it } from "vitest";
import type { CheckOutcome } from "../../../core/plugin-api.js";
import { PartnerError } from "../../../plugins/partner-kit/errors.js";
import type { PartnerFake } from "./fake.js";

/** How a vendor's test runs its check against its fake. */
export interface ErrorCaseOptions {
  /** The service's name as errors show it. */
  service: string;
  fake: () => PartnerFake;
  /** Runs the check once; `credentials` replaces the valid ones when given; `timeout` is the call's limit. */
  run(options: { credentials?: Record<string, unknown>; timeout?: number }): Promise<CheckOutcome>;
  /** Credentials the fake refuses (its endpoint, a wrong key). */
  wrongCredentials(): Record<string, unknown>;
  /** The secrets that must never appear in an error. */
  secrets: string[];
}

async function failure(promise: Promise<CheckOutcome>): Promise<PartnerError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected an error, got the verdict ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(PartnerError);
  return outcome.error as PartnerError;
}

/** Registers the shared failure tests in the surrounding `describe`. */
export function vendorErrorCases(options: ErrorCaseOptions): void {
  const expectError = (error: PartnerError, code: string, secrets: readonly string[]) => {
    expect(error.code).toBe(code);
    expect(error.message).toContain(options.service);
    const shown = JSON.stringify({ ...error, message: error.message });
    for (const secret of secrets) expect(shown).not.toContain(secret);
  };

  it(`reports refused credentials as an error naming ${options.service}, without the credentials`, async () => {
    const wrong = options.wrongCredentials();
    const keys = Object.values(wrong).filter((v): v is string => typeof v === "string" && !/^https?:/.test(v));
    expectError(await failure(options.run({ credentials: wrong })), "partner_unauthorized", [...options.secrets, ...keys]);
  });

  it("reports a rate limit with its retry-after", async () => {
    options.fake().fail({ status: 429, message: "slow down", headers: { "retry-after": "7" } });
    const error = await failure(options.run({}));
    expectError(error, "partner_rate_limited", options.secrets);
    expect(error.retryAfter).toBe(7);
  });

  it("reports a server error", async () => {
    options.fake().fail({ status: 503, message: "overloaded" });
    expectError(await failure(options.run({})), "partner_unavailable", options.secrets);
  });

  it("reports a service that does not answer in time", async () => {
    options.fake().fail("hang");
    expectError(await failure(options.run({ timeout: 200 })), "partner_timeout", options.secrets);
  });

  it("reports a body that is not JSON", async () => {
    options.fake().fail("malformed");
    expectError(await failure(options.run({})), "partner_answer_invalid", options.secrets);
  });

  it("reports an answer without the fields the verdict needs", async () => {
    options.fake().fail({ body: {} });
    expectError(await failure(options.run({})), "partner_answer_invalid", options.secrets);
  });
}
