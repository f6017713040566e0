import { describe, expect, it } from "vitest";
import testPlugin from "../test/support/test-plugin.js";
import { createEngine } from "../index.js";
import { GuardgateError } from "./errors.js";
import type { GuardrailResult } from "./types.js";

const chat = (content: string) => ({ model: "gpt-x", messages: [{ role: "user", content }] });
const reply = (content: string) => ({ choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] });

/** A guardrail whose single check passes on "pass" and fails on anything else. */
const simpleGuardrail = (options: { deny?: boolean; async?: boolean; id?: string } = {}) => ({
  id: options.id ?? "gate",
  ...(options.deny !== undefined && { deny: options.deny }),
  ...(options.async !== undefined && { async: options.async }),
  checks: [{ id: "default.regexMatch", parameters: { rule: "^pass$" } }],
});

async function engine() {
  return createEngine({ plugins: [testPlugin] });
}

describe("status over synchronous guardrails (spec §3)", () => {
  const rows: Array<[string, string, boolean, number]> = [
    ["pass", "pass", false, 200],
    ["pass", "pass", true, 200],
    ["fail", "fail", false, 246],
    ["fail", "fail", true, 446],
  ];
  it.each(rows)("verdict %s (text %s), deny %s → %i", async (_verdict, text, deny, status) => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat(text),
      guardrails: [simpleGuardrail({ deny })],
    });
    expect(evaluation.status).toBe(status);
    expect(evaluation.verdict).toBe(text === "pass");
    expect(evaluation.results).toHaveLength(1);
    expect(evaluation.results[0]?.deny).toBe(deny && text !== "pass");
    expect(evaluation.asyncResults).toEqual([]);
  });

  it("a deny anywhere wins over a failure without deny", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "output",
      requestType: "chatComplete",
      request: chat("q"),
      response: reply("fail"),
      guardrails: [simpleGuardrail({ id: "soft" }), simpleGuardrail({ id: "hard", deny: true })],
    });
    expect(evaluation.status).toBe(446);
  });

  it("asynchronous guardrails are evaluated and returned apart, never changing the status", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("fail"),
      guardrails: [simpleGuardrail({ id: "bg", async: true, deny: true }), simpleGuardrail({ id: "fg" })],
    });
    expect(evaluation.status).toBe(246);
    expect(evaluation.results.map((r) => r.id)).toEqual(["fg"]);
    expect(evaluation.asyncResults).toHaveLength(1);
    expect(evaluation.asyncResults[0]).toMatchObject({ id: "bg", async: true, verdict: false, deny: true });
    expect(evaluation.warnings.map((w) => w.code)).toEqual(["deny_ignored_async"]);

    const onlyAsync = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("fail"),
      guardrails: [simpleGuardrail({ async: true, deny: true })],
    });
    expect(onlyAsync.status).toBe(200);
    expect(onlyAsync.verdict).toBe(true);
  });

  it("guardrail records referenced by id default to async; inline definitions to sync", async () => {
    const e = await createEngine({ guardrails: [simpleGuardrail({ id: "stored", deny: true })] });
    const byId = await e.evaluate({ side: "input", requestType: "chatComplete", request: chat("fail"), guardrails: ["stored"] });
    expect(byId.status).toBe(200);
    expect(byId.asyncResults[0]?.id).toBe("stored");
    const inline = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("fail"),
      guardrails: [simpleGuardrail({ deny: true })],
    });
    expect(inline.status).toBe(446);
  });

  it("evaluates the list of a config for the side asked", async () => {
    const e = await engine();
    const config = JSON.stringify({ output_guardrails: [{ deny: true, regexMatch: { rule: "^pass$" } }] });
    const input = await e.evaluate({ side: "input", requestType: "chatComplete", request: chat("fail"), config });
    expect(input.status).toBe(200);
    expect(input.results).toEqual([]);
    const output = await e.evaluate({
      side: "output",
      requestType: "chatComplete",
      request: chat("x"),
      response: reply("fail"),
      config,
    });
    expect(output.status).toBe(446);
  });
});

