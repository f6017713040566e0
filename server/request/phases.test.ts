import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine, type Guardrail } from "../../core/index.js";
import type { ProviderResolver } from "../providers/resolve.js";
import { builtinPlugins } from "../../plugins/builtin.js";
import { Phases } from "./phases.js";

/** Microtask turns until `promise` settles (counted by a chain of resolved promises beside it). */
async function turnsUntil(promise: Promise<unknown>): Promise<number> {
  let settled = false;
  void promise.then(() => (settled = true));
  let turns = 0;
  while (!settled && turns < 100) {
    await Promise.resolve();
    turns++;
  }
  return turns;
}

describe("phases", () => {
  let engine: Engine;
  let guardrails: Guardrail[];
  beforeAll(async () => {
    engine = await createEngine({ executor: "inline", builtins: builtinPlugins });
    guardrails = (
      await engine.normalize({
        input_guardrails: [
          {
            id: "g",
            deny: true,
            wordCount: { minWords: 1 },
            ssn: { id: "default.regexMatch", rule: "\\d{3}-\\d{2}", not: true },
          },
        ],
      })
    ).input;
  });
  afterAll(() => engine?.close());

  const request = { messages: [{ role: "user", content: "Two words." }] };
  const context = { requestType: "chatComplete" as const, metadata: {}, headers: {} };

  it("asks the provider resolver nothing and awaits no judge lookup for a list that names no judge", async () => {
    const asked: string[] = [];
    const providers = {
      bySlug: (slug: string) => {
        asked.push(slug);
        return Promise.resolve(undefined);
      },
    } as unknown as ProviderResolver;
    const withProviders = new Phases(engine, () => {}, undefined, providers);
    const without = new Phases(engine, () => {}, undefined, undefined);
    const a = await withProviders.sync("input", guardrails, request, undefined, context);
    expect(a?.verdict).toBe(true);
    expect(asked).toEqual([]);
    // A resolver that is never needed costs the phase no turn of the microtask queue: beyond the
    // engine's own, two for the credential lookup (its promise and its await) and one for the phase's own.
    const own = await turnsUntil(engine.evaluate({ side: "input", prepared: guardrails, requestType: "chatComplete", request }));
    expect(await turnsUntil(withProviders.sync("input", guardrails, request, undefined, context))).toBeLessThanOrEqual(own + 3);
    expect(await turnsUntil(without.sync("input", guardrails, request, undefined, context))).toBeLessThanOrEqual(own + 3);
  });
});
