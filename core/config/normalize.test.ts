import { describe, expect, it } from "vitest";
import testPlugin from "../../test/support/test-plugin.js";
import { createEngine } from "../../index.js";
import { ConfigError } from "../errors.js";
import type { Guardrail } from "../types.js";

const record = {
  id: "word-limit",
  deny: true,
  checks: [{ id: "default.wordCount", parameters: { minWords: 1, maxWords: 5 } }],
};

async function engine() {
  return createEngine({ plugins: [testPlugin], guardrails: [record, { ...record, id: "async-record" }] });
}

/** Same guardrail, sync and denying, written in each config form. */
const FORMS: Record<string, unknown> = {
  "input_guardrails shorthand": {
    input_guardrails: [{ id: "g", deny: true, async: false, wordCount: { minWords: 1, maxWords: 5 } }],
  },
  "input_guardrails full object": {
    input_guardrails: [
      { id: "g", deny: true, async: false, checks: [{ id: "default.wordCount", parameters: { minWords: 1, maxWords: 5 } }] },
    ],
  },
  "before_request_hooks full object": {
    before_request_hooks: [
      {
        type: "guardrail",
        id: "g",
        deny: true,
        async: false,
        checks: [{ id: "default.wordCount", parameters: { minWords: 1, maxWords: 5 } }],
      },
    ],
  },
  "beforeRequestHooks raw": {
    beforeRequestHooks: [
      { type: "guardrail", id: "g", deny: true, checks: [{ id: "default.wordCount", parameters: { minWords: 1, maxWords: 5 } }] },
    ],
  },
  "shorthand with an explicit check id": {
    input_guardrails: [{ id: "g", deny: true, limit: { id: "default.wordCount", minWords: 1, maxWords: 5 } }],
  },
};

const EXPECTED: Guardrail = {
  id: "g",
  side: "input",
  async: false,
  deny: true,
  sequential: false,
  checks: [{ id: "default.wordCount", parameters: { minWords: 1, maxWords: 5, not: false }, enabled: true, failOnError: false }],
  inline: true,
};

