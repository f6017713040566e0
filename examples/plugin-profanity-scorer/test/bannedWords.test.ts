// Tests run the check through a real guardgate engine with testCheck: the result is the one the
// gateway would report in hook_results.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testCheck } from "guardgate/testing";
import bannedWords from "../src/bannedWords.js";
import plugin from "../src/index.js";

const parameters = { words: ["confidential", "internal"] };

describe("bannedWords", () => {
  it("passes a text without a banned word", async () => {
    const result = await testCheck(bannedWords, { plugin, text: "A friendly answer.", parameters });
    assert.equal(result.id, `${plugin.id}.bannedWords`);
    assert.equal(result.verdict, true);
    assert.deepEqual(result.data.found, []);
  });

  it("fails a text with a banned word, whatever its case", async () => {
    const result = await testCheck(bannedWords, { plugin, text: "This is INTERNAL and Confidential.", parameters });
    assert.equal(result.verdict, false);
    assert.deepEqual(result.data.found, ["internal", "confidential"]);
  });

  it("matches whole words only", async () => {
    const result = await testCheck(bannedWords, { plugin, text: "An international team.", parameters });
    assert.equal(result.verdict, true);
  });

  it("checks the response side too", async () => {
    const result = await testCheck(bannedWords, { plugin, side: "output", text: "Strictly confidential.", parameters });
    assert.equal(result.verdict, false);
  });

  it("refuses parameters that do not match the schema, as the gateway does when it loads a config", async () => {
    await assert.rejects(testCheck(bannedWords, { plugin, text: "x", parameters: { words: [] } }), /parameters\.words/);
  });
});
