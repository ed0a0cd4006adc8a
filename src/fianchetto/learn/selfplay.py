"""``fianchetto datagen``: self-play games in the compiled core, written as FIANDATA.

Each game is named by its number: game ``g`` of a run with seed ``S`` starts from
``random_plies`` random moves drawn from a generator seeded by ``(S, g)`` and then
plays node-limited searches inside the core (:class:`core_cy.core.SelfPlayWorker`).
Worker threads take game numbers in turn, but games are written in their number
order, so the output depends only on the seed, the node budget and the other
settings, not on the number of threads. The format is in ``docs/training.md``.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import BinaryIO, Dict, List, Optional, Sequence, Tuple

from core_cy.core import DATA_HEADER, DATA_MAGIC, DATA_RECORD_BYTES, DATA_VERSION, Board, SelfPlayWorker

GOLDEN = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


def game_seed(seed: int, game: int) -> int:
    """The random-opening seed of game number ``game`` in a run seeded ``seed``."""
    return ((seed * GOLDEN) ^ ((game + 1) * 0xD1B54A32D192ED03)) & MASK64


@dataclass
class GameSettings:
    nodes: int = 5000
    random_plies: int = 8
    tablebases: bool = True

    def as_kwargs(self) -> Dict[str, object]:
        return {"nodes": self.nodes, "random_plies": self.random_plies, "tablebases": self.tablebases}


@dataclass
class Progress:
    """Counts shared by the writer and the progress line."""

    target: int
    started: float = field(default_factory=time.monotonic)
    positions: int = 0
    games: int = 0
    discarded: int = 0
    results: List[int] = field(default_factory=lambda: [0, 0, 0])

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.positions / elapsed
        eta = (self.target - self.positions) / rate if rate > 0 else 0.0
        black, draws, white = self.results
        return (f"positions {self.positions}/{self.target}  {rate:.0f}/s  games {self.games} "
                f"(+{white} ={draws} -{black}, {self.discarded} discarded)  "
                f"elapsed {elapsed:.0f}s  eta {max(eta, 0):.0f}s")


class GameQueue:
    """Hands out game numbers to workers and writes finished games in number order."""

    def __init__(self, out: BinaryIO, progress: Progress) -> None:
        self.out = out
        self.progress = progress
        self.lock = threading.Lock()
        self.next_game = 0
        self.next_to_write = 0
        self.finished: Dict[int, Tuple[bytes, Optional[int]]] = {}

    def take(self) -> Optional[int]:
        with self.lock:
            if self.done():
                return None
            game = self.next_game
            self.next_game += 1
            return game

    def done(self) -> bool:
        return self.progress.positions >= self.progress.target

    def finish(self, game: int, records: bytes, result: Optional[int]) -> None:
        with self.lock:
            self.finished[game] = (records, result)
            while self.next_to_write in self.finished and not self.done():
                self._write(*self.finished.pop(self.next_to_write))
                self.next_to_write += 1

    def _write(self, records: bytes, result: Optional[int]) -> None:
        progress = self.progress
        if result is None:
            progress.discarded += 1
            return
        room = (progress.target - progress.positions) * DATA_RECORD_BYTES
        chunk = records[:room]
        self.out.write(chunk)
        progress.positions += len(chunk) // DATA_RECORD_BYTES
        progress.games += 1
        progress.results[result] += 1


def run_worker(queue: GameQueue, seed: int, settings: GameSettings, hash_mb: int) -> None:
    worker = SelfPlayWorker(hash_mb=hash_mb)
    start = Board()
    while True:
        game = queue.take()
        if game is None:
            return
        records, result, _plies = worker.play(start, game_seed(seed, game), **settings.as_kwargs())
        queue.finish(game, records, result)


def generate(path: str, positions: int, settings: GameSettings, threads: int = 1, seed: int = 1,
             hash_mb: int = 16, report=None, report_every: float = 1.0) -> Progress:
    """Write ``positions`` records to ``path`` (a FIANDATA file); returns the counts."""
    progress = Progress(target=positions)
    with open(path, "wb") as out:
        out.write(DATA_HEADER.pack(DATA_MAGIC, DATA_VERSION, DATA_RECORD_BYTES))
        queue = GameQueue(out, progress)
        workers = [threading.Thread(target=run_worker, args=(queue, seed, settings, hash_mb), daemon=True)
                   for _ in range(max(1, threads))]
        for w in workers:
            w.start()
        while any(w.is_alive() for w in workers):
            workers[0].join(timeout=report_every)
            if report is not None:
                report(progress.line())
        for w in workers:
            w.join()
    if report is not None:
        report(progress.line())
    return progress


def build_parser(parser: Optional[argparse.ArgumentParser] = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="fianchetto datagen")
    parser.add_argument("--out", required=True, help="FIANDATA file to write")
    parser.add_argument("--positions", type=int, required=True, help="positions to write")
    parser.add_argument("--nodes", type=int, default=5000, help="node budget per move (default 5000)")
    parser.add_argument("--threads", type=int, default=1, help="games played at once (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="names the games (default 1)")
    parser.add_argument("--random-plies", type=int, default=8, help="random opening moves (default 8)")
    parser.add_argument("--hash", type=int, default=16, help="MB of hash per thread (default 16)")
    parser.add_argument("--eval-file", default=None,
                        help="network to play with (default: the shipped one; 'none' for the hand-crafted evaluation)")
    parser.add_argument("--syzygy-path", default="", help="Syzygy folders for adjudication")
    return parser


def main_datagen(args: argparse.Namespace) -> int:
    from fianchetto import network

    if args.positions < 1 or args.nodes < 1 or args.threads < 1 or args.random_plies < 0:
        print("positions, nodes and threads must be positive, random plies not negative", file=sys.stderr)
        return 2
    problem = network.select_for_tool(args.eval_file)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if args.syzygy_path:
        from core_cy.core import syzygy_init

        syzygy_init(args.syzygy_path)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    settings = GameSettings(nodes=args.nodes, random_plies=args.random_plies, tablebases=bool(args.syzygy_path))

    def report(line: str) -> None:
        print("\r" + line, end="", file=sys.stderr, flush=True)

    progress = generate(args.out, args.positions, settings, args.threads, args.seed, args.hash, report)
    print(file=sys.stderr)
    print(f"wrote {progress.positions} positions from {progress.games} games to {args.out}")
    return 0