describe("result fields (spec §2.4)", () => {
  it("reproduces the observed invalid-regex case field by field", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("anything"),
      guardrails: [{ id: "bad-regex", checks: [{ id: "default.regexMatch", parameters: { rule: "(unclosed" } }] }],
    });
    const result = evaluation.results[0] as GuardrailResult;
    expect(Object.keys(result)).toEqual([
      "verdict",
      "id",
      "transformed",
      "checks",
      "feedback",
      "execution_time",
      "async",
      "type",
      "created_at",
      "deny",
    ]);
    expect(result.verdict).toBe(true);
    expect(result.feedback).toBeNull();
    expect(result.deny).toBe(false);
    expect(result.type).toBe("guardrail");
    expect(result.async).toBe(false);
    expect(result.transformed).toBe(false);
    const check = result.checks[0];
    expect(Object.keys(check ?? {})).toEqual([
      "data",
      "verdict",
      "id",
      "execution_time",
      "transformed",
      "created_at",
      "log",
      "error",
      "fail_on_error",
    ]);
    expect(check?.verdict).toBe(false);
    expect(check?.id).toBe("default.regexMatch");
    expect(check?.fail_on_error).toBe(false);
    expect(check?.log).toBeNull();
    expect(check?.error).toEqual({ name: "SyntaxError", message: expect.stringContaining("missing )") });
    expect(evaluation.status).toBe(200);
  });

  it("with fail_on_error the errored check fails its guardrail", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("anything"),
      guardrails: [{ deny: true, checks: [{ id: "default.regexMatch", parameters: { rule: "(", failOnError: true } }] }],
    });
    expect(evaluation.status).toBe(446);
    expect(evaluation.results[0]?.checks[0]?.fail_on_error).toBe(true);
  });

  it("a check that throws reports its error, and a passing check has no error field", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("pass"),
      guardrails: [{ checks: [{ id: "test.fails" }, { id: "default.regexMatch", parameters: { rule: "pass" } }] }],
    });
    const [thrown, passed] = evaluation.results[0]?.checks ?? [];
    expect(thrown?.error).toEqual({ name: "RangeError", message: "this check always throws" });
    expect(thrown?.verdict).toBe(false);
    expect(passed && "error" in passed).toBe(false);
    expect(evaluation.results[0]?.verdict).toBe(true);
  });

  it("times every check in milliseconds with sub-millisecond precision and stamps ISO dates", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("one two"),
      guardrails: [{ wordCount: { maxWords: 5 }, characterCount: { maxCharacters: 50 } }],
    });
    const result = evaluation.results[0] as GuardrailResult;
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    expect(result.execution_time).toBeGreaterThan(0);
    expect(result.created_at).toMatch(iso);
    for (const check of result.checks) {
      expect(check.execution_time).toBeGreaterThan(0);
      expect(check.execution_time).toBeLessThan(result.execution_time + 1);
      expect(check.created_at).toMatch(iso);
    }
  });

  it("skips disabled checks", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("fail"),
      guardrails: [
        {
          checks: [{ id: "default.regexMatch", parameters: { rule: "^pass$" }, is_enabled: false }, { id: "default.wordCount" }],
        },
      ],
    });
    expect(evaluation.results[0]?.checks.map((c) => c.id)).toEqual(["default.wordCount"]);
    expect(evaluation.status).toBe(200);
  });
});

