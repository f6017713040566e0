/**
 * OpenAI embeddings through Bedrock's InvokeModel (Amazon Bedrock User Guide, Amazon Titan Text
 * Embeddings and Cohere Embed model parameters): `POST /model/{modelId}/invoke` with the model
 * family's own body. Titan (`amazon.titan-embed-*`) embeds one `inputText` per call (a list is
 * sent text by text, see `batchSize`), v2 with `dimensions` and `normalize`; Cohere
 * (`cohere.embed-*`) embeds up to 96 `texts` per call with an `input_type`. The answer becomes an OpenAI embeddings list, as floats or as base64 of
 * little-endian float32s (`encoding_format`, which the openai SDK sets to base64 by default).
 */
import type { IncomingHttpHeaders } from "node:http";
import { GatewayError } from "../../../errors.js";
import type { EmbeddingsBackend, Json } from "../../kind.js";
import { bedrockError } from "./errors.js";
import { modelPath, signedCall } from "./auth.js";

/** The fields an embeddings request may carry; `input_type` (Cohere) and `normalize` (Titan v2) are Bedrock's own. */
export const EMBEDDING_PARAMETERS: ReadonlySet<string> = new Set([
  "model",
  "input",
  "encoding_format",
  "dimensions",
  "input_type",
  "normalize",
]);

const COHERE_INPUT_TYPES = new Set(["search_document", "search_query", "classification", "clustering"]);

type Family = "titan" | "titan-v2" | "cohere";

/** The family of a model id, inference profile id or ARN. */
export function familyOf(model: unknown): Family {
  const id = typeof model === "string" ? model : "";
  if (/amazon\.titan-embed-text-v2/.test(id)) return "titan-v2";
  if (/amazon\.titan-embed/.test(id)) return "titan";
  if (/cohere\.embed/.test(id)) return "cohere";
  throw new GatewayError(
    "invalid_model",
    `model: "${id}" is not an embedding model guardgate can call on Amazon Bedrock (amazon.titan-embed-* or cohere.embed-*)`,
  );
}

function refuse(name: string, why: string, dropParams: boolean): void {
  if (dropParams) return;
  throw new GatewayError(
    "unsupported_parameter",
    `${name}: ${why}; remove it, or set "drop_params": true in the config to drop it`,
  );
}

function texts(input: unknown): string[] {
  const list = typeof input === "string" ? [input] : input;
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === "string")) {
    throw new GatewayError(
      "unsupported_content",
      "input: Amazon Bedrock embeds text: give a string or an array of strings (token arrays cannot be sent)",
    );
  }
  return list as string[];
}

/** The InvokeModel body for an OpenAI embeddings request whose fields are all in EMBEDDING_PARAMETERS. */
export function invokeBody(request: Json, dropParams: boolean): Json {
  const family = familyOf(request.model);
  const inputs = texts(request.input);
  if (request.encoding_format !== undefined && request.encoding_format !== "float" && request.encoding_format !== "base64") {
    throw new GatewayError("invalid_request", 'encoding_format: expected "float" or "base64"');
  }
  if (family === "cohere") {
    if (request.dimensions !== undefined)
      refuse("dimensions", "Cohere embeddings on Amazon Bedrock have a fixed size", dropParams);
    if (request.normalize !== undefined) refuse("normalize", "Cohere embeddings on Amazon Bedrock take no normalize", dropParams);
    const inputType = request.input_type ?? "search_document";
    if (typeof inputType !== "string" || !COHERE_INPUT_TYPES.has(inputType)) {
      throw new GatewayError("invalid_request", `input_type: expected one of ${[...COHERE_INPUT_TYPES].join(", ")}`);
    }
    return { texts: inputs, input_type: inputType };
  }
  if (inputs.length > 1) {
    throw new GatewayError(
      "unsupported_content",
      `input: Amazon Titan embeds one text per call and ${inputs.length} were given in one`,
    );
  }
  if (request.input_type !== undefined) refuse("input_type", "Amazon Titan takes no input_type", dropParams);
  const body: Json = { inputText: inputs[0] };
  if (family === "titan-v2") {
    if (request.dimensions !== undefined) body.dimensions = request.dimensions;
    if (request.normalize !== undefined) body.normalize = request.normalize;
  } else {
    if (request.dimensions !== undefined) refuse("dimensions", "Amazon Titan v1 embeddings have a fixed size", dropParams);
    if (request.normalize !== undefined) refuse("normalize", "Amazon Titan v1 takes no normalize", dropParams);
  }
  return body;
}

/** A vector as OpenAI's base64: the float32s, little-endian, as the SDKs decode them. */
function base64Of(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString("base64");
}

function vectors(body: Json): number[][] {
  if (Array.isArray(body.embedding)) return [body.embedding as number[]];
  // Cohere answers a list of vectors, or vectors by type when `embedding_types` was asked.
  const embeddings = Array.isArray(body.embeddings) ? body.embeddings : (body.embeddings as { float?: unknown })?.float;
  if (Array.isArray(embeddings)) return embeddings as number[][];
  throw new GatewayError("upstream_invalid_response", "Amazon Bedrock's embeddings answer holds no embedding");
}

function tokenCount(body: Json, headers: IncomingHttpHeaders): number {
  if (typeof body.inputTextTokenCount === "number") return body.inputTextTokenCount;
  const header = Number(headers["x-amzn-bedrock-input-token-count"]);
  return Number.isFinite(header) ? header : 0;
}

/** The OpenAI embeddings list for a 2xx InvokeModel answer. */
export function embeddingsList(body: Json, request: Json, headers: IncomingHttpHeaders): Json {
  const asBase64 = request.encoding_format === "base64";
  const tokens = tokenCount(body, headers);
  return {
    object: "list",
    data: vectors(body).map((vector, index) => ({
      object: "embedding",
      index,
      embedding: asBase64 ? base64Of(vector) : vector,
    })),
    model: request.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** Cohere Embed takes at most 96 texts per call. */
const COHERE_BATCH = 96;

export const bedrockEmbeddings: EmbeddingsBackend = {
  parameters: EMBEDDING_PARAMETERS,
  // Titan embeds one text per call: the translation sends a list text by text and joins the answers.
  batchSize: (request) => (familyOf(request.model) === "cohere" ? COHERE_BATCH : 1),
  request: (request, call) =>
    signedCall(call, `${modelPath(request.model)}/invoke`, invokeBody(request, call.dropParams), "application/json"),
  response: embeddingsList,
  error: bedrockError,
};
