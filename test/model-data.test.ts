/**
 * The written prompt-injection rows: well-formed, tagged with family and language, balanced, made
 * by the committed generator (byte for byte), indirect injections beside their clean twins, and
 * no duplicates among themselves or of the shared datasets (that part skips with a message when
 * ../shared/datasets is missing).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PROMPT_INJECTION_DIR, readRows, seededRandom, WRITTEN_DIR } from "../scripts/models/dataset.js";
import { buildCarrier, CARRIER_KINDS, INLINE_KINDS } from "../scripts/models/data/carriers.js";
import { findDuplicates } from "../scripts/models/data/check-duplicates.js";
import { buildWrittenData, countTables, serialise, type WrittenRow } from "../scripts/models/data/generate.js";
import { PACKS } from "../scripts/models/data/text/index.js";

const datasetsPresent = existsSync(PROMPT_INJECTION_DIR);
if (!datasetsPresent) console.warn(`skipping the duplicate check against the datasets: ${PROMPT_INJECTION_DIR} is missing`);

const data = buildWrittenData();
const rows: WrittenRow[] = [...data.values()].flat();

const ATTACK_FAMILIES = [
  "direct-override",
  "persona-jailbreak",
  "system-prompt-extraction",
  "exfiltration",
  "refusal-suppression",
  "encoded-payload",
  "multi-turn",
  "indirect",
];
const LANGUAGES = [
  "en",
  "de",
  "fr",
  "es",
  "pt",
  "it",
  "nl",
  "pl",
  "ru",
  "uk",
  "tr",
  "ar",
  "he",
  "hi",
  "zh",
  "ja",
  "ko",
  "vi",
  "id",
  "th",
];
const NEGATIVE_FAMILIES = [
  "sensitive-question",
  "quoted-attack",
  "translate-attack",
  "contract-policy",
  "benign-persona",
  "commit-message",
  "long-document",
];

describe("written rows", () => {
  it("are the committed files, byte for byte (npm run data:models regenerates them)", () => {
    for (const [name, fileRows] of data) {
      const file = path.join(WRITTEN_DIR, name);
      expect(existsSync(file), `${name} is missing`).toBe(true);
      expect(readFileSync(file, "utf8"), `${name} is out of date`).toBe(fileRows.map(serialise).join("\n") + "\n");
    }
  });

  it("are counted in the README as they are", () => {
    expect(readFileSync(path.join(WRITTEN_DIR, "README.md"), "utf8")).toContain(countTables(rows));
  });

  it("each have a text, a label, a family, a language and a source naming the family", () => {
    for (const row of rows) {
      expect(row.text.trim().length, row.category).toBeGreaterThan(0);
      expect(row.text.length).toBeLessThanOrEqual(20_000);
      expect([0, 1]).toContain(row.label);
      expect(row.source).toBe(`generated:guardgate/${row.family}`);
      expect(row.language).toMatch(/^[a-z]{2}$/);
      expect(row.category).toMatch(/^generated_[a-z0-9_]+$/);
    }
  });

  it("are read by the training loader with their family and language", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "guardgate-data-"));
    try {
      const file = path.join(dir, "sample.jsonl");
      writeFileSync(file, (rows.slice(0, 3).map(serialise).join("\n") + "\n\n") as string);
      const read = readRows(file).rows;
      expect(read.map((r) => [r.family, r.language, r.source, r.category])).toEqual(
        rows.slice(0, 3).map((r) => [r.family, r.language, r.source, r.category]),
      );
      writeFileSync(file, '{"text": "no tags", "label": 0}\n');
      expect(readRows(file).rows[0]).toEqual({
        text: "no tags",
        label: 0,
        source: "sample.jsonl",
        category: "sample.jsonl",
        file: "sample.jsonl",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("number at least 5,000, about as many benign as attacks", () => {
    const attacks = rows.filter((r) => r.label === 1).length;
    expect(rows.length).toBeGreaterThanOrEqual(5_000);
    expect(attacks / rows.length).toBeGreaterThan(0.4);
    expect(attacks / rows.length).toBeLessThan(0.6);
  });

  it("cover every attack family and kind of hard negative in each of the 20 languages", () => {
    expect(PACKS.map((p) => p.language).sort()).toEqual([...LANGUAGES].sort());
    for (const language of LANGUAGES) {
      const mine = rows.filter((r) => r.language === language);
      for (const family of ATTACK_FAMILIES) {
        expect(mine.filter((r) => r.family === family && r.label === 1).length, `${language} ${family}`).toBeGreaterThan(2);
      }
      for (const family of NEGATIVE_FAMILIES) {
        expect(mine.filter((r) => r.family === family && r.label === 0).length, `${language} ${family}`).toBeGreaterThan(2);
      }
    }
  });

  it("carry indirect injections in every kind of carrier, at the start, middle and end, each beside its clean twin", () => {
    const indirect = rows.filter((r) => r.family === "indirect");
    for (const kind of CARRIER_KINDS) {
      for (const position of ["start", "middle", "end"]) {
        expect(
          indirect.filter((r) => r.category.startsWith(`generated_indirect_${kind}_${position}`)).length,
          `${kind} ${position}`,
        ).toBeGreaterThanOrEqual(PACKS.length);
      }
    }
    for (let i = 0; i < indirect.length; i += 2) {
      const [injected, clean] = [indirect[i] as WrittenRow, indirect[i + 1] as WrittenRow];
      expect([injected.label, clean.label], injected.category).toEqual([1, 0]);
      expect(clean.category).toBe(`generated_indirect_${injected.category.split("_")[2]}_clean`);
      expect(clean.text.length).toBeLessThan(injected.text.length);
    }
    expect(indirect.filter((r) => r.text.length >= 10_000).length).toBeGreaterThan(PACKS.length);
  });
});

describe("carriers", () => {
  const marker = "PLANTED INSTRUCTION MARKER";
  const withoutDigits = (text: string) => text.replace(/[0-9]/g, "");

  it("differ from their clean twin only by the payload, placed at the start, middle or end", () => {
    for (const pack of PACKS) {
      for (const kind of CARRIER_KINDS) {
        for (const size of ["short", "medium", "long"] as const) {
          const clean = buildCarrier(kind, pack, seededRandom(7), size, undefined);
          expect(clean).not.toContain(marker);
          const offsets: number[] = [];
          for (const [position, inline] of [
            ["start", false],
            ["middle", false],
            ["end", false],
            ["start", true],
            ["middle", true],
            ["end", true],
          ] as const) {
            const injected = buildCarrier(kind, pack, seededRandom(7), size, { text: marker, position, inline });
            offsets.push(injected.indexOf(marker) / injected.length);
            // Ids and times are renumbered after placing; everything else is the twin plus one insertion.
            const [a, b] = [withoutDigits(injected), withoutDigits(clean)];
            let prefix = 0;
            while (prefix < b.length && a[prefix] === b[prefix]) prefix++;
            let suffix = 0;
            while (suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
            expect(prefix + suffix, `${pack.language} ${kind} ${size} ${position} ${inline}`).toBe(b.length);
            if (inline && INLINE_KINDS.has(kind)) {
              // Joined to ordinary text: the marker's line holds more than the marker.
              const line = injected.split("\n").find((l) => l.includes(marker)) ?? "";
              expect(
                line.replace(marker, "").replace(/[^\p{L}]/gu, "").length,
                `${pack.language} ${kind} ${size} ${position}`,
              ).toBeGreaterThan(10);
            }
          }
          for (const offsets3 of [offsets.slice(0, 3), offsets.slice(3)]) {
            const [start, middle, end] = offsets3 as [number, number, number];
            expect(start, `${pack.language} ${kind} ${size}`).toBeGreaterThan(-1);
            expect(start).toBeLessThanOrEqual(middle);
            expect(middle).toBeLessThanOrEqual(end);
          }
        }
      }
    }
  });
});

describe("duplicates", () => {
  it("none among the written rows", () => {
    expect(findDuplicates(path.join(tmpdir(), "no-datasets-here"))).toEqual([]);
  });

  it.skipIf(!datasetsPresent)("none of a shared dataset row, exact or after normalising", () => {
    expect(findDuplicates()).toEqual([]);
  });
});
