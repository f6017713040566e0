/**
 * model.classifier on a tiny ONNX model the tests write (test/support/tiny-classifier.ts): its
 * WordPiece tokenizer, windows over long texts, label mapping, load errors, and the pool path (the
 * pool's workers run the compiled dist/, which npm test builds first).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../../../test/support/check-harness.js";
import { writeTinyClassifier } from "../../../test/support/tiny-classifier.js";
import classifier from "./classifier.js";
import { classify, loadClassifier, loadedModels, tokenize, windowStarts } from "../shared/onnx-classifier.js";
import { type AutoExecutor, bodyForText, createEngine } from "../../../core/index.js";
import { builtinPlugins } from "../../builtin.js";

let root: string;
let model: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "guardgate-classifier-"));
  model = await writeTinyClassifier(path.join(root, "tiny"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `n` harmless words. */
const filler = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? "hello" : "world")).join(" ");

describe("model.classifier", () => {
  it("tokenises with the model's WordPiece tokenizer, splitting words into pieces", async () => {
    const loaded = await loadClassifier(model);
    expect(loaded.tokenizer.encode("Hello ATTACKERS please").tokens).toEqual([
      "[CLS]",
      "hello",
      "attack",
      "##er",
      "##s",
      "please",
      "[SEP]",
    ]);
    expect(tokenize(loaded, "Hello ATTACKERS")).toEqual([4, 7, 9, 8]);
    expect(loaded.prefix).toEqual([2]);
    expect(loaded.suffix).toEqual([3]);
  });

  it("maps the model's outputs to the labels of config.json and fails on a fail label", async () => {
    const out = await runCheck(classifier, { model, failLabels: ["INJECTION"] }, { text: "please, attackers" });
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ label: "INJECTION", failedLabels: ["INJECTION"], threshold: 0.5, windows: 1 });
    const scores = out.data?.scores as Record<string, number>;
    // Logits [2, 6] for the window: softmax gives INJECTION 1/(1+e^-4).
    expect(scores.INJECTION).toBeCloseTo(1 / (1 + Math.exp(-4)), 5);
    expect(scores.SAFE).toBeCloseTo(1 - (scores.INJECTION as number), 5);
    const safe = await runCheck(classifier, { model, failLabels: ["INJECTION"] }, { text: "hello world, please" });
    expect(safe.verdict).toBe(true);
    expect(safe.data).toMatchObject({ label: "SAFE", failedLabels: [] });
    expect(safe.data?.explanation).toMatch(/^No fail label reached 0.5: INJECTION 0.119/);
  });

  it("honours the threshold and other fail labels", async () => {
    const high = await runCheck(classifier, { model, failLabels: ["INJECTION"], threshold: 0.999 }, { text: "attack" });
    expect(high.verdict).toBe(true);
    const safeFails = await runCheck(classifier, { model, failLabels: ["SAFE"] }, { text: "hello world" });
    expect(safeFails.verdict).toBe(false);
  });

  it("cuts long texts into overlapping windows and finds a passage at the end", async () => {
    expect(windowStarts(5, 8)).toEqual([0]);
    expect(windowStarts(20, 8)).toEqual([0, 6, 12]);
    const text = `${filler(300)} attack`;
    const windowed = await runCheck(classifier, { model, failLabels: ["INJECTION"], maxTokens: 32 }, { text });
    expect(windowed.verdict).toBe(false);
    expect(windowed.data).toMatchObject({ tokens: 301, windows: 13 });
    expect(windowed.data?.explanation).toContain("in window 13 of 13");
    // A window is the model's limit: the same text in one window of 512 tokens is also seen, and a
    // text of harmless words only passes however it is cut.
    const loaded = await loadClassifier(model);
    expect((await classify(loaded, text, 512)).windows).toBe(1);
    const harmless = await runCheck(classifier, { model, failLabels: ["INJECTION"], maxTokens: 16 }, { text: filler(200) });
    expect(harmless.verdict).toBe(true);
    expect(harmless.data?.windows).toBe(18);
  });

  it("feeds token_type_ids to graphs that take them", async () => {
    const bert = await writeTinyClassifier(path.join(root, "with-token-types"), { withTokenTypes: true });
    const out = await runCheck(classifier, { model: bert, failLabels: ["INJECTION"] }, { text: "attack" });
    expect(out.verdict).toBe(false);
  });

  it("uses sigmoid per label for multi-label models", async () => {
    const multi = await writeTinyClassifier(path.join(root, "multi"), {
      config: { id2label: { 0: "toxic", 1: "threat" }, problem_type: "multi_label_classification" },
    });
    const out = await runCheck(classifier, { model: multi, failLabels: ["threat"] }, { text: "hello attack" });
    const scores = out.data?.scores as Record<string, number>;
    expect(scores.toxic).toBeCloseTo(1 / (1 + Math.exp(-2)), 5);
    expect(scores.threat).toBeCloseTo(1 / (1 + Math.exp(-6)), 5);
    expect(out.data?.failedLabels).toEqual(["threat"]);
  });

  it("resolves a name declared under models: and says when a name is not declared", async () => {
    const named = await runCheck(
      classifier,
      { model: "tiny", failLabels: ["INJECTION"] },
      { text: "attack", settings: { models: { tiny: model } } },
    );
    expect(named.verdict).toBe(false);
    await expect(
      runCheck(classifier, { model: "prompt-guard", failLabels: ["X"] }, { text: "x", settings: { models: { tiny: model } } }),
    ).rejects.toThrow(
      'model "prompt-guard" is neither a folder path nor a name under models: in the gateway config file (declared: tiny)',
    );
  });

  it("reports load errors naming the file and what was wrong", async () => {
    const broken = path.join(root, "broken");
    await writeTinyClassifier(broken);
    const run = (failLabels = ["INJECTION"]) => runCheck(classifier, { model: broken, failLabels }, { text: "attack" });
    await expect(run(["MALICIOUS"])).rejects.toThrow(
      `failLabels: "MALICIOUS" is not a label of ${path.join(broken, "config.json")} (labels: SAFE, INJECTION)`,
    );

    await writeFile(path.join(broken, "config.json"), "{ not json");
    const config = path.join(root, "broken-config");
    await writeTinyClassifier(config, { config: { architectures: ["X"] } });
    await expect(runCheck(classifier, { model: config, failLabels: ["A"] }, { text: "a" })).rejects.toThrow(
      `${path.join(config, "config.json")}: has no "id2label" object`,
    );

    const graph = path.join(root, "broken-graph");
    await writeTinyClassifier(graph);
    await writeFile(path.join(graph, "model.onnx"), "not a model");
    await expect(runCheck(classifier, { model: graph, failLabels: ["SAFE"] }, { text: "a" })).rejects.toThrow(
      new RegExp(`^${path.join(graph, "model.onnx").replace(/[.\\/]/g, "\\$&")}: onnxruntime cannot load it`),
    );

    const empty = path.join(root, "empty");
    await writeTinyClassifier(empty);
    await rm(path.join(empty, "model.onnx"));
    await expect(runCheck(classifier, { model: empty, failLabels: ["SAFE"] }, { text: "a" })).rejects.toMatchObject({
      code: "model_invalid",
      message: `${path.join(empty, "model.onnx")}: not found; a model folder holds model.onnx, tokenizer.json and config.json`,
    });
    // A failed load is not kept: fixing the folder makes the next run work.
    await writeTinyClassifier(empty);
    expect((await runCheck(classifier, { model: empty, failLabels: ["INJECTION"] }, { text: "attack" })).verdict).toBe(false);
  });
});

