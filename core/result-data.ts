/**
 * What a check's `data` may carry back, to a client in `hook_results` and into a request log: the
 * engine settles every result's data once a phase ran. A denied side's text is never echoed: the
 * fields that echo the evaluated text (`textExcerpt`, and those a check's data docs mark with
 * `echoesText`) are withheld. On a side a check transformed, an excerpt is taken from the text
 * after the transforms and other echoes are withheld, so redacted text never comes back through a
 * sibling check. And each check's data is capped at DATA_MAX_BYTES of JSON.
 */
import { jsonFits } from "./json-size.js";
import { textExcerpt } from "./text.js";
import type { CheckResult, GuardrailResult } from "./types.js";

/**
 * The most JSON one check's `data` carries; fields past it are dropped and named in
 * `dataTruncated`. Room for the largest documented field (a 16 KB `matchedJson`) and its siblings,
 * while a check that returns megabytes costs the answer and the log no more than this.
 */
export const DATA_MAX_BYTES = 32 * 1024;

/** The data field every check that shows the evaluated text uses (the `textExcerpt` helper's). */
const EXCERPT = "textExcerpt";

/** How a phase ended, for the data its results may carry. */
export interface DataSettlement {
  /** The side was denied (446): nothing of its text goes back. */
  denied: boolean;
  /** The text after the phase's transforms, when a check transformed it. */
  transformedText?: string;
  /** The data fields of a check that echo the evaluated text, besides `textExcerpt`; `field.member` for a member of an object field. */
  echoes: (checkId: string) => readonly string[];
}

/** Settles the data of every check of `results`, in place. */
export function settleResultData(results: readonly GuardrailResult[], settlement: DataSettlement): void {
  const withhold = settlement.denied || settlement.transformedText !== undefined;
  const excerpt =
    !settlement.denied && settlement.transformedText !== undefined ? textExcerpt(settlement.transformedText) : undefined;
  for (const result of results) {
    for (const check of result.checks) {
      if (withhold) withholdEchoes(check, settlement.echoes(check.id), excerpt);
      check.data = cappedData(check.data);
    }
  }
}

function withholdEchoes(check: CheckResult, echoes: readonly string[], excerpt: string | undefined): void {
  const data = check.data;
  if (typeof data[EXCERPT] === "string") {
    if (excerpt === undefined) delete data[EXCERPT];
    else data[EXCERPT] = excerpt;
  }
  for (const field of echoes) {
    const dot = field.indexOf(".");
    if (dot === -1) {
      if (field in data) delete data[field];
      continue;
    }
    // A member of an object field: the field keeps what says where, loses what says what.
    const parent = data[field.slice(0, dot)];
    if (parent !== null && typeof parent === "object") delete (parent as Record<string, unknown>)[field.slice(dot + 1)];
  }
}

/** `data` as it is when its JSON fits DATA_MAX_BYTES; else its first fields that fit, and the names of the others. */
export function cappedData(data: Record<string, unknown>): Record<string, unknown> {
  // Nearly all data is far under the cap: a bound proves it without serialising.
  if (jsonFits(data, DATA_MAX_BYTES)) return data;
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch {
    json = undefined;
  }
  if (json !== undefined && Buffer.byteLength(json) <= DATA_MAX_BYTES) return data;
  const kept: Record<string, unknown> = {};
  const dropped: string[] = [];
  // Room for the names of what was dropped.
  let room = DATA_MAX_BYTES - 512;
  for (const [key, value] of Object.entries(data)) {
    let size: number;
    try {
      size = Buffer.byteLength(JSON.stringify({ [key]: value }));
    } catch {
      size = Number.POSITIVE_INFINITY;
    }
    if (size <= room) {
      kept[key] = value;
      room -= size;
    } else dropped.push(key);
  }
  kept.dataTruncated = dropped.join(", ").slice(0, 400);
  return kept;
}
