import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkContext, prepareParameters } from "../../../test/support/check-harness.js";
import { cpuMs } from "../../../test/support/cpu-time.js";
import pii from "./pii.js";
import { ALL_PII_CATEGORIES, type PiiCategory } from "../shared/pii-detection/categories.js";
import { findPii } from "../shared/pii-detection/detect.js";
import { PII_FIGURES } from "../shared/pii-detection/figures.js";
import { isValidSsn, luhnValid } from "../shared/pii-detection/numbers.js";

/** Parameters as the registry prepares them (schema defaults applied, load-time validation). */
function params(given: Record<string, unknown> = {}) {
  return prepareParameters(pii, given) as {
    categories: PiiCategory[];
    phoneRegions: string[];
    redact: boolean;
    not: boolean;
  };
}

async function run(text: string, given: Record<string, unknown> = {}) {
  return await pii.run(checkContext({ text, side: "output" }), params(given));
}

interface Labelled {
  text: string;
  pii: Array<[PiiCategory, string]>;
}

const corpus = JSON.parse(readFileSync(new URL("../fixtures/pii-corpus.json", import.meta.url), "utf8")) as Labelled[];

/** Per-category counts of true positives, false positives and false negatives over the corpus. */
function measure() {
  const counts = Object.fromEntries(ALL_PII_CATEGORIES.map((c) => [c, { tp: 0, fp: 0, fn: 0 }])) as Record<
    PiiCategory,
    { tp: number; fp: number; fn: number }
  >;
  const misses: string[] = [];
  for (const { text, pii: labels } of corpus) {
    const expected = new Set<string>();
    let from = 0;
    for (const [category, value] of labels) {
      const start = text.indexOf(value, from);
      if (start < 0) throw new Error(`fixture value ${value} not in: ${text}`);
      expected.add(`${category}@${start}:${start + value.length}`);
      from = start + value.length;
    }
    const actual = new Set(findPii(text).map((f) => `${f.category}@${f.start}:${f.end}`));
    for (const key of actual) {
      const category = key.split("@")[0] as PiiCategory;
      if (expected.has(key)) counts[category].tp++;
      else {
        counts[category].fp++;
        misses.push(`FP ${key} in: ${text}`);
      }
    }
    for (const key of expected) {
      if (!actual.has(key)) {
        counts[key.split("@")[0] as PiiCategory].fn++;
        misses.push(`FN ${key} in: ${text}`);
      }
    }
  }
  return { counts, misses };
}

const ratio = (n: number, d: number) => (d === 0 ? 1 : n / d);
const round2 = (x: number) => Math.round(x * 100) / 100;

describe("pii: precision and recall on the labelled corpus", () => {
  const { counts, misses } = measure();

  it("has at least 300 lines, with tricky negatives", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    expect(corpus.filter((row) => row.pii.length === 0).length).toBeGreaterThanOrEqual(100);
  });

  it("reaches precision ≥ 0.95 and recall ≥ 0.9 in every category", () => {
    if (misses.length) console.log(misses.join("\n"));
    for (const category of ALL_PII_CATEGORIES) {
      const { tp, fp, fn } = counts[category];
      expect(ratio(tp, tp + fp), `precision of ${category}`).toBeGreaterThanOrEqual(0.95);
      expect(ratio(tp, tp + fn), `recall of ${category}`).toBeGreaterThanOrEqual(0.9);
    }
  });

  it("matches the figures written in the check's notes", () => {
    const measured = Object.fromEntries(
      ALL_PII_CATEGORIES.map((c) => {
        const { tp, fp, fn } = counts[c];
        return [c, { precision: round2(ratio(tp, tp + fp)), recall: round2(ratio(tp, tp + fn)), support: tp + fn }];
      }),
    );
    expect(PII_FIGURES.perCategory).toEqual(measured);
    expect(PII_FIGURES.lines).toBe(corpus.length);
    expect(PII_FIGURES.positives).toBe(corpus.reduce((n, row) => n + row.pii.length, 0));
  });
});

