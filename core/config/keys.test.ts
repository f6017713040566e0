import { describe, expect, it } from "vitest";
import { createEngine } from "../../index.js";
import { ConfigError } from "../errors.js";
import { CONFIG_KEYS, checkConfigKeys, nearestKey } from "./keys.js";
import { CONFIG_TYPOS } from "../../test/support/config-typos.js";

const engine = await createEngine();
const denyHello = { deny: true, checks: [{ id: "default.contains", parameters: { words: ["hello"], operator: "none" } }] };

async function refusal(config: unknown): Promise<ConfigError> {
  const error = await engine
    .evaluate({ side: "input", requestType: "chatComplete", config, request: { messages: [{ role: "user", content: "hello" }] } })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe("config keys", () => {
  it.each(CONFIG_TYPOS)("refuses %s at the root and names %s", async (typo, meant) => {
    const error = await refusal({ [typo]: [denyHello] });
    expect(error.message).toBe(`config.${typo}: unknown key; did you mean ${meant}?`);
    expect(error.code).toBe("unknown_key");
  });

  it("refuses unknown keys in targets, retry, strategy, guardrails, checks and feedback, with their paths", async () => {
    expect(() => checkConfigKeys({ targets: [{ provider: "@x", overide_params: {} }] })).toThrow(
      "targets[0].overide_params: unknown key; did you mean override_params?",
    );
    expect(() => checkConfigKeys({ retry: { atempts: 2 } })).toThrow("retry.atempts: unknown key; did you mean attempts?");
    expect(() => checkConfigKeys({ strategy: { mode: "fallback", on_status_code: [446] } })).toThrow(
      "strategy.on_status_code: unknown key; did you mean on_status_codes?",
    );
    expect((await refusal({ input_guardrails: [{ ...denyHello, denyy: true }] })).message).toBe(
      "config.input_guardrails[0].denyy: unknown key; did you mean deny?",
    );
    const check = { id: "default.contains", parameter: { words: ["x"] } };
    expect((await refusal({ input_guardrails: [{ checks: [check] }] })).message).toBe(
      "config.input_guardrails[0].checks[0].parameter: unknown key; did you mean parameters?",
    );
    const flat = { checks: denyHello.checks, on_success: { value: 1 } };
    expect((await refusal({ input_guardrails: [flat] })).message).toContain(
      "config.input_guardrails[0].on_success.value: unknown key; did you mean feedback.value?",
    );
    const feedback = { checks: denyHello.checks, on_fail: { feedback: { valeu: 1 } } };
    expect((await refusal({ input_guardrails: [feedback] })).message).toBe(
      "config.input_guardrails[0].on_fail.feedback.valeu: unknown key; did you mean value?",
    );
  });

  it("says in the shorthand form that a misspelt guardrail key is read as a check", async () => {
    const error = await refusal({ input_guardrails: [{ denny: true, contains: { words: ["hello"], operator: "none" } }] });
    expect(error.message).toContain("input_guardrails[0].denny: must be an object of check parameters");
    const asCheck = await refusal({ input_guardrails: [{ denny: {}, contains: { words: ["hello"] } }] });
    expect(asCheck.message).toContain('unknown check "default.denny"');
    expect(asCheck.message).toContain("did you mean deny?");
    expect(error.message).toContain("did you mean deny?");
  });

  it("suggests the nearest check id of a plugin", async () => {
    const error = await refusal({ input_guardrails: [{ checks: [{ id: "default.wordcount", parameters: {} }] }] });
    expect(error.message).toContain('did you mean "default.wordCount"');
    const far = await refusal({ input_guardrails: [{ checks: [{ id: "default.regexMatc", parameters: { rule: "x" } }] }] });
    expect(far.message).toContain('did you mean "default.regexMatch"');
  });

  it("accepts every key of the peer gateway's format and warns about those guardgate does not act on", async () => {
    const evaluation = await engine.evaluate({
      side: "input",
      requestType: "chatComplete",
      config: {
        input_guardrails: [{ ...denyHello, eventType: "beforeRequestHook" }],
        forward_headers: ["x-a"],
        strict_open_ai_compliance: false,
        retry: { attempts: 1, use_retry_after_header: true },
        vertex_storage_bucket_name: "batch-files",
        vertex_region: "europe-west4",
      },
      request: { messages: [{ role: "user", content: "hello" }] },
    });
    expect(evaluation.status).toBe(446);
    const paths = evaluation.warnings.filter((w) => w.code === "key_not_implemented").map((w) => w.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "config.forward_headers",
        "config.strict_open_ai_compliance",
        "config.retry.use_retry_after_header",
      ]),
    );
    expect(paths).toContain("config.vertex_storage_bucket_name");
    // A key a provider kind reads is acted on: no warning.
    expect(paths).not.toContain("config.vertex_region");
    for (const level of Object.values(CONFIG_KEYS)) expect(Object.keys(level).length).toBeGreaterThan(0);
  });

  it("reads the camel-case action keys of the raw inline form", async () => {
    const evaluation = await engine.evaluate({
      side: "input",
      requestType: "chatComplete",
      config: { beforeRequestHooks: [{ type: "guardrail", id: "g", ...denyHello, onFail: { feedback: { value: -1 } } }] },
      request: { messages: [{ role: "user", content: "hello" }] },
    });
    expect(evaluation.results[0]?.feedback?.value).toBe(-1);
  });

  it("finds the nearest key case and separators aside, and none when nothing is near", () => {
    expect(nearestKey("OUTPUT-GUARDRAILS", Object.keys(CONFIG_KEYS.config))).toBe("output_guardrails");
    expect(nearestKey("zzzzzz", Object.keys(CONFIG_KEYS.config))).toBeUndefined();
  });
});
