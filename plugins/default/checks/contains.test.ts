import { describe, expect, it } from "vitest";
import { runOnText } from "../../../test/support/check-harness.js";
import contains from "./contains.js";

describe("default.contains", () => {
  it("any: passes when one word is found, reporting found and missing words", async () => {
    const out = await runOnText(contains, "please cancel it", { words: ["refund", "cancel"] });
    expect(out.verdict).toBe(true);
    expect(out.data).toMatchObject({ foundWords: ["cancel"], missingWords: ["refund"], operator: "any" });
  });

  it("any: fails when none is found", async () => {
    const out = await runOnText(contains, "hello", { words: ["refund", "cancel"], operator: "any" });
    expect(out.verdict).toBe(false);
  });

  it("all: needs every word", async () => {
    expect((await runOnText(contains, "refund and cancel", { words: ["refund", "cancel"], operator: "all" })).verdict).toBe(true);
    const out = await runOnText(contains, "refund only", { words: ["refund", "cancel"], operator: "all" });
    expect(out.verdict).toBe(false);
    expect(out.data?.missingWords).toEqual(["cancel"]);
  });

  it("none: fails when a word is present", async () => {
    expect((await runOnText(contains, "all good", { words: ["bad"], operator: "none" })).verdict).toBe(true);
    expect((await runOnText(contains, "this is bad", { words: ["bad"], operator: "none" })).verdict).toBe(false);
  });

  it("is case-sensitive by default and folds case on request (ß matches SS)", async () => {
    expect((await runOnText(contains, "CANCEL", { words: ["cancel"] })).verdict).toBe(false);
    expect((await runOnText(contains, "CANCEL", { words: ["cancel"], caseSensitive: false })).verdict).toBe(true);
    expect((await runOnText(contains, "STRASSE", { words: ["straße"], caseSensitive: false })).verdict).toBe(true);
  });

  it("matches substrings by default and whole words on request", async () => {
    expect((await runOnText(contains, "concatenate", { words: ["cat"] })).verdict).toBe(true);
    expect((await runOnText(contains, "concatenate", { words: ["cat"], wholeWord: true })).verdict).toBe(false);
    expect((await runOnText(contains, "a cat, sat", { words: ["cat"], wholeWord: true })).verdict).toBe(true);
    expect((await runOnText(contains, "cats cat", { words: ["cat"], wholeWord: true })).verdict).toBe(true);
    expect((await runOnText(contains, "see #tag here", { words: ["#tag"], wholeWord: true })).verdict).toBe(true);
    expect((await runOnText(contains, "café", { words: ["caf"], wholeWord: true })).verdict).toBe(false);
  });

  it("matches phrases in scripts written without spaces even with wholeWord", async () => {
    expect((await runOnText(contains, "我想退款谢谢", { words: ["退款"], wholeWord: true })).verdict).toBe(true);
  });

  it("compares in NFC: a decomposed accent matches a composed one", async () => {
    expect((await runOnText(contains, "cafe\u0301", { words: ["café"] })).verdict).toBe(true);
  });

  it("evaluates an empty text: any fails, none passes", async () => {
    expect((await runOnText(contains, "", { words: ["x"] })).verdict).toBe(false);
    expect((await runOnText(contains, "", { words: ["x"], operator: "none" })).verdict).toBe(true);
  });

  it("rejects an empty list, an empty word and an unknown operator", async () => {
    await expect(runOnText(contains, "x", { words: [] })).rejects.toThrow();
    await expect(runOnText(contains, "x", { words: [""] })).rejects.toThrow();
    await expect(runOnText(contains, "x", { words: ["x"], operator: "some" })).rejects.toThrow();
  });
});
