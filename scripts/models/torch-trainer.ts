/**
 * Training the prompt-injection network with PyTorch: the rows are featurized here by the
 * run-time featurizer (`feature-export.ts`) into a temporary folder, `train_injection.py` fits the
 * bag-of-embeddings network on them (or runs a leave-one-out table), and the tensors come back as
 * the `mlp` architecture the scorer runs. Python is needed to train only; the gateway runs the
 * weights in Node.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FeatureSpec } from "../../plugins/model/shared/hashed-features.js";
import type { WindowSpec } from "../../plugins/model/shared/prompt-injection-model.js";
import { ROOT, type Row } from "./dataset.js";
import { exportFeatures } from "./feature-export.js";
import type { LeaveOneOut, LeaveOutBy } from "./leave-one-out.js";
import type { Trained } from "./linear-trainer.js";

/** The interpreter with torch (Debian's `python3-torch`); `GUARDGATE_PYTHON` names another. */
export const PYTHON = process.env.GUARDGATE_PYTHON ?? "/usr/bin/python3";
const SCRIPT = path.join(ROOT, "scripts", "models", "train_injection.py");

/** The PyTorch recipe: the script's defaults (RECIPE in train_injection.py) with any field overridden. */
export interface TorchRecipe {
  hidden: number;
  bits: number;
  epochs: number;
  learningRate: number;
  batch: number;
  featureDropout: number;
  labelSmoothing: number;
  writtenWeight: number;
  weighting: "file" | "source";
  earlyStopping: boolean;
  seed: number;
}

/** Why PyTorch training cannot run here, or undefined when it can. */
export function torchMissing(): string | undefined {
  if (!existsSync(PYTHON)) return `${PYTHON} is missing (set GUARDGATE_PYTHON to a python3 with torch)`;
  const probe = spawnSync(PYTHON, ["-c", "import torch, numpy"], { encoding: "utf8" });
  return probe.status === 0 ? undefined : `${PYTHON} cannot import torch and numpy: ${probe.stderr.trim().split("\n").pop()}`;
}

/** Runs the script on rows exported to a temporary folder; returns what `read` takes from its output. */
function withExport<T>(
  rows: readonly Row[],
  spec: FeatureSpec,
  window: WindowSpec,
  args: (features: string, out: string) => string[],
  read: (out: string) => T,
): T {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-injection-"));
  try {
    const features = path.join(dir, "features");
    exportFeatures(rows, spec, window, features);
    const out = path.join(dir, "out");
    const run = spawnSync(PYTHON, [SCRIPT, ...args(features, out)], { stdio: ["ignore", "inherit", "inherit"] });
    if (run.status !== 0) throw new Error(`${SCRIPT} failed (exit ${run.status ?? run.signal}): see its messages above`);
    return read(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Trains the network on the train part of `rows`, stopping early by their validation part (the
 * split each row's text gives); returns the tensors as the scorer reads them.
 */
export function trainTorch(rows: readonly Row[], spec: FeatureSpec, window: WindowSpec, recipe: Partial<TorchRecipe>): Trained {
  return withExport(
    rows,
    spec,
    window,
    (features, out) => ["train", features, out, "--recipe", JSON.stringify({ ...recipe, bits: spec.bits })],
    (out) => {
      const trained = JSON.parse(readFileSync(path.join(out, "trained.json"), "utf8")) as {
        recipe: TorchRecipe;
        epochs: number;
        tensors: string[];
      };
      const tensor = (name: string) => {
        const bytes = readFileSync(path.join(out, `${name}.bin`));
        return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      };
      return {
        tensors: trained.tensors.map((name) => ({ name, values: tensor(name), dtype: "float32" as const })),
        header: {
          architecture: trained.recipe.hidden > 0 ? "mlp" : "logistic",
          ...(trained.recipe.hidden > 0 ? { hidden: trained.recipe.hidden } : {}),
          torch: { ...trained.recipe, bestEpoch: trained.epochs },
        },
      };
    },
  );
}

/** The leave-one-out table of a PyTorch recipe over `rows` (see leave-one-out.ts for the Node trainer's). */
export function leaveOneOutTorch(
  rows: readonly Row[],
  by: LeaveOutBy,
  spec: FeatureSpec,
  window: WindowSpec,
  recipe: Partial<TorchRecipe>,
  only?: readonly string[],
): LeaveOneOut {
  return withExport(
    rows,
    spec,
    window,
    (features, out) => [
      "loo",
      features,
      out,
      "--by",
      by,
      "--recipe",
      JSON.stringify({ ...recipe, bits: spec.bits }),
      ...(only === undefined ? [] : ["--only", only.join(",")]),
    ],
    (out) => (JSON.parse(readFileSync(out, "utf8")) as { run: LeaveOneOut }).run,
  );
}
