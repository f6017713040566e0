/**
 * Builds the written prompt-injection rows of this folder from the text in `text/`: attacks by
 * family, hard negatives, and indirect injections made BIPIA style (carriers × payloads ×
 * positions, each injected carrier beside its clean twin). Seeded per language and part, so the
 * output is the same on every run and adding a language leaves the others' rows unchanged.
 *
 * `npm run data:models` writes the files; `node dist/scripts/models/data/generate.js --check` exits
 * 1 naming the files that differ from what the text would give now; `--table` prints the counts
 * the README shows.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { seededRandom, shuffle, WRITTEN_DIR } from "../dataset.js";
import { buildCarrier, CARRIER_KINDS, INLINE_KINDS, type CarrierKind } from "./carriers.js";
import { normalisedKey } from "./normalise.js";
import type { LanguagePack } from "./text/pack.js";
import { PACKS } from "./text/index.js";

/** One generated row, in the order its fields are written. */
export interface WrittenRow {
  text: string;
  label: 0 | 1;
  source: string;
  family: string;
  language: string;
  category: string;
}

/** Files written before this generator; its rows must not repeat theirs. */
const EARLIER_FILES = ["hard-negatives.jsonl", "multilingual.jsonl"];
/** The datasets drop texts over this length; so does this. */
const MAX_CHARS = 20_000;
/** Addresses an exfiltration payload sends data to (reserved or made-up domains). */
const ATTACKER_URLS = [
  "https://img-cdn-stats.example/t.gif",
  "https://collect.analytics-pixel.test/i",
  "http://198.51.100.23/c",
  "https://attacker.example.net/leak",
  "https://files.s3-eu-share.example.org/up",
  "https://telemetry.badsite.invalid/px",
];

function row(text: string, label: 0 | 1, family: string, language: string, detail: string): WrittenRow {
  return {
    text,
    label,
    source: `generated:guardgate/${family}`,
    family,
    language,
    category: `generated_${family.replaceAll("-", "_")}_${detail}`,
  };
}

/** A generator seeded by a name, so each language and part draws its own stable sequence. */
function randomFor(name: string): () => number {
  return seededRandom(createHash("sha256").update(name).digest().readUInt32BE(0));
}

function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

/** An opener before a sentence; after a comma the sentence goes on in lower case, as people write. */
function leadIn(opener: string, text: string): string {
  return `${opener} ${opener.endsWith(",") ? text.charAt(0).toLowerCase() + text.slice(1) : text}`;
}

function fillUrl(text: string, random: () => number): string {
  return text.replaceAll("{url}", pick(ATTACKER_URLS, random));
}

/** Scripts written without spaces between words, which are split and spaced by character. */
const UNSPACED = new Set(["zh", "ja", "th"]);
/** Scripts where leetspeak digits stand in for letters. */
const LATIN = /^[\p{Script=Latin}\p{N}\p{P}\p{Zs}]+$/u;

const LEET: Record<string, string> = { a: "4", e: "3", i: "1", o: "0", s: "5", t: "7" };

function leetspeak(text: string, random: () => number): string {
  return [...text].map((c) => (LEET[c.toLowerCase()] !== undefined && random() < 0.7 ? LEET[c.toLowerCase()] : c)).join("");
}

function spaced(text: string): string {
  return text
    .split(/\s+/)
    .map((word) => [...word].join(" "))
    .join("   ");
}

/** Two halves of a sentence, cut at the word (or, unspaced, the character) nearest the middle. */
function halves(text: string, language: string): [string, string] {
  if (UNSPACED.has(language)) {
    const chars = [...text];
    const mid = Math.floor(chars.length / 2);
    return [chars.slice(0, mid).join(""), chars.slice(mid).join("")];
  }
  const words = text.split(" ");
  const mid = Math.max(1, Math.floor(words.length / 2));
  return [words.slice(0, mid).join(" ") + " ", words.slice(mid).join(" ")];
}

/** Chat transcripts in the shapes applications send them: role prefixes, markdown headings, tags. */
const TRANSCRIPTS: ((turns: [string, string][]) => string)[] = [
  (turns) => turns.map(([who, text]) => `${who === "user" ? "User" : "Assistant"}: ${text}`).join("\n"),
  (turns) => turns.map(([who, text]) => `### ${who === "user" ? "Human" : "AI"}\n${text}`).join("\n\n"),
  (turns) => turns.map(([who, text]) => `<${who}>${text}</${who}>`).join("\n"),
];

