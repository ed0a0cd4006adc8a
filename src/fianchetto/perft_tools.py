"""Perft for people who debug move generators: count, compare with another engine, run a suite.

``fianchetto perft --depth N [--fen FEN] [--moves ...] [--divide] [--chess960]
[--threads T] [--hash MB]`` counts the leaves N plies down (with more than one
thread or a perft table of its own, as :mod:`fianchetto.deep_perft` does).

``fianchetto perft --compare "CMD" --depth N [--fen FEN] [--moves ...]`` runs the
other engine's ``go perft`` beside this engine's divide, descends into the
first root move whose counts differ, and repeats until one side lists a move
the other does not: it prints that position, the move and the path from the
start. Exit 0 when the engines agree, 1 on a mismatch, 2 when the other engine
fails. Moves are compared as python-chess reads them, so castling written as
king-to-rook or king-two-squares counts as one move.

``fianchetto perft --suite FILE`` checks every count of a perft suite (lines
``FEN ;D1 20 ;D2 400 ...``); ``--suite default`` runs the one that ships with
the engine (``fianchetto/data/perftsuite.epd``); ``--depth`` caps the depths checked.

``fianchetto perft N`` (a depth alone) is ``--depth N``.

``fianchetto perft DEPTH FEN [MOVES]`` answers perftree's script protocol
(``move count`` lines, an empty line, the total), so that perftree can drive it.
"""
from __future__ import annotations

import argparse
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import chess

from fianchetto.board import Board
from fianchetto.perft import run_perft

SHIPPED_SUITE = Path(__file__).resolve().parent / "data" / "perftsuite.epd"
Emit = Callable[[str], None]


class EngineFailed(Exception):
    """The other engine could not be started, died, timed out or printed no counts."""


# --- the other engine ---------------------------------------------------------------------
def parse_divide_line(line: str) -> Optional[Tuple[str, int]]:
    """``e2e4: 20`` or ``e2e4 20`` as (move, count); None for any other line."""
    words = line.replace(":", " ").split()
    if len(words) == 2 and 4 <= len(words[0]) <= 5 and words[1].isdigit() and words[0][1].isdigit():
        return words[0], int(words[1])
    return None


class OtherEngine:
    """A UCI engine that answers ``go perft N`` with one line per root move."""

    def __init__(self, command: str, timeout: float) -> None:
        self.timeout = timeout
        try:
            self.proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as exc:
            raise EngineFailed(f"cannot start {command!r}: {exc}") from exc
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("uci")
        self._wait_for(lambda line: line.strip() == "uciok", "uciok")
        self.chess960: Optional[bool] = None

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, line: str) -> None:
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise EngineFailed(f"the other engine stopped reading ({exc})") from exc

    def _wait_for(self, done: Callable[[str], bool], what: str) -> List[str]:
        seen: List[str] = []
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise EngineFailed(f"no {what} from the other engine within {self.timeout:g} s") from None
            if line is None:
                raise EngineFailed(f"the other engine exited before {what}")
            seen.append(line)
            if done(line):
                return seen

    def divide(self, fen: str, depth: int, chess960: bool) -> Dict[str, int]:
        if chess960 != self.chess960:
            self.send(f"setoption name UCI_Chess960 value {'true' if chess960 else 'false'}")
            self.chess960 = chess960
        self.send(f"position fen {fen}")
        self.send(f"go perft {depth}")
        lines = self._wait_for(lambda line: line.lower().startswith(("nodes searched", "nodes:", "total")),
                               "perft total")
        counts = dict(found for found in map(parse_divide_line, lines) if found)
        if not counts:
            raise EngineFailed("the other engine printed no 'move: count' lines")
        return counts

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(timeout=2)
        except (EngineFailed, subprocess.TimeoutExpired):
            self.proc.kill()


# --- descending to the bug -----------------------------------------------------------------
def normalised(board: chess.Board, counts: Dict[str, int]) -> Dict[str, int]:
    """Counts keyed by python-chess's own text of each move (castling in one spelling);
    a move that is not even pseudo-legal keeps its text."""
    result = {}
    for text, count in counts.items():
        try:
            key = board.uci(board.parse_uci(text), chess960=board.chess960)
        except ValueError:
            key = text
        result[key] = count
    return result


