#!/usr/bin/env python3
"""Measure Lazy SMP scaling: nodes/second and time to depth at 1 and N threads.

    python3 tools/threads.py [--engine fianchetto] [--threads 1,2] [--movetime 2000]
                             [--depth 14] [--positions 12] [--hash 64]

Each bench position (``fianchetto.benchmark.BENCH_FENS``) is searched from an
empty hash, once per thread count, through the engine's UCI interface
(python-chess's client): first for ``--movetime`` ms (nodes/second), then to
``--depth`` (time to depth). The thread counts alternate position by position,
so a change in the machine's load falls on all of them alike. Prints, per
thread count, the median nodes/second, the geometric mean of the time to
depth, and both as ratios to the first thread count.

Run it on an idle machine: a second process on one of two cores halves what
two threads can reach.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
from typing import Dict, List, Optional

import chess
import chess.engine

from fianchetto.benchmark import BENCH_FENS


def fresh_search(engine: chess.engine.SimpleEngine, board: chess.Board, limit: chess.engine.Limit) -> Dict:
    engine.configure({"Clear Hash": None})
    return engine.analyse(board, limit, game=object())  # a new game: no state carried over


def measure(engine_cmd: str, counts: List[int], fens: List[str], movetime_ms: int, depth: int,
            hash_mb: int) -> Dict[int, Dict[str, List[float]]]:
    results: Dict[int, Dict[str, List[float]]] = {n: {"nps": [], "ttd": []} for n in counts}
    engines = {n: chess.engine.SimpleEngine.popen_uci(engine_cmd) for n in counts}
    try:
        for n, engine in engines.items():
            engine.configure({"Threads": n, "Hash": hash_mb})
        for index, fen in enumerate(fens):
            board = chess.Board(fen)
            for n in counts:
                engine = engines[n]
                info = fresh_search(engine, board, chess.engine.Limit(time=movetime_ms / 1000))
                results[n]["nps"].append(info["nodes"] / max(info["time"], 1e-3))
                info = fresh_search(engine, board, chess.engine.Limit(depth=depth))
                results[n]["ttd"].append(max(info["time"], 1e-3))
            print(f"position {index + 1}/{len(fens)} done", file=sys.stderr, flush=True)
    finally:
        for engine in engines.values():
            engine.quit()
    return results


def report(results: Dict[int, Dict[str, List[float]]], depth: int) -> List[str]:
    counts = list(results)
    base = counts[0]
    base_nps = statistics.median(results[base]["nps"])
    base_ttd = math.exp(statistics.fmean(math.log(t) for t in results[base]["ttd"]))
    lines = []
    for n in counts:
        nps = statistics.median(results[n]["nps"])
        ttd = math.exp(statistics.fmean(math.log(t) for t in results[n]["ttd"]))
        # per-position ratios, their median: robust to one odd position
        ratio = statistics.median(a / b for a, b in zip(results[n]["nps"], results[base]["nps"]))
        speedup = statistics.median(b / a for a, b in zip(results[n]["ttd"], results[base]["ttd"]))
        lines.append(f"threads {n}: median nps {nps:,.0f} (x{nps / base_nps:.2f}; per-position median x{ratio:.2f}), "
                     f"time to depth {depth} geomean {ttd:.2f} s (speed-up x{base_ttd / ttd:.2f}; "
                     f"per-position median x{speedup:.2f})")
    return lines


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="fianchetto")
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated; the first is the base")
    parser.add_argument("--movetime", type=int, default=2000, help="ms per position for nodes/second")
    parser.add_argument("--depth", type=int, default=14, help="depth for time to depth")
    parser.add_argument("--positions", type=int, default=12, help="the first N bench positions")
    parser.add_argument("--hash", type=int, default=64, help="MB of hash for every search")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.threads.split(",") if n.strip()]
    fens = list(BENCH_FENS[: args.positions])
    results = measure(args.engine, counts, fens, args.movetime, args.depth, args.hash)
    for line in report(results, args.depth):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
