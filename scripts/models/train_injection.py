#!/usr/bin/python3
"""
Trains the prompt-injection network on the rows `scripts/export-features.ts` wrote (the run-time
featurizer's hashed n-gram indices and values of every span the scorer scores), and measures
recipes by leaving one source or one family out.

The network is a bag of embeddings: each hashed n-gram bucket has a vector of `hidden` numbers,
a span's vectors are summed weighted by the feature values, a ReLU follows, then one output
unit. That is the "mlp" architecture `prompt-injection-model.ts` runs from a weights file, so
the gateway needs nothing but Node at run time.

  train_injection.py train FEATURES OUT [--recipe JSON]   fit on the train part, write OUT/*.bin
  train_injection.py loo FEATURES OUT.json --by source|family [--only A,B] [--recipe JSON]

Deterministic on one thread: the same features, recipe and seed give the same tensors.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

WINDOW, SENTENCE, PAYLOAD = 0, 1, 2
PARTS = {"train": 0, "validation": 1, "test": 2}

# The recipe the shipped weights are trained with; `--recipe` overrides any field.
RECIPE = {
    "hidden": 16,
    "bits": 18,
    "epochs": 4,
    "learningRate": 0.003,
    "batch": 128,
    "featureDropout": 0.0,
    "labelSmoothing": 0.0,
    "writtenWeight": 3,
    "weighting": "file",
    "earlyStopping": True,
    "seed": 20261123,
}

# As prompt-injection-training.ts: sentence gates tried, preset precisions.
SEGMENT_GATES = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99, float("inf")]
PRESET_PRECISION = {"low": 0.99, "balanced": 0.97, "high": 0.9}
SWEEP = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


class Features:
    """The exported rows and spans, memory-mapped."""

    def __init__(self, folder):
        with open(os.path.join(folder, "rows.json"), encoding="utf-8") as f:
            meta = json.load(f)
        self.spec = meta["spec"]
        self.window = meta["window"]
        self.rows = meta["rows"]
        spans = np.fromfile(os.path.join(folder, "spans.bin"), dtype="<i4").reshape(-1, 3)
        self.indices = np.memmap(os.path.join(folder, "indices.bin"), dtype="<i4", mode="r")
        self.values = np.memmap(os.path.join(folder, "values.bin"), dtype="<f4", mode="r")
        self.span_row = spans[:, 0].astype(np.int64)
        self.span_kind = spans[:, 1]
        self.ptr = np.append(spans[:, 2].astype(np.int64), len(self.indices))
        self.label = np.array([r["label"] for r in self.rows], dtype=np.int64)
        self.part = np.array([PARTS[r["part"]] for r in self.rows])
        self.windows_of = np.bincount(self.span_row[self.span_kind == WINDOW], minlength=len(self.rows))

    def batch(self, spans, bits, dropout=0.0, generator=None):
        """The indices, offsets and values of some spans, as EmbeddingBag takes them."""
        starts, ends = self.ptr[spans], self.ptr[spans + 1]
        lengths = ends - starts
        take = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)]) if len(spans) else np.zeros(0, np.int64)
        idx = torch.from_numpy(np.asarray(self.indices[take], dtype=np.int64) & ((1 << bits) - 1))
        val = torch.from_numpy(np.asarray(self.values[take], dtype=np.float32))
        if dropout > 0:
            keep = torch.rand(val.shape, generator=generator) >= dropout
            val = val * keep / (1 - dropout)
        offsets = torch.from_numpy(np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64))
        return idx, offsets, val


class Net(torch.nn.Module):
    """Summed embeddings of the n-gram buckets, ReLU, one output (hidden 0: logistic regression)."""

    def __init__(self, bits, hidden, generator):
        super().__init__()
        self.hidden = hidden
        width = max(1, hidden)
        self.bag = torch.nn.EmbeddingBag(1 << bits, width, mode="sum")
        with torch.no_grad():
            if hidden > 0:
                self.bag.weight.uniform_(-0.1, 0.1, generator=generator)
            else:
                self.bag.weight.zero_()
        self.b1 = torch.nn.Parameter(torch.zeros(width))
        self.w2 = torch.nn.Parameter((torch.rand(width, generator=generator) * 2 - 1) * (1 / width**0.5))
        self.b2 = torch.nn.Parameter(torch.zeros(1))

    def forward(self, idx, offsets, val):
        h = self.bag(idx, offsets, per_sample_weights=val)
        if self.hidden == 0:
            return h[:, 0] + self.b2
        return torch.relu(h + self.b1) @ self.w2 + self.b2

    def tensors(self):
        """The tensors as the weights file names them."""
        if self.hidden == 0:
            return {"w": self.bag.weight[:, 0], "b": self.b2}
        return {"w1": self.bag.weight.reshape(-1), "b1": self.b1, "w2": self.w2, "b2": self.b2}


def row_weights(data, rows, recipe):
    """As prompt-injection-training.ts's "file" weighting: classes balanced over the rows,
    promptshield halved, written rows counted `writtenWeight` times."""
    labels = data.label[rows]
    positives = labels.sum()
    negatives = len(rows) - positives
    source = np.array(
        [0.5 if data.rows[r]["file"] == "promptshield.jsonl" else recipe["writtenWeight"] if data.rows[r]["written"] else 1.0 for r in rows]
    )
    if recipe["weighting"] == "source":
        keys = [(data.label[r], data.rows[r]["source"] or data.rows[r]["file"]) for r in rows]
        counts = {}
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
        files = [len({k for k in counts if k[0] == c}) for c in (0, 1)]
        return np.array([len(rows) / (2 * files[k[0]] * counts[k]) for k in keys])
    balance = np.where(labels == 1, len(rows) / (2 * max(1, positives)), len(rows) / (2 * max(1, negatives)))
    return source * balance


def score_spans(net, data, spans, bits, chunk=2048):
    out = np.empty(len(spans), dtype=np.float64)
    with torch.no_grad():
        for i in range(0, len(spans), chunk):
            part = spans[i : i + chunk]
            out[i : i + len(part)] = torch.sigmoid(net(*data.batch(part, bits))).double().numpy()
    return out


def best_by_kind(data, rows, spans, scores):
    """Per row: the best window, sentence and payload score (-1 where none)."""
    position = np.full(len(data.rows), -1)
    position[rows] = np.arange(len(rows))
    best = np.full((len(rows), 3), -1.0)
    at = position[data.span_row[spans]]
    np.maximum.at(best, (at, data.span_kind[spans]), scores)
    return best


def spans_of(data, rows, kinds=(WINDOW, SENTENCE, PAYLOAD)):
    mask = np.zeros(len(data.rows), dtype=bool)
    mask[rows] = True
    return np.nonzero(mask[data.span_row] & np.isin(data.span_kind, kinds))[0]


def counts(labels, predicted):
    tp = int(np.sum(predicted & (labels == 1)))
    fp = int(np.sum(predicted & (labels == 0)))
    fn = int(np.sum(~predicted & (labels == 1)))
    tn = int(np.sum(~predicted & (labels == 0)))
    precision = 1.0 if tp + fp == 0 else tp / (tp + fp)
    recall = 1.0 if tp + fn == 0 else tp / (tp + fn)
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return {"tp": tp, "fp": fp, "tn": tn, "fn": fn, "precision": precision, "recall": recall, "f1": f1,
            "accuracy": (tp + tn) / max(1, len(labels))}


def choose_threshold(scores, labels, precision=0.97):
    """The highest-F1 threshold whose precision reaches the target (chooseThreshold's rule)."""
    best = (0.5, -1.0, False)
    for t in range(5, 100):
        threshold = t / 100
        m = counts(labels, scores >= threshold)
        reaches = m["precision"] >= precision
        if (reaches and not best[2]) or (reaches == best[2] and m["f1"] > best[1]):
            best = (threshold, m["f1"], reaches)
    return best[0]


def combine(best, gate):
    sentences = np.where(best[:, SENTENCE] >= gate, best[:, SENTENCE], -1)
    return np.maximum(np.maximum(best[:, WINDOW], best[:, PAYLOAD]), sentences)


def calibrate(best, labels):
    """calibrate()'s rule: the gate with the best validation F1 at the balanced threshold
    (the lower on a tie), then each preset's threshold."""
    chosen = None
    for gate in SEGMENT_GATES:
        scores = combine(best, gate)
        threshold = choose_threshold(scores, labels)
        f1 = counts(labels, scores >= threshold)["f1"]
        if chosen is None or f1 > chosen[1]:
            chosen = (gate, f1, scores)
    gate, _, scores = chosen
    thresholds = {p: choose_threshold(scores, labels, q) for p, q in PRESET_PRECISION.items()}
    return {"segmentGate": None if gate == float("inf") else gate, "thresholds": thresholds,
            "validation": counts(labels, scores >= thresholds["balanced"])}


def fit(data, train_rows, validation_rows, recipe, log=lambda *a: None):
    """Trains on the windows of the training rows, each window a share of its row's weight; keeps
    the epoch whose validation windows give the lowest weighted log loss."""
    bits, seed = recipe["bits"], recipe["seed"]
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    net = Net(bits, recipe["hidden"], generator)
    weights = row_weights(data, train_rows, recipe)
    per_row = np.zeros(len(data.rows))
    per_row[train_rows] = weights / np.maximum(1, data.windows_of[train_rows])
    spans = spans_of(data, train_rows, (WINDOW,))
    span_weight = torch.from_numpy(per_row[data.span_row[spans]].astype(np.float32))
    span_label = torch.from_numpy(data.label[data.span_row[spans]].astype(np.float32))
    smoothing = recipe["labelSmoothing"]
    target = span_label * (1 - smoothing) + smoothing / 2
    optimizer = torch.optim.Adam(net.parameters(), lr=recipe["learningRate"])
    rng = np.random.default_rng(seed)
    validation_spans = spans_of(data, validation_rows, (WINDOW,))
    validation_labels = data.label[validation_rows]
    validation_weights = row_weights(data, validation_rows, recipe)
    best = None
    for epoch in range(recipe["epochs"]):
        order = rng.permutation(len(spans))
        net.train()
        for i in range(0, len(order), recipe["batch"]):
            b = order[i : i + recipe["batch"]]
            logits = net(*data.batch(spans[b], bits, recipe["featureDropout"], generator))
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, target[b], weight=span_weight[b], reduction="sum")
            optimizer.zero_grad()
            (loss / span_weight[b].sum()).backward()
            optimizer.step()
        if not recipe["earlyStopping"] and epoch < recipe["epochs"] - 1:
            continue
        net.eval()
        scores = best_by_kind(data, validation_rows, validation_spans, score_spans(net, data, validation_spans, bits))[:, WINDOW]
        p = np.clip(scores, 1e-7, 1 - 1e-7)
        loss = float(-np.sum(validation_weights * (validation_labels * np.log(p) + (1 - validation_labels) * np.log(1 - p))) / validation_weights.sum())
        log(f"  epoch {epoch + 1}: validation log loss {loss:.4f}")
        if best is None or loss < best[0]:
            best = (loss, epoch + 1, {k: v.detach().clone() for k, v in net.state_dict().items()})
    net.load_state_dict(best[2])
    net.eval()
    return net, best[1]