describe("feedback", () => {
  const guardrail = {
    id: "fb",
    on_success: { feedback: { value: 5, weight: 1, metadata: { team: "support" } } },
    on_fail: { feedback: { value: -10, weight: 0.5 } },
    checks: [
      { id: "default.regexMatch", parameters: { rule: "hello" } },
      { id: "default.wordCount", parameters: { maxWords: 1 } },
      { id: "default.regexMatch", parameters: { rule: "(" } },
      { id: "default.characterCount", parameters: { maxCharacters: 100 } },
    ],
  };

  it("on failure: the configured feedback plus the check ids joined with a comma and a space", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("hello there"),
      guardrails: [guardrail],
    });
    expect(evaluation.results[0]?.feedback).toEqual({
      value: -10,
      weight: 0.5,
      metadata: {
        successfulChecks: "default.regexMatch, default.characterCount",
        failedChecks: "default.wordCount",
        erroredChecks: "default.regexMatch",
      },
    });
  });

  it("on success: the success feedback with its metadata, empty strings where no check fits", async () => {
    const e = await engine();
    const passing = { ...guardrail, checks: [guardrail.checks[0], guardrail.checks[3]] };
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("hello"),
      guardrails: [passing],
    });
    expect(evaluation.results[0]?.feedback).toEqual({
      value: 5,
      weight: 1,
      metadata: {
        team: "support",
        successfulChecks: "default.regexMatch, default.characterCount",
        failedChecks: "",
        erroredChecks: "",
      },
    });
  });

  it("is null when nothing is configured for the outcome", async () => {
    const e = await engine();
    const onlySuccess = { ...guardrail, on_fail: undefined };
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("hello there"),
      guardrails: [onlySuccess],
    });
    expect(evaluation.results[0]?.verdict).toBe(false);
    expect(evaluation.results[0]?.feedback).toBeNull();
  });
});

describe("transforms", () => {
  it("concurrent checks of one guardrail compose their transforms instead of overwriting", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("alice met bob"),
      guardrails: [
        {
          checks: [
            { id: "test.redact", parameters: { word: "alice" } },
            { id: "test.sees", parameters: { word: "alice" } },
            { id: "test.redact", parameters: { word: "bob" } },
          ],
        },
      ],
    });
    expect((evaluation.request as ReturnType<typeof chat>).messages[0]?.content).toBe("[X] met [X]");
    expect(evaluation.transformed).toBe(true);
    expect(evaluation.results[0]?.transformed).toBe(true);
    // A check that does not transform sees the content as received.
    expect(evaluation.results[0]?.checks[1]?.data.seen).toBe("alice met bob");
    expect(evaluation.results[0]?.checks.map((c) => c.transformed)).toEqual([true, false, true]);
  });

  it("sequential checks each see the previous one's transform", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("alice met bob"),
      guardrails: [
        {
          sequential: true,
          checks: [
            { id: "test.redact", parameters: { word: "alice" } },
            { id: "test.sees", parameters: { word: "alice" } },
            { id: "test.redact", parameters: { word: "bob" } },
          ],
        },
      ],
    });
    expect((evaluation.request as ReturnType<typeof chat>).messages[0]?.content).toBe("[X] met [X]");
    expect(evaluation.results[0]?.checks[1]?.data.seen).toBe("[X] met bob");
    expect(evaluation.results[0]?.checks[1]?.verdict).toBe(false);
  });

  it("transforms of several guardrails compose in guardrail order", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "output",
      requestType: "chatComplete",
      request: chat("q"),
      response: reply("alice met bob"),
      guardrails: [
        { checks: [{ id: "test.redact", parameters: { word: "alice" } }] },
        { checks: [{ id: "test.redact", parameters: { word: "bob" } }] },
      ],
    });
    expect((evaluation.response as ReturnType<typeof reply>).choices[0]?.message.content).toBe("[X] met [X]");
  });

  it("an asynchronous guardrail's transform is never applied", async () => {
    const e = await engine();
    const request = chat("alice");
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request,
      guardrails: [{ async: true, checks: [{ id: "test.redact", parameters: { word: "alice" } }] }],
    });
    expect(evaluation.request).toBe(request);
    expect(evaluation.transformed).toBe(false);
  });

  it("never mutates the caller's request", async () => {
    const e = await engine();
    const request = chat("alice");
    const copy = structuredClone(request);
    await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request,
      guardrails: [{ checks: [{ id: "test.redact", parameters: { word: "alice" } }] }],
    });
    expect(request).toEqual(copy);
  });
});

describe("time limits and cancellation", () => {
  it("a check that runs past its timeout is a TimeoutError", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("x"),
      guardrails: [{ deny: true, checks: [{ id: "test.wait", parameters: { ms: 5_000, timeout: 30, failOnError: true } }] }],
    });
    expect(evaluation.results[0]?.checks[0]?.error).toEqual({
      name: "TimeoutError",
      message: "check test.wait exceeded its time limit of 30 ms",
    });
    expect(evaluation.status).toBe(446);
  });

  it("an aborted evaluation reports its checks as cancelled", async () => {
    const e = await engine();
    const controller = new AbortController();
    const pending = e.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: chat("x"),
      signal: controller.signal,
      guardrails: [{ checks: [{ id: "test.wait", parameters: { ms: 5_000 } }] }],
    });
    setTimeout(() => controller.abort(), 10);
    const evaluation = await pending;
    expect(evaluation.results[0]?.checks[0]?.error).toMatchObject({ name: "AbortError" });
  });
});

