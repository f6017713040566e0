import { describe, expect, it } from "vitest";
import { batchEmbedBody, fromBatchEmbed, fromPredict, predictBody } from "./embeddings.js";

describe("embeddings to Google and back", () => {
  it("asks the Gemini API for each text under the URL's model, with the dimensions asked", () => {
    expect(batchEmbedBody({ model: "text-embedding-004", input: ["a", "b"], dimensions: 8 }, "text-embedding-004")).toEqual({
      requests: [
        { model: "models/text-embedding-004", content: { parts: [{ text: "a" }] }, outputDimensionality: 8 },
        { model: "models/text-embedding-004", content: { parts: [{ text: "b" }] }, outputDimensionality: 8 },
      ],
    });
    expect(predictBody({ input: "a" })).toEqual({ instances: [{ content: "a" }] });
  });

  it("answers floats, or base64 of little-endian float32 as the openai SDKs ask", () => {
    const body = { embeddings: [{ values: [0.5, -2] }] };
    expect(fromBatchEmbed(body, { model: "m" }, "Gemini API")).toEqual({
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: [0.5, -2] }],
      model: "m",
    });
    const encoded = fromBatchEmbed(body, { model: "m", encoding_format: "base64" }, "Gemini API");
    const text = (encoded.data as Array<{ embedding: string }>)[0]?.embedding ?? "";
    const bytes = Buffer.from(text, "base64");
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([0.5, -2]);
  });

  it("adds up Vertex AI's token counts as usage", () => {
    const body = {
      predictions: [
        { embeddings: { values: [1], statistics: { token_count: 3 } } },
        { embeddings: { values: [2], statistics: { token_count: 4 } } },
      ],
    };
    expect(fromPredict(body, { model: "m" }, "Vertex AI").usage).toEqual({ prompt_tokens: 7, total_tokens: 7 });
  });

  it("refuses token ids and an unknown encoding, and a malformed answer", () => {
    expect(() => predictBody({ input: [[1, 2, 3]] })).toThrow(
      expect.objectContaining({ status: 400, code: "unsupported_content" }),
    );
    expect(() => predictBody({ input: "a", encoding_format: "int8" })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => fromPredict({ predictions: [{}] }, {}, "Vertex AI")).toThrow(
      expect.objectContaining({ status: 502, code: "upstream_invalid_response" }),
    );
  });
});