def calibrated_fit(data, rows, recipe, log):
    train_rows = rows[data.part[rows] == PARTS["train"]]
    validation_rows = rows[data.part[rows] == PARTS["validation"]]
    net, epochs = fit(data, train_rows, validation_rows, recipe, log)
    spans = spans_of(data, validation_rows)
    best = best_by_kind(data, validation_rows, spans, score_spans(net, data, spans, recipe["bits"]))
    return net, calibrate(best, data.label[validation_rows]), epochs


def group_of(row, by):
    return row["family"] if by == "family" else row["source"]


def leave_one_out(data, by, recipe, only, log):
    names = sorted({group_of(r, by) for r in data.rows if group_of(r, by) is not None})
    if only:
        names = [n for n in names if n in only]
    groups, scored = [], []
    for name in names:
        started = time.time()
        inside = np.array([group_of(r, by) == name for r in data.rows])
        net, calibration, epochs = calibrated_fit(data, np.nonzero(~inside)[0], recipe, log)
        held = np.nonzero(inside)[0]
        spans = spans_of(data, held)
        scores = combine(best_by_kind(data, held, spans, score_spans(net, data, spans, recipe["bits"])),
                         calibration["segmentGate"] if calibration["segmentGate"] is not None else float("inf"))
        labels = data.label[held]
        threshold = calibration["thresholds"]["balanced"]
        m = counts(labels, scores >= threshold)
        rate = None if m["fp"] + m["tn"] == 0 else m["fp"] / (m["fp"] + m["tn"])
        result = {"group": name, "rows": len(held), "attacks": int(labels.sum()), "threshold": threshold,
                  "metrics": m, "falsePositiveRate": rate, "segmentGate": calibration["segmentGate"], "epochs": epochs}
        groups.append(result)
        scored.append((labels, scores))
        recall = "–" if result["attacks"] == 0 else f"{100 * m['recall']:.1f}"
        log(f"| {name} | {len(held)} | {result['attacks']} | {threshold} | {recall} | "
            f"{'–' if rate is None else f'{100 * rate:.1f}'} | ({time.time() - started:.0f} s, gate {calibration['segmentGate']}, epoch {epochs})")
    mean = lambda xs: float(np.mean(xs)) if xs else 0.0
    sweep = []
    for threshold in SWEEP:
        per = [counts(l, s >= threshold) for l, s in scored]
        sweep.append({"threshold": threshold,
                      "meanRecall": mean([m["recall"] for m in per if m["tp"] + m["fn"] > 0]),
                      "meanFalsePositiveRate": mean([m["fp"] / (m["fp"] + m["tn"]) for m in per if m["fp"] + m["tn"] > 0])})
    return {"by": by, "groups": groups,
            "meanRecall": mean([g["metrics"]["recall"] for g in groups if g["attacks"] > 0]),
            "meanFalsePositiveRate": mean([g["falsePositiveRate"] for g in groups if g["falsePositiveRate"] is not None]),
            "sweep": sweep}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["train", "loo", "test"])
    parser.add_argument("features")
    parser.add_argument("out")
    parser.add_argument("--recipe", default="{}")
    parser.add_argument("--by", default="source", choices=["source", "family"])
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    recipe = {**RECIPE, **json.loads(args.recipe)}
    log = lambda *a: print(*a, file=sys.stderr, flush=True)
    data = Features(args.features)
    if recipe["bits"] > data.spec["bits"]:
        sys.exit(f"recipe bits {recipe['bits']} exceed the exported features' {data.spec['bits']}")
    every = np.arange(len(data.rows))
    if args.command == "loo":
        run = leave_one_out(data, args.by, recipe, [o for o in args.only.split(",") if o], log)
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"recipe": recipe, "run": run}, f, indent=1)
        log(f"mean recall {100 * run['meanRecall']:.1f}%, mean false-positive rate {100 * run['meanFalsePositiveRate']:.1f}%")
        return
    started = time.time()
    net, calibration, epochs = calibrated_fit(data, every, recipe, log)
    if args.command == "test":
        test_rows = every[data.part == PARTS["test"]]
        spans = spans_of(data, test_rows)
        best = best_by_kind(data, test_rows, spans, score_spans(net, data, spans, recipe["bits"]))
        gate = calibration["segmentGate"] if calibration["segmentGate"] is not None else float("inf")
        m = counts(data.label[test_rows], combine(best, gate) >= calibration["thresholds"]["balanced"])
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"recipe": recipe, "calibration": calibration, "test": m}, f, indent=1)
        log(f"test F1 {m['f1']:.3f} (precision {m['precision']:.3f}, recall {m['recall']:.3f}); {calibration}")
        return
    os.makedirs(args.out, exist_ok=True)
    tensors = net.tensors()
    for name, tensor in tensors.items():
        tensor.detach().float().numpy().astype("<f4").tofile(os.path.join(args.out, f"{name}.bin"))
    with open(os.path.join(args.out, "trained.json"), "w", encoding="utf-8") as f:
        json.dump({"recipe": recipe, "epochs": epochs, "tensors": list(tensors), "validation": calibration}, f, indent=1)
    log(f"trained in {time.time() - started:.0f} s, best epoch {epochs}; validation {calibration}")


if __name__ == "__main__":
    main()
