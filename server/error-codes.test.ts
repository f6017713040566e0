/**
 * Each error class answers with the status of its code's line in error-codes.ts: one row per code
 * of each table. The e2e tests (test/gateway/errors.test.ts, test/fail-closed/, test/management/)
 * show the same statuses on the wire.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { CONFIG_ERRORS, ConfigError, type ConfigErrorCode } from "../core/index.js";
import { adminError } from "./admin/plugin.js";
import {
  CONFIG_ERROR_STATUS,
  type CodeWithStatus,
  type ErrorCodeInfo,
  GATEWAY_ERRORS,
  type GatewayStatusCode,
  MANAGEMENT_ERRORS,
  type ManagementStatusCode,
  STORE_ERRORS,
  type StoreErrorCode,
} from "./error-codes.js";
import { describeError } from "./describe-error.js";
import { deniedBody, GatewayError } from "./errors.js";
import { LimitError } from "./limits/enforcer.js";
import { GateRefusal } from "./management/store-gate.js";
import { conflict, forbidden, invalid, ManagementError, notFound, StoreError } from "./store/errors.js";

/** The rows of a table that have a status, as [code, status]. */
function withStatus(table: Readonly<Record<string, ErrorCodeInfo>>): Array<[string, number]> {
  return Object.entries(table).flatMap(([code, info]): Array<[string, number]> =>
    info.status === undefined ? [] : [[code, info.status]],
  );
}

const CONFIG_CODES = Object.keys(CONFIG_ERRORS) as ConfigErrorCode[];

describe("GATEWAY_ERRORS: every code answers with its line's status", () => {
  it("has a status on every line (no /v1 code varies by call)", () => {
    expect(withStatus(GATEWAY_ERRORS).map(([code]) => code)).toEqual(Object.keys(GATEWAY_ERRORS));
  });

  it.each(withStatus(GATEWAY_ERRORS))("%s → %i through GatewayError, GateRefusal and LimitError", (code, status) => {
    const c = code as GatewayStatusCode;
    const error = new GatewayError(c, "what was wrong, and where");
    expect([error.status, error.code, error.message]).toEqual([status, code, "what was wrong, and where"]);
    expect(describeError(error, 1024)).toEqual({ status, code, message: "what was wrong, and where" });
    const policy = new GateRefusal(c, "refused", { "retry-after": "7" });
    expect([policy.status, policy.code, policy.headers]).toEqual([status, code, { "retry-after": "7" }]);
    expect(policy).toBeInstanceOf(GatewayError);
    const limit = new LimitError(c, "limited");
    expect([limit.status, limit.code, limit.headers]).toEqual([status, code, {}]);
    expect(adminError(limit)).toEqual({ status, code, message: "limited" });
  });

  it.each(CONFIG_CODES)("config code %s → 400 through GatewayError, the table's where it also lists the code", (code) => {
    const own = (GATEWAY_ERRORS as Record<string, ErrorCodeInfo>)[code]?.status;
    expect(new GatewayError(code, "m").status).toBe(own ?? CONFIG_ERROR_STATUS);
    expect(describeError(new ConfigError("guardrails[0]", "is wrong", code), 1024).status).toBe(CONFIG_ERROR_STATUS);
  });

  it("keeps a wrapped error's cause", () => {
    const cause = new Error("first");
    expect(new GatewayError("upstream_unreachable", "m", { cause }).cause).toBe(cause);
  });

  it("gives the 446 codes the envelope type of their line, in both formats", () => {
    expect([GATEWAY_ERRORS.hooks_failed.type, GATEWAY_ERRORS.stream_redaction_conflict.type]).toEqual([
      "hooks_failed",
      "hooks_failed",
    ]);
    const hooks = { before_request_hooks: [], after_request_hooks: [] };
    expect(deniedBody("openai", "input", hooks)).toMatchObject({ error: { type: "hooks_failed", code: null } });
    expect(deniedBody("anthropic", "output", hooks)).toMatchObject({ type: "error", error: { type: "hooks_failed" } });
  });
});

