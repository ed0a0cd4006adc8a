"""Perft reports shared by the command line and the UCI loop."""
from __future__ import annotations

import time
from typing import Callable

from fianchetto.board import Board


def divide_report(board: Board, depth: int, emit: Callable[[str], None]) -> int:
    """Emit one ``move: count`` line per legal move, then return the total."""
    total = 0
    for move, count in board.divide(depth):
        emit(f"{move}: {count}")
        total += count
    return total


def run_perft(board: Board, depth: int, divide: bool, emit: Callable[[str], None],
              threads: int = 1, hash_mb: int = 0) -> int:
    """The ``fianchetto perft`` report: optional divide, node count, time, speed.
    More than one thread or a perft table counts with :mod:`fianchetto.deep_perft`."""
    start = time.perf_counter()
    if threads > 1 or hash_mb > 0:
        from fianchetto import deep_perft

        on_root = (lambda move, count: emit(f"{move}: {count}")) if divide else None
        nodes = deep_perft.count(board, depth, threads=threads, hash_mb=hash_mb, on_root=on_root)
    elif divide and depth >= 1:
        nodes = divide_report(board, depth, emit)
    else:
        nodes = board.perft(depth)
    if divide and depth >= 1:
        emit("")
    elapsed = time.perf_counter() - start
    emit(f"Nodes searched: {nodes}")
    emit(f"Time: {elapsed * 1000:.0f} ms")
    emit(f"Nodes/second: {int(nodes / elapsed) if elapsed > 0 else 0}")
    return nodes
