/** walledai.walledprotect against the contract fake of WalledProtect. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectFailureContract } from "../../test/support/partners/contract.js";
import { runPartner } from "../../test/support/partners/evaluate.js";
import type { PartnerFake } from "../../test/support/partners/fake.js";
import { startWalledFake, WALLED_KEY } from "../../test/support/partners/walledai.js";

let fake: PartnerFake;
beforeAll(async () => {
  fake = await startWalledFake();
});
afterAll(() => fake.close());

const run = (text: string, parameters: Record<string, unknown> = {}, side: "input" | "output" = "input") =>
  runPartner({
    checkId: "walledai.walledprotect",
    text,
    parameters,
    side,
    credentials: { walledai: { apiKey: WALLED_KEY, baseURL: fake.origin } },
  });

describe("walledai.walledprotect", () => {
  it("passes a safe text, sending the peer gateway's defaults", async () => {
    const { result, json } = await run("Hello", { pii_list: ["Email Id"] });
    expect(result.verdict).toBe(true);
    const sent = fake.requests.at(-1)!;
    expect(sent.url).toBe("/v1/walled-protect");
    expect(sent.headers["x-api-key"]).toBe(WALLED_KEY);
    expect(JSON.parse(sent.body)).toEqual({
      text: "Hello",
      generic_safety_check: true,
      greetings_list: ["Casual & Friendly"],
      pii_list: ["Email Id"],
      compliance_list: [],
    });
    expect(json).not.toContain(WALLED_KEY);
  });

  it("fails an unsafe text on either side, reporting PII findings", async () => {
    const { result } = await run("you idiot, mail jane@example.com", { pii_list: ["Email Id"] }, "output");
    expect(result.verdict).toBe(false);
    expect(result.data.pii).toEqual([{ pii_type: "Email Id", isPresent: true }]);
    expect(JSON.parse(fake.requests.at(-1)!.body).generic_safety_check).toBe(true);
    await run("hi", { generic_safety_check: "false" });
    expect(JSON.parse(fake.requests.at(-1)!.body).generic_safety_check).toBe(false);
  });

  it("errors on every vendor failure, never passing, never leaking the key", async () => {
    await expectFailureContract(fake, "Walled AI", { data: { safety: [] } }, [WALLED_KEY], () =>
      run("hello", { timeout: 300, failOnError: true }),
    );
  });
});
