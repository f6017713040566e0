/**
 * Checks the written rows against the shared datasets and against each other: no text may repeat
 * a dataset text or another written text, exactly or after lower-casing and dropping punctuation
 * (the datasets' own rule for near duplicates). Written rows must not leak into, or from, the
 * held-out evaluation the datasets were cut from.
 *
 * `node dist/scripts/models/data/check-duplicates.js` prints each duplicate and exits 1 if any.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { jsonlFiles, PROMPT_INJECTION_DIR, readRows, WRITTEN_DIR } from "../dataset.js";
import { normalisedKey } from "./normalise.js";

/** A written row whose text is already in the datasets or in another written row. */
export interface Duplicate {
  file: string;
  line: number;
  /** Where the same normalised text was found first. */
  duplicateOf: string;
  exact: boolean;
}

/** The duplicates among the written rows; the datasets are read when present. */
export function findDuplicates(datasetDir = PROMPT_INJECTION_DIR, writtenDir = WRITTEN_DIR): Duplicate[] {
  const first = new Map<string, { where: string; text: string }>();
  for (const file of jsonlFiles(datasetDir)) {
    readRows(file).rows.forEach((row, index) => {
      const key = normalisedKey(row.text);
      if (!first.has(key)) first.set(key, { where: `datasets/${path.basename(file)}:${index + 1}`, text: row.text });
    });
  }
  const duplicates: Duplicate[] = [];
  for (const file of jsonlFiles(writtenDir)) {
    // Blank lines are skipped by the reader, so line numbers are counted over the rows it keeps.
    readRows(file).rows.forEach((row, index) => {
      const key = normalisedKey(row.text);
      const where = `${path.basename(file)}:${index + 1}`;
      const earlier = first.get(key);
      if (earlier === undefined) first.set(key, { where, text: row.text });
      else
        duplicates.push({
          file: path.basename(file),
          line: index + 1,
          duplicateOf: earlier.where,
          exact: earlier.text === row.text,
        });
    });
  }
  return duplicates;
}

function main(): void {
  const duplicates = findDuplicates();
  for (const d of duplicates)
    console.error(`${d.file}:${d.line} repeats ${d.duplicateOf}${d.exact ? " (exact)" : " (after normalising)"}`);
  console.log(`${duplicates.length} duplicates among the written rows`);
  if (duplicates.length > 0) process.exit(1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();
