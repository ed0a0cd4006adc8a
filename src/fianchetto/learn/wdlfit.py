"""``fianchetto wdl-fit``: fit the win/draw/loss model on self-play positions.

    fianchetto wdl-fit --data FILES [--out networks/fianchetto.nnue.wdl.json] [--degree 3] [--plateau-degree 2]

Every position of the data (FIANGAME or FIANDATA files, the training filters
applied) gives its search score ``x`` (the search's units), the material on the
board and the game's result for the side to move. The model of
:mod:`fianchetto.wdl`, with ``a``, ``b`` and the plateau's ``d`` polynomials in
material / 58, is fitted by maximum likelihood (Adam on the mean negative log-likelihood, full batch,
numpy). The command prints the coefficients, the log-loss against a model that
ignores the score, and a calibration table: by material band and score band, the
predicted and the observed win, draw and loss rates, then the predicted and
observed win rate in 50 cp buckets of the normalised score from -300 to +300.
With ``--out`` it writes the model as JSON beside the network it belongs to;
``--evaluate MODEL`` fits nothing and reports how an existing model matches.
"""
from __future__ import annotations

import argparse
import sys
from typing import List, Sequence, Tuple

import numpy as np

from fianchetto.learn.data import Dataset, decode_pieces
from fianchetto.wdl import MATERIAL_MAX, MATERIAL_MIN, MATERIAL_REFERENCE, WdlModel

PIECE_WORTH = np.array([0, 1, 3, 3, 5, 9, 0], dtype=np.int32)   # by piece type, king 0
SCALE = 100.0      # scores are fitted in hundreds of units: better conditioned