def our_divide(board: chess.Board, depth: int) -> Dict[str, int]:
    ours = Board(board.fen(shredder=board.chess960), chess960=board.chess960)
    return normalised(board, dict(ours.divide(depth)))


@dataclass
class Mismatch:
    path: List[str]
    fen: str
    only_ours: List[str]
    only_theirs: List[str]
    counts: List[Tuple[str, int, int]]        # (move, ours, theirs) where both list it


def compare(board: chess.Board, depth: int, other: OtherEngine, emit: Emit) -> Optional[Mismatch]:
    """Descend while a root move's counts differ; the mismatch found, or None."""
    path: List[str] = []
    for remaining in range(depth, 0, -1):
        ours = our_divide(board, remaining)
        theirs = normalised(board, other.divide(board.fen(shredder=board.chess960), remaining, board.chess960))
        only_ours = sorted(set(ours) - set(theirs))
        only_theirs = sorted(set(theirs) - set(ours))
        differing = [(m, ours[m], theirs[m]) for m in ours if m in theirs and ours[m] != theirs[m]]
        emit(f"depth {remaining} after {' '.join(path) or '(start)'}: {sum(ours.values())} here, "
             f"{sum(theirs.values())} there")
        if only_ours or only_theirs or (differing and remaining == 1):
            return Mismatch(path, board.fen(shredder=board.chess960), only_ours, only_theirs, differing)
        if not differing:
            return None if not path else Mismatch(path, board.fen(shredder=board.chess960), [], [], [])
        move = differing[0][0]
        path.append(move)
        board.push(board.parse_uci(move))
    return None


def report(mismatch: Mismatch, emit: Emit) -> None:
    emit("mismatch")
    emit(f"  path: {' '.join(mismatch.path) or '(the start position)'}")
    emit(f"  position: {mismatch.fen}")
    for move in mismatch.only_ours:
        emit(f"  {move}: generated here, not by the other engine")
    for move in mismatch.only_theirs:
        emit(f"  {move}: generated by the other engine, not here")
    for move, ours, theirs in mismatch.counts:
        emit(f"  {move}: {ours} here, {theirs} there")


def run_compare(command: str, depth: int, fen: Optional[str], moves: Sequence[str], chess960: bool,
                timeout: float, emit: Emit) -> int:
    board = chess.Board(fen or chess.STARTING_FEN, chess960=chess960)
    for move in moves:
        board.push(board.parse_uci(move))
    board = chess.Board(board.fen(shredder=chess960), chess960=chess960)   # the path starts here
    try:
        other = OtherEngine(command, timeout)
    except EngineFailed as exc:
        emit(f"error: {exc}")
        return 2
    try:
        found = compare(board, depth, other, emit)
    except EngineFailed as exc:
        emit(f"error: {exc}")
        return 2
    finally:
        other.close()
    if found is None:
        emit(f"agree at depth {depth}")
        return 0
    report(found, emit)
    return 1


# --- perftree's script protocol -------------------------------------------------------------
def run_perftree(depth: int, fen: str, moves: Sequence[str], emit: Emit) -> int:
    """``CMD depth fen [moves]``: ``move count`` lines, an empty line, the total."""
    board = Board(fen, chess960=False)
    for move in moves:
        board.push(move)
    total = 0
    for move, count in board.divide(depth):
        emit(f"{move} {count}")
        total += count
    emit("")
    emit(str(total))
    return 0


# --- suites -------------------------------------------------------------------------------
@dataclass
class SuiteLine:
    number: int
    fen: str
    counts: Dict[int, int]


def parse_suite(text: str) -> List[SuiteLine]:
    """``FEN ;D1 20 ;D2 400`` lines; ValueError naming the line of a malformed one."""
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fen, *fields = line.split(";")
        counts = {}
        for field in fields:
            words = field.split()
            if len(words) != 2 or not words[0].upper().startswith("D") or not words[0][1:].isdigit() \
                    or not words[1].isdigit():
                raise ValueError(f"line {number}: {field.strip()!r} is not 'D<depth> <count>'")
            counts[int(words[0][1:])] = int(words[1])
        if not counts or len(fen.split()) < 4:
            raise ValueError(f"line {number}: no FEN with counts")
        lines.append(SuiteLine(number, fen.strip(), counts))
    return lines


def is_chess960_fen(fen: str) -> bool:
    castling = fen.split()[2]
    return any(c not in "KQkq-" for c in castling)


