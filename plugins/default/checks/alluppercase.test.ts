import { describe, expect, it } from "vitest";
import { runOnText } from "../../../test/support/check-harness.js";
import alluppercase from "./alluppercase.js";

describe("default.alluppercase", () => {
  it("has the id the peer gateway uses", () => {
    expect(alluppercase.id).toBe("alluppercase");
  });

  it("passes on upper-case text in any cased script, digits and punctuation aside", async () => {
    for (const text of ["HELLO, WORLD! 42", "ÉTÉ À PARIS", "ΠΡΟΣΟΧΗ", "ПРИВЕТ", "ԲԱՐԵՎ"]) {
      expect((await runOnText(alluppercase, text, {})).verdict, text).toBe(true);
    }
  });

  it("fails on a lower-case letter of any cased script, reporting the first", async () => {
    const out = await runOnText(alluppercase, "HELLo", {});
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ offendingLetters: 1, firstOffending: { character: "o", index: 4 } });
    expect((await runOnText(alluppercase, "ΠΡΟΣΟΧΗ ω", {})).verdict).toBe(false);
    expect((await runOnText(alluppercase, "ПРИВЕТ ж", {})).verdict).toBe(false);
    expect((await runOnText(alluppercase, "É𐐨", {})).verdict).toBe(false);
  });

  it("counts a title-case letter against it", async () => {
    expect((await runOnText(alluppercase, "ǅ", {})).verdict).toBe(false);
  });

  it("passes on text with no cased letters, the empty text included", async () => {
    for (const text of ["", "12345 !?", "你好世界", "مرحبا", "😀"]) {
      expect((await runOnText(alluppercase, text, {})).verdict, text).toBe(true);
    }
  });

  it("inverts with not", async () => {
    expect((await runOnText(alluppercase, "HELLO", { not: true })).verdict).toBe(false);
    expect((await runOnText(alluppercase, "Hello", { not: true })).verdict).toBe(true);
  });

  it("rejects unknown parameters", async () => {
    await expect(runOnText(alluppercase, "X", { strict: true })).rejects.toThrow();
  });
});
