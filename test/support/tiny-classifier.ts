/**
 * Writes a tiny Hugging Face-style text classifier folder for tests: `model.onnx` (an ONNX graph
 * encoded with protobufjs from the ONNX schema's field numbers), a WordPiece `tokenizer.json` and a
 * `config.json` with `id2label`. The graph gives each vocabulary entry a fixed pair of logits and
 * takes, per label, the maximum over the unmasked tokens: a window holding the token `attack` (or a
 * word that WordPiece splits into it) scores `INJECTION`; padding never counts.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import protobuf from "protobufjs";

/** The vocabulary, in id order. */
export const TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "please", "attack", "##s", "##er", "the", "a"];

/** Logits [SAFE, INJECTION] per vocabulary entry: only `attack` leans to INJECTION. */
function logitsOf(token: string): [number, number] {
  if (token === "attack") return [0, 6];
  if (token.startsWith("[")) return [0, 0];
  return [2, 0];
}

// The subset of onnx.proto (https://github.com/onnx/onnx/blob/main/onnx/onnx.proto) this graph needs.
const ONNX_SCHEMA = {
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            irVersion: { type: "int64", id: 1 },
            producerName: { type: "string", id: 2 },
            graph: { type: "GraphProto", id: 7 },
            opsetImport: { rule: "repeated", type: "OperatorSetIdProto", id: 8 },
          },
        },
        OperatorSetIdProto: { fields: { domain: { type: "string", id: 1 }, version: { type: "int64", id: 2 } } },
        GraphProto: {
          fields: {
            node: { rule: "repeated", type: "NodeProto", id: 1 },
            name: { type: "string", id: 2 },
            initializer: { rule: "repeated", type: "TensorProto", id: 5 },
            input: { rule: "repeated", type: "ValueInfoProto", id: 11 },
            output: { rule: "repeated", type: "ValueInfoProto", id: 12 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: "repeated", type: "string", id: 1 },
            output: { rule: "repeated", type: "string", id: 2 },
            name: { type: "string", id: 3 },
            opType: { type: "string", id: 4 },
            attribute: { rule: "repeated", type: "AttributeProto", id: 5 },
          },
        },
        AttributeProto: {
          fields: {
            name: { type: "string", id: 1 },
            i: { type: "int64", id: 3 },
            ints: { rule: "repeated", type: "int64", id: 8 },
            type: { type: "int32", id: 20 },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: "repeated", type: "int64", id: 1 },
            dataType: { type: "int32", id: 2 },
            floatData: { rule: "repeated", type: "float", id: 4 },
            int64Data: { rule: "repeated", type: "int64", id: 7 },
            name: { type: "string", id: 8 },
          },
        },
        ValueInfoProto: { fields: { name: { type: "string", id: 1 }, type: { type: "TypeProto", id: 2 } } },
        TypeProto: {
          fields: { tensorType: { type: "Tensor", id: 1 } },
          nested: { Tensor: { fields: { elemType: { type: "int32", id: 1 }, shape: { type: "TensorShapeProto", id: 2 } } } },
        },
        TensorShapeProto: {
          fields: { dim: { rule: "repeated", type: "Dimension", id: 1 } },
          nested: { Dimension: { fields: { dimValue: { type: "int64", id: 1 }, dimParam: { type: "string", id: 2 } } } },
        },
      },
    },
  },
};

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_INTS = 7;

function tensorInfo(name: string, elemType: number, dims: Array<string | number>) {
  return {
    name,
    type: {
      tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === "string" ? { dimParam: d } : { dimValue: d })) } },
    },
  };
}

/** The ONNX model's bytes; `withTokenTypes` adds a `token_type_ids` input the graph ignores, as BERT exports have. */
export function tinyClassifierOnnx(options: { withTokenTypes?: boolean } = {}): Uint8Array {
  const root = protobuf.Root.fromJSON(ONNX_SCHEMA);
  const ModelProto = root.lookupType("onnx.ModelProto");
  const inputs = [
    tensorInfo("input_ids", INT64, ["batch", "sequence"]),
    tensorInfo("attention_mask", INT64, ["batch", "sequence"]),
  ];
  if (options.withTokenTypes) inputs.push(tensorInfo("token_type_ids", INT64, ["batch", "sequence"]));
  const model = {
    irVersion: 8,
    producerName: "guardgate tests",
    opsetImport: [{ domain: "", version: 13 }],
    graph: {
      name: "tiny-classifier",
      initializer: [
        { name: "embedding", dataType: FLOAT, dims: [TINY_VOCAB.length, 2], floatData: TINY_VOCAB.flatMap(logitsOf) },
        { name: "axis2", dataType: INT64, dims: [1], int64Data: [2] },
      ],
      node: [
        { opType: "Gather", input: ["embedding", "input_ids"], output: ["per_token"], name: "lookup" },
        {
          opType: "Cast",
          input: ["attention_mask"],
          output: ["mask_float"],
          name: "cast",
          attribute: [{ name: "to", type: ATTRIBUTE_INT, i: FLOAT }],
        },
        { opType: "Unsqueeze", input: ["mask_float", "axis2"], output: ["mask3"], name: "unsqueeze" },
        { opType: "Mul", input: ["per_token", "mask3"], output: ["masked"], name: "mask" },
        {
          opType: "ReduceMax",
          input: ["masked"],
          output: ["logits"],
          name: "pool",
          attribute: [
            { name: "axes", type: ATTRIBUTE_INTS, ints: [1] },
            { name: "keepdims", type: ATTRIBUTE_INT, i: 0 },
          ],
        },
      ],
      input: inputs,
      output: [tensorInfo("logits", FLOAT, ["batch", 2])],
    },
  };
  const problem = ModelProto.verify(model);
  if (problem) throw new Error(`tiny classifier: ${problem}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

/** A BERT-style WordPiece tokenizer.json over TINY_VOCAB: lower-cases, splits on white space and punctuation. */
export function tinyTokenizerJson(): Record<string, unknown> {
  const special = (id: number, content: string) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: [special(0, "[PAD]"), special(1, "[UNK]"), special(2, "[CLS]"), special(3, "[SEP]")],
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [2], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [3], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(TINY_VOCAB.map((token, id) => [token, id])),
    },
  };
}

/** Writes the folder (model.onnx, tokenizer.json, config.json) and returns its path. */
export async function writeTinyClassifier(
  dir: string,
  options: { withTokenTypes?: boolean; config?: Record<string, unknown> } = {},
): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "model.onnx"), tinyClassifierOnnx(options));
  await writeFile(path.join(dir, "tokenizer.json"), JSON.stringify(tinyTokenizerJson()));
  await writeFile(
    path.join(dir, "config.json"),
    JSON.stringify(
      options.config ?? {
        architectures: ["BertForSequenceClassification"],
        id2label: { "0": "SAFE", "1": "INJECTION" },
        label2id: { SAFE: 0, INJECTION: 1 },
        max_position_embeddings: 512,
        pad_token_id: 0,
      },
    ),
  );
  return dir;
}
