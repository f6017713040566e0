/**
 * The failure cases every partner adapter is tested against, written once: a wrong credential, a
 * rate limit with retry-after, a server error, a stall past the time limit, a body that is not
 * JSON, and an answer without the fields the vendor always sends. Each must end as an error that
 * names the vendor, never as a verdict, and no error may carry the credential.
 */
import { afterEach, expect, it } from "vitest";
import type { CheckOutcome } from "../../../core/plugin-api.js";
import type { Fault, VendorFake } from "./vendor-fake.js";

/** How a vendor's test runs its check against its fake. */
export interface ErrorCaseOptions {
  /** The vendor's name as errors show it. */
  vendor: string;
  fake: () => VendorFake;
  /** Runs the check once; `credentials` replaces the valid ones when given. */
  run(options: { credentials?: Record<string, unknown>; signal?: AbortSignal }): Promise<CheckOutcome>;
  /** Credentials the fake refuses (its endpoint, a wrong key). */
  wrongCredentials(): Record<string, unknown>;
  /** The secrets that must never appear in an error. */
  secrets: string[];
  /** The vendor's error body for a server error, as its documentation shows it. */
  serverErrorBody?: unknown;
}

async function failure(promise: Promise<CheckOutcome>): Promise<Error> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected an error, got the verdict ${JSON.stringify(outcome.value)}`);
  return outcome.error as Error;
}

/** Registers the shared failure tests in the surrounding `describe`. */
export function vendorErrorCases(options: ErrorCaseOptions): void {
  const expectError = async (error: Error, pattern: RegExp) => {
    expect(error.message).toMatch(new RegExp(options.vendor, "i"));
    expect(error.message).toMatch(pattern);
    const shown = JSON.stringify({ message: error.message, ...error });
    for (const secret of options.secrets) expect(shown).not.toContain(secret);
  };
  const withFault = async (fault: Fault, pattern: RegExp, signal?: AbortSignal) => {
    options.fake().fault(fault);
    await expectError(await failure(options.run({ ...(signal && { signal }) })), pattern);
  };

  afterEach(() => options.fake().fault(undefined));

  it("reports refused credentials as an error naming the vendor, without the credentials", async () => {
    const wrong = options.wrongCredentials();
    const error = await failure(options.run({ credentials: wrong }));
    await expectError(error, /401|403|credential|unauthori[sz]ed/i);
    for (const value of Object.values(wrong)) {
      if (typeof value === "string" && value.length >= 6 && !/^https?:/.test(value)) expect(error.message).not.toContain(value);
    }
  });

  it("reports a rate limit with its retry-after", async () => {
    await withFault(
      { kind: "status", status: 429, body: { error: "rate limited" }, headers: { "retry-after": "7" } },
      /429|rate/i,
    );
  });

  it("reports a server error", async () => {
    await withFault({ kind: "status", status: 503, body: options.serverErrorBody ?? { error: "unavailable" } }, /503/);
  });

  it("reports a vendor that does not answer in time", async () => {
    await withFault({ kind: "stall" }, /time|no answer/i, AbortSignal.timeout(300));
  });

  it("reports a body that is not JSON", async () => {
    await withFault({ kind: "malformed" }, /JSON|malformed/i);
  });

  it("reports an answer without the vendor's decision fields", async () => {
    await withFault({ kind: "empty", body: {} }, /lacks|missing|malformed|status/i);
  });
}
