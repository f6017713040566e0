/**
 * docs/partners.md is generated from the partner plugins' metadata; this test fails when it is
 * out of date, and checks that every partner check is in the table with its facts.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { defineCheck, definePlugin } from "../core/index.js";
import { definePartner } from "../plugins/partner-kit/catalog.js";
import { partners } from "../plugins/partners.js";
import { PARTNER_REFERENCE_PATH, renderPartnerReference } from "../scripts/partner-reference.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

describe("docs/partners.md", () => {
  it("is up to date with the partner plugins (run `npm run docs:checks` after changing one)", async () => {
    const expected = renderPartnerReference(partners);
    const actual = await readFile(path.join(root, PARTNER_REFERENCE_PATH), "utf8").catch(() => "");
    if (actual !== expected) {
      const a = actual.split("\n");
      const e = expected.split("\n");
      const line = e.findIndex((text, i) => text !== a[i]);
      expect.fail(
        `${PARTNER_REFERENCE_PATH} is out of date: run \`npm run docs:checks\`. First difference at line ${line + 1}:\n  file:     ${JSON.stringify(a[line])}\n  expected: ${JSON.stringify(e[line])}`,
      );
    }
  });

  it("lists every partner check with parameters, credentials, verdict and redaction", () => {
    const plugin = definePlugin({
      id: "acme",
      class: "PARTNER",
      apiVersion: 1,
      credentials: {
        type: "object",
        properties: { apiKey: { type: "string" }, baseURL: { type: "string" } },
        required: ["apiKey"],
      },
      checks: [
        defineCheck({
          id: "scan",
          description: "Scans.",
          sides: ["input", "output"],
          parameters: { type: "object", properties: { redact: { type: "boolean" }, timeout: { type: "integer" } } },
          run: () => ({ verdict: true }),
        }),
      ],
    });
    const doc = renderPartnerReference([
      definePartner({
        vendor: "Acme | Guard",
        reference: "https://docs.acme.example/api",
        plugin,
        checks: { scan: { verdict: "`flagged` is true", redaction: "the spans it returns" } },
      }),
    ]);
    expect(doc).toContain(
      "| Acme \\| Guard | `acme.scan` | input, output | `redact` | `apiKey` (required), `baseURL` | `flagged` is true | the spans it returns |",
    );
    expect(doc).toContain("- Acme | Guard (`acme`): https://docs.acme.example/api");
    expect(() => definePartner({ vendor: "Acme", reference: "x", plugin, checks: {} })).toThrow("check scan has no facts");
  });
});
