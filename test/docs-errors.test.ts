/** docs/errors.md is generated from the error-code tables; this test fails when it is out of date. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_REFERENCE_PATH, renderErrorReference } from "../scripts/error-reference.js";
import { GATEWAY_ERRORS } from "../server/error-codes.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

describe("docs/errors.md", () => {
  it("is up to date with the error-code tables (run `npm run docs:checks` after changing one)", async () => {
    const actual = await readFile(path.join(root, ERROR_REFERENCE_PATH), "utf8").catch(() => "");
    expect(actual).toBe(renderErrorReference());
  });

  it("lists each layer's codes with their statuses", () => {
    const text = renderErrorReference();
    expect(text).toContain("| `rate_limit_exceeded` | 429 |");
    expect(text).toContain("| `config_invalid` |");
    expect(text).toContain("| `partner_timeout` |");
    // Every gateway code answers with a client or upstream status, or the one 500 that means a bug.
    for (const [code, info] of Object.entries(GATEWAY_ERRORS)) expect([code, info.status >= 400]).toEqual([code, true]);
  });
});