def run_suite(path: str, max_depth: int, emit: Emit) -> int:
    try:
        entries = parse_suite((SHIPPED_SUITE if path == "default" else Path(path)).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        emit(f"error: {exc}")
        return 2
    wrong: List[str] = []
    nodes, started = 0, time.perf_counter()
    for entry in entries:
        try:
            board = Board(entry.fen, chess960=is_chess960_fen(entry.fen))
        except ValueError as exc:
            emit(f"error: line {entry.number}: {exc}")
            return 2
        checked, wrong_before = [], len(wrong)
        for depth, expected in sorted(entry.counts.items()):
            if depth > max_depth:
                continue
            got = board.perft(depth)
            nodes += got
            checked.append(depth)
            if got != expected:
                wrong.append(f"line {entry.number} depth {depth}: expected {expected}, got {got} ({entry.fen})")
        emit(f"line {entry.number}: depths {','.join(map(str, checked)) or '-'} "
             f"{'ok' if len(wrong) == wrong_before else 'MISMATCH'}")
    elapsed = time.perf_counter() - started
    emit(f"{len(entries)} positions, {nodes} nodes in {elapsed:.2f} s "
         f"({int(nodes / elapsed) if elapsed > 0 else 0} nodes/second); {len(wrong)} mismatches")
    for line in wrong:
        emit(f"  {line}")
    return 1 if wrong else 0


# --- the command line ----------------------------------------------------------------------
def build_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--depth", type=int, default=None, help="plies to count (the suite: deepest depth checked)")
    parser.add_argument("--fen", default=None, help="start position (default: the standard one)")
    parser.add_argument("--moves", nargs="+", default=[], metavar="MOVE", help="moves played from the FEN first")
    parser.add_argument("--divide", action="store_true", help="print the count of every root move")
    parser.add_argument("--chess960", action="store_true", help="Chess960 castling rules and spelling")
    parser.add_argument("--threads", type=int, default=1, help="threads counting (default 1)")
    parser.add_argument("--hash", type=int, default=0, metavar="MB",
                        help="a perft table of this many MB for transposed subtrees (default none)")
    parser.add_argument("--compare", default=None, metavar="CMD",
                        help="another UCI engine's command: find where its go perft differs")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds the other engine may take for one answer (default 600)")
    parser.add_argument("--suite", default=None, metavar="FILE",
                        help="check every count of a perft suite ('default': the one shipped)")
    parser.add_argument("perftree", nargs="*", metavar="DEPTH [FEN [MOVES]]",
                        help="a depth alone: --depth; with a FEN: perftree's script protocol")
    return parser


def main_perft(args: argparse.Namespace, emit: Emit) -> int:
    """``fianchetto perft``: exit 0 on a count, agreement or a clean suite; 1 on a
    mismatch; 2 on bad arguments or a failing other engine."""
    try:
        return _dispatch(args, emit)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _dispatch(args: argparse.Namespace, emit: Emit) -> int:
    if len(args.perftree) == 1 and args.perftree[0].isdigit():
        if args.depth is not None:
            raise ValueError(f"the depth is given twice ({args.perftree[0]} and --depth {args.depth})")
        args.depth, args.perftree = int(args.perftree[0]), []       # ``perft 5``: a depth alone
    if args.perftree:
        if len(args.perftree) not in (2, 3) or not args.perftree[0].isdigit():
            raise ValueError("perftree's protocol is: DEPTH FEN [MOVES]")
        moves = args.perftree[2].split() if len(args.perftree) == 3 else []
        return run_perftree(int(args.perftree[0]), args.perftree[1], moves, emit)
    if args.suite is not None:
        return run_suite(args.suite, args.depth if args.depth is not None else 99, emit)
    if args.depth is None:
        raise ValueError("--depth is required (except with --suite or perftree's arguments)")
    if args.depth < 0 or (args.compare and args.depth < 1):
        raise ValueError(f"depth {args.depth} is too small")
    if args.threads < 1 or args.hash < 0:
        raise ValueError("--threads must be at least 1 and --hash at least 0")
    if args.compare is not None:
        return run_compare(args.compare, args.depth, args.fen, args.moves, args.chess960, args.timeout, emit)
    board = Board(args.fen, chess960=args.chess960)
    for move in args.moves:
        board.push(move)
    run_perft(board, args.depth, args.divide, emit, threads=args.threads, hash_mb=args.hash)
    return 0
