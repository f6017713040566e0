import { describe, expect, it } from "vitest";
import { runOnText } from "../../../test/support/check-harness.js";
import endsWith from "./endsWith.js";

describe("default.endsWith", () => {
  it("passes when the text ends with the suffix, ignoring trailing whitespace", async () => {
    expect((await runOnText(endsWith, "Bye. Thank you", { suffix: "Thank you" })).verdict).toBe(true);
    expect((await runOnText(endsWith, "Bye. Thank you \n\n", { suffix: "Thank you" })).verdict).toBe(true);
  });

  it("accepts a period after the suffix", async () => {
    expect((await runOnText(endsWith, "Bye. Thank you.", { suffix: "Thank you" })).verdict).toBe(true);
    expect((await runOnText(endsWith, "Bye. Thank you!", { suffix: "Thank you" })).verdict).toBe(false);
  });

  it("fails otherwise and inverts with not", async () => {
    const out = await runOnText(endsWith, "Thank you, bye", { suffix: "Thank you" });
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ suffix: "Thank you", not: false });
    expect((await runOnText(endsWith, "Thank you, bye", { suffix: "Thank you", not: true })).verdict).toBe(true);
    expect((await runOnText(endsWith, "Thank you", { suffix: "Thank you", not: true })).verdict).toBe(false);
  });

  it("folds case on request", async () => {
    expect((await runOnText(endsWith, "THANK YOU", { suffix: "thank you" })).verdict).toBe(false);
    expect((await runOnText(endsWith, "THANK YOU", { suffix: "thank you", caseSensitive: false })).verdict).toBe(true);
  });

  it("evaluates an empty text", async () => {
    expect((await runOnText(endsWith, "", { suffix: "x" })).verdict).toBe(false);
  });

  it("requires a non-empty suffix", async () => {
    await expect(runOnText(endsWith, "x", { suffix: "" })).rejects.toThrow();
  });
});
