/** bedrock.guard against the contract fake of Amazon Bedrock's ApplyGuardrail, which verifies the SigV4 signature. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BEDROCK_KEY_ID, BEDROCK_REGION, BEDROCK_SECRET, startBedrockFake } from "../../test/support/partners/bedrock.js";
import { expectFailureContract } from "../../test/support/partners/contract.js";
import { runPartner } from "../../test/support/partners/evaluate.js";
import type { PartnerFake } from "../../test/support/partners/fake.js";

let fake: PartnerFake;
beforeAll(async () => {
  fake = await startBedrockFake();
});
afterAll(() => fake.close());

const credentials = (overrides: Record<string, unknown> = {}) => ({
  bedrock: {
    awsAccessKeyId: BEDROCK_KEY_ID,
    awsSecretAccessKey: BEDROCK_SECRET,
    awsRegion: BEDROCK_REGION,
    baseURL: fake.origin,
    ...overrides,
  },
});
const GUARDRAIL = { guardrailId: "gr0fake1", guardrailVersion: "1" };
const run = (text: string, parameters: Record<string, unknown> = {}, side: "input" | "output" = "input") =>
  runPartner({ checkId: "bedrock.guard", text, parameters: { ...GUARDRAIL, ...parameters }, side, credentials: credentials() });

describe("bedrock.guard", () => {
  it("passes when the guardrail does not intervene, with a valid signature and the side as source", async () => {
    for (const side of ["input", "output"] as const) {
      const { result, json } = await run("What is the tallest mountain?", {}, side);
      expect(result.error).toBeUndefined();
      expect(result.verdict).toBe(true);
      expect(result.data).toMatchObject({ action: "NONE", redacted: false, requestId: "bedrock-req-1" });
      const sent = fake.requests.at(-1);
      expect(sent?.url).toBe("/guardrail/gr0fake1/version/1/apply");
      expect(JSON.parse(sent?.body ?? "{}")).toEqual({
        source: side === "input" ? "INPUT" : "OUTPUT",
        content: [{ text: { text: "What is the tallest mountain?" } }],
      });
      expect(sent?.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCK00001\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
      );
      expect(json).not.toContain(BEDROCK_SECRET);
    }
  });

  it("fails when the guardrail blocks, keeping the assessments without the matched text", async () => {
    const { result } = await run("how do I kill a process, my password is hunter2");
    expect(result.verdict).toBe(false);
    expect(result.data.action).toBe("GUARDRAIL_INTERVENED");
    expect(result.data.actionReason).toBe("Guardrail blocked (INPUT).");
    expect(JSON.stringify(result.data.assessments)).toContain('"type":"VIOLENCE"');
    expect(JSON.stringify(result.data)).not.toContain('"match"');
  });

  it("masks anonymized personal data with redact, keeping the response's shape", async () => {
    const response = {
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [
        { index: 0, message: { role: "assistant", content: "Write to ops@example.com for access." }, finish_reason: "stop" },
      ],
    };
    const masked = await runPartner({
      checkId: "bedrock.guard",
      text: "",
      side: "output",
      body: response,
      parameters: { ...GUARDRAIL, redact: true },
      credentials: credentials(),
    });
    expect(masked.result.verdict).toBe(true);
    expect(masked.result.data.redacted).toBe(true);
    expect(masked.body).toEqual({
      ...response,
      choices: [{ index: 0, message: { role: "assistant", content: "Write to {EMAIL} for access." }, finish_reason: "stop" }],
    });
    const unmasked = await run("Write to ops@example.com");
    expect(unmasked.result.verdict).toBe(false);
    expect(unmasked.result.data.explanation).toContain("set redact to let the masked text through");
    const blocked = await run("kill ops@example.com", { redact: true });
    expect(blocked.result.verdict).toBe(false);
    expect(blocked.transformed).toBe(false);
  });

  it("accepts the peer gateway's older credential names, with the guardrail in the credentials", async () => {
    const { result } = await runPartner({
      checkId: "bedrock.guard",
      text: "hello",
      credentials: {
        bedrock: {
          accessKeyId: BEDROCK_KEY_ID,
          accessKeySecret: BEDROCK_SECRET,
          region: BEDROCK_REGION,
          guardrailId: "gr0fake1",
          guardrailVersion: "DRAFT",
          baseURL: fake.origin,
        },
      },
    });
    expect(result.error).toBeUndefined();
    expect(result.verdict).toBe(true);
  });

  it("names a wrong secret, an unknown guardrail and a missing guardrail as errors", async () => {
    const wrong = await runPartner({
      checkId: "bedrock.guard",
      text: "hello",
      parameters: GUARDRAIL,
      credentials: credentials({ awsSecretAccessKey: "not-the-secret-000000000" }),
    });
    expect((wrong.result.error as { message: string }).message).toMatch(
      /^Amazon Bedrock Guardrails denied access with these credentials, HTTP 403: The request signature we calculated/,
    );
    expect(wrong.json).not.toContain("not-the-secret-000000000");
    const unknown = await run("hello", { guardrailId: "gr0other" });
    expect((unknown.result.error as { message: string }).message).toMatch(
      /rejected the call, HTTP 404: The guardrail gr0other version 1 was not found/,
    );
    const missing = await runPartner({ checkId: "bedrock.guard", text: "hello", credentials: credentials() });
    expect(missing.result.error).toEqual({
      name: "PartnerError",
      message: "Amazon Bedrock Guardrails needs the parameters guardrailId and guardrailVersion",
    });
  });

  it("errors on every vendor failure, never passing, never leaking the secret", async () => {
    await expectFailureContract(fake, "Amazon Bedrock Guardrails", { outputs: [] }, [BEDROCK_SECRET], () =>
      run("hello", { timeout: 300, failOnError: true }),
    );
  });
});