describe("pii: the check", () => {
  it("fails on personal data and names categories and counts, never values", async () => {
    const text = "Mail jane.doe@example.com or jd@example.org, call +1 415 555 0123.";
    const outcome = await run(text);
    expect(outcome.verdict).toBe(false);
    expect(outcome.data?.counts).toEqual({ EMAIL_ADDRESS: 2, PHONE_NUMBER: 1 });
    expect(outcome.data?.categories).toEqual(["EMAIL_ADDRESS", "PHONE_NUMBER"]);
    const serialised = JSON.stringify(outcome.data);
    for (const value of ["jane.doe@example.com", "jd@example.org", "415 555 0123"]) expect(serialised).not.toContain(value);
  });

  it("redacts each finding by its category and passes", async () => {
    const outcome = await run("Card 4111 1111 1111 1111, SSN 123-45-6789, IP 192.0.2.1, see https://example.com/a.", {
      redact: true,
    });
    expect(outcome.verdict).toBe(true);
    expect(outcome.transformedText).toBe("Card [CREDIT_CARD], SSN [SSN], IP [IP_ADDRESS], see [URL].");
    expect(outcome.data?.textExcerpt).toBe("Card [CREDIT_CARD], SSN [SSN], IP [IP_ADDRESS], see [URL].");
  });

  it("filters by categories: an IP inside a URL is found when URLs are not looked for", async () => {
    const text = "Open http://192.0.2.10:8080/status now";
    expect((await run(text)).data?.categories).toEqual(["URL"]);
    expect((await run(text, { categories: ["IP_ADDRESS"] })).data?.categories).toEqual(["IP_ADDRESS"]);
  });

  it("inverts with not; passes on clean and empty text", async () => {
    expect((await run("jane@example.com", { not: true })).verdict).toBe(true);
    expect((await run("nothing personal", { not: true })).verdict).toBe(false);
    expect((await run("")).verdict).toBe(true);
    const clean = await run("nothing personal", { redact: true });
    expect(clean.transformedText).toBeUndefined();
  });

  it("recognises national numbers only for the configured regions", () => {
    const text = "Ring 020 7946 0958 today";
    expect(findPii(text, { phoneRegions: ["GB"] }).map((f) => f.category)).toEqual(["PHONE_NUMBER"]);
    expect(findPii(text, { phoneRegions: ["US"] })).toEqual([]);
    expect(findPii("Ring +44 20 7946 0958 today", { phoneRegions: ["US"] }).map((f) => f.category)).toEqual(["PHONE_NUMBER"]);
  });

  it("rejects bad parameters at load time", () => {
    expect(() => params({ redact: true, not: true })).toThrow(/cannot be combined/);
    expect(() => params({ categories: ["NAME"] })).toThrow(/categories/);
    expect(() => params({ phoneRegions: ["XX"] })).toThrow(/unknown region/);
    expect(() => params({ mask: true })).toThrow(/not a known parameter/);
  });

  it("reports positions in UTF-16 units after astral characters", async () => {
    const text = "😀 write to 😀 a@example.com";
    const finding = ((await run(text)).data?.findings as Array<{ start: number; end: number }> | undefined)?.[0];
    expect(text.slice(finding!.start, finding!.end)).toBe("a@example.com");
  });
});

describe("pii: number rules", () => {
  it("checks Luhn and the SSN ranges", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(isValidSsn("123", "45", "6789")).toBe(true);
    for (const [a, g, s] of [
      ["000", "12", "3456"],
      ["666", "12", "3456"],
      ["900", "12", "3456"],
      ["999", "12", "3456"],
      ["123", "00", "4567"],
      ["123", "45", "0000"],
    ] as const)
      expect(isValidSsn(a, g, s)).toBe(false);
  });
});

describe("pii: cost", () => {
  it("finishes on 1 MB of adversarial text within a few seconds", async () => {
    const pieces = [
      "4111 1111 ",
      "1111 111",
      "+1 (415) 555-",
      "a.b.c.d@",
      "1.2.3.4.",
      "fe80::",
      "DE89 3704 ",
      "http://x",
      "123-45-",
    ];
    let text = "";
    for (let i = 0; text.length < 1_000_000; i++) text += pieces[i % pieces.length];
    const digits = "1234567890".repeat(100_000);
    const spent = await cpuMs(async () => {
      await run(text, { redact: true });
      await run(digits, { redact: true });
    });
    expect(spent).toBeLessThan(10_000);
  });
});
