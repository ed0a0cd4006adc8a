"""Compare evaluation networks on the positions of FIANDATA files.

    python tools/netstats.py --data gen5_s634.bin --every 425 gen4b.nnue gen5.nnue gen5.npz

For each network (a quantised FIANNUE file, evaluated with the engine's integer
arithmetic, or a float ``.npz`` checkpoint) it prints, over every ``--every``-th
position whose search score lies within ``--limit`` centipawns:

- ``mean``: the mean evaluation, centipawns, side to move's view;
- ``rms``: the root-mean-square gap between the evaluation and the search score;
- ``slope``: the least-squares slope of the evaluation against the search score
  (1.0 is the search's own scale; below 1 the network evaluates more cautiously).

A quantised network and a float checkpoint of the same name (``x.nnue`` and
``x.npz``) are also compared with each other: the mean and RMS of the integer
evaluation minus the float one, the error that quantisation adds.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np

from fianchetto.learn.data import Dataset, decode
from fianchetto.learn.network import QuantNetwork, integer_evaluate, load_float


@dataclass
class Fit:
    mean: float
    rms: float
    slope: float


def sample(paths: Sequence[str], every: int) -> np.ndarray:
    """The records of every ``every``-th position of the files, in order."""
    dataset = Dataset(list(paths))
    return dataset.take(np.arange(0, len(dataset), every))


def evaluate(path: str, records: np.ndarray) -> np.ndarray:
    """Centipawns from the network in ``path``: integer arithmetic for a FIANNUE
    file, float arithmetic for an ``.npz`` checkpoint (each reads the records with
    its own inputs)."""
    if path.endswith(".npz"):
        net = load_float(path)
        batch = decode(records, net.king_buckets)
        return net.evaluate_cp(batch.stm, batch.nstm).astype(np.float64)
    quantised = QuantNetwork.load(path)
    batch = decode(records, quantised.king_buckets)
    return integer_evaluate(quantised, batch.stm, batch.nstm).astype(np.float64)


def rms(values: np.ndarray) -> float:
    return float(np.sqrt(np.mean(values * values)))


def fit(evals: np.ndarray, scores: np.ndarray) -> Fit:
    """Mean, RMS gap to the scores and least-squares slope against them."""
    slope = float(np.polyfit(scores, evals, 1)[0]) if len(scores) > 1 else float("nan")
    return Fit(float(evals.mean()), rms(evals - scores), slope)


def quantisation_pairs(paths: Sequence[str]) -> List[tuple]:
    """(quantised, float) pairs among ``paths`` that share a stem."""
    by_stem: Dict[str, Dict[str, str]] = {}
    for path in paths:
        kind = "float" if path.endswith(".npz") else "quant"
        by_stem.setdefault(str(Path(path).with_suffix("")), {})[kind] = path
    return [(kinds["quant"], kinds["float"]) for kinds in by_stem.values() if len(kinds) == 2]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("networks", nargs="+", help="FIANNUE files or .npz checkpoints")
    parser.add_argument("--data", required=True, help="FIANDATA file(s), comma-separated")
    parser.add_argument("--every", type=int, default=100, help="take every N-th position (default 100)")
    parser.add_argument("--limit", type=int, default=1000, help="ignore positions scored beyond +-N cp (default 1000)")
    args = parser.parse_args(argv)
    records = sample([p for p in args.data.split(",") if p], max(args.every, 1))
    scores = records["score"].astype(np.float64)
    keep = np.abs(scores) < args.limit
    print(f"{int(keep.sum())} positions with |score| < {args.limit}")
    evals = {path: evaluate(path, records) for path in args.networks}
    for path, values in evals.items():
        stats = fit(values[keep], scores[keep])
        print(f"{path}: mean {stats.mean:+.1f} cp  rms {stats.rms:.1f} cp  slope {stats.slope:.3f}")
    for quant, flt in quantisation_pairs(args.networks):
        gap = evals[quant][keep] - evals[flt][keep]
        print(f"{quant} - {flt}: mean {gap.mean():+.2f} cp  rms {rms(gap):.2f} cp")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