describe("MANAGEMENT_ERRORS: every code answers with its line's status", () => {
  it("has a status on every line", () => {
    expect(withStatus(MANAGEMENT_ERRORS).map(([code]) => code)).toEqual(Object.keys(MANAGEMENT_ERRORS));
  });

  it.each(withStatus(MANAGEMENT_ERRORS))("%s → %i through ManagementError and the admin API", (code, status) => {
    const error = new ManagementError(code as ManagementStatusCode, "what was wrong, and where");
    expect([error.status, error.code]).toEqual([status, code]);
    expect(adminError(error)).toEqual({ status, code, message: "what was wrong, and where" });
  });

  it.each(CONFIG_CODES)("config code %s → 400 through ManagementError and the admin API", (code) => {
    expect(new ManagementError(code, "m").status).toBe(CONFIG_ERROR_STATUS);
    expect(invalid("m", code).status).toBe(CONFIG_ERROR_STATUS);
    expect(adminError(new ConfigError("configs[0]", "is wrong", code)).status).toBe(CONFIG_ERROR_STATUS);
  });

  it("answers each helper with the status its name says, for every code of that status", () => {
    expect([notFound("provider x").status, notFound("provider x").code]).toEqual([404, "not_found"]);
    const helpers = { 409: conflict, 403: forbidden, 400: invalid } as const;
    for (const [status, helper] of Object.entries(helpers)) {
      expect(helper("m").status).toBe(Number(status));
      for (const [code] of withStatus(MANAGEMENT_ERRORS).filter(([, s]) => s === Number(status))) {
        expect([code, (helper as (m: string, c: string) => ManagementError)("m", code).status]).toEqual([code, Number(status)]);
      }
    }
  });
});

describe("STORE_ERRORS: only a code with a status is an answer of its own", () => {
  it.each(withStatus(STORE_ERRORS))("%s → %i on the gateway and the admin API", (code, status) => {
    const error = new StoreError(code as StoreErrorCode, "cannot connect to 127.0.0.1:5432");
    expect(describeError(error, 1024)).toMatchObject({ status, code });
    expect(adminError(error)).toMatchObject({ status, code });
    // The answer names the store, never its address.
    expect(describeError(error, 1024).message).not.toContain("127.0.0.1");
  });

  const statusless = Object.entries(STORE_ERRORS)
    .filter(([, info]) => (info as ErrorCodeInfo).status === undefined)
    .map(([code]) => code as StoreErrorCode);
  it.each(statusless)("%s is a bug when a request meets it: 500, its message kept out of the answer", (code) => {
    const refusal = describeError(new StoreError(code, "secret detail"), 1024);
    expect([refusal.status, refusal.code, refusal.message.includes("secret")]).toEqual([500, "internal_error", false]);
  });
});

describe("the types", () => {
  it("let a class take only codes whose line has a status, and a helper only codes of its status", () => {
    expectTypeOf<CodeWithStatus<typeof STORE_ERRORS>>().toEqualTypeOf<"store_unavailable" | "store_busy">();
    expectTypeOf<CodeWithStatus<typeof MANAGEMENT_ERRORS, 409>>().toEqualTypeOf<
      "conflict" | "version_conflict" | "guardrail_in_use" | "breaks_config" | "no_config_file" | "file_managed"
    >();
    expectTypeOf<GatewayStatusCode>().toEqualTypeOf<keyof typeof GATEWAY_ERRORS>();
    // Never called: each line is here for the compiler to refuse.
    const refused = [
      // @ts-expect-error a code of another status does not fit the helper named for 409
      () => conflict("m", "not_found"),
      // @ts-expect-error a store code, which has no status, is no management answer
      () => new ManagementError("store_open_failed", "m"),
      // @ts-expect-error the status is the table's, not the thrower's to give
      () => new GatewayError(400, "invalid_request", "m"),
      // @ts-expect-error nor a limit refusal's
      () => new LimitError(429, "rate_limit_exceeded", "m"),
    ];
    expect(refused).toHaveLength(4);
  });
});
