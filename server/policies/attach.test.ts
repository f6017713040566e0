import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../index.js";
import { buildRouting } from "../routing/build.js";
import type { PolicyRecord } from "../sources/types.js";
import { PolicyAttacher } from "./attach.js";

let engine: Engine;
beforeAll(async () => {
  engine = await createEngine();
});
afterAll(async () => {
  await engine.close();
});

const policy = (output: PolicyRecord["output_guardrails"], scope: PolicyRecord["scope"] = {}): PolicyRecord => ({
  id: "p",
  name: "P",
  mode: "enforce",
  scope,
  input_guardrails: [],
  output_guardrails: output,
});
const request = { workspaceId: "ws", apiKeyId: "k", model: "@scr/gpt-4o" };

describe("policies on a routing's targets", () => {
  it("recomputes a target's stream hold with the policy's output guardrails, whatever the config's stream_mode", async () => {
    const deny = { id: "deny", async: false, deny: true, checks: [{ id: "default.contains", parameters: { words: ["x"] } }] };
    const redact = { id: "mask", async: false, checks: [{ id: "default.regexReplace", parameters: { rule: "\\d+" } }] };
    const attacher = new PolicyAttacher(engine, { forWorkspace: async () => [policy([deny, redact])] });
    for (const config of [{}, { stream_mode: "after" }, { output_guardrails: [{ wordCount: { minWords: 1 } }] }]) {
      const routing = await buildRouting(config, engine, {});
      expect(routing.root.stream.mode).toBe("after");
      const node = attacher.applyNode(routing.root, await attacher.forRequest(request));
      // `contains` judges the whole answer, so a denying guardrail holding it buffers the stream.
      expect(node.stream).toMatchObject({ mode: "buffer", redactors: ["mask"], toolRedactors: ["mask"] });
      expect(node.output.sync.map((g) => g.id).slice(0, 2)).toEqual(["deny", "mask"]);
      // The same target and set give the same node: the input evaluation and relay see one list.
      expect(attacher.applyNode(routing.root, await attacher.forRequest(request))).toBe(node);
    }
  });

  it("leaves a target out of a model scope as it is", async () => {
    const attacher = new PolicyAttacher(engine, {
      forWorkspace: async () => [
        policy([{ id: "d", async: false, deny: true, checks: [{ id: "default.notNull" }] }], { models: ["@scr/*"] }),
      ],
    });
    const routing = await buildRouting({}, engine, {});
    const out = await attacher.forRequest({ ...request, model: "@mock/m" });
    expect(attacher.applyNode(routing.root, out)).toBe(routing.root);
    const held = await attacher.forRequest(request);
    expect(attacher.applyNode(routing.root, held).output.sync.map((g) => g.id)).toEqual(["d"]);
  });
});
