/** What a check's data may carry back: echoes withheld on a denied or transformed side, and a size cap. */
import { describe, expect, it } from "vitest";
import { cappedData, DATA_MAX_BYTES, settleResultData } from "./result-data.js";
import type { GuardrailResult } from "./types.js";

function results(data: Record<string, unknown>): GuardrailResult[] {
  return [
    {
      verdict: true,
      id: "g",
      transformed: false,
      checks: [
        {
          data,
          verdict: true,
          id: "p.c",
          execution_time: 1,
          transformed: false,
          created_at: "",
          log: null,
          fail_on_error: false,
        },
      ],
      feedback: null,
      execution_time: 1,
      async: false,
      type: "guardrail",
      created_at: "",
      deny: false,
    },
  ];
}

const echoes = () => ["matchedJson"];

describe("settleResultData", () => {
  it("withholds the excerpt and every echoing field of a denied side", () => {
    const settled = results({ textExcerpt: "the secret", matchedJson: { a: 1 }, count: 3 });
    settleResultData(settled, { denied: true, echoes });
    expect(settled[0]?.checks[0]?.data).toEqual({ count: 3 });
  });

  it("takes the excerpt from the transformed text and withholds the other echoes", () => {
    const settled = results({ textExcerpt: "mail bob@x.io", matchedJson: { to: "bob@x.io" }, count: 3 });
    settleResultData(settled, { denied: false, transformedText: "mail [EMAIL]", echoes });
    expect(settled[0]?.checks[0]?.data).toEqual({ textExcerpt: "mail [EMAIL]", count: 3 });
  });

  it("withholds only the text-carrying members of a field that also says where", () => {
    const match = () => ({ matchedText: "123-45-6789", index: 4, length: 11, captures: ["45"], groups: { mid: "45" } });
    const memberEchoes = () => ["matchDetails.matchedText", "matchDetails.captures", "matchDetails.groups"];
    const denied = results({ matchDetails: match() });
    settleResultData(denied, { denied: true, echoes: memberEchoes });
    expect(denied[0]?.checks[0]?.data).toEqual({ matchDetails: { index: 4, length: 11 } });
    const passed = results({ matchDetails: match() });
    settleResultData(passed, { denied: false, echoes: memberEchoes });
    expect(passed[0]?.checks[0]?.data).toEqual({ matchDetails: match() });
  });

  it("leaves the data of a side neither denied nor transformed as it is", () => {
    const settled = results({ textExcerpt: "hello", matchedJson: { a: 1 } });
    settleResultData(settled, { denied: false, echoes });
    expect(settled[0]?.checks[0]?.data).toEqual({ textExcerpt: "hello", matchedJson: { a: 1 } });
  });
});

describe("cappedData", () => {
  it(`keeps the first fields that fit in ${DATA_MAX_BYTES} bytes and names the others`, () => {
    const data = { verdict: true, found: Array.from({ length: 10_000 }, (_, i) => `word${i}`), explanation: "why" };
    const capped = cappedData(data);
    expect(Buffer.byteLength(JSON.stringify(capped))).toBeLessThanOrEqual(DATA_MAX_BYTES);
    expect(capped).toEqual({ verdict: true, explanation: "why", dataTruncated: "found" });
  });

  it("returns data under the cap unchanged", () => {
    const data = { a: 1 };
    expect(cappedData(data)).toBe(data);
  });

  it("measures exactly what a cheap bound cannot pass: long ASCII under the cap is kept, escapes over it are not", () => {
    // 20,000 ASCII characters are 20 KB of JSON, though up to six bytes a character may be.
    const ascii = { text: "a".repeat(20_000) };
    expect(cappedData(ascii)).toBe(ascii);
    // 6,000 control characters are escaped as \u0001: 36 KB of JSON.
    const escaped = { text: "\u0001".repeat(6_000), count: 1 };
    expect(cappedData(escaped)).toEqual({ count: 1, dataTruncated: "text" });
  });

  it("measures exactly what the bound does not read: a Date is kept, a toJSON that writes 40 KB is capped", () => {
    const dated = { when: new Date(0) };
    expect(cappedData(dated)).toBe(dated);
    const grows = { small: 1, grows: { toJSON: () => "x".repeat(40_000) } };
    expect(cappedData(grows)).toEqual({ small: 1, dataTruncated: "grows" });
  });
});
