/** mistral.moderateContent against the contract fake of Mistral's moderation endpoints. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectFailureContract } from "../../test/support/partners/contract.js";
import { runPartner } from "../../test/support/partners/evaluate.js";
import type { PartnerFake } from "../../test/support/partners/fake.js";
import { MISTRAL_KEY, startMistralFake } from "../../test/support/partners/mistral.js";

let fake: PartnerFake;
beforeAll(async () => {
  fake = await startMistralFake();
});
afterAll(() => fake.close());

const credentials = () => ({ mistral: { apiKey: MISTRAL_KEY, baseURL: fake.origin } });
const CATEGORIES = ["hate_and_discrimination", "violence_and_threats"];
const lastSent = () => ({ url: fake.requests.at(-1)?.url, body: JSON.parse(fake.requests.at(-1)?.body ?? "{}") });

describe("mistral.moderateContent", () => {
  it("sends the conversation to the chat endpoint and passes clean text", async () => {
    const { result, json } = await runPartner({
      checkId: "mistral.moderateContent",
      text: "",
      parameters: { categories: CATEGORIES },
      credentials: credentials(),
      body: {
        model: "m",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: [{ type: "text", text: "Hi there" }] },
        ],
      },
    });
    expect(result.verdict).toBe(true);
    expect(result.data).toMatchObject({ endpoint: "chat", model: "mistral-moderation-latest", failedCategories: [] });
    expect(lastSent()).toEqual({
      url: "/v1/chat/moderations",
      body: {
        model: "mistral-moderation-latest",
        input: [
          [
            { role: "system", content: "Be brief." },
            { role: "user", content: "Hi there" },
          ],
        ],
      },
    });
    expect(json).not.toContain(MISTRAL_KEY);
  });

  it("fails a chosen category on either side and lets other flags through", async () => {
    const input = await runPartner({
      checkId: "mistral.moderateContent",
      text: "stupid people everywhere",
      parameters: { categories: CATEGORIES },
      credentials: credentials(),
    });
    expect(input.result.verdict).toBe(false);
    expect(input.result.data.failedCategories).toEqual(["hate_and_discrimination"]);
    const output = await runPartner({
      checkId: "mistral.moderateContent",
      text: "I will kill you",
      side: "output",
      parameters: { categories: CATEGORIES },
      credentials: credentials(),
    });
    expect(output.result.verdict).toBe(false);
    expect(lastSent().body.input[0].at(-1)).toEqual({ role: "assistant", content: "I will kill you" });
    const health = await runPartner({
      checkId: "mistral.moderateContent",
      text: "Can you diagnose this rash?",
      parameters: { categories: CATEGORIES },
      credentials: credentials(),
    });
    expect(health.result.verdict).toBe(true);
    expect(health.result.data.explanation).toBe("Mistral moderation flagged none of the chosen categories (it flagged health).");
  });

  it("sends a completion prompt to the raw-text endpoint", async () => {
    const { result } = await runPartner({
      checkId: "mistral.moderateContent",
      text: "",
      requestType: "complete",
      body: { model: "m", prompt: "kill the lights" },
      parameters: { categories: CATEGORIES },
      credentials: credentials(),
    });
    expect(result.verdict).toBe(false);
    expect(lastSent()).toEqual({
      url: "/v1/moderations",
      body: { model: "mistral-moderation-latest", input: ["kill the lights"] },
    });
  });

  it("requires categories, as the peer gateway does", async () => {
    await expect(runPartner({ checkId: "mistral.moderateContent", text: "x", credentials: credentials() })).rejects.toThrow(
      "parameters.categories: is required",
    );
  });

  it("errors on every vendor failure, never passing, never leaking the key", async () => {
    await expectFailureContract(fake, "Mistral moderation", { id: "x", results: [{}] }, [MISTRAL_KEY], () =>
      runPartner({
        checkId: "mistral.moderateContent",
        text: "hello",
        parameters: { categories: CATEGORIES, timeout: 300, failOnError: true },
        credentials: credentials(),
      }),
    );
  });
});
