"""Command line: ``fianchetto`` (UCI), ``fianchetto perft``."""
from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from fianchetto.board import Board
from fianchetto.perft import run_perft


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fianchetto", description="Fianchetto UCI chess engine")
    commands = parser.add_subparsers(dest="command")
    perft = commands.add_parser("perft", help="count leaf nodes of the legal move tree")
    perft.add_argument("--depth", type=int, required=True, help="plies to count")
    perft.add_argument("--fen", default=None, help="start position (default: the standard one)")
    perft.add_argument("--divide", action="store_true", help="print the count of every root move")
    perft.add_argument("--chess960", action="store_true", help="Chess960 castling rules and spelling")
    commands.add_parser("uci", help="speak UCI on stdin/stdout (the default)")
    return parser


def print_line(line: str) -> None:
    print(line, flush=True)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "perft":
        try:
            board = Board(args.fen, chess960=args.chess960)
        except ValueError as exc:
            print(f"invalid FEN: {exc}", file=sys.stderr)
            return 2
        if args.depth < 0:
            print("depth must be at least 0", file=sys.stderr)
            return 2
        run_perft(board, args.depth, args.divide, print_line)
        return 0
    from fianchetto.uci import UciLoop

    return UciLoop().run(sys.stdin)
