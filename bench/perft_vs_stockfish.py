"""Perft speed side by side: Fianchetto (Python API, CLI, UCI) vs Stockfish, and
the Python API vs python-chess.

    python bench/perft_vs_stockfish.py [--reps 5] [--stockfish /usr/games/stockfish]

Every engine counts the same positions in one run, taking turns repetition by
repetition so that a change in machine load hits all of them alike. Reported:
the median time and nodes/second over the repetitions, and the ratios.

How each figure is timed
- Python API: ``Board(fen).perft(depth)`` around the call (compiled, bulk counted).
- CLI: the whole ``python -m fianchetto perft --depth N --fen FEN`` process (what
  the ``fianchetto`` script runs), wall clock, interpreter start and table set-up
  included.
- UCI (Fianchetto and Stockfish alike): one engine process per position; after
  ``position ...`` and ``isready``/``readyok``, from writing ``go perft N`` to
  reading the ``Nodes searched`` line (both print one line per root move first).
- python-chess: the same bulk counting, ``len(list(board.legal_moves))`` at
  depth 1, push/pop above it, on a smaller depth (it is slow).

Each figure is also taken as CPU time (Linux: the engine process's utime+stime
from ``/proc``, the CLI child's rusage, the calling thread's time for the API and
python-chess). Wall-clock figures are the ones that count on an idle machine;
CPU-time figures stay usable when other processes compete for the cores. The
load average is printed before and after.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from typing import Callable, Optional, Sequence

import chess

from fianchetto import START_FEN, Board

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

# (label, fen, depth, leaf nodes)
ENGINE_CASES = [
    ("startpos", START_FEN, 6, 119_060_324),
    ("kiwipete", KIWIPETE, 5, 193_690_690),
]
PYTHON_CHESS_CASES = [
    ("startpos", START_FEN, 4, 197_281),
    ("kiwipete", KIWIPETE, 3, 97_862),
]


class UciEngine:
    """An engine process driven over UCI, for timing ``go perft``."""

    def __init__(self, command: Sequence[str]) -> None:
        self.proc = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1,
        )
        self.send("uci")
        self.wait_for("uciok")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait_for(self, prefix: str) -> str:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(prefix):
                return line.strip()
        raise RuntimeError(f"engine exited before answering {prefix!r}")

    def set_position(self, fen: str) -> None:
        self.send(f"position fen {fen}")
        self.send("isready")
        self.wait_for("readyok")

    def cpu_seconds(self) -> Optional[float]:
        """utime + stime of the engine process so far (Linux), else None."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def perft(self, depth: int) -> tuple[int, float, Optional[float]]:
        cpu0 = self.cpu_seconds()
        start = time.perf_counter()
        self.send(f"go perft {depth}")
        line = self.wait_for("Nodes searched")
        elapsed = time.perf_counter() - start
        cpu1 = self.cpu_seconds()
        cpu = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
        return int(line.split(":")[1]), elapsed, cpu

    def close(self) -> None:
        self.send("quit")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def fianchetto_command() -> list[str]:
    """``python -m fianchetto``: the same installation the API figures come from."""
    return [sys.executable, "-m", "fianchetto"]


Timing = tuple[int, float, Optional[float]]     # nodes, wall seconds, CPU seconds


def time_api(fen: str, depth: int) -> Timing:
    board = Board(fen)
    cpu = time.thread_time()
    start = time.perf_counter()
    nodes = board.perft(depth)
    return nodes, time.perf_counter() - start, time.thread_time() - cpu


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_cli(fen: str, depth: int) -> Timing:
    cpu = children_cpu()
    start = time.perf_counter()
    out = subprocess.run(
        fianchetto_command() + ["perft", "--depth", str(depth), "--fen", fen],
        check=True, capture_output=True, text=True,
    ).stdout
    elapsed = time.perf_counter() - start
    line = next(l for l in out.splitlines() if l.startswith("Nodes searched"))
    return int(line.split(":")[1]), elapsed, children_cpu() - cpu


