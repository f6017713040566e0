import { afterEach, describe, expect, it } from "vitest";
import { useRegexEngine } from "../../../index.js";
import { runOnText } from "../../../test/support/check-harness.js";
import regexReplace from "./regexReplace.js";

const chat = (content: unknown) => ({ messages: [{ role: "user", content }] });

describe("default.regexReplace", () => {
  it("replaces every match of a plain rule and passes", async () => {
    const out = await runOnText(regexReplace, "call 555-1234 or 555-9876", { rule: "\\d{3}-\\d{4}" });
    expect(out.verdict).toBe(true);
    expect(out.data).toMatchObject({ matchCount: 2, failOnDetection: false, textExcerpt: "call [REDACTED] or [REDACTED]" });
    expect(out.transformedRequest).toEqual(chat("call [REDACTED] or [REDACTED]"));
  });

  it("uses the flags of a /pattern/flags rule: without g only the first match is replaced", async () => {
    const first = await runOnText(regexReplace, "a A a", { rule: "/a/i", redactText: "x" });
    expect(first.transformedRequest).toEqual(chat("x A a"));
    expect(first.data?.matchCount).toBe(1);
    const all = await runOnText(regexReplace, "a A a", { rule: "/a/gi", redactText: "x" });
    expect(all.transformedRequest).toEqual(chat("x x x"));
  });

  it("fails on detection when asked, and still replaces", async () => {
    const out = await runOnText(regexReplace, "secret: hunter2", { rule: "hunter\\d", failOnDetection: true });
    expect(out.verdict).toBe(false);
    expect(out.transformedRequest).toEqual(chat("secret: [REDACTED]"));
    expect(out.data?.explanation).toMatch(/failOnDetection/);
  });

  it("passes and changes nothing when the pattern does not match", async () => {
    const out = await runOnText(regexReplace, "nothing here", { rule: "\\d+", failOnDetection: true });
    expect(out.verdict).toBe(true);
    expect(out.transformedRequest).toBeUndefined();
    expect(out.data?.matchCount).toBe(0);
  });

  it("may replace with an empty string, and supports $& and groups", async () => {
    const gone = await runOnText(regexReplace, "abc", { rule: "abc", redactText: "" });
    expect(gone.transformedRequest).toEqual(chat(""));
    const groups = await runOnText(regexReplace, "john@example.com", {
      rule: "(\\w+)@(?P<d>[\\w.]+)",
      redactText: "$1 at $<d> ($$)",
    });
    expect(groups.transformedRequest).toEqual(chat("john at example.com ($)"));
  });

  it("handles patterns that match the empty string without looping", async () => {
    const out = await runOnText(regexReplace, "a😀b", { rule: "x*", redactText: "-" });
    expect(out.transformedRequest).toEqual(chat("-a-😀-b-"));
    expect(out.data?.matchCount).toBe(4);
  });

  it("evaluates an empty text", async () => {
    const out = await runOnText(regexReplace, "", { rule: "\\d" });
    expect(out.verdict).toBe(true);
    expect(out.data?.matchCount).toBe(0);
  });

  it("keeps the shape of content parts: an image part stays, each text part is replaced on its own", async () => {
    const request = chat([
      { type: "image_url", image_url: { url: "https://x/y.png" } },
      { type: "text", text: "id 42" },
      { type: "text", text: "and 7" },
    ]);
    const out = await runOnText(regexReplace, undefined, { rule: "\\d+", redactText: "#" }, { request });
    expect(out.transformedRequest).toEqual(
      chat([
        { type: "image_url", image_url: { url: "https://x/y.png" } },
        { type: "text", text: "id #" },
        { type: "text", text: "and #" },
      ]),
    );
    expect(request.messages[0]?.content).toHaveLength(3);
    expect((request.messages[0]!.content as Array<{ text?: string }>)[1]!.text).toBe("id 42");
  });

  it("transforms the response on the output side, keeping Anthropic blocks", async () => {
    const response = { role: "assistant", content: [{ type: "text", text: "key=abc123" }] };
    const out = await runOnText(
      regexReplace,
      undefined,
      { rule: "abc\\d+" },
      { side: "output", requestType: "messages", response },
    );
    expect(out.transformedResponse).toEqual({ role: "assistant", content: [{ type: "text", text: "key=[REDACTED]" }] });
  });

  it("is a check error (SyntaxError) for an invalid or non-RE2 pattern", async () => {
    await expect(runOnText(regexReplace, "x", { rule: "(" })).rejects.toThrow(SyntaxError);
    await expect(runOnText(regexReplace, "x", { rule: "(?=x)" })).rejects.toThrow(SyntaxError);
  });

  it("refuses $` and $' in redactText when the guardrail is loaded", async () => {
    await expect(runOnText(regexReplace, "x", { rule: "x", redactText: "$'" })).rejects.toThrow(/redactText/);
    await expect(runOnText(regexReplace, "x", { rule: "x", redactText: "$`" })).rejects.toThrow(/redactText/);
    const literal = await runOnText(regexReplace, "x", { rule: "x", redactText: "$$'" });
    expect(literal.transformedRequest).toEqual(chat("$'"));
  });

  it("expands $n as JavaScript does: two digits when that group exists, literal when no group", async () => {
    const twelve = `${"(a)".repeat(11)}(b)`;
    const text = `${"a".repeat(11)}b`;
    expect((await runOnText(regexReplace, text, { rule: twelve, redactText: "[$12|$1|$0|$13]" })).transformedRequest).toEqual(
      chat("[b|a|$0|a3]"),
    );
    expect((await runOnText(regexReplace, "ab", { rule: "(a)", redactText: "$9 $<x> $" })).transformedRequest).toEqual(
      chat("$9 $<x> $b"),
    );
  });

  describe("on the re2-wasm build", () => {
    afterEach(() => useRegexEngine("re2"));

    it("replaces, counts and survives patterns that match the empty string", async () => {
      useRegexEngine("re2-wasm");
      const out = await runOnText(regexReplace, "call 555-1234 or 555-9876", {
        rule: "(?P<area>\\d{3})-\\d{4}",
        redactText: "$<area>-XXXX",
      });
      expect(out.transformedRequest).toEqual(chat("call 555-XXXX or 555-XXXX"));
      expect(out.data?.matchCount).toBe(2);
      const empty = await runOnText(regexReplace, "ab", { rule: "x*", redactText: "-" });
      expect(empty.transformedRequest).toEqual(chat("-a-b-"));
    });
  });

  it("requires a rule", async () => {
    await expect(runOnText(regexReplace, "x", {})).rejects.toThrow(/rule/);
  });
});
