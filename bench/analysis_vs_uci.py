"""In-process analysis against the same engine through UCI, and how fast stop() ends a search.

    python bench/analysis_vs_uci.py [--positions 1000] [--depth 8] [--stops 20]

1. A batch: the same positions analysed to a fixed depth by ``fianchetto.Engine``
   (given a ``chess.engine.Limit``, and again with keyword limits) and by ``chess.engine.SimpleEngine`` driving ``fianchetto`` over UCI, both with
   a 16 MB table kept across the batch, one thread. The positions come from
   ``../shared/data/openings.epd`` with 0 to 4 further random plies (seeded), so
   the batch is the same on every run. The script reports each side's seconds,
   the ratio, and how many positions got the same best move and node count (a
   fixed-depth search is deterministic, so all of them should).
2. Stop latency: ``Engine.analyse`` with a long movetime in one thread,
   ``Engine.stop()`` from another after 0.3 s; the time from the call to the
   analysis' return, median and maximum over ``--stops`` searches.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import List

import chess
import chess.engine

from fianchetto import Engine

OPENINGS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "openings.epd"


def batch_positions(count: int, seed: int = 2026) -> List[chess.Board]:
    """`count` positions: the openings with a few seeded random plies, none finished."""
    rng = random.Random(seed)
    starts = [line.strip() for line in OPENINGS.read_text().splitlines() if line.strip()]
    boards: List[chess.Board] = []
    while len(boards) < count:
        board = chess.Board(rng.choice(starts) + " 0 1")
        for _ in range(rng.randrange(5)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            boards.append(board)
    return boards


def in_process(boards: List[chess.Board], depth: int, shaped: bool):
    """``Engine.analyse`` over the batch: with a ``chess.engine.Limit`` (python-chess's
    shapes) or with keyword limits (an ``Analysis``)."""
    engine = Engine(hash_mb=16, threads=1)
    start = time.perf_counter()
    if shaped:
        infos = [engine.analyse(board, chess.engine.Limit(depth=depth)) for board in boards]
        found = [(info["pv"][0].uci(), info["nodes"]) for info in infos]
    else:
        found = [(r.best_move, r.nodes) for r in (engine.analyse(board, depth=depth) for board in boards)]
    seconds = time.perf_counter() - start
    engine.close()
    return seconds, found


def over_uci(boards: List[chess.Board], depth: int, command: str):
    with chess.engine.SimpleEngine.popen_uci(command) as engine:
        engine.configure({"Hash": 16, "Threads": 1})
        start = time.perf_counter()
        results = [engine.analyse(board, chess.engine.Limit(depth=depth)) for board in boards]
        seconds = time.perf_counter() - start
    return seconds, [(r["pv"][0].uci(), r.get("nodes")) for r in results]


def stop_latencies(count: int) -> List[float]:
    engine = Engine(hash_mb=16, threads=1)
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8")
    latencies = []
    for _ in range(count):
        done = threading.Event()
        worker = threading.Thread(target=lambda done=done: (engine.analyse(board, movetime=60), done.set()))
        worker.start()
        time.sleep(0.3)
        asked = time.perf_counter()
        engine.stop()
        done.wait()
        latencies.append(time.perf_counter() - asked)
        worker.join()
    engine.close()
    return latencies


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--stops", type=int, default=20)
    parser.add_argument("--engine", default=shutil.which("fianchetto") or "fianchetto",
                        help="the UCI command (default: fianchetto on PATH)")
    args = parser.parse_args(argv)
    boards = batch_positions(args.positions)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    ours_s, ours = in_process(boards, args.depth, shaped=True)
    keyword_s, _ = in_process(boards, args.depth, shaped=False)
    uci_s, theirs = over_uci(boards, args.depth, args.engine)
    same = sum(a == b for a, b in zip(ours, theirs))
    print(f"{len(boards)} positions to depth {args.depth}: in process {ours_s:.2f} s with a Limit "
          f"({keyword_s:.2f} s with keyword limits), over UCI {uci_s:.2f} s, ratio {uci_s / ours_s:.2f}x; "
          f"same best move and nodes in {same} of {len(boards)}")
    if args.stops:
        latencies = [1000 * x for x in stop_latencies(args.stops)]
        print(f"stop(): median {statistics.median(latencies):.1f} ms, max {max(latencies):.1f} ms "
              f"over {len(latencies)} searches")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if same == len(boards) else 1


if __name__ == "__main__":
    sys.exit(main())
