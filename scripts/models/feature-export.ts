/**
 * The featurized rows of the prompt-injection data, written for the PyTorch trainer
 * (`scripts/models/train_injection.py`): every span the run-time scorer scores — the windows of a
 * text, its sentences and lines when it is longer than a window, the windows of its decoded
 * payloads — as the hashed n-gram indices and values `hashed-features.ts` gives, with each row's
 * label, split part, source, family and language. One featurizer serves training and run time.
 *
 * Files written to the folder given: `rows.json` (the rows' metadata and the feature spec),
 * `spans.bin` (per span: row, kind, first feature; int32), `indices.bin` (int32) and
 * `values.bin` (float32), all little-endian.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { FoldBuffer, foldText } from "../../plugins/model/shared/fold.js";
import { extractFeatures, type FeatureSpec, FeatureVector } from "../../plugins/model/shared/hashed-features.js";
import { findPayloads } from "../../plugins/model/shared/payloads.js";
import { foldedRange, type WindowSpec, windowStarts } from "../../plugins/model/shared/prompt-injection-model.js";
import { segments } from "../../plugins/model/shared/segments.js";
import { partOf, type Row } from "./dataset.js";
import { groupOf } from "./leave-one-out.js";

/** What a span is, as numbered in `spans.bin`. */
export const SPAN_KINDS = { window: 0, sentence: 1, payload: 2 } as const;

/** A growable typed array of int32 or float32. */
class Column<T extends Int32Array | Float32Array> {
  length = 0;
  constructor(
    private data: T,
    private readonly make: (n: number) => T,
  ) {}
  push(values: ArrayLike<number>, count = values.length): void {
    if (this.length + count > this.data.length) {
      const grown = this.make(Math.max(this.data.length * 2, this.length + count));
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    for (let i = 0; i < count; i++) this.data[this.length + i] = values[i] as number;
    this.length += count;
  }
  bytes(): Buffer {
    return Buffer.from(this.data.buffer, this.data.byteOffset, this.length * 4);
  }
}

/** Writes the featurized rows to `dir`; returns how many spans and features were written. */
export function exportFeatures(
  rows: readonly Row[],
  spec: FeatureSpec,
  window: WindowSpec,
  dir: string,
): { spans: number; features: number } {
  const folded = new FoldBuffer();
  const payload = new FoldBuffer();
  const vector = new FeatureVector(spec);
  const spans = new Column(new Int32Array(1 << 16), (n) => new Int32Array(n));
  const indices = new Column(new Int32Array(1 << 20), (n) => new Int32Array(n));
  const values = new Column(new Float32Array(1 << 20), (n) => new Float32Array(n));
  const emit = (row: number, kind: number, buffer: FoldBuffer, from: number, to: number) => {
    extractFeatures(buffer, from, to, vector);
    spans.push([row, kind, indices.length]);
    indices.push(vector.indices, vector.size);
    values.push(vector.values, vector.size);
  };
  const windowsOf = (row: number, kind: number, buffer: FoldBuffer) => {
    const starts = windowStarts(buffer.length, window);
    for (const start of starts) emit(row, kind, buffer, start, Math.min(buffer.length, start + window.size));
    return starts.length;
  };
  for (const [i, row] of rows.entries()) {
    // As InjectionScorer does: windows of the whole folded text; sentences and lines (cut from
    // the original text, read from the same folded text) only when there is more than one window.
    foldText(row.text, folded);
    if (windowsOf(i, SPAN_KINDS.window, folded) > 1) {
      for (const span of segments(row.text, window.size)) {
        const { from, to } = foldedRange(folded, span.start, span.end);
        if (to > from) emit(i, SPAN_KINDS.sentence, folded, from, to);
      }
    }
    for (const found of findPayloads(row.text)) {
      foldText(found.text, payload);
      windowsOf(i, SPAN_KINDS.payload, payload);
    }
  }
  mkdirSync(dir, { recursive: true });
  const meta = {
    spec,
    window,
    rows: rows.map((row) => ({
      label: row.label,
      file: row.file,
      source: groupOf(row, "source") ?? null,
      family: row.family ?? null,
      language: row.language ?? null,
      written: row.source.startsWith("generated:guardgate/"),
      part: partOf(row.text),
    })),
  };
  writeFileSync(path.join(dir, "rows.json"), JSON.stringify(meta));
  writeFileSync(path.join(dir, "spans.bin"), spans.bytes());
  writeFileSync(path.join(dir, "indices.bin"), indices.bytes());
  writeFileSync(path.join(dir, "values.bin"), values.bytes());
  return { spans: spans.length / 3, features: indices.length };
}
