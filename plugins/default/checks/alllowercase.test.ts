import { describe, expect, it } from "vitest";
import { runOnText } from "../../../test/support/check-harness.js";
import alllowercase from "./alllowercase.js";

describe("default.alllowercase", () => {
  it("has the id the peer gateway uses", () => {
    expect(alllowercase.id).toBe("alllowercase");
  });

  it("passes on lower-case text in any cased script", async () => {
    for (const text of ["hello, world! 42", "été à paris", "προσοχή", "привет", "straße"]) {
      expect((await runOnText(alllowercase, text, {})).verdict, text).toBe(true);
    }
  });

  it("fails on an upper-case letter of any cased script", async () => {
    const out = await runOnText(alllowercase, "hello World", {});
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ offendingLetters: 1, firstOffending: { character: "W", index: 6 } });
    expect((await runOnText(alllowercase, "привеТ", {})).verdict).toBe(false);
    expect((await runOnText(alllowercase, "Ω", {})).verdict).toBe(false);
  });

  it("passes on text with no cased letters, the empty text included", async () => {
    for (const text of ["", "123", "中文", "😀!"]) {
      expect((await runOnText(alllowercase, text, {})).verdict, text).toBe(true);
    }
  });

  it("inverts with not", async () => {
    expect((await runOnText(alllowercase, "hello", { not: true })).verdict).toBe(false);
    expect((await runOnText(alllowercase, "Hello", { not: true })).verdict).toBe(true);
  });
});
