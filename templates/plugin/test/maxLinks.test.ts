// Tests run the check through a real guardgate engine with testCheck: the result is the one the
// gateway would report in hook_results. runExamples runs every example the check declares the
// same way and lists where the check disagrees with the verdict or data an example states.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runExamples, testCheck } from "guardgate/testing";
import plugin from "../src/index.js";
import maxLinks from "../src/maxLinks.js";

const links = (n: number) => Array.from({ length: n }, (_, i) => `https://site${i}.example/page`).join(" and ");

describe("maxLinks", () => {
  it("gives the verdict each of its examples states", async () => {
    const runs = await runExamples(maxLinks, { plugin });
    assert.equal(runs.length, maxLinks.examples?.length);
    assert.deepEqual(
      runs.flatMap((run) => run.problems),
      [],
    );
  });

  it("passes a text with no more links than allowed", async () => {
    const result = await testCheck(maxLinks, { plugin, text: `Read ${links(3)}.` });
    assert.equal(result.id, `${plugin.id}.maxLinks`);
    assert.equal(result.verdict, true);
    assert.equal(result.data.linkCount, 3);
  });

  it("does not count links to allowed domains or their subdomains", async () => {
    const text = "See https://example.com/a, https://docs.example.com/b and https://other.example/c.";
    const result = await testCheck(maxLinks, { plugin, text, parameters: { max: 0, allowDomains: ["example.com"] } });
    assert.deepEqual(result.data.links, ["https://other.example/c"]);
  });

  it("checks the response side too", async () => {
    const result = await testCheck(maxLinks, { plugin, side: "output", text: links(5) });
    assert.equal(result.verdict, false);
  });

  it("refuses parameters the gateway would refuse when it loads a config", async () => {
    await assert.rejects(testCheck(maxLinks, { plugin, text: "x", parameters: { max: -1 } }), /parameters\.max: must be >= 0/);
    await assert.rejects(
      testCheck(maxLinks, { plugin, text: "x", parameters: { allowDomains: ["https://example.com"] } }),
      /parameters\.allowDomains: "https:\/\/example\.com" is a URL; give its domain/,
    );
  });
});
