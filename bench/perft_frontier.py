"""Single-thread bulk perft beside the dedicated perft programs and Stockfish.

    python bench/perft_frontier.py --program ellxor='/path/perft {fen} {depth}' \\
        --program mperft='/path/mperft --bulk --fen {fen} -d {depth}' [--reps 3] [--quick]

Every contender counts startpos to depth 7 and Kiwipete to depth 6 (``--quick``:
6 and 5), taking turns repetition by repetition, on one core: this process and
everything it starts are pinned to one CPU (``--cpu``), so a program that starts
a thread per core still counts with one core's time. Reported per position:
best and median nodes/second over the repetitions, and each contender's best
as a ratio of the fastest other perft program's best.

How each figure is timed
- ``Board.perft``: the core's perft around the call, in this process (the
  move generator and make/unmake the search uses; bulk counted; no table).
- ``go perft``: from writing ``go perft N`` to reading ``Nodes searched``, inside
  a running engine (start-up excluded), for Fianchetto (Threads 1, Hash 1: the
  smallest perft table it keeps) and Stockfish.
- ``--program NAME=CMD``: the whole process, wall clock (their table set-up is a
  few milliseconds). ``{fen}`` and ``{depth}`` in CMD are filled in; the output
  must contain the expected count, so a wrong answer fails instead of timing.
"""
from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.perft_vs_stockfish import KIWIPETE, UciEngine, fianchetto_command, uptime  # noqa: E402
from fianchetto import START_FEN, Board  # noqa: E402

# (label, fen, depth, leaf nodes), deep and --quick
CASES = [("startpos", START_FEN, 7, 3_195_901_860), ("kiwipete", KIWIPETE, 6, 8_031_647_685)]
QUICK_CASES = [("startpos", START_FEN, 6, 119_060_324), ("kiwipete", KIWIPETE, 5, 193_690_690)]

Runner = Callable[[str, int], Tuple[int, float]]     # (fen, depth) -> (nodes, seconds)


def program_runner(template: str, expected: Dict[Tuple[str, int], int]) -> Runner:
    """A perft program run as a process. Programs print their count among other
    figures, so the count is taken as the expected one when the output holds it,
    else as the largest number printed (which then fails the check)."""
    words = shlex.split(template)

    def run(fen: str, depth: int) -> Tuple[int, float]:
        command = [w.replace("{fen}", fen).replace("{depth}", str(depth)) for w in words]
        start = time.perf_counter()
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        elapsed = time.perf_counter() - start
        numbers = {int(d) for d in "".join(c if c.isdigit() else " " for c in out.replace(",", "")).split()}
        want = expected[(fen, depth)]
        return (want if want in numbers else max(numbers, default=0)), elapsed
    return run


def board_perft(fen: str, depth: int) -> Tuple[int, float]:
    board = Board(fen)
    start = time.perf_counter()
    nodes = board.perft(depth)
    return nodes, time.perf_counter() - start


def uci_runner(command: List[str], options: Dict[str, str]) -> Tuple[Runner, Callable[[], None]]:
    """go perft in one running engine; the position is set before the clock starts."""
    engine = UciEngine(command)
    for name, value in options.items():
        engine.send(f"setoption name {name} value {value}")

    def run(fen: str, depth: int) -> Tuple[int, float]:
        engine.set_position(fen)
        nodes, elapsed, _ = engine.perft(depth)
        return nodes, elapsed
    return run, engine.close


def parse_program(spec: str) -> Tuple[str, str]:
    name, sep, template = spec.partition("=")
    if not sep or "{fen}" not in template or "{depth}" not in template:
        raise argparse.ArgumentTypeError(f"--program wants NAME=CMD with {{fen}} and {{depth}}, not {spec!r}")
    return name, template


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--program", type=parse_program, action="append", default=[],
                        help="NAME=CMD, another perft program ({fen} and {depth} are filled in)")
    parser.add_argument("--stockfish", default="/usr/games/stockfish", help="Stockfish binary ('' to leave out)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions per contender (default 3)")
    parser.add_argument("--cpu", type=int, default=0, help="the CPU everything is pinned to (default 0)")
    parser.add_argument("--quick", action="store_true", help="startpos 6 and Kiwipete 5 instead of 7 and 6")
    args = parser.parse_args(argv)

    os.sched_setaffinity(0, {args.cpu})
    print(f"machine: {platform.machine()}, pinned to CPU {args.cpu}; before: {uptime()}")
    closers: List[Callable[[], None]] = []
    runners: Dict[str, Runner] = {"fianchetto Board.perft": board_perft}
    run, close = uci_runner(fianchetto_command(), {"Threads": "1", "Hash": "1"})
    runners["fianchetto go perft"] = run
    closers.append(close)
    if args.stockfish:
        run, close = uci_runner([args.stockfish], {})
        runners["stockfish go perft"] = run
        closers.append(close)
    cases = QUICK_CASES if args.quick else CASES
    expected_counts = {(fen, depth): nodes for _, fen, depth, nodes in cases}
    programs = [name for name, _ in args.program]
    for name, template in args.program:
        runners[name] = program_runner(template, expected_counts)
    try:
        for label, fen, depth, expected in cases:
            rates: Dict[str, List[float]] = {name: [] for name in runners}
            for rep in range(args.reps):
                order = list(runners.items())
                for name, runner in (order if rep % 2 == 0 else order[::-1]):
                    nodes, elapsed = runner(fen, depth)
                    if nodes != expected:
                        raise SystemExit(f"{name}: {nodes} nodes for {label} depth {depth}, expected {expected}")
                    rates[name].append(nodes / elapsed / 1e6)
            report(label, depth, expected, rates, programs)
    finally:
        for close in closers:
            close()
    print(f"\nafter: {uptime()}")
    return 0


def report(label: str, depth: int, nodes: int, rates: Dict[str, List[float]], programs: List[str]) -> None:
    fastest = max(programs, key=lambda name: max(rates[name])) if programs else None
    print(f"\n{label} depth {depth} ({nodes:,} leaves), {len(next(iter(rates.values())))} repetitions, "
          f"million leaves/s" + (f"; ratio of best to {fastest}'s best" if fastest else ""))
    for name, values in sorted(rates.items(), key=lambda item: -max(item[1])):
        line = f"  {name:<24}best {max(values):>7.0f}  median {statistics.median(values):>7.0f}"
        if fastest:
            line += f"  {max(values) / max(rates[fastest]):>6.2f}x"
        print(line)


if __name__ == "__main__":
    raise SystemExit(main())
