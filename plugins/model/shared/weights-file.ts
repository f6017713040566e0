/**
 * The weights file of a shipped model: the magic `GGMW`, a format version, a JSON header (what the
 * model is, its feature spec, what it was trained on, where each tensor lies) and the tensors as
 * little-endian float32 or int8 arrays, each aligned to 8 bytes. One file per model, read once.
 */
import { readFileSync } from "node:fs";

const MAGIC = "GGMW";
const FORMAT_VERSION = 1;
const ALIGN = 8;

/** Where a tensor lies in the file. */
export interface TensorEntry {
  name: string;
  dtype: "float32" | "int8";
  length: number;
  offset: number;
  /** For int8 tensors: value = int8 × scale. */
  scale?: number;
}

/** The JSON header of a weights file. */
export interface WeightsHeader {
  model: string;
  tensors: TensorEntry[];
  [key: string]: unknown;
}

/** A tensor to write: float32 values, stored as float32 or quantised to int8. */
export interface TensorInput {
  name: string;
  values: Float32Array;
  dtype: "float32" | "int8";
}

/** A weights file that could not be read: names the file and what was wrong. */
export class WeightsFileError extends Error {
  readonly code = "model_weights_invalid";
}

const pad = (n: number) => (n + ALIGN - 1) & ~(ALIGN - 1);

/** Serialises a header and tensors into the file's bytes (deterministic for equal inputs). */
export function encodeWeights(header: Omit<WeightsHeader, "tensors">, tensors: readonly TensorInput[]): Buffer {
  const entries: TensorEntry[] = [];
  const blobs: Buffer[] = [];
  let offset = 0;
  for (const tensor of tensors) {
    let blob: Buffer;
    const entry: TensorEntry = { name: tensor.name, dtype: tensor.dtype, length: tensor.values.length, offset };
    if (tensor.dtype === "int8") {
      let max = 0;
      for (const v of tensor.values) max = Math.max(max, Math.abs(v));
      const scale = max > 0 ? max / 127 : 1;
      const quantised = new Int8Array(tensor.values.length);
      for (let i = 0; i < quantised.length; i++) quantised[i] = Math.round((tensor.values[i] as number) / scale);
      entry.scale = scale;
      blob = Buffer.from(quantised.buffer);
    } else {
      blob = Buffer.alloc(tensor.values.length * 4);
      for (let i = 0; i < tensor.values.length; i++) blob.writeFloatLE(tensor.values[i] as number, i * 4);
    }
    entries.push(entry);
    blobs.push(blob, Buffer.alloc(pad(blob.length) - blob.length));
    offset += pad(blob.length);
  }
  const json = Buffer.from(JSON.stringify({ ...header, tensors: entries }), "utf8");
  const prefix = Buffer.alloc(12);
  prefix.write(MAGIC, 0, "latin1");
  prefix.writeUInt32LE(FORMAT_VERSION, 4);
  prefix.writeUInt32LE(json.length, 8);
  const headerEnd = pad(12 + json.length);
  return Buffer.concat([prefix, json, Buffer.alloc(headerEnd - 12 - json.length), ...blobs]);
}

/** A read weights file: its header and its tensors as float32 arrays. */
export interface Weights {
  header: WeightsHeader;
  tensor(name: string): Float32Array;
}

/** Reads and checks a weights file; throws WeightsFileError naming the file and the fault. */
export function readWeights(file: string | URL): Weights {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new WeightsFileError(`cannot read model weights ${String(file)}: ${(error as Error).message}`);
  }
  const fail = (what: string) => new WeightsFileError(`model weights ${String(file)}: ${what}`);
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== MAGIC) throw fail("not a guardgate weights file (bad magic)");
  if (bytes.readUInt32LE(4) !== FORMAT_VERSION) throw fail(`format version ${bytes.readUInt32LE(4)}, expected ${FORMAT_VERSION}`);
  const length = bytes.readUInt32LE(8);
  let header: WeightsHeader;
  try {
    header = JSON.parse(bytes.toString("utf8", 12, 12 + length)) as WeightsHeader;
  } catch {
    throw fail("header is not JSON");
  }
  const base = pad(12 + length);
  const tensors = new Map<string, Float32Array>();
  for (const entry of header.tensors ?? []) {
    const size = entry.dtype === "int8" ? entry.length : entry.length * 4;
    const at = base + entry.offset;
    if (at + size > bytes.length) throw fail(`tensor ${entry.name} runs past the end of the file`);
    const values = new Float32Array(entry.length);
    if (entry.dtype === "int8") {
      const scale = entry.scale ?? 1;
      for (let i = 0; i < entry.length; i++) values[i] = bytes.readInt8(at + i) * scale;
    } else {
      for (let i = 0; i < entry.length; i++) values[i] = bytes.readFloatLE(at + i * 4);
    }
    tensors.set(entry.name, values);
  }
  return {
    header,
    tensor(name) {
      const values = tensors.get(name);
      if (!values) throw fail(`tensor ${name} is missing`);
      return values;
    },
  };
}
