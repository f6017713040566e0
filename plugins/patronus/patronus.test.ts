/** The patronus.* evaluator checks against the contract fake of Patronus's Evaluate API. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { locateText } from "../../core/index.js";
import { expectFailureContract } from "../../test/support/partners/contract.js";
import { runPartner } from "../../test/support/partners/evaluate.js";
import type { PartnerFake } from "../../test/support/partners/fake.js";
import { PATRONUS_KEY, startPatronusFake } from "../../test/support/partners/patronus.js";
import { partner } from "./index.js";

let fake: PartnerFake;
beforeAll(async () => {
  fake = await startPatronusFake();
});
afterAll(() => fake.close());

const credentials = () => ({ patronus: { apiKey: PATRONUS_KEY, baseURL: fake.origin } });
const request = { model: "gpt-4o", messages: [{ role: "user", content: "Tell me about the weather" }] };
const run = (check: string, answer: string, parameters: Record<string, unknown> = {}) =>
  runPartner({ checkId: `patronus.${check}`, text: answer, parameters, side: "output", request, credentials: credentials() });

describe("patronus", () => {
  it("declares the peer gateway's evaluator checks, on the output side", () => {
    expect(partner.plugin.checks.map((c) => c.id)).toEqual([
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
    for (const c of partner.plugin.checks) expect(c.sides).toEqual(["output"]);
  });

  it("posts the prompt and the answer with the judge's criteria, and passes on pass", async () => {
    const { result, json } = await run("isPolite", "It is sunny today.");
    expect(result.verdict).toBe(true);
    const sent = fake.requests.at(-1)!;
    expect(sent.url).toBe("/v1/evaluate");
    expect(sent.headers["x-api-key"]).toBe(PATRONUS_KEY);
    expect(JSON.parse(sent.body)).toEqual({
      evaluators: [{ evaluator: "judge", criteria: "patronus:is-polite", explain_strategy: "always" }],
      task_input: "Tell me about the weather",
      task_output: "It is sunny today.",
    });
    expect(result.data).toMatchObject({ pass: true, score: 1, criteria: "patronus:is-polite" });
    expect(typeof result.data.latencyMs).toBe("number");
    expect(json).not.toContain(PATRONUS_KEY);
  });

  it("fails when the evaluator does not pass, keeping its explanation", async () => {
    const { result } = await run("toxicity", "You are an idiot.");
    expect(result.verdict).toBe(false);
    expect(result.data).toMatchObject({ pass: false, score: 0, evaluator: "toxicity-large-2024-05-16" });
    expect(result.data.explanation).toMatch(/does not meet/);
  });

  it("pii fails on personal data; with redact it masks the spans Patronus found and passes", async () => {
    expect((await run("pii", "Write to jane@example.com")).result.verdict).toBe(false);
    const { result, body } = await run("pii", "Write to jane@example.com or bob@example.org.", { redact: true });
    expect(result.verdict).toBe(true);
    expect(locateText("output", "chatComplete", body).text).toBe("Write to [PII] or [PII].");
    expect(result.data).toMatchObject({ spans: 2 });
  });

  it("custom sends the criteria it is given, and a config without criteria is refused", async () => {
    await run("custom", "fine", { criteria: "my-team:no-brackets" });
    expect(JSON.parse(fake.requests.at(-1)!.body).evaluators).toEqual([
      { evaluator: "judge", criteria: "my-team:no-brackets", explain_strategy: "always" },
    ]);
    await expect(run("custom", "fine")).rejects.toThrow(/criteria: is required/);
  });

  it("is an error when Patronus reports the evaluation itself failed", async () => {
    fake.fail({ body: { results: [{ evaluator_id: "x", status: "failure", error_message: "evaluator unavailable" }] } });
    const { result } = await run("toxicity", "hi");
    expect((result.error as { message: string }).message).toBe(
      "Patronus could not evaluate with toxicity: evaluator unavailable",
    );
  });

  it("errors on every vendor failure, never passing, never leaking the key", async () => {
    await expectFailureContract(fake, "Patronus", { results: [] }, [PATRONUS_KEY], () =>
      run("isConcise", "ok", { timeout: 300, failOnError: true }),
    );
  });
});
