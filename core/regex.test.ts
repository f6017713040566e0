import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  allMatches,
  compileRegex,
  firstMatch,
  parseRegexRule,
  type RegexEngineName,
  regexEngine,
  replaceMatches,
  useRegexEngine,
} from "./regex.js";

const native = regexEngine();
afterAll(() => useRegexEngine(native));

describe.each<RegexEngineName>(["re2", "re2-wasm"])("RE2 through %s", (name) => {
  it("matches, with groups and indexes in UTF-16 units", () => {
    useRegexEngine(name);
    expect(regexEngine()).toBe(name);
    const match = firstMatch(compileRegex("(?P<word>b+)"), "a😀bb");
    expect(match?.[0]).toBe("bb");
    expect(match?.index).toBe(3);
    expect(match?.groups).toEqual({ word: "bb" });
  });

  it("replaces every match with the g flag and the first without", () => {
    useRegexEngine(name);
    expect(replaceMatches(compileRegex("\\d", "g"), "a1b2", "#")).toBe("a#b#");
    expect(replaceMatches(compileRegex("\\d"), "a1b2", "#")).toBe("a#b2");
  });

  it("throws SyntaxError with RE2's message on an invalid pattern, and on backreferences", () => {
    useRegexEngine(name);
    expect(() => compileRegex("(")).toThrow(SyntaxError);
    expect(() => compileRegex("(")).toThrow(/Invalid regular expression: .*missing \)/);
    expect(() => compileRegex("(a)\\1")).toThrow(SyntaxError);
    expect(() => compileRegex("a", "x")).toThrow(/flags/);
  });

  it("runs ^(a+)+$ on 50,000 a's and a b in linear time", () => {
    useRegexEngine(name);
    const started = performance.now();
    expect(compileRegex("^(a+)+$").test(`${"a".repeat(50_000)}b`)).toBe(false);
    // A backtracking engine takes longer than the age of the universe here; RE2 takes milliseconds.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("gives the same match from a cached pattern after a global use", () => {
    useRegexEngine(name);
    const global = compileRegex("x", "g");
    expect(firstMatch(global, "axbx")?.index).toBe(1);
    expect(firstMatch(global, "axbx")?.index).toBe(1);
  });
});

describe("the pattern cache", () => {
  it("serves a hit without validating flags again, keeping flagged and plain patterns apart", () => {
    const plain = compileRegex("a\u0000b");
    const flagged = compileRegex("b", "i");
    const test = vi.spyOn(RegExp.prototype, "test");
    try {
      // Checks compile their pattern on every run: a hit must cost a lookup, not a flags check.
      expect(compileRegex("a\u0000b")).toBe(plain);
      expect(compileRegex("b", "i")).toBe(flagged);
      expect(test).not.toHaveBeenCalled();
    } finally {
      test.mockRestore();
    }
    // A plain pattern that reads like a flagged key is its own entry.
    expect(compileRegex("i\u0000b")).not.toBe(flagged);
    expect(compileRegex("i\u0000b").flags).not.toContain("i");
    expect(() => compileRegex("b", "q")).toThrow(SyntaxError);
  });
});

describe("parseRegexRule", () => {
  it("reads /pattern/flags and leaves plain patterns alone", () => {
    expect(parseRegexRule("/secret/gi")).toEqual({ pattern: "secret", flags: "gi" });
    expect(parseRegexRule("/a/b/")).toEqual({ pattern: "a/b", flags: "" });
    expect(parseRegexRule("\\d+")).toEqual({ pattern: "\\d+", flags: "" });
    expect(parseRegexRule("/api/v1")).toEqual({ pattern: "/api/v1", flags: "" });
    expect(parseRegexRule("/")).toEqual({ pattern: "/", flags: "" });
  });
});

describe.each<RegexEngineName>(["re2", "re2-wasm"])("offsets in UTF-16 units through %s", (name) => {
  it("keeps astral characters whole when replacing and reports UTF-16 indexes", () => {
    useRegexEngine(name);
    expect(replaceMatches(compileRegex("b", "g"), "a😀bb😀b", "#")).toBe("a😀##😀#");
    expect(replaceMatches(compileRegex("(?P<x>b+)", "g"), "😀bb", "[$<x>|$1|$&|$$]")).toBe("😀[bb|bb|bb|$]");
    expect(replaceMatches(compileRegex("x*", "g"), "😀", "-")).toBe("-😀-");
    const global = compileRegex("b+", "g");
    global.lastIndex = 0;
    const text = "a😀bb😀bbb";
    expect(global.exec(text)?.index).toBe(3);
    expect(global.lastIndex).toBe(5);
    expect(global.exec(text)?.index).toBe(7);
    global.lastIndex = 0;
  });

  it("finds every match as JavaScript does, astral characters in the text or in the pattern", () => {
    useRegexEngine(name);
    const texts = ["😀ab😀ab😀ab", "a😀😀b😀😀b", `${"x".repeat(10)}😀b`, "é😀b\u0301b😀", "plain bbb text"];
    for (const text of texts) {
      for (const pattern of ["b", "b+", "😀", "😀+", "x*"]) {
        const ours = [...allMatches(compileRegex(pattern), text)].map((m) => `${m.index}:${m[0]}`);
        const theirs = [...text.matchAll(new RegExp(pattern, "gu"))].map((m) => `${m.index}:${m[0]}`);
        expect(ours, `${pattern} in ${text}`).toEqual(theirs);
      }
    }
  });
});

describe("choosing the RE2 build", () => {
  it("falls back to re2-wasm when the native binding cannot load", () => {
    const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
    const script = `import("${pathToFileURL(path.join(root, "dist/core/regex.js")).href}").then((m) => {
      console.log(m.regexEngine(), m.compileRegex("^(a+)+$").test("a".repeat(50000) + "b"));
    });`;
    const run = spawnSync(process.execPath, ["--require", path.join(root, "test/fixtures/no-native-re2.cjs"), "-e", script], {
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("re2-wasm false");
  });
});

describe.each<RegexEngineName>(["re2", "re2-wasm"])("empty matches through %s", (name) => {
  it("replaces patterns that can match the empty string, and ends", () => {
    useRegexEngine(name);
    expect(replaceMatches(compileRegex("x*", "g"), "abc", "-")).toBe("-a-b-c-");
    expect(replaceMatches(compileRegex("\\b", "g"), "ab cd", "|")).toBe("|ab| |cd|");
  });
});
