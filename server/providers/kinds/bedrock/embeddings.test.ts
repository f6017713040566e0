import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../errors.js";
import { bedrockEmbeddings, embeddingsList, invokeBody } from "./embeddings.js";

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("OpenAI embeddings → InvokeModel", () => {
  it("builds each family's body", () => {
    expect(invokeBody({ model: "amazon.titan-embed-text-v1", input: "hello" }, false)).toEqual({ inputText: "hello" });
    expect(
      invokeBody({ model: "amazon.titan-embed-text-v2:0", input: ["hello"], dimensions: 256, normalize: false }, false),
    ).toEqual({
      inputText: "hello",
      dimensions: 256,
      normalize: false,
    });
    expect(invokeBody({ model: "cohere.embed-english-v3", input: ["a", "b"] }, false)).toEqual({
      texts: ["a", "b"],
      input_type: "search_document",
    });
    expect(invokeBody({ model: "cohere.embed-multilingual-v3", input: "q", input_type: "search_query" }, false)).toEqual({
      texts: ["q"],
      input_type: "search_query",
    });
  });

  it.each([
    ["token arrays", { model: "cohere.embed-english-v3", input: [[1, 2]] }, "unsupported_content", "input"],
    [
      "dimensions to Titan v1",
      { model: "amazon.titan-embed-text-v1", input: "a", dimensions: 8 },
      "unsupported_parameter",
      "dimensions",
    ],
    [
      "dimensions to Cohere",
      { model: "cohere.embed-english-v3", input: "a", dimensions: 8 },
      "unsupported_parameter",
      "dimensions",
    ],
    ["a model of no known family", { model: "meta.llama3", input: "a" }, "invalid_model", "model"],
  ])("refuses %s, naming it", (_what, request, code, where) => {
    const error = refusal(() => invokeBody(request, false));
    expect([error.status, error.code]).toEqual([400, code]);
    expect(error.message.startsWith(`${where}:`)).toBe(true);
  });

  it("takes one text per Titan call and 96 per Cohere call, which the translation splits lists by", () => {
    expect(bedrockEmbeddings.batchSize?.({ model: "amazon.titan-embed-text-v2:0" })).toBe(1);
    expect(bedrockEmbeddings.batchSize?.({ model: "cohere.embed-english-v3" })).toBe(96);
    // A Titan body never holds two texts.
    expect(refusal(() => invokeBody({ model: "amazon.titan-embed-text-v1", input: ["a", "b"] }, false)).code).toBe(
      "unsupported_content",
    );
  });

  it("answers an OpenAI list, in floats or base64 float32s, with usage from the body or the header", () => {
    const titan = embeddingsList({ embedding: [0.5, -1], inputTextTokenCount: 3 }, { model: "amazon.titan-embed-text-v2:0" }, {});
    expect(titan).toEqual({
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: [0.5, -1] }],
      model: "amazon.titan-embed-text-v2:0",
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
    const cohere = embeddingsList(
      { embeddings: [[0.25], [2]], response_type: "embeddings_floats" },
      { model: "cohere.embed-english-v3", encoding_format: "base64" },
      { "x-amzn-bedrock-input-token-count": "6" },
    );
    const decoded = (cohere.data as Array<{ embedding: string }>).map((d) => Buffer.from(d.embedding, "base64").readFloatLE(0));
    expect(decoded).toEqual([0.25, 2]);
    expect(cohere.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
  });
});
