import { describe, expect, it } from "vitest";
import { runCheck } from "../../test/check-harness.js";
import startsWith from "./startsWith.js";

describe("default.startsWith", () => {
  it("passes when the text starts with the prefix, ignoring leading whitespace", async () => {
    expect((await runCheck(startsWith, "Answer: 42", { prefix: "Answer:" })).verdict).toBe(true);
    expect((await runCheck(startsWith, " \n\tAnswer: 42", { prefix: "Answer:" })).verdict).toBe(true);
  });

  it("fails otherwise, with an explanation", async () => {
    const out = await runCheck(startsWith, "The answer: 42", { prefix: "Answer:" });
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ prefix: "Answer:", not: false, verdict: false });
    expect(out.data?.explanation).toMatch(/does not start/);
  });

  it("inverts with not", async () => {
    expect((await runCheck(startsWith, "Answer: 42", { prefix: "Answer:", not: true })).verdict).toBe(false);
    expect((await runCheck(startsWith, "Sure! 42", { prefix: "Answer:", not: true })).verdict).toBe(true);
  });

  it("is case-sensitive unless told otherwise", async () => {
    expect((await runCheck(startsWith, "answer: 42", { prefix: "Answer:" })).verdict).toBe(false);
    expect((await runCheck(startsWith, "ANSWER: 42", { prefix: "answer:", caseSensitive: false })).verdict).toBe(true);
  });

  it("compares in NFC", async () => {
    expect((await runCheck(startsWith, "E\u0301te", { prefix: "Été" })).verdict).toBe(false);
    expect((await runCheck(startsWith, "E\u0301te", { prefix: "Ét" })).verdict).toBe(true);
  });

  it("evaluates an empty text (fails; passes with not)", async () => {
    expect((await runCheck(startsWith, "", { prefix: "x" })).verdict).toBe(false);
    expect((await runCheck(startsWith, "", { prefix: "x", not: true })).verdict).toBe(true);
  });

  it("requires a non-empty prefix", async () => {
    await expect(runCheck(startsWith, "x", {})).rejects.toThrow(/prefix/);
    await expect(runCheck(startsWith, "x", { prefix: "" })).rejects.toThrow();
  });
});
