import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine, type EvaluateOptions, type Guardrail } from "../../core/index.js";
import type { PluginCredentialMap, PluginCredentialSource } from "../sources/types.js";
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
    // A resolver that is never needed costs the phase no turn of the microtask queue.
    expect(await turnsUntil(withProviders.sync("input", guardrails, request, undefined, context))).toBe(1);
    expect(await turnsUntil(without.sync("input", guardrails, request, undefined, context))).toBe(1);
  });

  it("settles a phase of synchronous checks in one turn, as a resolved promise does", async () => {
    const phases = new Phases(engine, () => {}, undefined, undefined);
    expect(await turnsUntil(Promise.resolve())).toBe(1);
    expect(await turnsUntil(phases.sync("input", guardrails, request, undefined, context))).toBe(1);
    expect(await turnsUntil(phases.whole("input", guardrails, request, undefined, context))).toBe(1);
    const evaluation = await phases.sync("input", guardrails, request, undefined, context);
    const direct = await engine.evaluate({ side: "input", prepared: guardrails, requestType: "chatComplete", request });
    expect(evaluation?.verdict).toBe(direct.verdict);
    expect(evaluation?.results.map((r) => r.checks.map((c) => [c.id, c.verdict]))).toEqual(
      direct.results.map((r) => r.checks.map((c) => [c.id, c.verdict])),
    );
  });

  describe("plugin credentials", () => {
    /** A source counting its reads, whose answers a test changes; and an engine that records what each phase was given. */
    const setup = () => {
      const source = {
        reads: 0,
        held: { default: { key: "one" }, unused: { key: "other" } } as PluginCredentialMap,
        forWorkspace(): Promise<PluginCredentialMap> {
          this.reads++;
          return Promise.resolve(this.held);
        },
      };
      const given: (PluginCredentialMap | undefined)[] = [];
      const spying: Engine = {
        ...engine,
        evaluateNow: (options: EvaluateOptions) => {
          given.push(options.credentials);
          return engine.evaluateNow(options);
        },
      };
      const phases = new Phases(spying, () => {}, source as PluginCredentialSource, undefined);
      return { source, given, phases };
    };
    const inWorkspace = { ...context, workspaceId: "ws-1" };

    it("reads a workspace's credentials once, then gives them without a turn of its own", async () => {
      const { source, given, phases } = setup();
      await phases.sync("input", guardrails, request, undefined, inWorkspace);
      expect(await turnsUntil(phases.sync("input", guardrails, request, undefined, inWorkspace))).toBe(1);
      expect(source.reads).toBe(1);
      // Only the plugins the list's checks use.
      expect(given).toEqual([{ default: { key: "one" } }, { default: { key: "one" } }]);
      await phases.sync("input", guardrails, request, undefined, context);
      expect(given.at(-1)).toBeUndefined();
    });

    it("reads them again after forgetCredentials: a change is seen by the next phase", async () => {
      const { source, given, phases } = setup();
      await phases.sync("input", guardrails, request, undefined, inWorkspace);
      source.held = { default: { key: "two" } };
      phases.forgetCredentials();
      await phases.sync("input", guardrails, request, undefined, inWorkspace);
      expect(given.at(-1)).toEqual({ default: { key: "two" } });
      source.held = {};
      phases.forgetCredentials();
      await phases.sync("input", guardrails, request, undefined, inWorkspace);
      expect(given.at(-1)).toBeUndefined();
      expect(source.reads).toBe(3);
    });

    it("keeps no answer of a read begun before forgetCredentials", async () => {
      const { source, given, phases } = setup();
      const first = phases.sync("input", guardrails, request, undefined, inWorkspace);
      source.held = { default: { key: "two" } };
      phases.forgetCredentials();
      await first;
      await phases.sync("input", guardrails, request, undefined, inWorkspace);
      expect(given.at(-1)).toEqual({ default: { key: "two" } });
    });
  });
});
