import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareCheck, runOnText } from "../../test/support/check-harness.js";
import { FAKE_SETTINGS, type PartnerFake } from "../../test/support/partners/fake.js";
import { PATRONUS_KEY, startPatronusFake } from "../../test/support/partners/patronus.js";
import { vendorErrorCases } from "../../test/support/partners/vendor-error-cases.js";
import partner from "./index.js";

const patronus = partner.plugin;

let fake: PartnerFake;
beforeAll(async () => {
  fake = await startPatronusFake();
});
afterAll(() => fake.close());

const check = (id: string) => patronus.checks.find((c) => c.id === id)!;
const credentials = () => ({ apiKey: PATRONUS_KEY, baseURL: fake.origin });
const request = { model: "gpt-4o", messages: [{ role: "user", content: "Tell me about the weather" }] };

function run(id: string, answer: string, parameters: Record<string, unknown> = {}, given?: Record<string, unknown>) {
  return runOnText(check(id), answer, parameters, {
    side: "output",
    request,
    credentials: given ?? credentials(),
    settings: FAKE_SETTINGS,
  });
}

describe("patronus", () => {
  it("declares the peer gateway's evaluator checks, on the output side", () => {
    expect(patronus.checks.map((c) => c.id)).toEqual([
      "phi",
      "pii",
      "isConcise",
      "isHelpful",
      "isPolite",
      "noApologies",
      "noGenderBias",
      "noRacialBias",
      "retrievalAnswerRelevance",
      "retrievalHallucination",
      "toxicity",
      "custom",
    ]);
    for (const c of patronus.checks) expect(c.sides).toEqual(["output"]);
  });

  it("posts the prompt and the answer with the judge's criteria, and passes on pass", async () => {
    const outcome = await run("isPolite", "It is sunny today.");
    expect(outcome.verdict).toBe(true);
    const sent = fake.requests.at(-1)!;
    expect(sent.url).toBe("/v1/evaluate");
    expect(sent.headers["x-api-key"]).toBe(PATRONUS_KEY);
    expect(JSON.parse(sent.body)).toEqual({
      evaluators: [{ evaluator: "judge", criteria: "patronus:is-polite", explain_strategy: "always" }],
      task_input: "Tell me about the weather",
      task_output: "It is sunny today.",
    });
    expect(outcome.data).toMatchObject({ pass: true, score: 1, criteria: "patronus:is-polite" });
    expect(typeof outcome.data?.latencyMs).toBe("number");
  });

  it("fails when the evaluator does not pass, keeping its explanation", async () => {
    const outcome = await run("toxicity", "You are an idiot.");
    expect(outcome.verdict).toBe(false);
    expect(outcome.data).toMatchObject({ pass: false, score: 0, evaluator: "toxicity-large-2024-05-16" });
    expect(outcome.data?.explanation).toMatch(/does not meet/);
  });

  it("pii fails on personal data; with redact it masks the spans Patronus found and passes", async () => {
    expect((await run("pii", "Write to jane@example.com")).verdict).toBe(false);
    const outcome = await run("pii", "Write to jane@example.com or bob@example.org.", { redact: true });
    expect(outcome.verdict).toBe(true);
    expect(outcome.transformedText).toBe("Write to [PII] or [PII].");
    expect(outcome.data).toMatchObject({ spans: 2 });
  });

  it("custom sends the criteria it is given, and a config without criteria is refused", async () => {
    await run("custom", "fine", { criteria: "my-team:no-brackets" });
    expect(JSON.parse(fake.requests.at(-1)!.body).evaluators).toEqual([
      { evaluator: "judge", criteria: "my-team:no-brackets", explain_strategy: "always" },
    ]);
    expect(() => prepareCheck(check("custom"), {}, "output")).toThrow(/criteria.*required/);
  });

  it("is an error when Patronus reports the evaluation itself failed", async () => {
    fake.fail({ body: { results: [{ evaluator_id: "x", status: "failure", error_message: "evaluator unavailable" }] } });
    await expect(run("toxicity", "hi")).rejects.toThrow("Patronus could not evaluate with toxicity: evaluator unavailable");
  });

  vendorErrorCases({
    service: "Patronus",
    fake: () => fake,
    run: ({ credentials: given, timeout }) => run("isConcise", "ok", { ...(timeout && { timeout }) }, given),
    wrongCredentials: () => ({ apiKey: "patronus-wrong-key", baseURL: fake.origin }),
    secrets: [PATRONUS_KEY, "patronus-wrong-key"],
  });
});
