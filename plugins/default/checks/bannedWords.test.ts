import { describe, expect, it } from "vitest";
import { prepareParameters, runOnText } from "../../../test/support/check-harness.js";
import bannedWords, { foldForMatching } from "./bannedWords.js";

const banned = async (text: string, parameters: Record<string, unknown>) =>
  (await runOnText(bannedWords, text, parameters)).verdict === false;

describe("default.bannedWords", () => {
  it("passes clean text and fails on a banned word, naming the entries matched", async () => {
    expect(await banned("all fine here", { words: ["bad"] })).toBe(false);
    const out = await runOnText(bannedWords, "this is BAD and Worse", { words: ["bad", "worse", "absent"] });
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ matchedWords: ["bad", "worse"], wholeWord: true, leetspeak: false });
    expect(out.data?.explanation).toMatch(/bad, worse/);
  });

  it("matches whole words by default and substrings on request", async () => {
    expect(await banned("a classic class", { words: ["ass"] })).toBe(false);
    expect(await banned("a classic class", { words: ["ass"], wholeWord: false })).toBe(true);
    expect(await banned("bad.", { words: ["bad"] })).toBe(true);
  });

  it("sees through Cyrillic and Greek look-alikes", async () => {
    expect(await banned("this is b\u0430d", { words: ["bad"] })).toBe(true);
    expect(await banned("p\u0430ssw\u043Erd", { words: ["password"] })).toBe(true);
    expect(await banned("\u03BFpen", { words: ["open"] })).toBe(true);
  });

  it("sees through full-width and mathematical letters, and ligatures", async () => {
    expect(await banned("ｂａｄ", { words: ["bad"] })).toBe(true);
    expect(await banned("𝐛𝐚𝐝", { words: ["bad"] })).toBe(true);
    expect(await banned("\uFB01ne", { words: ["fine"] })).toBe(true);
  });

  it("sees through invisible characters, accents, stacked marks and case", async () => {
    expect(await banned("b\u200Ba\u00ADd", { words: ["bad"] })).toBe(true);
    expect(await banned("bád", { words: ["bad"] })).toBe(true);
    expect(await banned("b\u0337a\u0337d\u0337", { words: ["bad"] })).toBe(true);
    expect(await banned("STRASSE", { words: ["straße"] })).toBe(true);
  });

  it("matches a phrase across line breaks and repeated spaces", async () => {
    expect(await banned("top\n  secret", { words: ["top secret"] })).toBe(true);
  });

  it("folds leetspeak only when asked", async () => {
    expect(await banned("f0rb1dd3n", { words: ["forbidden"] })).toBe(false);
    expect(await banned("f0rb1dd3n", { words: ["forbidden"], leetspeak: true })).toBe(true);
    expect(await banned("$h1t", { words: ["shit"], leetspeak: true })).toBe(true);
    expect(await banned("k1ll", { words: ["kill"], leetspeak: true })).toBe(true);
    expect(await banned("he11o", { words: ["hello"] })).toBe(true);
  });

  it("folds entries the same way as the text", () => {
    expect(foldForMatching("ＰＡＳＳ\u200BWORD", false)).toBe("password");
    expect(foldForMatching("p@$$", true)).toBe("pass");
  });

  it("matches words of scripts without spaces anywhere", async () => {
    expect(await banned("这是禁止的内容", { words: ["禁止"] })).toBe(true);
  });

  it("evaluates an empty text", async () => {
    expect((await runOnText(bannedWords, "", { words: ["x"] })).verdict).toBe(true);
  });

  it("rejects entries with nothing to match, and empty lists", () => {
    expect(() => prepareParameters(bannedWords, { words: ["ok", "\u200B"] })).toThrow(/words: entry 1/);
    expect(() => prepareParameters(bannedWords, { words: [] })).toThrow();
  });
});
