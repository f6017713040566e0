/**
 * The labelled JSONL files the models are trained and evaluated on: reading them, fingerprinting
 * them for the weights file, and the deterministic split into train, validation and test by a hash
 * of each text's folded letters (so augmented variants of one text land on the same side).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FoldBuffer, foldText } from "../../plugins/model/shared/fold.js";

/** One labelled row. */
export interface Row {
  text: string;
  label: 0 | 1;
  source: string;
  category: string;
  /** The attack family or kind of benign text, where the file tags it (the written rows do). */
  family?: string;
  /** ISO 639-1 code of the text's language, where the file tags it. */
  language?: string;
  /** The file it came from (base name). */
  file: string;
}

/** What a weights file records about one training file. */
export interface FileRecord {
  name: string;
  rows: number;
  sha256: string;
}

/** The repository root: the nearest folder above this module with a package.json. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) dir = path.dirname(dir);
  return dir;
}

export const ROOT = packageRoot();
/** Where the shared datasets live, beside the repository (absent on a fresh clone). */
export const DATASETS = path.resolve(ROOT, "..", "shared", "datasets");
export const PROMPT_INJECTION_DIR = path.join(DATASETS, "prompt-injection");
export const GIBBERISH_DIR = path.join(DATASETS, "gibberish");
/**
 * Rows written for this project, trained on beside the datasets: attacks by family, hard negatives
 * and indirect injections in 20 languages (the datasets have almost no non-English attacks), each
 * tagged with its family and language; see data/README.md.
 */
export const WRITTEN_DIR = path.join(ROOT, "scripts", "models", "data");

/** Reads one JSONL file of labelled rows; throws naming the file and line of a bad row. */
export function readRows(file: string): { rows: Row[]; record: FileRecord } {
  const bytes = readFileSync(file);
  const name = path.basename(file);
  const rows: Row[] = [];
  bytes
    .toString("utf8")
    .split("\n")
    .forEach((line, index) => {
      if (line.trim() === "") return;
      const row = JSON.parse(line) as Partial<Row>;
      if (typeof row.text !== "string" || (row.label !== 0 && row.label !== 1)) {
        throw new Error(`${file}:${index + 1}: a row needs a string "text" and a "label" of 0 or 1`);
      }
      const read: Row = {
        text: row.text,
        label: row.label,
        source: row.source ?? name,
        category: row.category ?? name,
        file: name,
      };
      if (typeof row.family === "string") read.family = row.family;
      if (typeof row.language === "string") read.language = row.language;
      rows.push(read);
    });
  return { rows, record: { name, rows: rows.length, sha256: createHash("sha256").update(bytes).digest("hex") } };
}

/** Every `*.jsonl` file of a folder, sorted by name. */
export function jsonlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => path.join(dir, f));
}

/** The prompt-injection model's files: the datasets' (none on a fresh clone), then the written ones. */
export function promptInjectionFiles(): string[] {
  return [...jsonlFiles(PROMPT_INJECTION_DIR), ...jsonlFiles(WRITTEN_DIR)];
}

/** Which side of the split a row is on. */
export type Part = "train" | "validation" | "test";

const foldBuffer = new FoldBuffer();

/** A line's letters and digits after folding (case, look-alikes, leetspeak, accents). */
function lineKey(line: string): string {
  foldText(line, foldBuffer);
  return foldBuffer.slice(0, foldBuffer.length).replace(/[^\p{L}\p{N}]+/gu, "");
}

/**
 * The split of a text: 70% train, 15% validation (model choice, threshold), 15% test (reported
 * figures). Grouped: the key is the smallest hash over the text's folded lines, so augmented
 * variants of one prompt (case, look-alikes, leetspeak) and a document with or without one
 * inserted line mostly land on the same side.
 */
export function partOf(text: string): Part {
  let smallest: Buffer | undefined;
  for (const line of text.split("\n")) {
    const key = lineKey(line);
    if (key === "") continue;
    const hash = createHash("sha256").update(key).digest();
    if (smallest === undefined || Buffer.compare(hash, smallest) < 0) smallest = hash;
  }
  const bucket = (smallest ?? createHash("sha256").update(text).digest()).readUInt32BE(0) % 100;
  return bucket < 70 ? "train" : bucket < 85 ? "validation" : "test";
}

/** Precision, recall, F1 and accuracy from confusion counts. */
export interface Metrics {
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
  accuracy: number;
}

/** Metrics of predictions against labels. */
export function metrics(labels: ArrayLike<number>, predicted: ArrayLike<boolean>): Metrics {
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  for (let i = 0; i < labels.length; i++) {
    const positive = labels[i] === 1;
    if (predicted[i]) {
      if (positive) tp++;
      else fp++;
    } else if (positive) fn++;
    else tn++;
  }
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { tp, fp, tn, fn, precision, recall, f1, accuracy: (tp + tn) / Math.max(1, labels.length) };
}

/** A seeded pseudo-random generator (mulberry32): the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Shuffles in place with a seeded generator. */
export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