describe("config normalisation", () => {
  it.each(Object.entries(FORMS))("%s normalises to the same guardrail", async (_name, config) => {
    const e = await engine();
    const normalized = await e.normalize(config);
    expect(normalized.input).toEqual([EXPECTED]);
    expect(normalized.output).toEqual([]);
  });

  it("resolves ids in every reference form; records are async unless they say otherwise", async () => {
    const e = await engine();
    for (const config of [
      { input_guardrails: ["word-limit"] },
      { before_request_hooks: [{ id: "word-limit" }] },
      { beforeRequestHooks: [{ id: "word-limit", type: "guardrail" }] },
    ]) {
      const { input, warnings } = await e.normalize(config);
      expect(input).toHaveLength(1);
      expect(input[0]).toMatchObject({ id: "word-limit", async: true, deny: true });
      expect(warnings.map((w) => w.code)).toEqual(["deny_ignored_async"]);
    }
  });

  it("reads tool_arguments: false on an output guardrail, warns on the input side, and refuses a non-boolean by path", async () => {
    const e = await engine();
    const { output } = await e.normalize({
      output_guardrails: [{ id: "prose", tool_arguments: false, wordCount: { maxWords: 5 } }],
    });
    expect(output[0]?.toolArguments).toBe(false);
    const reading = await e.normalize({ output_guardrails: [{ id: "all", tool_arguments: true, wordCount: { maxWords: 5 } }] });
    expect(reading.output[0]?.toolArguments).toBeUndefined();
    const { warnings } = await e.normalize({
      input_guardrails: [{ id: "in", tool_arguments: false, wordCount: { maxWords: 5 } }],
    });
    expect(warnings.map((w) => w.code)).toEqual(["tool_arguments_input"]);
    await expect(
      e.normalize({ output_guardrails: [{ id: "bad", tool_arguments: "no", wordCount: { maxWords: 5 } }] }),
    ).rejects.toThrow("output_guardrails[0].tool_arguments: must be boolean");
  });

  it("reads tool_results: false on an input guardrail, warns on the output side, and refuses a non-boolean by path", async () => {
    const e = await engine();
    const { input } = await e.normalize({ input_guardrails: [{ id: "user", tool_results: false, wordCount: { maxWords: 5 } }] });
    expect(input[0]?.toolResults).toBe(false);
    const reading = await e.normalize({ input_guardrails: [{ id: "all", tool_results: true, wordCount: { maxWords: 5 } }] });
    expect(reading.input[0]?.toolResults).toBeUndefined();
    const { warnings } = await e.normalize({
      output_guardrails: [{ id: "out", tool_results: false, wordCount: { maxWords: 5 } }],
    });
    expect(warnings.map((w) => w.code)).toEqual(["tool_results_output"]);
    await expect(
      e.normalize({ input_guardrails: [{ id: "bad", tool_results: "no", wordCount: { maxWords: 5 } }] }),
    ).rejects.toThrow("input_guardrails[0].tool_results: must be boolean");
  });

  it("lets the same guardrail id serve both sides", async () => {
    const e = await engine();
    const { input, output } = await e.normalize({ input_guardrails: ["word-limit"], output_guardrails: ["word-limit"] });
    expect(input[0]?.side).toBe("input");
    expect(output[0]?.side).toBe("output");
  });

  it("joins the lists of every form for a side and runs a repeated id once", async () => {
    const e = await engine();
    const { input, warnings } = await e.normalize({
      input_guardrails: ["word-limit"],
      before_request_hooks: [{ id: "word-limit" }, { id: "async-record" }],
    });
    expect(input.map((g) => g.id)).toEqual(["word-limit", "async-record"]);
    expect(warnings.some((w) => w.code === "duplicate_guardrail" && w.path === "before_request_hooks[0]")).toBe(true);
  });

  it("inline guardrails are synchronous unless they say async", async () => {
    const e = await engine();
    const { input } = await e.normalize({
      input_guardrails: [{ wordCount: { maxWords: 3 } }, { async: true, wordCount: { maxWords: 3 } }],
    });
    expect(input.map((g) => g.async)).toEqual([false, true]);
  });

  it("gives an inline guardrail without id a stable generated id", async () => {
    const e = await engine();
    const config = { input_guardrails: [{ wordCount: { maxWords: 3 } }] };
    const a = await e.normalize(config);
    const b = await e.normalize(structuredClone(config));
    expect(a.input[0]?.id).toMatch(/^gr_[0-9a-f]{12}$/);
    expect(a.input[0]?.id).toBe(b.input[0]?.id);
  });

  it("reads the runner options from parameters and is_enabled from either place", async () => {
    const e = await engine();
    const { input } = await e.normalize({
      input_guardrails: [
        {
          checks: [
            { id: "default.wordCount", parameters: { maxWords: 3, failOnError: true, timeout: 250 } },
            { id: "default.characterCount", parameters: { maxCharacters: 3 }, is_enabled: false },
            { id: "default.sentenceCount", parameters: { is_enabled: false } },
          ],
        },
      ],
    });
    expect(input[0]?.checks).toEqual([
      {
        id: "default.wordCount",
        parameters: { minWords: 0, maxWords: 3, not: false },
        enabled: true,
        failOnError: true,
        timeout: 250,
      },
      {
        id: "default.characterCount",
        parameters: { minCharacters: 0, maxCharacters: 3, not: false },
        enabled: false,
        failOnError: false,
      },
      { id: "default.sentenceCount", parameters: { minSentences: 0, not: false }, enabled: false, failOnError: false },
    ]);
  });

  it("reads feedback for both outcomes", async () => {
    const e = await engine();
    const { input } = await e.normalize({
      input_guardrails: [
        {
          wordCount: { maxWords: 3 },
          on_success: { feedback: { value: 1, weight: 1 } },
          on_fail: { feedback: { value: -1, metadata: { team: "x" } } },
        },
      ],
    });
    expect(input[0]?.onSuccess).toEqual({ value: 1, weight: 1 });
    expect(input[0]?.onFail).toEqual({ value: -1, metadata: { team: "x" } });
  });

  it("accepts a config given as a JSON string", async () => {
    const e = await engine();
    const { input } = await e.normalize(JSON.stringify(FORMS["input_guardrails shorthand"]));
    expect(input).toEqual([EXPECTED]);
  });
});

