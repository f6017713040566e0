// The check as the gateway runs it, through guardgate's testCheck.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluateCheck, runExamples, testCheck } from "guardgate/testing";
import plugin from "../src/index.js";
import score from "../src/score.js";

describe("profanity.score", () => {
  it("gives the verdict each of its examples states", async () => {
    const runs = await runExamples(score, { plugin });
    assert.equal(runs.length, score.examples?.length);
    assert.deepEqual(
      runs.flatMap((run) => run.problems),
      [],
    );
  });

  it("passes a clean text with a score of 0", async () => {
    const result = await testCheck(score, { plugin, text: "Thanks, that was helpful." });
    assert.equal(result.id, "profanity.score");
    assert.equal(result.verdict, true);
    assert.equal(result.data.score, 0);
    assert.equal(result.data.explanation, "No profanity found.");
  });

  it("passes one mild word under the default threshold of 2, and fails two", async () => {
    assert.equal((await testCheck(score, { plugin, text: "What the hell." })).verdict, true);
    const two = await testCheck(score, { plugin, text: "Damn, what the hell." });
    assert.equal(two.verdict, false);
    assert.equal(two.data.score, 2);
    assert.equal(two.data.explanation, "Score 2 reaches the threshold 2: found damn, hell.");
  });

  it("fails one strong word however it is written", async () => {
    const result = await testCheck(score, { plugin, text: "This is total bullsh1t." });
    assert.equal(result.verdict, false);
    assert.deepEqual(result.data.matches, [{ word: "bullshit", text: "bullsh1t", index: 14, severity: 2 }]);
  });

  it("scores the response side too", async () => {
    const result = await testCheck(score, { plugin, side: "output", text: "F*ck that." });
    assert.equal(result.verdict, false);
    assert.equal(result.data.score, 3);
  });

  it("takes extra words and allowed words", async () => {
    const parameters = { extraWords: { frak: 2 }, allowWords: ["hell"] };
    const result = await testCheck(score, { plugin, text: "Frakking hell, hell, hell.", parameters });
    assert.equal(result.data.score, 2);
    assert.deepEqual(
      (result.data.matches as Array<{ word: string }>).map((m) => m.word),
      ["frak"],
    );
  });

  it("masks what it found when redact is on, whatever the verdict", async () => {
    const { result, text } = await evaluateCheck(score, {
      plugin,
      text: "Damn, that was a sh*tty call.",
      parameters: { threshold: 4, redact: true },
    });
    assert.equal(result.verdict, true);
    assert.equal(result.transformed, true);
    assert.equal(text, "D***, that was a s***** call.");
  });

  it("refuses parameters outside the schema, as the gateway does when it loads a config", async () => {
    await assert.rejects(
      testCheck(score, { plugin, text: "x", parameters: { threshold: 0 } }),
      /parameters\.threshold: must be > 0/,
    );
    await assert.rejects(
      testCheck(score, { plugin, text: "x", parameters: { extraWords: { frak: 5 } } }),
      /parameters\.extraWords\.frak: must be <= 3/,
    );
  });
});
