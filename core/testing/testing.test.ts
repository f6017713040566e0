import { describe, expect, it } from "vitest";
import { createEngine } from "../../index.js";
import { ConfigError, GuardgateError } from "../errors.js";
import { defineCheck, definePlugin } from "../plugin-api.js";
import { REDACTED } from "../redact.js";
import { evaluateCheck, measureCheck, runExamples, testCheck } from "./index.js";

const vowels = defineCheck<{ max: number }>({
  id: "vowels",
  description: "Fails when the text has more than `max` vowels.",
  sides: ["input", "output"],
  parameters: { type: "object", properties: { max: { type: "integer", minimum: 0, default: 3 } }, additionalProperties: false },
  run: ({ text }, { max }) => {
    const count = (text.match(/[aeiou]/g) ?? []).length;
    return { verdict: count <= max, data: { count, max } };
  },
});

const upper = defineCheck({
  id: "upper",
  description: "Upper-cases the text.",
  sides: ["input", "output"],
  transforms: true,
  parameters: { type: "object", properties: {}, additionalProperties: false },
  run: ({ text }) => ({ verdict: true, transformedText: text.toUpperCase() }),
});

const throws = defineCheck({
  id: "throws",
  description: "Throws.",
  sides: ["input"],
  parameters: { type: "object" },
  run: () => {
    throw new RangeError("out of range");
  },
});

const keyed = defineCheck({
  id: "keyed",
  description: "Echoes its credentials.",
  sides: ["input"],
  parameters: { type: "object" },
  run: ({ credentials }) => ({ verdict: credentials !== undefined, data: { seen: credentials ?? null } }),
});

const acme = definePlugin({ id: "acme", class: "custom", apiVersion: 1, checks: [vowels, upper, keyed] });

describe("testCheck", () => {
  it("returns the CheckResult with the spec's fields, in the spec's order", async () => {
    const result = await testCheck(vowels, { text: "a bee", parameters: { max: 1 } });
    expect(Object.keys(result)).toEqual([
      "data",
      "verdict",
      "id",
      "execution_time",
      "transformed",
      "created_at",
      "log",
      "fail_on_error",
    ]);
    expect(result).toMatchObject({
      data: { count: 3, max: 1 },
      verdict: false,
      id: "test.vowels",
      transformed: false,
      log: null,
    });
    expect(typeof result.execution_time).toBe("number");
    expect(new Date(result.created_at).toISOString()).toBe(result.created_at);
  });

  it("gives the same result as the engine, apart from times", async () => {
    const engine = await createEngine({ plugins: [acme] });
    const evaluation = await engine.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: { messages: [{ role: "user", content: "queue" }] },
      guardrails: [{ checks: [{ id: "acme.vowels", parameters: { failOnError: true } }] }],
    });
    await engine.close();
    const fromEngine = evaluation.results[0]?.checks[0];
    const fromHelper = await testCheck(vowels, { text: "queue", parameters: { failOnError: true }, plugin: acme });
    const timeless = (r: object | undefined) => ({ ...r, execution_time: 0, created_at: "" });
    expect(timeless(fromHelper)).toEqual(timeless(fromEngine));
  });

  it("applies schema defaults and throws the ConfigError of a bad parameter", async () => {
    expect((await testCheck(vowels, { text: "aeiou" })).data).toEqual({ count: 5, max: 3 });
    const bad = testCheck(vowels, { text: "x", parameters: { max: -1 } });
    await expect(bad).rejects.toThrow(ConfigError);
    await expect(bad).rejects.toThrow(/parameters\.max: must be >= 0/);
  });

  it("reports what a check throws as the result's error", async () => {
    const result = await testCheck(throws, { text: "x", parameters: { failOnError: true } });
    expect(result.verdict).toBe(false);
    expect(result.error).toEqual({ name: "RangeError", message: "out of range" });
    expect(result.fail_on_error).toBe(true);
  });

  it("evaluates the output side from text or a response body of the request type", async () => {
    expect((await testCheck(vowels, { text: "aaaa", side: "output" })).verdict).toBe(false);
    const response = { role: "assistant", content: [{ type: "text", text: "ok" }] };
    const result = await testCheck(vowels, { response, requestType: "messages" });
    expect(result.data).toEqual({ count: 1, max: 3 });
  });

  it("hands the integration's credentials to the check and redacts them from its result", async () => {
    const result = await testCheck(keyed, { text: "x", plugin: acme, credentials: { apiKey: "sk-test-123456" } });
    expect(result).toMatchObject({ verdict: true, id: "acme.keyed", data: { seen: { apiKey: REDACTED } } });
  });

  it("refuses a check that is not in the given plugin, and ambiguous or empty input", async () => {
    await expect(testCheck(throws, { text: "x", plugin: acme })).rejects.toThrow(
      /"throws" is not one of the checks of plugin "acme"/,
    );
    await expect(testCheck(vowels, { text: "x", request: {} })).rejects.toThrow(/give either text or the request, not both/);
    await expect(testCheck(vowels, {})).rejects.toThrow(GuardgateError);
  });
});

