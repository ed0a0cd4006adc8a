"""Deep perft counts: several threads, a table of subtree counts, and a stop.

A count is split into tasks, one per root move or, with more than one thread
and depth 3 or more, one per pair of moves (400 from the start position), so
that the threads finish together. Each thread takes the next task, plays its
moves on a Board of its own and counts the rest with the GIL released
(``Board.perft_deep``); all share one :class:`~core_cy.core.PerftHash`, whose
counts of transposed subtrees every thread reuses and whose ``stop()`` ends the
count at once. Root moves are reported in the order the move generator gives
them, each as soon as it and every move before it are counted.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from core_cy.core import PerftHash

from fianchetto.board import Board

#: Called with (root move, its leaf count), in root order.
RootReport = Callable[[str, int], None]


@dataclass
class _Tasks:
    """The work of one count, handed out under a lock."""

    board: Board
    depth: int
    roots: List[str]
    paths: List[Tuple[int, Tuple[str, ...]]]        # (root index, moves to play)
    remaining: List[int] = field(default_factory=list)  # tasks left per root move
    counts: List[int] = field(default_factory=list)
    reported: int = 0
    next_task: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def plan_tasks(board: Board, depth: int, threads: int) -> _Tasks:
    """One task per root move, or per pair of moves when threads can share them."""
    roots = board.legal_moves()
    split = threads > 1 and depth >= 3
    paths: List[Tuple[int, Tuple[str, ...]]] = []
    for index, move in enumerate(roots):
        if not split:
            paths.append((index, (move,)))
            continue
        board.push(move)
        replies = board.legal_moves()
        board.pop()
        paths.extend((index, (move, reply)) for reply in replies)
        if not replies:
            paths.append((index, (move,)))      # mate or stalemate: one leaf at depth 1 only
    remaining = [0] * len(roots)
    for index, _ in paths:
        remaining[index] += 1
    return _Tasks(board=board, depth=depth, roots=roots, paths=paths, remaining=remaining,
                  counts=[0] * len(roots))


def count(board: Board, depth: int, *, threads: int = 1, hash_mb: int = 0,
          table: Optional[PerftHash] = None, on_root: Optional[RootReport] = None) -> Optional[int]:
    """The leaves `depth` plies below `board` (which is left as it was), or None when
    `table` was stopped. Give a `table` to be able to stop the count from another
    thread; otherwise one of `hash_mb` is made for the count and freed after it."""
    if depth < 1:
        return board.perft(max(depth, 0))
    table = table if table is not None else PerftHash(hash_mb)
    tasks = plan_tasks(board.copy(), depth, max(1, threads))
    workers = [threading.Thread(target=_work, args=(tasks, table, on_root), name=f"fianchetto-perft-{i}",
                                daemon=True) for i in range(max(1, min(threads, len(tasks.paths))))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if table.is_stopped:
        return None
    return sum(tasks.counts)


def _work(tasks: _Tasks, table: PerftHash, on_root: Optional[RootReport]) -> None:
    """One thread's loop: take a task, count it, report the root moves now complete."""
    board = tasks.board.copy()
    while not table.is_stopped:
        with tasks.lock:
            if tasks.next_task >= len(tasks.paths):
                return
            index, moves = tasks.paths[tasks.next_task]
            tasks.next_task += 1
        for move in moves:
            board.push(move)
        nodes = board.perft_deep(tasks.depth - len(moves), table)
        for _ in moves:
            board.pop()
        if nodes is None:
            return
        with tasks.lock:
            tasks.counts[index] += nodes
            tasks.remaining[index] -= 1
            _report_complete(tasks, on_root)


def _report_complete(tasks: _Tasks, on_root: Optional[RootReport]) -> None:
    """Report every root move from the first unreported one that is complete (under the lock)."""
    while tasks.reported < len(tasks.roots) and tasks.remaining[tasks.reported] == 0:
        if on_root is not None:
            on_root(tasks.roots[tasks.reported], tasks.counts[tasks.reported])
        tasks.reported += 1


def divide(board: Board, depth: int, *, threads: int = 1, hash_mb: int = 0) -> Dict[str, int]:
    """Root move -> leaf count, every root move (threads and table as in :func:`count`)."""
    result: Dict[str, int] = {}
    count(board, depth, threads=threads, hash_mb=hash_mb, on_root=result.__setitem__)
    return result