// Workers start and load onnxruntime: slow on a busy machine.
describe("model.classifier in the engine", { timeout: 120_000 }, () => {
  const evaluate = (engine: Awaited<ReturnType<typeof createEngine>>, text: string, parameters: Record<string, unknown>) =>
    engine.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: bodyForText("input", "chatComplete", text),
      guardrails: [{ id: "g", deny: true, checks: [{ id: "model.classifier", parameters }] }],
    });

  it("runs in a worker thread under the inline and auto executors, never on the calling thread", async () => {
    const before = loadedModels().length;
    const folder = await writeTinyClassifier(path.join(root, "pool-only"));
    for (const executor of ["inline", "auto"] as const) {
      const engine = await createEngine({ builtins: builtinPlugins, executor, pool: { size: 1 } });
      try {
        const denied = await evaluate(engine, "please attack", { model: folder, failLabels: ["INJECTION"] });
        expect(denied.status).toBe(446);
        expect(denied.results[0]?.checks[0]).toMatchObject({ verdict: false, data: { label: "INJECTION" } });
        const passed = await evaluate(engine, "hello world", { model: folder, failLabels: ["INJECTION"] });
        expect(passed.status).toBe(200);
        if (executor === "auto") {
          expect((engine.executor as AutoExecutor).counts()).toEqual({ inline: 0, pool: 2 });
        }
      } finally {
        await engine.close();
      }
    }
    expect(loadedModels().includes(folder)).toBe(false);
    expect(loadedModels().length).toBe(before);
  });

  it("is cut off at its time limit in the pool, and load errors are check errors", async () => {
    const engine = await createEngine({ builtins: builtinPlugins, executor: "inline", pool: { size: 1 } });
    try {
      const slow = await evaluate(engine, filler(2000), {
        model: await writeTinyClassifier(path.join(root, "slow")),
        failLabels: ["INJECTION"],
        timeout: 1,
      });
      expect(slow.results[0]?.checks[0]?.error).toMatchObject({ name: "TimeoutError" });
      const missing = await evaluate(engine, "x", { model: path.join(root, "nowhere"), failLabels: ["INJECTION"] });
      expect(missing.results[0]?.checks[0]?.error).toMatchObject({
        message: `${path.join(root, "nowhere", "model.onnx")}: not found; a model folder holds model.onnx, tokenizer.json and config.json`,
      });
    } finally {
      await engine.close();
    }
  });
});
