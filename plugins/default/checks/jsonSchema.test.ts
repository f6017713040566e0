import { describe, expect, it } from "vitest";
import { createEngine } from "../../../index.js";
import { prepareParameters, runOnText } from "../../../test/support/check-harness.js";
import jsonSchema from "./jsonSchema.js";

const person = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
  required: ["name"],
  additionalProperties: false,
};

describe("default.jsonSchema", () => {
  it("passes when JSON in a fenced block validates", async () => {
    const out = await runOnText(jsonSchema, 'Sure:\n```json\n{"name": "Ada", "age": 36}\n```', { schema: person });
    expect(out.verdict).toBe(true);
    expect(out.data).toMatchObject({
      matchedJson: { name: "Ada", age: 36 },
      source: "fenced",
      validationErrors: [],
      jsonFound: true,
    });
  });

  it("passes on bare JSON, nested objects included", async () => {
    const schema = { type: "object", properties: { user: { type: "object", required: ["id"] } }, required: ["user"] };
    const out = await runOnText(jsonSchema, 'The result is {"user": {"id": 7, "tags": {"a": 1}}} as asked.', { schema });
    expect(out.verdict).toBe(true);
    expect(out.data?.matchedJson).toEqual({ user: { id: 7, tags: { a: 1 } } });
  });

  it("finds a top-level array", async () => {
    const out = await runOnText(jsonSchema, "Numbers: [1, 2, 3]", { schema: { type: "array", items: { type: "integer" } } });
    expect(out.verdict).toBe(true);
    expect(out.data?.source).toBe("text");
  });

  it("takes the first candidate that validates, not merely the first found", async () => {
    const out = await runOnText(jsonSchema, '{"name": 5} then {"name": "Bo"}', { schema: person });
    expect(out.verdict).toBe(true);
    expect(out.data?.matchedJson).toEqual({ name: "Bo" });
    expect(out.data?.candidates).toBe(2);
  });

  it("fails with every error of the first JSON found, as JSON pointers", async () => {
    const out = await runOnText(jsonSchema, '{"age": -1, "extra": true, "a/b": 1}', { schema: person });
    expect(out.verdict).toBe(false);
    const errors = out.data?.validationErrors as Array<{ path: string; message: string }>;
    expect(new Set(errors.map((e) => e.path))).toEqual(new Set(["", "/a~1b", "/age", "/extra"]));
    expect(errors.find((e) => e.path === "")?.message).toMatch(/name/);
    expect(out.data?.validationErrorCount).toBe(4);
    expect(out.data?.matchedJson).toEqual({ age: -1, extra: true, "a/b": 1 });
    expect(out.data?.explanation).toMatch(/4 errors/);
  });

  it("fails when there is no JSON, and passes then with not", async () => {
    const out = await runOnText(jsonSchema, "Just words.", { schema: person });
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ jsonFound: false, matchedJson: null, source: null, validationErrors: [] });
    expect(out.data?.explanation).toMatch(/No JSON/);
    expect((await runOnText(jsonSchema, "Just words.", { schema: person, not: true })).verdict).toBe(true);
    expect((await runOnText(jsonSchema, '{"name": "x"}', { schema: person, not: true })).verdict).toBe(false);
  });

  it("evaluates an empty text", async () => {
    expect((await runOnText(jsonSchema, "", { schema: true })).verdict).toBe(false);
  });

  it("defaults to draft 2020-12 and honours $schema for 2019-09, draft-07 and draft-06", async () => {
    // prefixItems exists in 2020-12 only; in draft-07 the tuple form of items does the job.
    const tuple2020 = { type: "array", prefixItems: [{ type: "string" }], items: false };
    expect((await runOnText(jsonSchema, '["a"]', { schema: tuple2020 })).verdict).toBe(true);
    expect((await runOnText(jsonSchema, '["a", 1]', { schema: tuple2020 })).verdict).toBe(false);
    const tuple07 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "array",
      items: [{ type: "string" }],
      additionalItems: false,
    };
    expect((await runOnText(jsonSchema, '["a", 1]', { schema: tuple07 })).verdict).toBe(false);
    expect((await runOnText(jsonSchema, '["a"]', { schema: tuple07 })).verdict).toBe(true);
    const s2019 = {
      $schema: "https://json-schema.org/draft/2019-09/schema",
      type: "object",
      unevaluatedProperties: false,
      properties: { a: {} },
    };
    expect((await runOnText(jsonSchema, '{"a": 1}', { schema: s2019 })).verdict).toBe(true);
    expect((await runOnText(jsonSchema, '{"a": 1, "b": 2}', { schema: s2019 })).verdict).toBe(false);
    const s06 = { $schema: "http://json-schema.org/draft-06/schema#", type: "integer", exclusiveMinimum: 1 };
    expect((await runOnText(jsonSchema, "[0] 2", { schema: { ...s06, type: "array" } })).verdict).toBe(true);
  });

  it("validates formats", async () => {
    const schema = { type: "object", properties: { email: { type: "string", format: "email" } } };
    expect((await runOnText(jsonSchema, '{"email": "a@b.co"}', { schema })).verdict).toBe(true);
    expect((await runOnText(jsonSchema, '{"email": "nope"}', { schema })).verdict).toBe(false);
  });

  it("runs patterns on RE2", async () => {
    const schema = { type: "string", pattern: "^(a+)+$" };
    const out = await runOnText(jsonSchema, `["${"a".repeat(40)}!"]`, { schema: { type: "array", items: schema } });
    expect(out.verdict).toBe(false);
  });

  it("rejects an invalid schema when the guardrail is loaded", () => {
    expect(() => prepareParameters(jsonSchema, { schema: { type: "strin" } })).toThrow(/schema: is not a valid JSON Schema/);
    expect(() => prepareParameters(jsonSchema, { schema: { $schema: "http://json-schema.org/draft-04/schema#" } })).toThrow(
      /not supported/,
    );
    expect(() => prepareParameters(jsonSchema, { schema: { $ref: "https://example.com/s.json" } })).toThrow(/schema/);
    expect(() => prepareParameters(jsonSchema, { schema: { type: "string", pattern: "(?=a)" } })).toThrow(/schema/);
    expect(() => prepareParameters(jsonSchema, {})).toThrow(/schema/);
  });

  it("reports an invalid schema as a config error naming the parameter, through the engine", async () => {
    const engine = await createEngine();
    const evaluation = engine.evaluate({
      side: "output",
      requestType: "chatComplete",
      request: { messages: [] },
      response: { choices: [] },
      guardrails: [{ checks: [{ id: "default.jsonSchema", parameters: { schema: { type: "strin" } } }] }],
    });
    await expect(evaluation).rejects.toMatchObject({ code: "config_invalid", path: "guardrails[0].checks[0].parameters.schema" });
  });

  it("compiles a schema once whatever the order of its keys, and allows two schemas with one $id", async () => {
    const a = { $id: "https://x/s", type: "object", required: ["a"] };
    const b = { required: ["a"], type: "object", $id: "https://x/s" };
    const c = { $id: "https://x/s", type: "array" };
    expect((await runOnText(jsonSchema, '{"a": 1}', { schema: a })).verdict).toBe(true);
    expect((await runOnText(jsonSchema, '{"a": 1}', { schema: b })).verdict).toBe(true);
    expect((await runOnText(jsonSchema, "[1]", { schema: c })).verdict).toBe(true);
  });

  it("omits a very large match from data but still decides on it", async () => {
    const big = JSON.stringify({ name: "x".repeat(20_000) });
    const out = await runOnText(jsonSchema, big, { schema: person });
    expect(out.verdict).toBe(true);
    expect(out.data?.matchedJson).toBeNull();
    expect(out.data?.jsonFound).toBe(true);
  });
});