def python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return len(list(board.legal_moves))
    nodes = 0
    for move in list(board.legal_moves):
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def time_python_chess(fen: str, depth: int) -> Timing:
    board = chess.Board(fen)
    cpu = time.thread_time()
    start = time.perf_counter()
    nodes = python_chess_perft(board, depth)
    return nodes, time.perf_counter() - start, time.thread_time() - cpu


def uptime() -> str:
    try:
        load = os.getloadavg()
        return f"load average {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}"
    except OSError:
        return "load average unknown"


Samples = dict[str, tuple[list[float], list[Optional[float]]]]


def measure(runners: dict[str, Callable[[], Timing]], expected: int, reps: int) -> Samples:
    """Time every runner `reps` times, round-robin; check each node count."""
    samples: Samples = {name: ([], []) for name in runners}
    for _ in range(reps):
        for name, run in runners.items():
            nodes, wall, cpu = run()
            if nodes != expected:
                raise SystemExit(f"{name}: {nodes} nodes, expected {expected}")
            samples[name][0].append(wall)
            samples[name][1].append(cpu)
    return samples


def median_or_none(values: list[Optional[float]]) -> Optional[float]:
    if any(v is None for v in values):
        return None
    return statistics.median(values)  # type: ignore[arg-type]


def report(label: str, depth: int, nodes: int, samples: Samples, reference: str) -> None:
    reps = len(next(iter(samples.values()))[0])
    print(f"\n{label} depth {depth} ({nodes:,} nodes), median of {reps}; speed relative to {reference}:")
    print(f"  {'':<24}{'wall':>10}{'Mnodes/s':>10}{'ratio':>9}  |{'CPU':>10}{'Mnodes/s':>10}{'ratio':>9}")
    ref_wall = statistics.median(samples[reference][0])
    ref_cpu = median_or_none(samples[reference][1])
    for name, (walls, cpus) in samples.items():
        wall = statistics.median(walls)
        line = f"  {name:<24}{wall * 1000:>8.1f}ms{nodes / wall / 1e6:>10.1f}{ref_wall / wall:>8.2f}x  |"
        cpu = median_or_none(cpus)
        if cpu and ref_cpu:
            line += f"{cpu * 1000:>8.1f}ms{nodes / cpu / 1e6:>10.1f}{ref_cpu / cpu:>8.2f}x"
        else:
            line += f"{'n/a':>10}"
        print(line)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per engine (default 5)")
    parser.add_argument("--stockfish", default="/usr/games/stockfish", help="Stockfish binary")
    parser.add_argument("--skip-python-chess", action="store_true")
    args = parser.parse_args(argv)

    sf_version = subprocess.run([args.stockfish], input="quit\n", capture_output=True,
                                text=True, check=True).stdout.splitlines()[0]
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.processor() or ''}".rstrip(", "))
    print(f"python {platform.python_version()}, python-chess {chess.__version__}, {sf_version}")
    print(f"before: {uptime()}")

    for label, fen, depth, expected in ENGINE_CASES:
        stockfish = UciEngine([args.stockfish])
        ours = UciEngine(fianchetto_command())
        stockfish.set_position(fen)
        ours.set_position(fen)
        try:
            times = measure({
                "stockfish go perft": lambda e=stockfish, d=depth: e.perft(d),
                "fianchetto go perft": lambda e=ours, d=depth: e.perft(d),
                "fianchetto Board.perft": lambda f=fen, d=depth: time_api(f, d),
                "fianchetto perft (CLI)": lambda f=fen, d=depth: time_cli(f, d),
            }, expected, args.reps)
        finally:
            stockfish.close()
            ours.close()
        report(label, depth, expected, times, "stockfish go perft")

    if not args.skip_python_chess:
        for label, fen, depth, expected in PYTHON_CHESS_CASES:
            times = measure({
                "python-chess": lambda f=fen, d=depth: time_python_chess(f, d),
                "fianchetto Board.perft": lambda f=fen, d=depth: time_api(f, d),
            }, expected, max(3, args.reps // 2))
            report(label, depth, expected, times, "python-chess")

    print(f"\nafter: {uptime()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