def samples(paths: Sequence[str]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(score, material, result) of every position: result 0 loss, 1 draw, 2 win."""
    dataset = Dataset(list(paths))
    records = dataset.take(np.arange(len(dataset)))
    row, _slot, _square, code = decode_pieces(records)
    material = np.bincount(row, weights=PIECE_WORTH[code & 7], minlength=len(records)).astype(np.int32)
    return records["score"].astype(np.float64), material, records["result"].astype(np.int64)


def powers(material: np.ndarray, degree: int) -> np.ndarray:
    m = np.clip(material, MATERIAL_MIN, MATERIAL_MAX) / MATERIAL_REFERENCE
    return np.stack([m ** i for i in range(degree + 1)], axis=1)


def probabilities(x: np.ndarray, a: np.ndarray, b: np.ndarray,
                  c: np.ndarray | float = 1.0) -> Tuple[np.ndarray, np.ndarray]:
    """P(win) and P(loss) of scores x: logistic curves scaled by the plateau c."""
    win = c / (1 + np.exp(np.clip((a - x) / b, -500, 500)))
    loss = c / (1 + np.exp(np.clip((a + x) / b, -500, 500)))
    return win, loss


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(z, -500, 500)))


def loss_and_gradient(theta: np.ndarray, x: np.ndarray, m: np.ndarray, md: np.ndarray, y: np.ndarray,
                      degree: int):
    """Mean negative log-likelihood and its gradient in (a, b, d coefficients); md holds
    the plateau's powers of material (no columns: no plateau, c = 1)."""
    ca, cb, cd = theta[: degree + 1], theta[degree + 1: 2 * degree + 2], theta[2 * degree + 2:]
    a, b = m @ ca, np.maximum(m @ cb, 1e-3)
    s = sigmoid(md @ cd) if md.shape[1] else np.zeros_like(x)
    c = 1 - 0.5 * s
    sw, sl = probabilities(x, a, b)              # the two logistic curves, before the plateau
    win, loss = c * sw, c * sl
    draw = np.clip(1 - win - loss, 1e-9, 1)
    p = np.clip(np.where(y == 2, win, np.where(y == 0, loss, draw)), 1e-9, 1)
    # d p / d a, d p / d b and d p / d c for each outcome.
    dsw_da, dsl_da = -sw * (1 - sw) / b, -sl * (1 - sl) / b
    dsw_db, dsl_db = sw * (1 - sw) * (a - x) / b ** 2, sl * (1 - sl) * (a + x) / b ** 2
    dp_da = c * np.where(y == 2, dsw_da, np.where(y == 0, dsl_da, -(dsw_da + dsl_da)))
    dp_db = c * np.where(y == 2, dsw_db, np.where(y == 0, dsl_db, -(dsw_db + dsl_db)))
    dp_dc = np.where(y == 2, sw, np.where(y == 0, sl, -(sw + sl)))
    scale = -1 / (p * len(x))
    grad = np.concatenate([m.T @ (scale * dp_da), m.T @ (scale * dp_db),
                           md.T @ (scale * dp_dc * -0.5 * s * (1 - s))])
    return float(-np.mean(np.log(p))), grad


def fit(x: np.ndarray, material: np.ndarray, y: np.ndarray, degree: int = 3, steps: int = 3000,
        rate: float = 0.02, plateau_degree: int = 2) -> Tuple[WdlModel, float]:
    """The maximum-likelihood model and its mean log-loss (plateau_degree -1: no plateau)."""
    xs, m = x / SCALE, powers(material, degree)
    md = powers(material, plateau_degree) if plateau_degree >= 0 else np.zeros((len(x), 0))
    theta = np.zeros(2 * (degree + 1) + md.shape[1])
    theta[0], theta[degree + 1] = 1.5, 0.6          # a = 150, b = 60 units to start
    if md.shape[1]:
        theta[2 * degree + 2] = -4.0                # a plateau of 0.99 to start
    first, second = np.zeros_like(theta), np.zeros_like(theta)
    for t in range(1, steps + 1):
        nll, grad = loss_and_gradient(theta, xs, m, md, y, degree)
        first = 0.9 * first + 0.1 * grad
        second = 0.999 * second + 0.001 * grad ** 2
        theta -= rate * (first / (1 - 0.9 ** t)) / (np.sqrt(second / (1 - 0.999 ** t)) + 1e-12)
    nll, _ = loss_and_gradient(theta, xs, m, md, y, degree)
    ab = theta[: 2 * degree + 2] * SCALE             # a and b in the search's units; d has none
    return WdlModel(tuple(float(c) for c in ab[: degree + 1]), tuple(float(c) for c in ab[degree + 1:]),
                    source="wdl-fit", d=tuple(float(c) for c in theta[2 * degree + 2:])), nll


def baseline_loss(y: np.ndarray) -> float:
    """The log-loss of predicting the overall outcome frequencies, whatever the score."""
    freq = np.bincount(y, minlength=3) / len(y)
    return float(-np.mean(np.log(np.clip(freq[y], 1e-9, 1))))


def model_arrays(model: WdlModel, material: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """a, b, the plateau c and the midpoint of the model for every position (as
    WdlModel's methods, vectorised)."""
    m = np.clip(material, MATERIAL_MIN, MATERIAL_MAX) / MATERIAL_REFERENCE
    a = np.maximum(sum(k * m ** i for i, k in enumerate(model.a)), 1.0)
    b = np.maximum(sum(k * m ** i for i, k in enumerate(model.b)), 1.0)
    c = 1 - 0.5 * sigmoid(sum(k * m ** i for i, k in enumerate(model.d))) if model.d else np.ones_like(m)
    return a, b, c, a - b * np.log(np.maximum(2 * c - 1, 1e-9))


def calibration(model: WdlModel, x: np.ndarray, material: np.ndarray, y: np.ndarray) -> List[str]:
    """Predicted against observed W/D/L per mille, by material band and normalised score band."""
    a, b, c, mid = model_arrays(model, material)
    cp = 100 * x / mid
    win, loss = probabilities(x, a, b, c)
    lines = [f"{'material':>9} {'score cp':>10} {'positions':>9}  {'predicted W/D/L':>17}  {'observed W/D/L':>17}"]
    clipped = np.clip(material, MATERIAL_MIN, MATERIAL_MAX)
    for low, high in ((17, 30), (31, 45), (46, 60), (61, 78)):
        for lo, hi in ((-1000, -150), (-150, -50), (-50, 50), (50, 150), (150, 1000)):
            pick = (clipped >= low) & (clipped <= high) & (cp >= lo) & (cp < hi)
            if pick.sum() < 50:
                continue
            w, l = 1000 * win[pick].mean(), 1000 * loss[pick].mean()
            observed = 1000 * np.bincount(y[pick], minlength=3)[::-1] / pick.sum()
            lines.append(f"{low:>4}-{high:<4} {lo:>4}..{hi:<5} {int(pick.sum()):>9}  "
                         f"{w:5.0f} {1000 - w - l:5.0f} {l:5.0f}  "
                         f"{observed[0]:5.0f} {observed[1]:5.0f} {observed[2]:5.0f}")
    return lines


def win_rate_buckets(model: WdlModel, x: np.ndarray, material: np.ndarray, y: np.ndarray,
                     width: int = 50, limit: int = 300) -> List[Tuple[int, int, float, float]]:
    """(centre cp, positions, predicted win %, observed win %) for each normalised-score
    bucket of `width` cp centred on -limit..+limit, every material pooled."""
    a, b, c, mid = model_arrays(model, material)
    cp = 100 * x / mid
    win, _ = probabilities(x, a, b, c)
    rows = []
    for centre in range(-limit, limit + 1, width):
        pick = (cp >= centre - width / 2) & (cp < centre + width / 2)
        if pick.any():
            rows.append((centre, int(pick.sum()), 100 * float(win[pick].mean()),
                         100 * float(np.mean(y[pick] == 2))))
    return rows


def bucket_table(rows: List[Tuple[int, int, float, float]]) -> List[str]:
    """The buckets as a Markdown table, with the largest gap."""
    lines = ["| normalised cp | positions | predicted wins | observed wins | gap |",
             "|---:|---:|---:|---:|---:|"]
    for centre, count, predicted, observed in rows:
        lines.append(f"| {centre:+d} | {count} | {predicted:.1f}% | {observed:.1f}% | "
                     f"{observed - predicted:+.1f} |")
    if rows:
        lines.append(f"largest gap: {max(abs(o - p) for _, _, p, o in rows):.1f} percentage points")
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fianchetto wdl-fit", description=__doc__.splitlines()[0].replace("``", ""))
    parser.add_argument("--data", required=True, help="data files, comma separated (FIANGAME or FIANDATA)")
    parser.add_argument("--out", default=None, help="write the model here (e.g. networks/fianchetto.nnue.wdl.json)")
    parser.add_argument("--degree", type=int, default=3, help="degree of the polynomials in material (default 3)")
    parser.add_argument("--plateau-degree", type=int, default=2,
                        help="degree of the plateau's polynomial in material (default 2; -1: no plateau)")
    parser.add_argument("--steps", type=int, default=3000, help="optimiser steps (default 3000)")
    parser.add_argument("--max-positions", type=int, default=2_000_000, help="use at most this many, evenly spread")
    parser.add_argument("--evaluate", metavar="MODEL", default=None,
                        help="fit nothing: report how this model (a .wdl.json) matches the data")
    return parser


def report(model: WdlModel, x: np.ndarray, material: np.ndarray, y: np.ndarray) -> None:
    for line in calibration(model, x, material, y):
        print(line)
    print()
    for line in bucket_table(win_rate_buckets(model, x, material, y)):
        print(line)


def main_wdl_fit(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    if not 0 <= args.degree <= 7 or not -1 <= args.plateau_degree <= 7 or args.steps < 1:
        print("degree must be 0..7, plateau degree -1..7 and steps positive", file=sys.stderr)
        return 2
    try:
        x, material, y = samples([p for p in args.data.split(",") if p])
    except (OSError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 2
    if len(x) > args.max_positions:
        keep = np.linspace(0, len(x) - 1, args.max_positions).astype(np.int64)
        x, material, y = x[keep], material[keep], y[keep]
    print(f"positions: {len(x)} (wins {np.sum(y == 2)}, draws {np.sum(y == 1)}, losses {np.sum(y == 0)})")
    if args.evaluate:
        try:
            with open(args.evaluate, encoding="utf-8") as handle:
                model = WdlModel.from_json(handle.read(), args.evaluate)
        except (OSError, ValueError) as exc:
            print(exc, file=sys.stderr)
            return 2
        report(model, x, material, y)
        return 0
    model, nll = fit(x, material, y, args.degree, args.steps, plateau_degree=args.plateau_degree)
    print(f"a (score that wins half the time) = {' + '.join(f'{c:.2f} m^{i}' for i, c in enumerate(model.a))}")
    print(f"b (spread)                        = {' + '.join(f'{c:.2f} m^{i}' for i, c in enumerate(model.b))}")
    if model.d:
        print(f"d (plateau c = 1 - sigmoid(d) / 2) = {' + '.join(f'{k:.3f} m^{i}' for i, k in enumerate(model.d))}")
    print(f"m = material / {MATERIAL_REFERENCE}; the midpoint (wins half the time) and plateau:")
    for pawns in (17, 25, 35, 45, 58, 78):
        print(f"  material {pawns:2d}: midpoint {model.midpoint(pawns):6.1f}, plateau {model.plateau(pawns):.3f}")
    print(f"log-loss {nll:.4f} (outcome frequencies alone: {baseline_loss(y):.4f})")
    report(model, x, material, y)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(model.to_json())
        print(f"wrote {args.out}")
    return 0
