/**
 * docs/checks.md is generated from the checks' metadata; this test fails when it is out of date,
 * so a check changed (or added by another plugin) without `npm run docs:checks` is caught.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createEngine } from "../index.js";
import { describeType, REFERENCE_PATH, renderBuiltinReference, renderCheckReference } from "../scripts/check-reference.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

describe("docs/checks.md", () => {
  it("is up to date with the registered checks (run `npm run docs:checks` after changing a check)", async () => {
    const expected = await renderBuiltinReference();
    const actual = await readFile(path.join(root, REFERENCE_PATH), "utf8").catch(() => "");
    if (actual !== expected) {
      const a = actual.split("\n");
      const e = expected.split("\n");
      const line = e.findIndex((text, i) => text !== a[i]);
      expect.fail(
        `${REFERENCE_PATH} is out of date: run \`npm run docs:checks\`. First difference at line ${line + 1}:\n  file:     ${JSON.stringify(a[line])}\n  expected: ${JSON.stringify(e[line])}`,
      );
    }
  });

  it("documents every registered check with its parameters, data, sides, kind and an example", async () => {
    const engine = await createEngine();
    const checks = engine.checks();
    const doc = renderCheckReference(checks, engine.plugins());
    for (const check of checks) {
      const section = doc.slice(doc.indexOf(`<a id="${check.id}"></a>`));
      expect(section.length, check.id).toBeLessThan(doc.length);
      expect(doc).toContain(`[\`${check.id}\`](#${check.id})`);
      expect(section).toContain(`- **Sides:** ${check.sides.join(", ")}`);
      expect(section).toContain(`- **Kind:** ${check.kind}`);
      for (const name of Object.keys((check.parameters.properties ?? {}) as object))
        expect(section, `${check.id} ${name}`).toContain(`\`${name}\``);
      for (const field of Object.keys(check.data)) expect(section, `${check.id} ${field}`).toContain(`| \`${field}\` |`);
      if (check.examples.length) expect(section).toContain(`"id": "${check.id}"`);
    }
  });

  it("renders any check handed to it, not a fixed list", () => {
    const doc = renderCheckReference(
      [
        {
          id: "acme.shout",
          plugin: "acme",
          class: "custom",
          name: "Shout",
          description: "Checks | shouting.",
          sides: ["output"],
          kind: "model",
          transforms: true,
          streamScope: { windowWhen: { mode: "a" } },
          defaultTimeout: 30_000,
          parameters: {
            type: "object",
            properties: {
              level: { type: "integer", minimum: 1, maximum: 5, default: 3, description: "How loud." },
              mode: { enum: ["a", "b"], description: "Mode." },
              tags: { type: "array", items: { type: "string", minLength: 1 }, minItems: 2 },
            },
            required: ["mode"],
            additionalProperties: false,
          },
          notes: "Long **notes**.",
          data: { loud: { type: "boolean", description: "Loud?" } },
          examples: [{ parameters: { mode: "a" }, text: "hi\u200b" }],
        },
      ],
      [{ id: "acme", name: "Acme", description: "", class: "custom", apiVersion: 1, source: "x", checks: ["acme.shout"] }],
    );
    expect(doc).toContain("| [`acme.shout`](#acme.shout) | output | model | Checks \\| shouting. |");
    expect(doc).toContain("| `level` | integer (≥ 1; ≤ 5) | `3` | How loud. |");
    expect(doc).toContain('| `mode` (required) | "a" \\| "b" | — | Mode. |');
    expect(doc).toContain("| `tags` | string[] (at least 2; each non-empty) | — |  |");
    expect(doc).toContain("- **Transforms the content:** yes");
    expect(doc).toContain("Long **notes**.");
    expect(doc).toContain('"hi\\u200B"');
  });

  it("names types readably", () => {
    expect(describeType({ type: ["object", "boolean"] })).toBe("object | boolean");
    expect(describeType({ type: "array", items: { enum: ["x", "y"] } })).toBe('("x" | "y")[]');
    expect(describeType({})).toBe("any");
  });
});
