"""``fianchetto tune``: Texel's method for the hand-crafted evaluation.

The hand-crafted evaluation is, but for its king-danger term and the 1/8 scaling
of drawish endings, linear in its weights: the core reports for every position
how often each weight's middlegame and endgame parts were added
(:func:`core_cy.core.hce_traces`). The tuner predicts a position's outcome as
``sigmoid(eval / K)`` with ``K`` fitted first, and moves every traced weight by
Adam to bring the prediction towards ``lambda * result + (1 - lambda) *
sigmoid(search score / 400)``, full batch, over quiet positions from self-play.
The king-danger weights (not linear) keep their values. The result is a weight
table in the JSON format of :mod:`fianchetto.weights`.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np

from core_cy.core import HCE_WEIGHT_COUNT, hce_traces, weight_table
from fianchetto.learn.data import Dataset

N = HCE_WEIGHT_COUNT
SCORE_SCALE = 400.0
CHUNK = 50_000


@dataclass
class Traces:
    """The sparse weight counts of many positions, and what the model needs beside them."""

    rows: np.ndarray          # position of each nonzero count
    index: np.ndarray         # weight number (+ N for an endgame part)
    count: np.ndarray
    phase: np.ndarray         # 0 (endgame) .. 24 (opening)
    king_danger: np.ndarray   # fixed middlegame term, white's view
    drawish: np.ndarray       # 1/8 scaling applied
    white: np.ndarray         # white to move
    target: np.ndarray        # side to move's expected score

    @property
    def size(self) -> int:
        return len(self.phase)


def trace_records(records: np.ndarray, lam: float, report=None) -> Traces:
    """Trace every record (in chunks) and build the training target."""
    parts: Dict[str, List[np.ndarray]] = {k: [] for k in ("offsets", "index", "count", "phase", "king_danger",
                                                          "drawish")}
    dtypes = {"offsets": np.int32, "index": np.int16, "count": np.int16, "phase": np.int16,
              "king_danger": np.int16, "drawish": np.int8}
    base = 0
    for start in range(0, len(records), CHUNK):
        chunk = hce_traces(records[start:start + CHUNK].tobytes())
        for key in parts:
            values = np.frombuffer(chunk[key], dtype=dtypes[key]).astype(np.int64)
            if key == "offsets":
                values = values[1:] + base
                base = int(values[-1]) if len(values) else base
            parts[key].append(values)
        if report:
            report(f"traced {min(start + CHUNK, len(records))}/{len(records)} positions")
    offsets = np.concatenate([[0], *parts["offsets"]])
    rows = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    result = records["result"].astype(np.float64) / 2.0
    score = 1.0 / (1.0 + np.exp(-records["score"].astype(np.float64) / SCORE_SCALE))
    return Traces(rows=rows, index=np.concatenate(parts["index"]), count=np.concatenate(parts["count"]).astype(np.float64),
                  phase=np.concatenate(parts["phase"]).astype(np.float64),
                  king_danger=np.concatenate(parts["king_danger"]).astype(np.float64),
                  drawish=np.concatenate(parts["drawish"]).astype(bool),
                  white=records["stm"] == 0, target=lam * result + (1.0 - lam) * score)


def table_vector() -> np.ndarray:
    """The current weights as one float vector: all middlegame parts, then all endgame parts."""
    pairs = [pair for group in weight_table().values() for pair in group]
    return np.array([p[0] for p in pairs] + [p[1] for p in pairs], dtype=np.float64)


def vector_table(weights: np.ndarray) -> Dict[str, List[List[int]]]:
    """The weight table (group name -> [[mg, eg], ...]) of a weight vector, rounded."""
    table, offset = {}, 0
    rounded = np.rint(weights).astype(int)
    for name, group in weight_table().items():
        table[name] = [[int(rounded[offset + i]), int(rounded[N + offset + i])] for i in range(len(group))]
        offset += len(group)
    return table


class Model:
    """Side to move's evaluation as a function of the weight vector."""

    def __init__(self, traces: Traces) -> None:
        self.t = traces
        tempo = N - 1
        self.is_tempo = (traces.index % N) == tempo
        self.mg_part = (traces.index < N) & ~self.is_tempo
        self.eg_part = (traces.index >= N) & ~self.is_tempo
        self.mg_factor = traces.phase / 24.0
        self.scale = np.where(traces.drawish, 1.0 / 8.0, 1.0)
        self.sign = np.where(traces.white, 1.0, -1.0)

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        t = self.t
        contrib = t.count * w[t.index]
        mg = np.bincount(t.rows, np.where(self.mg_part, contrib, 0.0), t.size) + t.king_danger
        eg = np.bincount(t.rows, np.where(self.eg_part, contrib, 0.0), t.size)
        white = self.scale * (mg * self.mg_factor + eg * (1.0 - self.mg_factor))
        tempo = w[N - 1] * self.mg_factor + w[2 * N - 1] * (1.0 - self.mg_factor)
        return self.sign * white + tempo

    def gradient(self, w: np.ndarray, d_eval: np.ndarray) -> np.ndarray:
        """d(loss)/d(w) given d(loss)/d(eval) per position."""
        t = self.t
        per_row = d_eval * self.sign * self.scale
        factor = np.where(t.index < N, self.mg_factor[t.rows], 1.0 - self.mg_factor[t.rows])
        grad = np.bincount(t.index, np.where(self.is_tempo, 0.0, per_row[t.rows] * factor * t.count), 2 * N)
        grad[N - 1] = np.sum(d_eval * self.mg_factor)
        grad[2 * N - 1] = np.sum(d_eval * (1.0 - self.mg_factor))
        return grad