describe("evaluateCheck", () => {
  it("returns the evaluated text after a transform, and the transformed body", async () => {
    const { result, evaluation, text } = await evaluateCheck(upper, { text: "quiet please" });
    expect(result.transformed).toBe(true);
    expect(text).toBe("QUIET PLEASE");
    expect(evaluation.request).toEqual({ messages: [{ role: "user", content: "QUIET PLEASE" }] });
  });
});

describe("runExamples", () => {
  it("runs every example through the engine and finds nothing to say when the check agrees", async () => {
    const check = {
      ...vowels,
      examples: [
        { parameters: { max: 1 }, text: "sky", verdict: true, data: { count: 0 } },
        { parameters: { max: 1 }, text: "audio", description: "Too many vowels.", verdict: false },
        { parameters: {}, text: "calm", side: "output" as const, model: "gpt-4o", metadata: { team: "a" }, verdict: true },
      ],
    };
    const runs = await runExamples(check);
    expect(runs.map((run) => [run.name, run.result.verdict, run.problems])).toEqual([
      ["example 1", true, []],
      ["example 2 (Too many vowels.)", false, []],
      ["example 3", true, []],
    ]);
    expect(runs[1]?.result.data).toEqual({ count: 4, max: 1 });
  });

  it("says where the check disagrees: verdict, data, transformed text, no verdict, an error", async () => {
    const disagreeing = {
      ...vowels,
      examples: [{ parameters: { max: 0 }, text: "a", description: "Wrong.", verdict: true, data: { count: 2 } }],
    };
    expect((await runExamples(disagreeing)).flatMap((run) => run.problems)).toEqual([
      "example 1 (Wrong.): verdict false, the example states true",
      "example 1 (Wrong.): data.count is 1, the example states 2",
    ]);
    const shouting = { ...upper, examples: [{ parameters: {}, text: "hi", verdict: true, transformedText: "hi" }] };
    expect((await runExamples(shouting)).flatMap((run) => run.problems)).toEqual([
      'example 1: transformed text is "HI", the example states "hi"',
    ]);
    const unstated = { ...vowels, examples: [{ parameters: {}, text: "a" }] };
    expect((await runExamples(unstated)).flatMap((run) => run.problems)).toEqual(["example 1: states no verdict"]);
    const failing = { ...throws, examples: [{ parameters: {}, text: "a", verdict: false }] };
    expect((await runExamples(failing)).flatMap((run) => run.problems)).toEqual(['example 1: errored: "out of range"']);
  });

  it("runs a plugin's check with the plugin's credentials", async () => {
    const check = { ...keyed, examples: [{ parameters: {}, text: "x", verdict: true }] };
    const plugin = definePlugin({ id: "acme", class: "custom", apiVersion: 1, checks: [check] });
    const [run] = await runExamples(check, { plugin, credentials: { token: "t-0123456789" } });
    expect(run?.result.id).toBe("acme.keyed");
    expect(run?.problems).toEqual([]);
  });
});

describe("measureCheck", () => {
  it("measures the check's latency in microseconds over at least the samples asked for", async () => {
    const latency = await measureCheck(vowels, { text: "a short text" }, { samples: 30, time: 0, warmup: 5 });
    expect(latency.check).toBe("test.vowels");
    expect(latency.samples).toBeGreaterThanOrEqual(30);
    expect(latency.median_us).toBeGreaterThan(0);
    expect(latency.p99_us).toBeGreaterThanOrEqual(latency.median_us);
    expect(latency.ops_per_s).toBeGreaterThan(0);
  });

  it("refuses to measure a check that errors on the input", async () => {
    await expect(measureCheck(throws, { text: "x" }, { samples: 5, time: 0 })).rejects.toThrow(
      /check test\.throws errored on this input, so it is not measured: RangeError: out of range/,
    );
  });
});
