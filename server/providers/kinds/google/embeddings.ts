/**
 * OpenAI embeddings requests to Google: the Gemini API's `batchEmbedContents`
 * (`{requests: [{model, content: {parts: [{text}]}}]}` → `embeddings[].values`) and Vertex AI's
 * `predict` for text-embedding models (`{instances: [{content}]}` →
 * `predictions[].embeddings.values`), answered as an OpenAI embeddings list.
 */
import { GatewayError } from "../../../errors.js";
import type { Json } from "../../adapter.js";

export const EMBEDDINGS_PARAMETERS: ReadonlySet<string> = new Set(["model", "input", "dimensions", "encoding_format"]);

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The texts to embed; token arrays and a base64 answer are OpenAI's alone. */
export function embeddingInputs(request: Json): string[] {
  if (request.encoding_format !== undefined && request.encoding_format !== "float") {
    throw new GatewayError(
      400,
      "unsupported_parameter",
      'encoding_format: Google answers floats only; ask for "float" or leave it out',
    );
  }
  const input = request.input;
  const texts = typeof input === "string" ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === "string")) {
    throw new GatewayError(
      400,
      "unsupported_content",
      "input: Google embeds text: a string or an array of strings, not token ids",
    );
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

function list(vectors: unknown[], model: unknown, tokens: number | undefined): Json {
  const answer: Json = {
    object: "list",
    data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
    model,
  };
  // The Gemini API reports no token counts; the gateway then estimates them for the log.
  if (tokens !== undefined) answer.usage = { prompt_tokens: tokens, total_tokens: tokens };
  return answer;
}

function malformed(provider: string, what: string): GatewayError {
  return new GatewayError(502, "upstream_invalid_response", `${provider} answered embeddings without ${what}`);
}

/** A batchEmbedContents answer as an OpenAI embeddings list. */
export function fromBatchEmbed(body: Json, request: Json, provider: string): Json {
  if (!Array.isArray(body.embeddings)) throw malformed(provider, "embeddings[]");
  const vectors = (body.embeddings as unknown[]).map((e) => {
    if (!isObject(e) || !Array.isArray(e.values)) throw malformed(provider, "embeddings[].values");
    return e.values;
  });
  return list(vectors, request.model, undefined);
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
    return embeddings.values;
  });
  return list(vectors, request.model, tokens);
}
