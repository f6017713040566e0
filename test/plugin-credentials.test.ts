/**
 * Credentials stay out of results whichever executor runs the phase: the redaction happens where
 * the check runs, so a pool worker never sends a credential back to the main thread.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createEngine, REDACTED } from "../index.js";

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "plugins");
const KEY = "sk-live-7d41be90c3aa";
const request = { messages: [{ role: "user", content: "hello" }] };

describe.each(["inline", "pool"] as const)("credentials with the %s executor", (executor) => {
  it("reach the check from the integration or the parameters and never come back in a result", async () => {
    const engine = await createEngine({ plugins: ["./leaky-credentials.mjs"], baseDir: fixtures, executor });
    try {
      const evaluation = await engine.evaluate({
        side: "input",
        requestType: "chatComplete",
        request,
        credentials: { leaky: { apiKey: KEY } },
        headers: { authorization: "Bearer caller-token-0123456789" },
        guardrails: [
          {
            checks: [
              { id: "leaky.echo" },
              { id: "leaky.echo", parameters: { fail: true } },
              { id: "leaky.echo", parameters: { credentials: { apiKey: "sk-param-55aa77cc" } } },
            ],
          },
        ],
      });
      const text = JSON.stringify(evaluation);
      expect(text).not.toContain(KEY);
      expect(text).not.toContain("sk-param-55aa77cc");
      const [fromIntegration, failed, fromParameters] = evaluation.results[0]?.checks ?? [];
      expect(fromIntegration).toMatchObject({
        verdict: true,
        data: { credentials: { apiKey: REDACTED }, note: `key=${REDACTED}` },
      });
      expect(fromIntegration?.log).toBe(REDACTED);
      expect(failed?.error).toEqual({ name: "Error", message: `refused key ${REDACTED}` });
      expect(fromParameters?.data.note).toBe(`key=${REDACTED}`);
    } finally {
      await engine.close();
    }
  });
});
