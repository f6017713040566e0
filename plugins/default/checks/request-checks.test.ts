/**
 * Metadata of the request-level and network checks as data: what the registry, the docs and the
 * console read. Every example must load, every check must document its data, and the checks that
 * call out must say so.
 */
import { describe, expect, it } from "vitest";
import { type CheckDefinition, createEngine } from "../../../index.js";
import { prepareCheck } from "../../../test/support/check-harness.js";
import allowedRequestTypes from "./allowedRequestTypes.js";
import jwt from "./jwt.js";
import log from "./log.js";
import modelRules from "./modelRules.js";
import modelWhitelist from "./modelWhitelist.js";
import requiredMetadataKeys from "./requiredMetadataKeys.js";
import validUrls from "./validUrls.js";
import webhook from "./webhook.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- checks of every parameter type
const checks: Array<CheckDefinition<any>> = [
  validUrls,
  modelWhitelist,
  modelRules,
  allowedRequestTypes,
  requiredMetadataKeys,
  jwt,
  log,
  webhook,
];
const NETWORK = new Set(["validUrls", "jwt", "log", "webhook"]);
const INPUT_ONLY = new Set(["modelWhitelist", "modelRules", "allowedRequestTypes", "requiredMetadataKeys", "jwt"]);

describe.each(checks.map((c) => [c.id, c] as const))("%s metadata", (id, check) => {
  it("declares its kind, sides and schema", () => {
    expect(check.kind ?? "deterministic").toBe(NETWORK.has(id) ? "network" : "deterministic");
    expect([...check.sides]).toEqual(INPUT_ONLY.has(id) ? ["input"] : ["input", "output"]);
    expect(check.parameters.additionalProperties).toBe(false);
    for (const [name, schema] of Object.entries(check.parameters.properties as Record<string, { description?: string }>)) {
      expect(schema.description, `${id}.${name}`).toBeTruthy();
    }
    expect(check.transforms === true).toBe(id === "webhook");
  });

  it("documents its data, with examples that load", () => {
    expect(Object.keys(check.data ?? {}).length).toBeGreaterThan(2);
    expect(check.examples?.length).toBeGreaterThan(0);
    for (const example of check.examples ?? []) {
      expect(() => prepareCheck(check, example.parameters, check.sides[0])).not.toThrow();
    }
    if (NETWORK.has(id)) expect(check.notes).toMatch(/network policy/i);
  });
});

describe("the default plugin", () => {
  it("registers every check under default.<id>", async () => {
    const engine = await createEngine();
    const ids = engine.checks().map((c) => c.id);
    for (const check of checks) expect(ids).toContain(`default.${check.id}`);
    await engine.close();
  });
});
