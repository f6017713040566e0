/**
 * The `bench:checks` rows of model.language, model.classifier and model.llmJudge, which need more
 * than a text: the classifier a model folder (the tests' tiny ONNX model, so the rows show the
 * check's own cost — tokenising, windowing, the pool — and not a real model's, which
 * `guardgate models inspect` times), the judge a provider (a local server answering the OpenAI
 * format at once, with the cache off, so the rows show the call's overhead and not a model's).
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEngine, type Engine, type Guardrail } from "../core/index.js";
import { builtinPlugins } from "../plugins/builtin.js";
import { writeTinyClassifier } from "../test/support/tiny-classifier.js";
import type { CheckRow } from "./checks-report.js";

/** Measures one evaluation function (the caller's tinybench set-up). */
export type Measure = (fn: () => unknown, bytes: number) => Promise<{ median_us: number; p99_us: number; ops_per_s: number }>;

/** The model checks this module measures. */
export const MODEL_CHECKS = ["model.language", "model.classifier", "model.llmJudge"];

const KB = 1024;

/** A local judge: answers every OpenAI-format request at once with a pass verdict. */
async function startJudge(): Promise<{ url: string; close: () => Promise<void> }> {
  const answer = JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content: '{"verdict":"pass","score":0.01,"reason":"ok"}' } }],
    usage: { prompt_tokens: 10, completion_tokens: 10 },
  });
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end(answer));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Rows for the model checks, inline and in the pool where each can run. */
export async function measureModelChecks(
  texts: ReadonlyMap<number, readonly string[]>,
  measure: Measure,
  step: (label: string) => void,
  evaluation: (text: string, prepared: Guardrail[]) => Parameters<Engine["evaluate"]>[0],
): Promise<CheckRow[]> {
  const dir = await mkdtemp(path.join(tmpdir(), "guardgate-bench-models-"));
  const judge = await startJudge();
  const settings = { allowLoopback: true };
  const inline = await createEngine({ builtins: builtinPlugins, executor: "inline", settings });
  const pooled = await createEngine({ builtins: builtinPlugins, executor: "pool", settings });
  try {
    const model = await writeTinyClassifier(path.join(dir, "tiny"));
    const cases: Array<{
      check: string;
      parameters: Record<string, unknown>;
      sizes: number[];
      executors: Array<"inline" | "pool">;
    }> = [
      { check: "model.language", parameters: { allow: ["en"] }, sizes: [KB, 10 * KB, 100 * KB], executors: ["inline", "pool"] },
      // Always in a worker: the inline engine hands its phase to the pool too, so one column.
      {
        check: "model.classifier",
        parameters: { model, failLabels: ["INJECTION"] },
        sizes: [KB, 10 * KB, 100 * KB],
        executors: ["pool"],
      },
      {
        check: "model.llmJudge",
        parameters: {
          rubric: "promptInjection",
          model: "@bench/judge",
          cache: false,
          credentials: { judges: { bench: { format: "openai", base_url: judge.url } } },
        },
        // The judge refuses texts over maxTextChars (32,000 by default) rather than judge them in part.
        sizes: [KB, 10 * KB],
        executors: ["inline", "pool"],
      },
    ];
    const rows: CheckRow[] = [];
    for (const c of cases) {
      for (const executor of c.executors) {
        const engine = executor === "inline" ? inline : pooled;
        const normalized = await engine.normalize({
          input_guardrails: [{ id: "bench", deny: true, checks: [{ id: c.check, parameters: c.parameters }] }],
        });
        const prepared = normalized.input as Guardrail[];
        for (const bytes of c.sizes) {
          step(`${c.check} ${bytes / KB} KB ${executor}`);
          const options = (texts.get(bytes) ?? []).map((text) => evaluation(text, prepared));
          // A first evaluation loads the model or the detector, and must not error.
          const first = await engine.evaluate(options[0] as Parameters<Engine["evaluate"]>[0]);
          const error = first.results[0]?.checks[0]?.error;
          if (error) throw new Error(`${c.check} errored in the benchmark: ${JSON.stringify(error)}`);
          let i = 0;
          const m = await measure(
            () => engine.evaluate(options[i++ % options.length] as Parameters<Engine["evaluate"]>[0]),
            bytes,
          );
          rows.push({ check: c.check, size_bytes: bytes, executor, ...m });
        }
      }
    }
    return rows;
  } finally {
    await Promise.all([inline.close(), pooled.close(), judge.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

/** Number of progress steps measureModelChecks reports. */
export const MODEL_CHECK_STEPS = 3 * 2 + 3 + 2 * 2;
