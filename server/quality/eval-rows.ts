/**
 * Labelled rows for evaluation: one JSON object per line, `{text, label, category?}`, the format of
 * public prompt-injection and gibberish sets (label 1 = the thing a guardrail should catch). Rows
 * of a dataset made from logs also carry their `log_id`. Rows are read one line at a time, so a
 * file of any size streams; a bad line stops the read with its line number.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { GuardgateError } from "../../core/index.js";

/** One labelled row. */
export interface EvalRow {
  text: string;
  /** 1 (or true): the guardrail should fail on it; 0 (or false): it should pass. */
  label: 0 | 1;
  category?: string;
  /** The request log the row came from, for rows of a dataset made from logs. */
  log_id?: string;
}

/** A row file that is not in the row format. */
export class EvalRowError extends GuardgateError {
  constructor(message: string) {
    super("invalid_eval_rows", message);
  }
}

/** Checks one parsed line; `where` names it in messages (`rows.jsonl:12`). */
export function evalRow(value: unknown, where: string): EvalRow {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new EvalRowError(`${where}: a row must be a JSON object {text, label, category?}`);
  const row = value as Record<string, unknown>;
  if (typeof row.text !== "string") throw new EvalRowError(`${where}: text must be a string`);
  const label = row.label === true ? 1 : row.label === false ? 0 : row.label;
  if (label !== 0 && label !== 1)
    throw new EvalRowError(`${where}: label must be 0 or 1 (or false/true), not ${JSON.stringify(row.label)}`);
  if (row.category !== undefined && row.category !== null && typeof row.category !== "string")
    throw new EvalRowError(`${where}: category must be a string`);
  if (row.log_id !== undefined && row.log_id !== null && typeof row.log_id !== "string")
    throw new EvalRowError(`${where}: log_id must be a string`);
  return {
    text: row.text,
    label,
    ...(typeof row.category === "string" && { category: row.category }),
    ...(typeof row.log_id === "string" && { log_id: row.log_id }),
  };
}

/** The rows of a JSONL file, read line by line; blank lines are skipped. */
export async function* readEvalRows(file: string): AsyncGenerator<EvalRow> {
  const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new EvalRowError(`${file}:${number}: not valid JSON: ${(error as Error).message}`);
    }
    yield evalRow(value, `${file}:${number}`);
  }
}

/** How many non-blank lines a file has (the progress bar's total), read in chunks. */
export async function countRows(file: string): Promise<number> {
  let count = 0;
  let lineHasText = false;
  for await (const chunk of createReadStream(file)) {
    for (const byte of chunk as Buffer) {
      if (byte === 0x0a) {
        if (lineHasText) count++;
        lineHasText = false;
      } else if (byte !== 0x20 && byte !== 0x0d && byte !== 0x09) lineHasText = true;
    }
  }
  return lineHasText ? count + 1 : count;
}
