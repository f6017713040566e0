import { describe, expect, it } from "vitest";
import { runOnText } from "../../../test/support/check-harness.js";
import startsWith from "./startsWith.js";

describe("default.startsWith", () => {
  it("passes when the text starts with the prefix, ignoring leading whitespace", async () => {
    expect((await runOnText(startsWith, "Answer: 42", { prefix: "Answer:" })).verdict).toBe(true);
    expect((await runOnText(startsWith, " \n\tAnswer: 42", { prefix: "Answer:" })).verdict).toBe(true);
  });

  it("fails otherwise, with an explanation", async () => {
    const out = await runOnText(startsWith, "The answer: 42", { prefix: "Answer:" });
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ prefix: "Answer:", not: false, verdict: false });
    expect(out.data?.explanation).toMatch(/does not start/);
  });

  it("inverts with not", async () => {
    expect((await runOnText(startsWith, "Answer: 42", { prefix: "Answer:", not: true })).verdict).toBe(false);
    expect((await runOnText(startsWith, "Sure! 42", { prefix: "Answer:", not: true })).verdict).toBe(true);
  });

  it("is case-sensitive unless told otherwise", async () => {
    expect((await runOnText(startsWith, "answer: 42", { prefix: "Answer:" })).verdict).toBe(false);
    expect((await runOnText(startsWith, "ANSWER: 42", { prefix: "answer:", caseSensitive: false })).verdict).toBe(true);
  });

  it("compares in NFC", async () => {
    expect((await runOnText(startsWith, "E\u0301te", { prefix: "Été" })).verdict).toBe(false);
    expect((await runOnText(startsWith, "E\u0301te", { prefix: "Ét" })).verdict).toBe(true);
  });

  it("evaluates an empty text (fails; passes with not)", async () => {
    expect((await runOnText(startsWith, "", { prefix: "x" })).verdict).toBe(false);
    expect((await runOnText(startsWith, "", { prefix: "x", not: true })).verdict).toBe(true);
  });

  it("requires a non-empty prefix", async () => {
    await expect(runOnText(startsWith, "x", {})).rejects.toThrow(/prefix/);
    await expect(runOnText(startsWith, "x", { prefix: "" })).rejects.toThrow();
  });
});
