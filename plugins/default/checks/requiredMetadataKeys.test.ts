import { describe, expect, it } from "vitest";
import { prepareCheck, runCheck } from "../../../test/support/check-harness.js";
import requiredMetadataKeys from "./requiredMetadataKeys.js";

const metadata = { user: "u1", team: "" };

describe("requiredMetadataKeys", () => {
  it("all (the default): every key must be present; an empty value counts", async () => {
    const pass = await runCheck(requiredMetadataKeys, { metadataKeys: ["user", "team"] }, { metadata });
    expect(pass.verdict).toBe(true);
    expect(pass.data).toMatchObject({ foundKeys: ["user", "team"], missingKeys: [], operator: "all" });
    const fail = await runCheck(requiredMetadataKeys, { metadataKeys: ["user", "env"] }, { metadata });
    expect(fail.verdict).toBe(false);
    expect(fail.data).toMatchObject({ foundKeys: ["user"], missingKeys: ["env"] });
  });

  it("any: at least one key", async () => {
    expect((await runCheck(requiredMetadataKeys, { metadataKeys: ["env", "user"], operator: "any" }, { metadata })).verdict).toBe(
      true,
    );
    expect((await runCheck(requiredMetadataKeys, { metadataKeys: ["env"], operator: "any" }, { metadata })).verdict).toBe(false);
  });

  it("none: not one key", async () => {
    expect((await runCheck(requiredMetadataKeys, { metadataKeys: ["debug"], operator: "none" }, { metadata })).verdict).toBe(
      true,
    );
    expect((await runCheck(requiredMetadataKeys, { metadataKeys: ["user"], operator: "none" }, { metadata })).verdict).toBe(
      false,
    );
  });

  it("does not take inherited names for keys, and handles empty metadata", async () => {
    expect((await runCheck(requiredMetadataKeys, { metadataKeys: ["toString"] }, { metadata: {} })).verdict).toBe(false);
  });

  it("rejects empty key lists, unknown operators and the output side", () => {
    expect(() => prepareCheck(requiredMetadataKeys, { metadataKeys: [] })).toThrow(/metadataKeys/);
    expect(() => prepareCheck(requiredMetadataKeys, { metadataKeys: ["a"], operator: "some" })).toThrow(/must be one of/);
    expect(() => prepareCheck(requiredMetadataKeys, { metadataKeys: ["a"] }, "output")).toThrow(/output side/);
  });
});