/** The attack rows of one language. */
export function attackRows(pack: LanguagePack): WrittenRow[] {
  const { language, attacks, leadIns, benign } = pack;
  const random = randomFor(`attacks:${language}`);
  const rows: WrittenRow[] = [];
  const withLeadIn = (text: string) => leadIn(pick(leadIns, random), text);
  for (const text of attacks.override) {
    rows.push(row(text, 1, "direct-override", language, "plain"));
    rows.push(row(withLeadIn(text), 1, "direct-override", language, "lead_in"));
  }
  for (const text of attacks.persona) {
    rows.push(row(text, 1, "persona-jailbreak", language, "plain"));
    rows.push(row(`${text} ${pick(benign.requests, random)}`, 1, "persona-jailbreak", language, "with_request"));
  }
  for (const text of attacks.extraction) {
    rows.push(row(text, 1, "system-prompt-extraction", language, "plain"));
    rows.push(row(withLeadIn(text), 1, "system-prompt-extraction", language, "lead_in"));
  }
  for (const text of attacks.exfiltration) {
    const detail = text.includes("![") ? "markdown_image" : text.includes("](") ? "markdown_link" : "tool";
    rows.push(row(fillUrl(text, random), 1, "exfiltration", language, detail));
    rows.push(
      row(`${pick(benign.requests, random)}\n\n${fillUrl(text, random)}`, 1, "exfiltration", language, `${detail}_after_request`),
    );
  }
  for (const text of attacks.refusal) {
    rows.push(row(text, 1, "refusal-suppression", language, "plain"));
    rows.push(row(`${text} ${pick(attacks.extraction, random)}`, 1, "refusal-suppression", language, "with_extraction"));
  }
  // Encoded, spaced and split forms of the language's own override and extraction sentences.
  const latin = LATIN.test(attacks.override.join(" "));
  for (const source of [...attacks.override, ...attacks.extraction]) {
    const forms: [string, string][] = [
      ["base64", Buffer.from(source, "utf8").toString("base64")],
      ["spaced", spaced(source)],
    ];
    if (latin) forms.push(["leetspeak", leetspeak(source, random)]);
    const [kind, encoded] = pick(forms, random);
    rows.push(row(pick(attacks.encoded, random).replace("{payload}", encoded), 1, "encoded-payload", language, kind));
    const [a, b] = halves(source, language);
    if (random() < 0.5) {
      rows.push(row(pick(attacks.split, random).replace("{a}", a).replace("{b}", b), 1, "encoded-payload", language, "split"));
    }
  }
  // Multi-turn: an ordinary exchange, then a turn that throws it away; the benign twin follows up.
  for (const ignore of attacks.ignoreAbove) {
    for (let i = 0; i < 2; i++) {
      const format = pick(TRANSCRIPTS, random);
      const turns: [string, string][] = [
        ["user", pick(benign.requests, random)],
        ["assistant", pick(benign.replies, random)],
      ];
      rows.push(row(format([...turns, ["user", ignore]]), 1, "multi-turn", language, "ignore_above"));
      rows.push(row(format([...turns, ["user", pick(benign.followUps, random)]]), 0, "multi-turn", language, "benign_follow_up"));
    }
  }
  return rows;
}

