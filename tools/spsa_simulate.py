#!/usr/bin/env python3
"""How far a tune of a given length moves, on synthetic Elo landscapes (numpy).

    python3 tools/spsa_simulate.py [--iterations 2000] [--pairs 2] [--scales 1,3,5,10]

Runs tools/spsa.py's schedule (OpenBench's: alpha 0.602, gamma 0.101, A a tenth
of the iterations, ``c_end`` and ``r_end`` reached at the last iteration) on
landscapes where each parameter's Elo is a parabola in units of its ``c_end``,
with the game results drawn from the Elo difference of the two perturbed sides
(the draw rate of the real tune). For each learning-rate scale (a multiple of
``r_end`` = 0.002) it prints the Elo gained from the start, mean and range over
several seeds. It answers one question: which ``r_end`` a tune of this many
games should use. Far from the optimum a larger rate gains more; at the
optimum it only adds noise.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Tuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spsa import ALPHA, GAMMA, schedule, tunables  # noqa: E402  (the tune's own schedule)

PARAMETERS = 37
DRAW_RATE = 0.47      # the tune's draws at 5+0.05 (508 of 1,076 games)
R_END = 0.002


def landscapes(rng: np.random.Generator) -> List[Tuple[str, np.ndarray, np.ndarray]]:
    """(name, curvature in Elo per c_end squared, optimum in c_end) per landscape."""
    eight = np.r_[np.full(8, 1.0), np.full(PARAMETERS - 8, 0.05)]
    return [
        ("8 parameters matter, 3 c_end from their best", eight,
         np.r_[rng.normal(0, 3, 8), rng.normal(0, 1, PARAMETERS - 8)]),
        ("8 parameters matter, 1.5 c_end from their best", eight,
         np.r_[rng.normal(0, 1.5, 8), rng.normal(0, 1, PARAMETERS - 8)]),
        ("all nearly flat, 2 c_end from their best", np.full(PARAMETERS, 0.1), rng.normal(0, 2, PARAMETERS)),
        ("all curved, already at their best", np.full(PARAMETERS, 0.5), np.zeros(PARAMETERS)),
    ]


def game_results(rng: np.random.Generator, elo_difference: float, games: int) -> int:
    """Wins minus losses of the plus side in `games` games."""
    expected = 1 / (1 + 10 ** (-elo_difference / 400))
    draws = min(DRAW_RATE, 1 - 2 * abs(expected - 0.5))
    losses = max(0.0, (1 - draws) / 2 - (expected - 0.5))
    wins = 1 - draws - losses
    return int(rng.choice((1, 0, -1), games, p=(wins, draws, losses)).sum())


def tune(scale: float, curvature: np.ndarray, best: np.ndarray, iterations: int, games: int, seed: int) -> float:
    """The Elo a tune gains from theta = 0 (every parameter's c_end is 1)."""
    rng = np.random.default_rng(seed)
    elo = lambda t: -float(np.sum(curvature * (t - best) ** 2))  # noqa: E731
    row = tunables.Tunable("SIMULATED", 0, -10 ** 9, 10 ** 9, 1.0, scale * R_END)
    sched = schedule(row, iterations)
    big_a, c, a = sched["A"], sched["c"], sched["a"]
    theta = np.zeros(len(best))
    for k in range(iterations):
        c_k, a_k = c / (k + 1) ** GAMMA, a / (big_a + k + 1) ** ALPHA
        d = rng.choice((-1, 1), len(best))
        result = game_results(rng, elo(theta + c_k * d) - elo(theta - c_k * d), games)
        theta += a_k * result * d / c_k
    return elo(theta) - elo(np.zeros(len(best)))


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--pairs", type=int, default=2, help="game pairs per iteration")
    parser.add_argument("--scales", default="1,3,5,10", help="multiples of r_end = 0.002")
    parser.add_argument("--seeds", type=int, default=8)
    args = parser.parse_args(argv)
    for name, curvature, best in landscapes(np.random.default_rng(1)):
        print(f"{name}: the start is {float(np.sum(curvature * best ** 2)):.1f} Elo below the best")
        for scale in (float(s) for s in args.scales.split(",")):
            gains = [tune(scale, curvature, best, args.iterations, 2 * args.pairs, seed) for seed in range(args.seeds)]
            print(f"  r_end x{scale:<4g} gain {np.mean(gains):+6.1f} Elo (from {min(gains):+.1f} to {max(gains):+.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