describe("bad configs fail at load time with the path", () => {
  const cases: Array<[string, unknown, string, string]> = [
    ["malformed JSON", '{"input_guardrails": [', "", "is not valid JSON"],
    ["not an object", "[1, 2]", "", "must be a JSON object"],
    ["a list that is not an array", { input_guardrails: "word-limit" }, "input_guardrails", "must be an array"],
    ["an unknown guardrail id", { input_guardrails: ["nope"] }, "input_guardrails[0]", 'unknown guardrail "nope"'],
    [
      "an unknown check id",
      { before_request_hooks: [{ id: "g", checks: [{ id: "default.wordCount" }, { id: "default.wordCont" }] }] },
      "before_request_hooks[0].checks[1].id",
      'unknown check "default.wordCont"',
    ],
    [
      "a check of an unknown plugin",
      { input_guardrails: [{ "acme.scan": {} }] },
      'input_guardrails[0]["acme.scan"]',
      'no plugin "acme" is loaded',
    ],
    [
      "a mistyped parameter",
      {
        input_guardrails: [{ checks: [{ id: "default.wordCount" }, { id: "default.wordCount", parameters: { maxWords: "5" } }] }],
      },
      "input_guardrails[0].checks[1].parameters.maxWords",
      "must be integer",
    ],
    [
      "a mistyped parameter in the shorthand form",
      { output_guardrails: [{ wordCount: { maxWords: 2.5 } }] },
      "output_guardrails[0].wordCount.maxWords",
      "must be integer",
    ],
    [
      "an unknown parameter",
      { input_guardrails: [{ wordCount: { maxWord: 5 } }] },
      "input_guardrails[0].wordCount.maxWord",
      "is not a known parameter; did you mean maxWords?",
    ],
    [
      "an unknown parameter with no near name",
      { input_guardrails: [{ wordCount: { limit: 5 } }] },
      "input_guardrails[0].wordCount.limit",
      "is not a known parameter; known parameters: minWords, maxWords, not",
    ],
    [
      "a missing required parameter",
      { input_guardrails: [{ regexMatch: { not: true } }] },
      "input_guardrails[0].regexMatch.rule",
      "is required",
    ],
    [
      "a minimum above the maximum",
      { input_guardrails: [{ wordCount: { minWords: 9, maxWords: 2 } }] },
      "input_guardrails[0].wordCount.maxWords",
      "must be at least the minimum (9)",
    ],
    [
      "a check on a side it does not support",
      { output_guardrails: [{ checks: [{ id: "test.inputOnly" }] }] },
      "output_guardrails[0].checks[0].id",
      "test.inputOnly does not support the output side",
    ],
    [
      "a guardrail with no checks",
      { input_guardrails: [{ id: "g", checks: [] }] },
      "input_guardrails[0].checks",
      "at least one check",
    ],
    [
      "deny that is not boolean",
      { input_guardrails: [{ deny: "yes", wordCount: {} }] },
      "input_guardrails[0].deny",
      "must be boolean",
    ],
    [
      "feedback of the wrong type",
      { input_guardrails: [{ wordCount: {}, on_fail: { feedback: { value: "bad" } } }] },
      "input_guardrails[0].on_fail.feedback.value",
      "must be a number",
    ],
    [
      "a runner option of the wrong type",
      { input_guardrails: [{ wordCount: { failOnError: "true" } }] },
      "input_guardrails[0].wordCount.failOnError",
      "must be boolean",
    ],
    [
      "a guardrail of the other side",
      { output_guardrails: [{ side: "input", wordCount: {} }] },
      "output_guardrails[0]",
      "cannot be used on the output side",
    ],
  ];

  it.each(cases)("%s", async (_name, config, path, message) => {
    const e = await engine();
    const error = await e.normalize(config).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe(path);
    expect((error as ConfigError).message).toContain(message);
    expect((error as ConfigError).message.startsWith(path ? `${path}: ` : "")).toBe(true);
  });

  it("names the referenced record when a stored guardrail no longer validates", async () => {
    const e = await createEngine({ guardrails: [{ id: "old", checks: [{ id: "default.gone" }] }] });
    const error = (await e.normalize({ input_guardrails: ["old"] }).catch((caught: unknown) => caught)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'input_guardrails[0]: guardrail "old" is no longer valid: checks[0].id: unknown check "default.gone"',
    );
  });
});
