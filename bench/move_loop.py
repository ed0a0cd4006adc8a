"""A Python-driven perft, written the way a user of each library would write it.

    python bench/move_loop.py [--depth 3] [--reps 5]

The same recursive loop (list the legal moves, push one, recurse, pop) runs over
three positions with every library that imports: Fianchetto, python-chess and
bulletchess (a C-extension chess library; it needs Python 3.13). Runs alternate
between the libraries, the table shows each one's median seconds and its speed
relative to python-chess, and every library must count the same leaves. This
measures the boundary between Python and the library (move objects, push, pop),
not the move generator: compiled perft is `fianchetto perft`.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

POSITIONS = {
    "startpos": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "middlegame": "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
}


# One function per library, each in its own idiom, rather than one generic loop:
# an indirection would add calls of its own to the very thing being measured.
def fianchetto_perft(board, depth):
    if depth == 0:
        return 1
    nodes = 0
    for move in board.legal_moves():
        board.push(move)
        nodes += fianchetto_perft(board, depth - 1)
        board.pop()
    return nodes


def python_chess_perft(board, depth):
    if depth == 0:
        return 1
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def bulletchess_perft(board, depth):
    if depth == 0:
        return 1
    nodes = 0
    for move in board.legal_moves():
        board.apply(move)
        nodes += bulletchess_perft(board, depth - 1)
        board.undo()
    return nodes


def libraries():
    """(name, board factory, perft function) for every library that imports."""
    found = []
    try:
        from fianchetto import Board
        found.append(("fianchetto", Board, fianchetto_perft))
    except ImportError:
        pass
    try:
        import chess
        found.append(("python-chess", chess.Board, python_chess_perft))
    except ImportError:
        pass
    try:
        import bulletchess
        found.append(("bulletchess", bulletchess.Board.from_fen, bulletchess_perft))
    except ImportError:
        pass
    return found


def one_run(make_board, perft, depth):
    """Seconds and leaf counts of one pass over every position."""
    boards = [make_board(fen) for fen in POSITIONS.values()]
    start = time.perf_counter()
    counts = [perft(board, depth) for board in boards]
    return time.perf_counter() - start, counts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args(argv)
    found = libraries()
    times = {name: [] for name, _, _ in found}
    counts = {}
    for _ in range(args.reps):
        for name, make_board, perft in found:
            seconds, counted = one_run(make_board, perft, args.depth)
            times[name].append(seconds)
            counts[name] = counted
    if len({tuple(c) for c in counts.values()}) != 1:
        print(f"leaf counts differ: {counts}", file=sys.stderr)
        return 1
    medians = {name: statistics.median(t) for name, t in times.items()}
    reference = medians.get("python-chess")
    leaves = sum(next(iter(counts.values())))
    print(f"Python {platform.python_version()}, depth {args.depth}, {leaves} leaves over "
          f"{', '.join(POSITIONS)}; median of {args.reps} alternating runs\n")
    print("| library | seconds | vs python-chess |")
    print("|---|---:|---:|")
    for name, seconds in medians.items():
        ratio = f"{reference / seconds:.1f}x" if reference else "-"
        print(f"| {name} | {seconds:.3f} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
