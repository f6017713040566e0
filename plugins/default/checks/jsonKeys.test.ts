import { describe, expect, it } from "vitest";
import { runOnText } from "../../../test/support/check-harness.js";
import jsonKeys from "./jsonKeys.js";

describe("default.jsonKeys", () => {
  it("any (the default): passes when the object has one of the keys", async () => {
    const out = await runOnText(jsonKeys, '{"answer": 42}', { keys: ["answer", "sources"] });
    expect(out.verdict).toBe(true);
    expect(out.data).toMatchObject({
      presentKeys: ["answer"],
      missingKeys: ["sources"],
      operator: "any",
      matchedJson: { answer: 42 },
    });
  });

  it("all: needs every key", async () => {
    expect((await runOnText(jsonKeys, '{"a": 1, "b": null}', { keys: ["a", "b"], operator: "all" })).verdict).toBe(true);
    const out = await runOnText(jsonKeys, '{"a": 1}', { keys: ["a", "b"], operator: "all" });
    expect(out.verdict).toBe(false);
    expect(out.data?.missingKeys).toEqual(["b"]);
    expect(out.data?.explanation).toMatch(/lacks b/);
  });

  it("none: passes when the object has none of the keys", async () => {
    expect((await runOnText(jsonKeys, '{"a": 1}', { keys: ["password"], operator: "none" })).verdict).toBe(true);
    expect((await runOnText(jsonKeys, '{"password": "x"}', { keys: ["password"], operator: "none" })).verdict).toBe(false);
  });

  it("looks at top-level keys only", async () => {
    expect((await runOnText(jsonKeys, '{"outer": {"a": 1}}', { keys: ["a"] })).verdict).toBe(false);
  });

  it("takes the first object that satisfies the operator, from fenced blocks first", async () => {
    const text = '{"x": 1}\n```json\n{"y": 2}\n```\n{"a": 3}';
    const out = await runOnText(jsonKeys, text, { keys: ["a"] });
    expect(out.verdict).toBe(true);
    expect(out.data?.matchedJson).toEqual({ a: 3 });
    const none = await runOnText(jsonKeys, text, { keys: ["z"] });
    expect(none.data?.matchedJson).toEqual({ y: 2 });
    expect(none.data?.source).toBe("fenced");
  });

  it("skips arrays and finds objects nested in prose", async () => {
    const out = await runOnText(jsonKeys, '[{"a": 1}] and then {note: {"a": 2}}', { keys: ["a"] });
    expect(out.verdict).toBe(true);
    expect(out.data?.matchedJson).toEqual({ a: 2 });
  });

  it("fails when no object is found, the empty text included", async () => {
    for (const text of ["", "no json", "[1, 2]"]) {
      const out = await runOnText(jsonKeys, text, { keys: ["a"], operator: "none" });
      expect(out.verdict, text).toBe(false);
      expect(out.data).toMatchObject({ jsonFound: false, matchedJson: null });
    }
  });

  it("requires keys", async () => {
    await expect(runOnText(jsonKeys, "{}", { keys: [] })).rejects.toThrow();
    await expect(runOnText(jsonKeys, "{}", { keys: ["a"], operator: "some" })).rejects.toThrow();
  });
});
