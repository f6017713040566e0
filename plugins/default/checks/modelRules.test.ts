import { describe, expect, it } from "vitest";
import { prepareCheck, runCheck } from "../../../test/support/check-harness.js";
import modelRules from "./modelRules.js";

const rules = {
  defaults: ["gpt-4o-mini"],
  metadata: { tier: { pro: ["gpt-4o", "@anthropic/claude-sonnet-4"], free: ["gpt-4o-mini"] }, team: { research: ["o3"] } },
};

describe("modelRules", () => {
  it("allows the models of matching metadata rules", async () => {
    const outcome = await runCheck(modelRules, { rules }, { model: "@anthropic/claude-sonnet-4", metadata: { tier: "pro" } });
    expect(outcome.verdict).toBe(true);
    expect(outcome.data).toMatchObject({ source: "metadata", matchedRules: ["tier:pro"] });
  });

  it("takes the union over every matching rule", async () => {
    const metadata = { tier: "pro", team: "research" };
    expect((await runCheck(modelRules, { rules }, { model: "o3", metadata })).verdict).toBe(true);
    expect((await runCheck(modelRules, { rules }, { model: "gpt-4o", metadata })).verdict).toBe(true);
    expect((await runCheck(modelRules, { rules }, { model: "gpt-4o-mini", metadata })).verdict).toBe(false);
  });

  it("falls back to the defaults when no rule matches", async () => {
    const outcome = await runCheck(modelRules, { rules }, { model: "gpt-4o-mini", metadata: { tier: "enterprise" } });
    expect(outcome.verdict).toBe(true);
    expect(outcome.data).toMatchObject({ source: "defaults", allowedModels: ["gpt-4o-mini"] });
    expect((await runCheck(modelRules, { rules }, { model: "gpt-4o" })).verdict).toBe(false);
  });

  it("fails when the rules allow nothing for the request, and inverts with not", async () => {
    const onlyMetadata = { rules: { metadata: { tier: { pro: ["gpt-4o"] } } } };
    const none = await runCheck(modelRules, onlyMetadata, { model: "gpt-4o" });
    expect(none.verdict).toBe(false);
    expect(none.data?.source).toBe("none");
    expect((await runCheck(modelRules, { rules, not: true }, { model: "gpt-4o" })).verdict).toBe(true);
    expect((await runCheck(modelRules, { rules, not: true }, { model: "gpt-4o-mini" })).verdict).toBe(false);
  });

  it("ignores inherited property names in metadata values", async () => {
    const outcome = await runCheck(modelRules, { rules }, { model: "gpt-4o-mini", metadata: { tier: "constructor" } });
    expect(outcome.data?.source).toBe("defaults");
  });

  it("errors when the request names no model; rejects empty rules and the output side", async () => {
    await expect(runCheck(modelRules, { rules }, { request: {} })).rejects.toThrow(/names no model/);
    expect(() => prepareCheck(modelRules, { rules: {} })).toThrow(/rules: give defaults, metadata rules, or both/);
    expect(() => prepareCheck(modelRules, {})).toThrow(/rules: is required/);
    expect(() => prepareCheck(modelRules, { rules }, "output")).toThrow(/output side/);
  });
});