/** The hard-negative rows of one language. */
export function negativeRows(pack: LanguagePack): WrittenRow[] {
  const { language, attacks, benign, leadIns } = pack;
  const random = randomFor(`negatives:${language}`);
  const rows: WrittenRow[] = [];
  const quotable = [...attacks.override, ...attacks.extraction, ...attacks.refusal];
  // Sensitive questions and persona requests also come after the openers attacks use, so an
  // opener is no sign of either.
  for (const text of benign.sensitive) {
    rows.push(row(text, 0, "sensitive-question", language, "plain"));
    rows.push(row(leadIn(pick(leadIns, random), text), 0, "sensitive-question", language, "lead_in"));
  }
  for (const frame of benign.quoteFrames) {
    for (const quote of shuffle([...quotable], random).slice(0, 2)) {
      rows.push(row(frame.replace("{quote}", quote), 0, "quoted-attack", language, "discussion"));
    }
  }
  for (const frame of benign.translateFrames) {
    for (const quote of shuffle([...quotable], random).slice(0, 2)) {
      rows.push(row(frame.replace("{quote}", quote), 0, "translate-attack", language, "request"));
    }
  }
  for (const text of benign.contract) {
    rows.push(row(text, 0, "contract-policy", language, "clause"));
    const context = shuffle([...benign.paragraphs], random).slice(0, 2);
    rows.push(row([context[0], text, context[1]].join("\n\n"), 0, "contract-policy", language, "in_document"));
  }
  for (const text of benign.persona) {
    rows.push(row(text, 0, "benign-persona", language, "plain"));
    rows.push(row(leadIn(pick(leadIns, random), text), 0, "benign-persona", language, "lead_in"));
  }
  for (const text of benign.commits) rows.push(row(text, 0, "commit-message", language, "plain"));
  for (const text of benign.triggerWords) {
    rows.push(row(text, 0, "trigger-words", language, "plain"));
    rows.push(row(leadIn(pick(leadIns, random), text), 0, "trigger-words", language, "lead_in"));
  }
  for (const text of benign.requests) {
    rows.push(row(text, 0, "ordinary-request", language, "plain"));
    rows.push(row(leadIn(pick(leadIns, random), text), 0, "ordinary-request", language, "lead_in"));
  }
  // Long ordinary documents, 1 to about 19 KB, with a contract clause and a trigger-word sentence.
  for (let i = 0; i < 6; i++) {
    const target = Math.round(1_000 + Math.pow(random(), 2) * 18_000);
    const parts: string[] = [];
    let section = 1;
    while (parts.join("\n\n").length < target) {
      const pool = shuffle([...benign.paragraphs], random);
      for (const paragraph of pool) {
        parts.push(`${section++}. ${paragraph}`);
        if (parts.join("\n\n").length >= target) break;
      }
    }
    parts.splice(Math.floor(random() * parts.length), 0, pick(benign.contract, random));
    parts.splice(Math.floor(random() * parts.length), 0, pick(benign.triggerWords, random));
    const text = parts.join("\n\n").slice(0, MAX_CHARS - 500);
    rows.push(row(text, 0, "long-document", language, text.length >= 10_000 ? "over_10kb" : "under_10kb"));
  }
  return rows;
}

/** Indirect injections of one language: each carrier with a payload at one position, and without. */
export function indirectRows(pack: LanguagePack, english: LanguagePack, perKind: number): WrittenRow[] {
  const { language } = pack;
  const random = randomFor(`indirect:${language}`);
  const rows: WrittenRow[] = [];
  const positions = ["start", "middle", "end"] as const;
  // Payloads are mostly in the carrier's language; some are English inside a foreign document.
  const payloads = [...pack.attacks.planted, ...pack.attacks.override.slice(0, 3), ...pack.attacks.exfiltration.slice(0, 2)];
  for (const kind of CARRIER_KINDS as readonly CarrierKind[]) {
    for (let i = 0; i < perKind; i++) {
      const position = positions[i % positions.length] ?? "middle";
      const foreign = language !== "en" && random() < 0.2;
      const payload = fillUrl(pick(foreign ? english.attacks.planted : payloads, random), random);
      const size = random() < 0.12 ? "long" : random() < 0.3 ? "medium" : "short";
      const seed = Math.floor(random() * 2 ** 32);
      const inline = INLINE_KINDS.has(kind) && random() < 0.35;
      const injected = buildCarrier(kind, pack, seededRandom(seed), size, { text: payload, position, inline });
      const clean = buildCarrier(kind, pack, seededRandom(seed), size, undefined);
      if (injected.length > MAX_CHARS) continue;
      rows.push(
        row(injected, 1, "indirect", language, `${kind}_${position}${inline ? "_inline" : ""}${foreign ? "_en_payload" : ""}`),
      );
      rows.push(row(clean, 0, "indirect", language, `${kind}_clean`));
    }
  }
  return rows;
}