describe("evaluate input errors", () => {
  it("rejects an unknown request type and a missing response", async () => {
    const e = await engine();
    await expect(e.evaluate({ side: "input", requestType: "chat", request: chat("x"), guardrails: [] })).rejects.toThrow(
      GuardgateError,
    );
    await expect(e.evaluate({ side: "output", requestType: "chatComplete", request: chat("x"), guardrails: [] })).rejects.toThrow(
      /output side needs the response/,
    );
  });

  it("accepts stream- request types", async () => {
    const e = await engine();
    const evaluation = await e.evaluate({
      side: "input",
      requestType: "stream-chatComplete",
      request: chat("pass"),
      guardrails: [simpleGuardrail()],
    });
    expect(evaluation.status).toBe(200);
  });

  it("lists every registered check with its metadata", async () => {
    const e = await engine();
    const ids = e.checks().map((c) => c.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        "default.regexMatch",
        "default.wordCount",
        "default.sentenceCount",
        "default.characterCount",
        "test.redact",
      ]),
    );
    expect(e.checks().find((c) => c.id === "default.wordCount")).toMatchObject({
      plugin: "default",
      class: "BASIC",
      sides: ["input", "output"],
    });
  });
});

describe("evaluateNow", () => {
  /** Results with their times left out: the two calls run at different moments. */
  const timeless = (results: GuardrailResult[]) =>
    results.map(({ execution_time: _t, created_at: _c, checks, ...rest }) => ({
      ...rest,
      checks: checks.map(({ execution_time: _ct, created_at: _cc, ...check }) => check),
    }));
  const later = {
    id: "later",
    class: "custom",
    apiVersion: 1,
    checks: [
      {
        id: "yes",
        description: "passes, after a promise",
        sides: ["input"],
        parameters: { type: "object" },
        run: () => Promise.resolve({ verdict: true }),
      },
    ],
  } as const;

  it("returns the evaluation itself for prepared guardrails that ran without waiting, as evaluate gives it", async () => {
    const e = await createEngine({ plugins: [later as never] });
    const { input } = await e.normalize({
      input_guardrails: [
        simpleGuardrail({ deny: true }),
        { id: "counts", checks: [{ id: "default.wordCount", parameters: { minWords: 2 } }] },
      ],
    });
    for (const text of ["pass", "fail", "two words"]) {
      const options = { side: "input", requestType: "chatComplete", request: chat(text), prepared: input } as const;
      const now = e.evaluateNow(options);
      expect(now).not.toBeInstanceOf(Promise);
      const awaited = await e.evaluate(options);
      const value = now as Awaited<typeof now>;
      expect({ ...value, results: timeless(value.results) }).toEqual({ ...awaited, results: timeless(awaited.results) });
    }
  });

  it("returns a promise when a check answered with one or the guardrails must be resolved, and throws where evaluate rejects", async () => {
    const e = await createEngine({ plugins: [later as never] });
    const { input } = await e.normalize({ input_guardrails: [{ id: "l", checks: [{ id: "later.yes" }] }] });
    const pending = e.evaluateNow({ side: "input", requestType: "chatComplete", request: chat("hi"), prepared: input });
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).status).toBe(200);
    const resolved = e.evaluateNow({
      side: "input",
      requestType: "chatComplete",
      request: chat("pass"),
      guardrails: [simpleGuardrail()],
    });
    expect(resolved).toBeInstanceOf(Promise);
    expect((await resolved).verdict).toBe(true);
    const bad = { side: "sideways", requestType: "chatComplete", request: chat("hi"), prepared: input } as never;
    expect(() => e.evaluateNow(bad)).toThrow(/side/);
    await expect(e.evaluate(bad)).rejects.toThrow(/side/);
  });
});
