/**
 * OpenAI embeddings requests to Google: the Gemini API's `batchEmbedContents`
 * (`{requests: [{model, content: {parts: [{text}]}}]}` → `embeddings[].values`) and Vertex AI's
 * `predict` for text-embedding models (`{instances: [{content}]}` →
 * `predictions[].embeddings.values`), answered as an OpenAI embeddings list, in floats or, as the
 * openai SDKs ask by default, base64.
 */
import { isObject } from "../../../../core/internal.js";
import { GatewayError } from "../../../errors.js";
import type { Json } from "../../kind.js";

export const EMBEDDINGS_PARAMETERS: ReadonlySet<string> = new Set(["model", "input", "dimensions", "encoding_format"]);

/** The texts to embed; token arrays are OpenAI's alone. */
export function embeddingInputs(request: Json): string[] {
  const encoding = request.encoding_format;
  if (encoding !== undefined && encoding !== "float" && encoding !== "base64") {
    throw new GatewayError("invalid_request", 'encoding_format: must be "float" or "base64"');
  }
  const input = request.input;
  const texts = typeof input === "string" ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === "string")) {
    throw new GatewayError("unsupported_content", "input: Google embeds text: a string or an array of strings, not token ids");
  }
  return texts as string[];
}

/** The Gemini API's batchEmbedContents body. */
export function batchEmbedBody(request: Json, model: string): Json {
  return {
    requests: embeddingInputs(request).map((text) => ({
      model: `models/${model}`,
      content: { parts: [{ text }] },
      ...(request.dimensions !== undefined && { outputDimensionality: request.dimensions }),
    })),
  };
}

/** Vertex AI's predict body for a text-embedding model. */
export function predictBody(request: Json): Json {
  return {
    instances: embeddingInputs(request).map((content) => ({ content })),
    ...(request.dimensions !== undefined && { parameters: { outputDimensionality: request.dimensions } }),
  };
}

/** A vector as OpenAI's base64 encoding gives it: the little-endian float32 bytes. */
function base64Vector(values: unknown[]): string {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => bytes.writeFloatLE(Number(value), i * 4));
  return bytes.toString("base64");
}

function list(vectors: unknown[][], request: Json, tokens: number | undefined): Json {
  // The openai SDKs ask for base64 by default and decode it themselves.
  const encode = request.encoding_format === "base64" ? base64Vector : (values: unknown[]) => values;
  const answer: Json = {
    object: "list",
    data: vectors.map((values, index) => ({ object: "embedding", index, embedding: encode(values) })),
    model: request.model,
  };
  // The Gemini API reports no token counts; the gateway then estimates them for the log.
  if (tokens !== undefined) answer.usage = { prompt_tokens: tokens, total_tokens: tokens };
  return answer;
}

function malformed(provider: string, what: string): GatewayError {
  return new GatewayError("upstream_invalid_response", `${provider} answered embeddings without ${what}`);
}

/** A batchEmbedContents answer as an OpenAI embeddings list. */
export function fromBatchEmbed(body: Json, request: Json, provider: string): Json {
  if (!Array.isArray(body.embeddings)) throw malformed(provider, "embeddings[]");
  const vectors = (body.embeddings as unknown[]).map((e) => {
    if (!isObject(e) || !Array.isArray(e.values)) throw malformed(provider, "embeddings[].values");
    return e.values as unknown[];
  });
  return list(vectors, request, undefined);
}

/** A predict answer as an OpenAI embeddings list, with the token counts Vertex AI reports. */
export function fromPredict(body: Json, request: Json, provider: string): Json {
  if (!Array.isArray(body.predictions)) throw malformed(provider, "predictions[]");
  let tokens = 0;
  const vectors = (body.predictions as unknown[]).map((p) => {
    const embeddings = isObject(p) && isObject(p.embeddings) ? p.embeddings : undefined;
    if (!embeddings || !Array.isArray(embeddings.values)) throw malformed(provider, "predictions[].embeddings.values");
    const count = isObject(embeddings.statistics) ? embeddings.statistics.token_count : undefined;
    if (typeof count === "number") tokens += count;
    return embeddings.values as unknown[];
  });
  return list(vectors, request, tokens);
}