/** Every written file's rows, by file name, without duplicates (exact or normalised). */
export function buildWrittenData(): Map<string, WrittenRow[]> {
  const seen = new Set<string>();
  for (const name of EARLIER_FILES) {
    const file = path.join(WRITTEN_DIR, name);
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.trim() !== "") seen.add(normalisedKey((JSON.parse(line) as { text: string }).text));
    }
  }
  const english = PACKS.find((p) => p.language === "en");
  if (english === undefined) throw new Error("the English text pack is missing");
  const files = new Map<string, WrittenRow[]>();
  const fresh = (r: WrittenRow) => {
    const key = normalisedKey(r.text);
    return key !== "" && !seen.has(key);
  };
  const keep = (rows: WrittenRow[]) =>
    rows.filter((r) => {
      if (!fresh(r)) return false;
      seen.add(normalisedKey(r.text));
      return true;
    });
  // An injected carrier and its clean twin stay or go together, so every injection keeps its twin.
  const keepPairs = (rows: WrittenRow[]) => {
    const kept: WrittenRow[] = [];
    for (let i = 0; i + 1 < rows.length; i += 2) {
      const [injected, clean] = [rows[i] as WrittenRow, rows[i + 1] as WrittenRow];
      if (!fresh(injected) || !fresh(clean) || normalisedKey(injected.text) === normalisedKey(clean.text)) continue;
      kept.push(...keep([injected, clean]));
    }
    return kept;
  };
  for (const pack of PACKS) {
    files.set(`attacks-${pack.language}.jsonl`, keep(attackRows(pack)));
    files.set(`negatives-${pack.language}.jsonl`, keep(negativeRows(pack)));
    files.set(`indirect-${pack.language}.jsonl`, keepPairs(indirectRows(pack, english, pack.language === "en" ? 15 : 6)));
  }
  return files;
}

/** One row as a JSONL line, fields in a fixed order. */
export function serialise(r: WrittenRow): string {
  return `{"text": ${JSON.stringify(r.text)}, "label": ${r.label}, "source": ${JSON.stringify(r.source)}, "family": ${JSON.stringify(r.family)}, "language": ${JSON.stringify(r.language)}, "category": ${JSON.stringify(r.category)}}`;
}

/**
 * The counts the README shows: one table per label, a row per family and a column per language,
 * with totals. The README test compares them, so the README cannot drift from the files.
 */
export function countTables(rows: readonly WrittenRow[]): string {
  const languages = [...new Set(rows.map((r) => r.language))];
  const table = (label: 0 | 1) => {
    const mine = rows.filter((r) => r.label === label);
    const families = [...new Set(mine.map((r) => r.family))];
    const count = (family?: string, language?: string) =>
      mine.filter((r) => (family === undefined || r.family === family) && (language === undefined || r.language === language))
        .length;
    const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
    return [
      line([label === 1 ? "attacks (label 1)" : "benign (label 0)", ...languages, "total"]),
      line(["---", ...languages.map(() => "---:"), "---:"]),
      ...families.map((f) => line([f, ...languages.map((l) => count(f, l)), count(f)])),
      line(["**total**", ...languages.map((l) => `**${count(undefined, l)}**`), `**${count()}**`]),
    ].join("\n");
  };
  const attacks = rows.filter((r) => r.label === 1).length;
  const overall = `${rows.length.toLocaleString("en")} rows: ${attacks.toLocaleString("en")} attacks, ${(rows.length - attacks).toLocaleString("en")} benign, in ${languages.length} languages.`;
  return `${overall}\n\n${table(1)}\n\n${table(0)}\n`;
}

function main(): void {
  if (process.argv.includes("--table")) {
    process.stdout.write(countTables([...buildWrittenData().values()].flat()));
    return;
  }
  const check = process.argv.includes("--check");
  const stale: string[] = [];
  let total = 0;
  for (const [name, rows] of buildWrittenData()) {
    const file = path.join(WRITTEN_DIR, name);
    const content = rows.map(serialise).join("\n") + "\n";
    total += rows.length;
    if (check) {
      if (!existsSync(file) || readFileSync(file, "utf8") !== content) stale.push(name);
    } else writeFileSync(file, content);
  }
  if (check && stale.length > 0) {
    console.error(`out of date (run npm run data:models): ${stale.join(", ")}`);
    process.exit(1);
  }
  console.log(`${check ? "checked" : "wrote"} ${total} rows`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();
