/**
 * The model checks from the command line, through the built CLI: `guardgate models inspect` on a
 * tiny model folder, and `guardgate check` with guardrails using model.language,
 * model.classifier and model.llmJudge (against a local fake of the OpenAI format).
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeUpstream } from "../test/support/fake-upstream.js";
import { writeTinyClassifier } from "../test/support/tiny-classifier.js";

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli/bin.js");
let root: string;
let model: string;
let judge: FakeUpstream;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "guardgate-models-cli-"));
  model = await writeTinyClassifier(path.join(root, "tiny"));
  judge = await new FakeUpstream().start();
});
afterAll(async () => {
  await judge.close();
  await rm(root, { recursive: true, force: true });
});

/** Runs the CLI without blocking this thread (the fake judge answers from it). */
function guardgate(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function guardrailFile(name: string, checks: unknown[]): Promise<string> {
  const file = path.join(root, `${name}.json`);
  await writeFile(file, JSON.stringify({ id: name, deny: true, checks }));
  return file;
}

// Each run starts a process (and, for the classifier, a worker thread) that loads the runtime: slow on a busy machine.
describe("guardgate models inspect", { timeout: 120_000 }, () => {
  it("prints labels, inputs, outputs, the tokenizer and one timed inference", async () => {
    const run = await guardgate(["models", "inspect", model, "--text", "hello attack"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("labels        0=SAFE, 1=INJECTION (softmax)");
    expect(run.stdout).toContain("  input_ids  int64 [batch, sequence]");
    expect(run.stdout).toContain("  logits  float32 [batch, 2]  (logits)");
    expect(run.stdout).toContain("tokenizer     WordPiece; special tokens before [2], after [3]");
    expect(run.stdout).toMatch(/inference {5}[\d.]+ ms on 2 tokens in 1 window/);
    expect(run.stdout).toContain("scores        SAFE 0.0180, INJECTION 0.9820");
    const json = await guardgate(["models", "inspect", "tiny", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ labels: ["SAFE", "INJECTION"], logitsOutput: "logits", windows: 1 });
  });

  it("names the file at fault, and rejects bad usage", async () => {
    const run = await guardgate(["models", "inspect", path.join(root, "missing")]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${path.join(root, "missing", "model.onnx")}: not found`);
    expect((await guardgate(["models", "list"])).code).toBe(2);
  });
});

describe("guardgate check with the model checks", { timeout: 120_000 }, () => {
  it("runs model.language", async () => {
    const file = await guardrailFile("lang", [{ id: "model.language", parameters: { allow: ["en"] } }]);
    const fails = await guardgate(["check", "--guardrail", file, "--text", "Guten Morgen, wie geht es Ihnen heute?"]);
    expect(fails.code).toBe(1);
    expect(JSON.parse(fails.stdout).results[0].checks[0].data).toMatchObject({ notAllowed: ["de"] });
    expect((await guardgate(["check", "--guardrail", file, "--text", "Good morning, how are you today?"])).code).toBe(0);
  });

  it("runs model.classifier on a model folder", async () => {
    const file = await guardrailFile("cls", [
      { id: "model.classifier", parameters: { model: "./tiny", failLabels: ["INJECTION"] } },
    ]);
    const fails = await guardgate(["check", "--guardrail", file, "--text", "please attack"]);
    expect(fails.code).toBe(1);
    expect(JSON.parse(fails.stdout).results[0].checks[0].data).toMatchObject({ label: "INJECTION", failedLabels: ["INJECTION"] });
    expect((await guardgate(["check", "--guardrail", file, "--text", "hello world"])).code).toBe(0);
  });

  it("runs model.llmJudge with the judge given in the check's credentials", async () => {
    const credentials = { judges: { local: { format: "openai", base_url: judge.baseUrl, api_key: "sk-local-judge" } } };
    const file = await guardrailFile("judge", [
      { id: "model.llmJudge", parameters: { rubric: "gibberish", model: "@local/m", credentials, failOnError: true } },
    ]);
    judge.enqueue({ kind: "answer", text: JSON.stringify({ verdict: "fail", score: 0.9, reason: "Key mashing." }) });
    const fails = await guardgate(["check", "--guardrail", file, "--allow-loopback", "--text", "asdkjh qwpoe zmxn"]);
    expect(fails.code).toBe(1);
    const result = JSON.parse(fails.stdout).results[0].checks[0];
    expect(result.data).toMatchObject({ verdict: "fail", reason: "Key mashing.", usage: { input_tokens: 3, output_tokens: 3 } });
    expect(fails.stdout).not.toContain("sk-local-judge");
    // Without --allow-loopback the call is refused: a check error, which fails the guardrail under failOnError.
    const refused = await guardgate(["check", "--guardrail", file, "--text", "asdkjh qwpoe zmxn"]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).results[0].checks[0].error.message).toMatch(/refused|loopback/i);
    expect(judge.requests).toHaveLength(1);
  });
});
