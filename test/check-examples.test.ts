/**
 * Every example of every check of the built-in plugins, run through a real engine: one
 * table-driven test per check, like ESLint's RuleTester, asserting the verdict (and the data
 * fields and transformed text) each example states. The docs show these examples, so this test
 * keeps them true. Partner checks run against their vendors' contract fakes; a check whose
 * examples cannot run here is listed with the reason, and its examples' parameters are still loaded.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createEngine, type PluginDefinition } from "../core/index.js";
import { runExamples } from "../core/testing/index.js";
import defaultPlugin from "../plugins/default/index.js";
import modelPlugin from "../plugins/model/index.js";
import { partners } from "../plugins/partners.js";
import { FAKE_SETTINGS, type PartnerFake } from "./support/partners/fake.js";
import { VENDOR_FAKES } from "./support/partners/vendors.js";

/** Checks whose examples cannot run here, with the reason and where they are tested instead. */
const SKIPPED: Record<string, string> = {
  "default.webhook": "its example posts to a remote receiver (webhook.test.ts runs the check against a local one)",
  "default.log": "its example posts to a remote collector (log.test.ts runs the check against a local one)",
  "model.llmJudge": "its example calls a judge model named in the gateway's credentials (llmJudge.test.ts uses a local fake)",
  "model.classifier":
    "its example names a model declared in the gateway's config file (classifier.test.ts runs a small model of its own)",
};

const fakes = new Map<string, Promise<PartnerFake>>();

/** The plugin's vendor fake, started on first use; undefined for plugins that call no vendor. */
function fakeOf(pluginId: string): Promise<PartnerFake> | undefined {
  const vendor = VENDOR_FAKES[pluginId];
  if (!vendor) return undefined;
  let fake = fakes.get(pluginId);
  if (!fake) {
    fake = vendor.start();
    fakes.set(pluginId, fake);
  }
  return fake;
}

afterAll(async () => {
  for (const fake of fakes.values()) await (await fake).close();
});

const PLUGINS: PluginDefinition[] = [defaultPlugin, modelPlugin, ...partners.map((p) => p.plugin)];

it("knows a fake for every partner plugin", () => {
  expect(partners.map((p) => p.plugin.id).filter((id) => !VENDOR_FAKES[id])).toEqual([]);
});

describe.each(PLUGINS.map((plugin) => [plugin.id, plugin] as const))("plugin %s", (_, plugin) => {
  for (const check of plugin.checks) {
    const id = `${plugin.id}.${check.id}`;
    const reason = SKIPPED[id];
    if (reason) {
      // Not run here, but still held to what a config can say: each example's parameters load.
      it(`${id}: every example's parameters load; not run here, since ${reason}`, async () => {
        const engine = await createEngine({ plugins: [plugin] });
        expect(check.examples?.length ?? 0, `${id} has no examples`).toBeGreaterThan(0);
        for (const example of check.examples ?? []) {
          const config = { input_guardrails: [{ checks: [{ id, parameters: example.parameters }] }] };
          const lists = await engine.normalize(config);
          expect(lists.input[0]?.checks.map((c) => c.id)).toEqual([id]);
        }
      });
      continue;
    }
    it(`${id}: every example gives the verdict it states`, async () => {
      const started = fakeOf(plugin.id);
      const fake = started && (await started);
      const vendor = fake && { settings: FAKE_SETTINGS, credentials: VENDOR_FAKES[plugin.id]?.credentials(fake) };
      const runs = await runExamples(check, { plugin, ...vendor });
      expect(runs.length, `${id} has no examples`).toBeGreaterThan(0);
      expect(runs.flatMap((run) => run.problems)).toEqual([]);
    });
  }
});
