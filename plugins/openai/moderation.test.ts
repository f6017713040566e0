/** openai.moderation against the contract fake of OpenAI's moderation endpoint. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPartner } from "../../test/support/partners/evaluate.js";
import { expectFailureContract } from "../../test/support/partners/contract.js";
import type { PartnerFake } from "../../test/support/partners/fake.js";
import { OPENAI_KEY, startOpenAIFake } from "../../test/support/partners/openai.js";

let fake: PartnerFake;
beforeAll(async () => {
  fake = await startOpenAIFake();
});
afterAll(() => fake.close());

const credentials = () => ({ openai: { apiKey: OPENAI_KEY, baseURL: `${fake.origin}/v1` } });
const run = (text: string, parameters: Record<string, unknown> = {}, side: "input" | "output" = "input") =>
  runPartner({ checkId: "openai.moderation", text, parameters, side, credentials: credentials() });

describe("openai.moderation", () => {
  it("passes clean text, keeping the scores and the call's latency", async () => {
    const { result, json } = await run("What a lovely morning for a walk.");
    expect(result.error).toBeUndefined();
    expect(result.verdict).toBe(true);
    expect(result.data).toMatchObject({
      flagged: false,
      flaggedCategories: [],
      model: "omni-moderation-latest",
      requestId: "req_fake_openai_1",
    });
    expect(typeof result.data.latencyMs).toBe("number");
    expect(json).not.toContain(OPENAI_KEY);
    const sent = fake.requests.at(-1);
    expect(sent?.url).toBe("/v1/moderations");
    expect(JSON.parse(sent?.body ?? "{}")).toEqual({
      model: "omni-moderation-latest",
      input: "What a lovely morning for a walk.",
    });
  });

  it("fails flagged text on both sides, naming the categories", async () => {
    for (const side of ["input", "output"] as const) {
      const { result } = await run("I will kill the process and you too", {}, side);
      expect(result.verdict).toBe(false);
      expect(result.data).toMatchObject({ flagged: true, flaggedCategories: ["violence"] });
      expect(result.data.explanation).toBe("OpenAI moderation flagged violence.");
    }
  });

  it("fails only on chosen categories, and on scores at or over a threshold", async () => {
    const chosen = await run("you idiot", { categories: ["violence"] });
    expect(chosen.result.verdict).toBe(true);
    expect(chosen.result.data.explanation).toContain("not among the chosen categories: harassment");
    const strict = await run("you are worthless", { thresholds: { harassment: 0.3 } });
    expect(strict.result.verdict).toBe(false);
    expect(strict.result.data).toMatchObject({ flagged: false, overThreshold: ["harassment"] });
  });

  it("rejects unknown categories when the config is loaded", async () => {
    await expect(run("x", { categories: ["violent"] })).rejects.toThrow("parameters.categories[0]: must be one of");
  });

  it("does not call the service for an empty text", async () => {
    const before = fake.requests.length;
    const { result } = await run("   ");
    expect(result.verdict).toBe(true);
    expect(fake.requests.length).toBe(before);
  });

  it("takes the check's parameters.credentials over the integration's", async () => {
    const { result } = await runPartner({
      checkId: "openai.moderation",
      text: "hello",
      parameters: { credentials: { apiKey: "sk-wrong-key-000000000000", baseURL: `${fake.origin}/v1` } },
      credentials: credentials(),
    });
    expect((result.error as { message: string }).message).toMatch(/^OpenAI moderation refused the credentials, HTTP 401/);
    expect(JSON.stringify(result)).not.toContain("sk-wrong-key-000000000000");
  });

  it("errors on every vendor failure, never passing, never leaking the key", async () => {
    await expectFailureContract(fake, "OpenAI moderation", { id: "modr-1", results: [{ categories: {} }] }, [OPENAI_KEY], () =>
      run("hello", { timeout: 300, failOnError: true }),
    );
  });
});
