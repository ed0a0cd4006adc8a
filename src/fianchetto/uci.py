"""UCI protocol loop: read a line, act, answer. stdout carries only UCI."""
from __future__ import annotations

import sys
from typing import Callable, Iterable, List, Optional

from fianchetto import __version__
from fianchetto.board import START_FEN, Board
from fianchetto.perft import divide_report


def parse_position(tokens: List[str], chess960: bool) -> Board:
    """Board for ``position startpos|fen <fen> [moves ...]``; ValueError on any problem."""
    if not tokens:
        raise ValueError("position needs 'startpos' or 'fen'")
    if "moves" in tokens:
        split = tokens.index("moves")
        setup, moves = tokens[:split], tokens[split + 1:]
    else:
        setup, moves = tokens, []
    if setup[0] == "startpos" and len(setup) == 1:
        board = Board(START_FEN, chess960=chess960)
    elif setup[0] == "fen" and len(setup) > 1:
        board = Board(" ".join(setup[1:]), chess960=chess960)
    else:
        raise ValueError("position needs 'startpos' or 'fen <FEN>'")
    for move in moves:
        board.push(move)
    return board


class UciLoop:
    def __init__(self, emit: Optional[Callable[[str], None]] = None) -> None:
        self.emit = emit or (lambda line: print(line, flush=True))
        self.board = Board()
        self.chess960 = False

    def run(self, lines: Iterable[str]) -> int:
        for line in lines:
            if not self.handle(line):
                break
        return 0

    def handle(self, line: str) -> bool:
        """Act on one line; False means quit."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            return False
        if command == "uci":
            self.emit(f"id name Fianchetto {__version__}")
            self.emit("id author the Fianchetto developers")
            self.emit("uciok")
        elif command == "isready":
            self.emit("readyok")
        elif command == "ucinewgame":
            self.board = Board(chess960=self.chess960)
        elif command == "position":
            try:
                self.board = parse_position(args, self.chess960)
            except ValueError as exc:
                self.emit(f"info string invalid position: {exc}")
        elif command == "go" and args[:1] == ["perft"]:
            self.go_perft(args[1:])
        else:
            self.emit(f"info string unknown command: {line.strip()[:80]}")
        return True

    def go_perft(self, args: List[str]) -> None:
        if len(args) != 1 or not args[0].isdigit():
            self.emit("info string go perft needs a depth")
            return
        nodes = divide_report(self.board, int(args[0]), self.emit)
        self.emit("")
        self.emit(f"Nodes searched: {nodes}")


if __name__ == "__main__":
    raise SystemExit(UciLoop().run(sys.stdin))
