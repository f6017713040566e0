import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../errors.js";
import { generateContentBody } from "./request.js";
import { geminiSchema } from "./schema.js";

const GEMINI = { cloudStorage: false };
const VERTEX = { cloudStorage: true };

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("an OpenAI chat request as a Gemini request", () => {
  it("puts system messages in systemInstruction and the others in user and model contents", () => {
    const body = generateContentBody(
      {
        model: "gemini-2.0-flash",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
          { role: "user", content: "Hi" },
          { role: "assistant", content: "Bonjour" },
          { role: "user", content: "Weather?" },
        ],
      },
      GEMINI,
    );
    expect(body.systemInstruction).toEqual({ parts: [{ text: "Be brief." }, { text: "Answer in French." }] });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Hi" }] },
      { role: "model", parts: [{ text: "Bonjour" }] },
      { role: "user", parts: [{ text: "Weather?" }] },
    ]);
    expect(body.generationConfig).toBeUndefined();
  });

  it("sends tool calls as functionCall parts and tool results as functionResponse parts named after their call", () => {
    const body = generateContentBody(
      {
        messages: [
          { role: "user", content: "Weather in Paris and Rome?" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
              { id: "call_2", type: "function", function: { name: "time", arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: '{"celsius":21}' },
          { role: "tool", tool_call_id: "call_2", content: "noon" },
        ],
      },
      GEMINI,
    );
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris and Rome?" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "weather", args: { city: "Paris" } } },
          { functionCall: { name: "time", args: { city: "Rome" } } },
        ],
      },
      // Both results in one user turn: Gemini's turns alternate.
      {
        role: "user",
        parts: [
          { functionResponse: { name: "weather", response: { celsius: 21 } } },
          { functionResponse: { name: "time", response: { content: "noon" } } },
        ],
      },
    ]);
  });

  it("refuses a tool result whose call is unknown, since Gemini needs the function's name", () => {
    const error = refusal(() =>
      generateContentBody({ messages: [{ role: "tool", tool_call_id: "call_x", content: "1" }] }, GEMINI),
    );
    expect(error.status).toBe(400);
    expect(error.message).toContain("messages[0].tool_call_id");
  });

  it("inlines base64 images, and refuses http URLs by where they are", () => {
    const image = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } };
    const body = generateContentBody(
      { messages: [{ role: "user", content: [{ type: "text", text: "What is it?" }, image] }] },
      GEMINI,
    );
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "What is it?" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }] },
    ]);
    const remote = { type: "image_url", image_url: { url: "https://example.com/cat.png" } };
    const error = refusal(() => generateContentBody({ messages: [{ role: "user", content: [remote] }] }, GEMINI));
    expect(error.code).toBe("unsupported_content");
    expect(error.message).toContain("messages[0].content[0].image_url.url");
    expect(error.message).toContain("https URLs");
  });

  it("sends gs:// URIs as file references on Vertex AI only", () => {
    const part = { type: "image_url", image_url: { url: "gs://bucket/photos/cat.jpg" } };
    const body = generateContentBody({ messages: [{ role: "user", content: [part] }] }, VERTEX);
    expect(body.contents).toEqual([
      { role: "user", parts: [{ fileData: { mimeType: "image/jpeg", fileUri: "gs://bucket/photos/cat.jpg" } }] },
    ]);
    expect(refusal(() => generateContentBody({ messages: [{ role: "user", content: [part] }] }, GEMINI)).message).toContain(
      "Vertex AI only",
    );
  });

  it("maps the sampling fields to generationConfig", () => {
    const body = generateContentBody(
      {
        messages: [{ role: "user", content: "x" }],
        max_tokens: 100,
        temperature: 0.2,
        top_p: 0.9,
        stop: "END",
        n: 2,
        seed: 7,
        presence_penalty: 0.1,
        frequency_penalty: 0.3,
        response_format: { type: "json_object" },
        top_k: 40,
        parallel_tool_calls: true,
      },
      GEMINI,
    );
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 100,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ["END"],
      candidateCount: 2,
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.3,
      responseMimeType: "application/json",
      topK: 40,
    });
    const error = refusal(() =>
      generateContentBody({ messages: [{ role: "user", content: "x" }], parallel_tool_calls: false }, GEMINI),
    );
    expect(error.code).toBe("unsupported_parameter");
    expect(error.message).toContain("parallel_tool_calls");
  });

  it("sends a json_schema response format as responseSchema in Gemini's schema form", () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, age: { type: ["integer", "null"] } },
      required: ["name", "age"],
      additionalProperties: false,
    };
    const body = generateContentBody(
      {
        messages: [{ role: "user", content: "x" }],
        response_format: { type: "json_schema", json_schema: { name: "person", strict: true, schema } },
      },
      GEMINI,
    );
    expect(body.generationConfig).toEqual({
      responseMimeType: "application/json",
      responseSchema: {
        type: "OBJECT",
        properties: { name: { type: "STRING" }, age: { type: "INTEGER", nullable: true } },
        required: ["name", "age"],
      },
    });
  });

  it("declares function tools and maps tool_choice to functionCallingConfig", () => {
    const tools = [
      {
        type: "function",
        function: {
          name: "weather",
          description: "Current weather",
          parameters: {
            $schema: "http://json-schema.org/draft-07/schema#",
            type: "object",
            properties: { city: { type: "string", enum: ["Paris", "Rome"] } },
          },
        },
      },
      { type: "function", function: { name: "now", parameters: { type: "object", properties: {} } } },
    ];
    const body = generateContentBody(
      { messages: [{ role: "user", content: "x" }], tools, tool_choice: { type: "function", function: { name: "weather" } } },
      GEMINI,
    );
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: "weather",
            description: "Current weather",
            parameters: { type: "OBJECT", properties: { city: { type: "STRING", enum: ["Paris", "Rome"] } } },
          },
          // No arguments, no parameters: Gemini refuses an OBJECT without properties.
          { name: "now" },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["weather"] } });
    for (const [choice, mode] of [
      ["auto", "AUTO"],
      ["none", "NONE"],
      ["required", "ANY"],
    ] as const) {
      const config = generateContentBody(
        { messages: [{ role: "user", content: "x" }], tools, tool_choice: choice },
        GEMINI,
      ).toolConfig;
      expect(config).toEqual({ functionCallingConfig: { mode } });
    }
  });
});

describe("a JSON schema in Gemini's form", () => {
  it("refuses what would loosen it if dropped, naming where", () => {
    for (const [schema, where] of [
      [{ type: "object", properties: { a: { $ref: "#/$defs/a" } } }, "p.properties.a.$ref"],
      [{ oneOf: [{ type: "string" }] }, "p.oneOf"],
      [{ type: "object", additionalProperties: { type: "string" } }, "p.additionalProperties"],
      [{ type: "string", const: "x" }, "p.const"],
      [{ type: "integer", enum: [1, 2] }, "p.enum"],
      [{ type: ["string", "integer"] }, "p.type"],
    ] as const) {
      const error = refusal(() => geminiSchema(schema, "p"));
      expect(error.code).toBe("unsupported_parameter");
      expect(error.message.startsWith(`${where}:`)).toBe(true);
    }
  });

  it("keeps the keys Gemini documents and drops annotations", () => {
    expect(
      geminiSchema(
        { type: "array", items: { type: "number", minimum: 0, description: "d" }, minItems: "1", examples: [[1]], $comment: "c" },
        "p",
      ),
    ).toEqual({ type: "ARRAY", items: { type: "NUMBER", minimum: 0, description: "d" }, minItems: "1" });
  });
});