def loss_and_grad(model: Model, w: np.ndarray, k: float):
    p = 1.0 / (1.0 + np.exp(-model.evaluate(w) / k))
    err = p - model.t.target
    d_eval = 2.0 * err * p * (1.0 - p) / k / model.t.size
    return float(np.mean(err * err)), d_eval


def fit_k(model: Model, w: np.ndarray) -> float:
    """The sigmoid scale that best fits the current weights (golden-section search)."""
    lo, hi = 50.0, 1000.0
    ratio = (5 ** 0.5 - 1) / 2
    for _ in range(30):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if loss_and_grad(model, w, a)[0] < loss_and_grad(model, w, b)[0]:
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def tune(model: Model, w0: np.ndarray, k: float, iterations: int, lr: float, report=None) -> np.ndarray:
    """Adam on the traced weights; untraced weights (never counted) do not move."""
    w = w0.copy()
    m, v = np.zeros_like(w), np.zeros_like(w)
    for step in range(1, iterations + 1):
        loss, d_eval = loss_and_grad(model, w, k)
        g = model.gradient(w, d_eval)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w -= lr * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-12)
        if report and (step % 25 == 0 or step == iterations):
            report(f"step {step}/{iterations}  loss {loss:.6f}")
    return w


def build_parser(parser: Optional[argparse.ArgumentParser] = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(
        prog="fianchetto tune", description="Texel-tune the hand-crafted evaluation's weights on scored positions.")
    parser.add_argument("--data", required=True, help="FIANGAME (whole games) or FIANDATA files, comma-separated")
    parser.add_argument("--out", required=True, help="weights JSON to write (fianchetto.weights format)")
    parser.add_argument("--positions", type=int, default=1_000_000, help="use at most this many, a random sample (default 1000000)")
    parser.add_argument("--iterations", type=int, default=300, help="Adam steps over all positions (default 300)")
    parser.add_argument("--lr", type=float, default=1.0, help="Adam step in centipawns (default 1.0)")
    parser.add_argument("--lambda", dest="lam", type=float, default=0.5, help="weight of the game result (default 0.5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the sample of positions (default 1)")
    return parser


def main_tune(args: argparse.Namespace) -> int:
    def report(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    started = time.monotonic()
    data = Dataset(args.data.split(","))
    rng = np.random.default_rng(args.seed)
    chosen = np.arange(len(data))
    if len(data) > args.positions:
        chosen = np.sort(rng.choice(len(data), args.positions, replace=False))
    records = data.take(chosen)
    model = Model(trace_records(records, args.lam, report))
    w0 = table_vector()
    k = fit_k(model, w0)
    before = loss_and_grad(model, w0, k)[0]
    report(f"{model.t.size} positions, K = {k:.1f}, loss {before:.6f}")
    w = tune(model, w0, k, args.iterations, args.lr, report)
    after = loss_and_grad(model, np.rint(w), k)[0]
    Path(args.out).write_text(json.dumps(vector_table(w), indent=1) + "\n")
    print(f"loss {before:.6f} -> {after:.6f} over {model.t.size} positions in "
          f"{time.monotonic() - started:.0f}s; wrote {args.out}")
    return 0
