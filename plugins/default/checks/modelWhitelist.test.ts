import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../index.js";
import { prepareCheck, runCheck } from "../../../test/support/check-harness.js";
import modelWhitelist from "./modelWhitelist.js";

describe("modelWhitelist", () => {
  it("passes a model in the list and fails one outside it", async () => {
    const pass = await runCheck(modelWhitelist, { models: ["gpt-4o", "claude-sonnet-4"] }, { model: "gpt-4o" });
    expect(pass.verdict).toBe(true);
    expect(pass.data).toMatchObject({ requestedModel: "gpt-4o", matchedModels: ["gpt-4o"], mode: "base_models", not: false });
    const fail = await runCheck(modelWhitelist, { models: ["gpt-4o"] }, { model: "gpt-4.5-preview" });
    expect(fail.verdict).toBe(false);
    expect(fail.data?.explanation).toContain('"gpt-4.5-preview" is not in the list');
  });

  it("inverts with not", async () => {
    expect((await runCheck(modelWhitelist, { models: ["gpt-4o"], not: true }, { model: "gpt-4o" })).verdict).toBe(false);
    expect((await runCheck(modelWhitelist, { models: ["gpt-4o"], not: true }, { model: "o3" })).verdict).toBe(true);
  });

  it("accepts plain and provider-addressed references on both sides", async () => {
    const list = { models: ["gpt-4o", "@anthropic/claude-sonnet-4"] };
    expect((await runCheck(modelWhitelist, list, { model: "@openai/gpt-4o" })).verdict).toBe(true);
    expect((await runCheck(modelWhitelist, list, { model: "@Anthropic/Claude-Sonnet-4" })).verdict).toBe(true);
    expect((await runCheck(modelWhitelist, list, { model: "claude-sonnet-4", provider: "anthropic" })).verdict).toBe(true);
    // A provider-addressed entry allows that provider only.
    expect((await runCheck(modelWhitelist, list, { model: "@bedrock/claude-sonnet-4" })).verdict).toBe(false);
    expect((await runCheck(modelWhitelist, list, { model: "claude-sonnet-4" })).verdict).toBe(false);
  });

  it("reads the body's model when the gateway resolved none", async () => {
    const outcome = await runCheck(
      modelWhitelist,
      { models: ["gpt-4o-mini"] },
      { request: { model: "gpt-4o-mini", messages: [] } },
    );
    expect(outcome.verdict).toBe(true);
  });

  it("errors when the request names no model", async () => {
    await expect(runCheck(modelWhitelist, { models: ["gpt-4o"] }, { request: { messages: [] } })).rejects.toThrow(
      /names no model/,
    );
  });

  it("lets matching metadata rules replace the list", async () => {
    const parameters = {
      models: ["gpt-4o-mini"],
      metadataRules: [{ metadataKey: "tier", values: ["pro"], models: ["gpt-4o"] }],
    };
    const pro = await runCheck(modelWhitelist, parameters, { model: "gpt-4o", metadata: { tier: "pro" } });
    expect(pro.verdict).toBe(true);
    expect(pro.data).toMatchObject({ mode: "metadata_rules", matchedRules: ["tier:pro"] });
    expect((await runCheck(modelWhitelist, parameters, { model: "gpt-4o-mini", metadata: { tier: "pro" } })).verdict).toBe(false);
    expect((await runCheck(modelWhitelist, parameters, { model: "gpt-4o", metadata: { tier: "free" } })).verdict).toBe(false);
  });

  it("rejects configs with no models, unknown parameters, or the output side", () => {
    expect(() => prepareCheck(modelWhitelist, {})).toThrow(/models: give at least one model/);
    expect(() => prepareCheck(modelWhitelist, { models: ["a"], model: "b" })).toThrow(ConfigError);
    expect(() => prepareCheck(modelWhitelist, { models: ["a"] }, "output")).toThrow(/does not support the output side/);
  });
});
