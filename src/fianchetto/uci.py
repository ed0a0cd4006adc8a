"""UCI protocol loop: read a line, act, answer. stdout carries only UCI.

The reader (this module, on the main thread) parses each line and calls the
:class:`~fianchetto.session.UciSession`; the engine's search thread reports back
through :class:`UciLoop` (a :class:`~fianchetto.session.Listener`), which turns
events into UCI text. Every line is written whole under a lock and flushed.
Nothing a GUI or a user types can kill the loop: a bad line gets an
``info string`` naming the problem and changes nothing.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, TextIO, Tuple, Union

import chess

from fianchetto import __version__
from fianchetto.board import START_FEN, Board
from fianchetto.session import GoParams, UciSession
from fianchetto.options import OptionError, clip
from fianchetto.score import CurrMove, Event
from fianchetto.wdl import material_of_fen

ENGINE_NAME = f"Fianchetto {__version__}"
ENGINE_AUTHOR = "the Fianchetto developers"

#: Deepest ``go perft`` accepted (it runs on a worker thread; ``stop`` ends it).
MAX_PERFT_DEPTH = 12
#: Upper bounds that keep ``go`` numbers inside the core's C integers.
MAX_DEPTH = 255
MAX_MATE = 255
MAX_MS = 2**31 - 1
MAX_NODES = 2**63 - 1
#: Stockfish's option of this name: a file that receives every line read and written.
DEBUG_LOG_OPTION = "Debug Log File"
#: The bestmove of a position without a legal move (mate or stalemate).
NO_MOVE = "(none)"

_GO_NUMBERS = {
    "wtime": MAX_MS, "btime": MAX_MS, "winc": MAX_MS, "binc": MAX_MS,
    "movestogo": 10_000, "depth": MAX_DEPTH, "nodes": MAX_NODES, "mate": MAX_MATE,
    "movetime": MAX_MS,
}
#: Limits where 0 would read as "no limit" in the core: an explicit 0 becomes the
#: smallest search instead (depth 1 always completes, so a legal move comes back).
_GO_AT_LEAST_ONE = {"depth", "nodes", "mate", "movetime"}
_GO_FLAGS = {"ponder", "infinite"}
_GO_KEYWORDS = set(_GO_NUMBERS) | _GO_FLAGS | {"searchmoves", "perft"}


# --- parsing (pure functions) ------------------------------------------------------------
def parse_position(tokens: List[str], chess960: bool) -> Board:
    """Board for ``position startpos|fen <fen> [moves ...]``; ValueError on any problem."""
    if not tokens:
        raise ValueError("position needs 'startpos' or 'fen'")
    if "moves" in tokens:
        split = tokens.index("moves")
        setup, moves = tokens[:split], tokens[split + 1:]
    else:
        setup, moves = tokens, []
    if setup[:1] == ["startpos"] and len(setup) == 1:
        board = Board(START_FEN, chess960=chess960)
    elif setup[:1] == ["fen"] and len(setup) > 1:
        board = Board(" ".join(setup[1:]), chess960=chess960)
    elif setup[:1] == ["fen"]:
        raise ValueError("position fen needs a FEN")
    else:
        raise ValueError("position needs 'startpos' or 'fen <FEN>'")
    for ply, move in enumerate(moves, 1):
        try:
            board.push(move)
        except ValueError as exc:
            raise ValueError(f"move {ply} ({clip(move, 12)}): {exc}") from None
    return board


def parse_go(tokens: List[str]) -> Tuple[GoParams, List[str]]:
    """``GoParams`` for the words after ``go``, plus a problem report per bad word.

    Parameters may come in any order and any subset. A bad value (not a number,
    negative, missing, beyond its range) is reported and left out; negative clock
    times count as 0 (an empty clock), which still yields a quick legal move. A
    limit of 0 for depth, nodes, mate or movetime is reported and raised to 1.
    When a line had problems and nothing is left to end the search (no limit, no
    clock, neither ``infinite`` nor ``ponder``), it searches to depth 1: a garbled
    ``go`` never starts a search the GUI did not ask for. A ``go perft`` line
    never searches (``cmd_go``), so a bad perft depth is only reported.
    """
    params = GoParams()
    problems: List[str] = []
    i = 0
    while i < len(tokens):
        word = tokens[i]
        i += 1
        if word in _GO_FLAGS:
            setattr(params, word, True)
        elif word == "searchmoves":
            while i < len(tokens) and tokens[i] not in _GO_KEYWORDS:
                params.searchmoves.append(tokens[i])
                i += 1
            if not params.searchmoves:
                problems.append("go searchmoves without moves")
        elif word == "perft":
            params.perft_asked = True
            value = tokens[i] if i < len(tokens) else None
            i += 1 if value is not None else 0
            params.perft = _go_perft_depth(value, problems)
        elif word in _GO_NUMBERS:
            if i >= len(tokens) or tokens[i] in _GO_KEYWORDS:
                problems.append(f"go {word} needs a value")
                continue
            number = _go_number(word, tokens[i], problems)
            i += 1
            if number is not None:
                setattr(params, word, number)
        else:
            problems.append(f"go: unknown parameter {clip(word, 20)!r} ignored")
    if problems and not params.has_bound():
        params.depth = 1
        problems.append("go: no usable limit left; searching to depth 1")
    return params, problems


def _go_perft_depth(value: Optional[str], problems: List[str]) -> Optional[int]:
    """The depth of ``go perft <value>``, or None (with a problem) when unusable."""
    if value is None or not value.isdigit() or int(value) == 0:
        problems.append(f"go perft needs a depth of at least 1, not {clip(value or '', 20)!r}")
        return None
    if int(value) > MAX_PERFT_DEPTH:
        problems.append(f"go perft depth {clip(value, 20)} too deep (max {MAX_PERFT_DEPTH})")
        return None
    return int(value)


def _go_number(word: str, text: str, problems: List[str]) -> Optional[int]:
    """The value of a numeric ``go`` parameter, clamped to its range; None when unusable."""
    try:
        value = int(text)
    except ValueError:
        problems.append(f"go {word} needs an integer, not {clip(text, 20)!r}")
        return None
    if value < 0:
        if word not in ("wtime", "btime", "winc", "binc"):
            problems.append(f"go {word} {value} is negative; ignored")
            return None
        problems.append(f"go {word} {value} is negative; using 0")
        value = 0
    if value == 0 and word in _GO_AT_LEAST_ONE:
        problems.append(f"go {word} 0 asks for no search at all; using {word} 1")
        value = 1
    if value > _GO_NUMBERS[word]:
        problems.append(f"go {word} {clip(text, 20)} is out of range (at most {_GO_NUMBERS[word]}); ignored")
        return None
    return value


def parse_setoption(tokens: List[str]) -> Tuple[str, Optional[str]]:
    """(name, value text or None) for the words after ``setoption``.

    Names and values may contain spaces: ``setoption name Move Overhead value 100``.
    """
    if not tokens or tokens[0] != "name":
        raise OptionError("setoption needs 'name <option>'")
    rest = tokens[1:]
    if "value" in rest:
        split = rest.index("value")
        name, value = " ".join(rest[:split]), " ".join(rest[split + 1:])
    else:
        name, value = " ".join(rest), None
    if not name:
        raise OptionError("setoption needs an option name")
    return name, value


# --- formatting ---------------------------------------------------------------------------
def format_info(event: Event) -> str:
    """One ``info`` line in Stockfish's field order."""
    if isinstance(event, CurrMove):
        return f"info depth {event.depth} currmove {event.currmove} currmovenumber {event.currmovenumber}"
    parts = ["info", f"depth {event.depth}"]
    if event.seldepth is not None:
        parts.append(f"seldepth {event.seldepth}")
    if event.multipv is not None:
        parts.append(f"multipv {event.multipv}")
    if event.score is not None:
        parts.append(f"score {event.score.uci()}")
        if event.wdl is not None:
            parts.append("wdl {} {} {}".format(*event.wdl))
        if event.bound:
            parts.append(event.bound)
    for key, value in (("nodes", event.nodes), ("nps", event.nps), ("hashfull", event.hashfull)):
        if value is not None:
            parts.append(f"{key} {value}")
    parts.append(f"tbhits {event.tbhits}")
    if event.time is not None:
        parts.append(f"time {event.time}")
    if event.pv:
        parts.append("pv " + " ".join(event.pv))
    return " ".join(parts)


def board_diagram(board: Board) -> List[str]:
    """Stockfish's ``d`` picture of the board."""
    rows = str(board).splitlines()
    lines = [" +---+---+---+---+---+---+---+---+"]
    for rank, row in zip(range(8, 0, -1), rows):
        cells = [" " if c == "." else c for c in row.split()]
        lines.append(" | " + " | ".join(cells) + f" | {rank}")
        lines.append(" +---+---+---+---+---+---+---+---+")
    lines.append("   a   b   c   d   e   f   g   h")
    return lines


# --- output ----------------------------------------------------------------------------
class Transcript:
    """``Debug Log File``: every line read (``>> line``) and written (``<< line``),
    in the order they crossed stdin and stdout, appended to a file and flushed line
    by line. A write that fails closes the log; :meth:`take_problem` says so, once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._file: Optional[TextIO] = None
        self._path = ""
        self._problem: Optional[str] = None

    def open(self, path: str) -> None:
        """Log to ``path``, or nowhere when it is empty. OSError or ValueError when the
        file cannot be opened; the log held before then goes on."""
        handle = open(os.path.expanduser(path), "a", encoding="utf-8", errors="replace") if path else None
        with self._lock:
            old, self._file, self._path = self._file, handle, path
        if old is not None:
            with contextlib.suppress(OSError, ValueError):
                old.close()

    def close(self) -> None:
        self.open("")

    def read(self, line: str) -> None:
        self._write(">> ", line)

    def wrote(self, line: str) -> None:
        self._write("<< ", line)

    def _write(self, prefix: str, line: str) -> None:
        with self._lock:
            if self._file is None:
                return
            try:
                self._file.write(f"{prefix}{line}\n")
                self._file.flush()
            except (OSError, ValueError) as exc:
                self._problem = f"{DEBUG_LOG_OPTION}: cannot write to {clip(self._path, 300)} ({exc}); the log is closed"
                with contextlib.suppress(OSError, ValueError):
                    self._file.close()
                self._file = None

    def take_problem(self) -> Optional[str]:
        """Why the log closed itself, once; None when it did not."""
        with self._lock:
            problem, self._problem = self._problem, None
        return problem


class Output:
    """Thread-safe, line-flushed writer for stdout (or any ``write`` callable); each
    line also goes to the ``transcript``, first: a GUI's answer to a line is never
    logged before the line."""

    def __init__(self, write: Optional[Callable[[str], None]] = None, transcript: Optional[Transcript] = None) -> None:
        self._lock = threading.Lock()
        self._write = write
        self._transcript = transcript
        self.broken = False

    def __call__(self, line: str) -> None:
        with self._lock:
            if self.broken:
                return
            if self._transcript is not None:
                self._transcript.wrote(line)
            try:
                if self._write is not None:
                    self._write(line)
                else:
                    sys.stdout.write(line + "\n")
                    sys.stdout.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.broken = True  # the GUI is gone; quit comes with EOF


# --- the loop ------------------------------------------------------------------------------
Line = Union[str, bytes]


class UciLoop:
    """Reader loop. ``handle(line)`` acts on one line and returns False on ``quit``."""

    def __init__(self, emit: Optional[Callable[[str], None]] = None) -> None:
        self.transcript = Transcript()
        self.emit = Output(emit, self.transcript)
        self.engine = UciSession(self)
        self.clean_exit = True

    # Listener interface (called from the search thread) ---------------------------------
    def info(self, event: Event) -> None:
        self.emit(format_info(event))

    def bestmove(self, best: Optional[str], ponder: Optional[str]) -> None:
        """``bestmove (none)`` without a legal move, Stockfish's word: python-chess
        reads it as no move, where ``0000`` would be its null move."""
        line = f"bestmove {best or NO_MOVE}"
        if best and ponder:
            line += f" ponder {ponder}"
        self.emit(line)

    def message(self, text: str) -> None:
        self.emit(f"info string {text}")

    # Reading -------------------------------------------------------------------------------
    @property
    def board(self) -> Board:
        return self.engine.board

    def run(self, lines: Optional[Iterable[Line]] = None) -> int:
        """Read until ``quit`` or end of input (which counts as ``quit``).

        ``lines`` defaults to stdin, read as bytes line by line (so a GUI's line is
        acted on as soon as it arrives, and undecodable bytes cannot stop the loop).
        """
        source: Iterable[Line] = lines if lines is not None else iter(sys.stdin.buffer.readline, b"")
        for raw in source:
            text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
            if not self.handle(text):
                break
        self.clean_exit = self.engine.shutdown()
        self.transcript.close()
        return 0

    def handle(self, line: str) -> bool:
        """Act on one line; False means quit. Never raises."""
        received = time.monotonic()
        self.transcript.read(line.rstrip("\r\n"))
        going_on = self._act(line, received)
        problem = self.transcript.take_problem()
        if problem:
            self.engine.options.set(DEBUG_LOG_OPTION, "")
            self.message(problem)
        return going_on

    def _act(self, line: str, received: float) -> bool:
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            return False
        try:
            handler = self._commands().get(command)
            if command == "go":
                self.cmd_go(args, received)   # the one command that needs the time it arrived
            elif handler is None:
                self.message(f"unknown command: {clip(line.strip(), 80)}")
            else:
                handler(args)
        except Exception as exc:  # noqa: BLE001 - bad input must never kill the engine
            self.message(f"error in {clip(command, 20)}: {type(exc).__name__}: {clip(str(exc), 200)}")
        return True

    def _commands(self) -> Dict[str, Callable[[List[str]], None]]:
        return {
            "uci": self.cmd_uci,
            "isready": self.cmd_isready,
            "setoption": self.cmd_setoption,
            "ucinewgame": self.cmd_ucinewgame,
            "position": self.cmd_position,
            "stop": self.cmd_stop,
            "ponderhit": self.cmd_ponderhit,
            "debug": self.cmd_debug,
            "register": self.cmd_register,
            "d": self.cmd_d,
            "eval": self.cmd_eval,
            "flip": self.cmd_flip,
            "bench": self.cmd_bench,
            "genfens": self.cmd_genfens,
        }

    # Commands --------------------------------------------------------------------------
    def cmd_uci(self, args: List[str]) -> None:
        self.emit(f"id name {ENGINE_NAME}")
        self.emit(f"id author {ENGINE_AUTHOR}")
        for spec in self.engine.options.specs():
            self.emit(spec.uci_line())
        self.emit("uciok")

    def cmd_isready(self, args: List[str]) -> None:
        self.engine.ready()
        self.emit("readyok")

    def cmd_setoption(self, args: List[str]) -> None:
        try:
            name, value = parse_setoption(args)
            if self.engine.options.spec(name).name == DEBUG_LOG_OPTION:
                self._open_log(value)
            self.engine.set_option(name, value)
        except OptionError as exc:
            self.message(str(exc))

    def _open_log(self, text: Optional[str]) -> None:
        """Start, move or end the ``Debug Log File``; OptionError (the log held before
        going on) when the file cannot be opened."""
        path = str(self.engine.options.spec(DEBUG_LOG_OPTION).parse(text))
        try:
            self.transcript.open(path)
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            kept = self.engine.options[DEBUG_LOG_OPTION] or "no log"
            raise OptionError(f"{DEBUG_LOG_OPTION}: cannot open {clip(path, 300)} ({clip(why, 100)}); "
                              f"keeping {clip(str(kept), 300)}") from None

    def cmd_ucinewgame(self, args: List[str]) -> None:
        self.engine.new_game()

    def cmd_position(self, args: List[str]) -> None:
        try:
            board = parse_position(args, bool(self.engine.options["UCI_Chess960"]))
        except ValueError as exc:
            self.message(f"invalid position ({clip(str(exc), 200)}); keeping the previous one")
            return
        self.engine.set_board(board)

    def cmd_go(self, args: List[str], received: float) -> None:
        params, problems = parse_go(args)
        for problem in problems:
            self.message(problem)
        if params.perft_asked:
            if params.perft is not None:
                self.engine.perft(params.perft, self.emit)
            return
        self.engine.go(params, received)

    def cmd_stop(self, args: List[str]) -> None:
        self.engine.stop()

    def cmd_ponderhit(self, args: List[str]) -> None:
        self.engine.ponderhit()

    def cmd_debug(self, args: List[str]) -> None:
        if args == ["on"]:
            self.engine.debug = True
        elif args == ["off"]:
            self.engine.debug = False
        else:
            self.message("debug takes 'on' or 'off'")

    def cmd_register(self, args: List[str]) -> None:
        self.message("registration is not needed")

    def cmd_d(self, args: List[str]) -> None:
        board = self.engine.board
        for line in board_diagram(board):
            self.emit(line)
        self.emit("")
        self.emit(f"Fen: {board.fen()}")
        self.emit(f"Key: {board.key:016X}")
        self.emit(f"Checkers: {' '.join(board.checkers())}")

    def cmd_eval(self, args: List[str]) -> None:
        """The hand-crafted evaluation term by term, the network's score, and last,
        as Stockfish's ``eval`` ends, the evaluation the search uses, in the
        normalised centipawns of ``info score``."""
        board = self.engine.board
        if board.is_check():
            self.emit("Final evaluation: none (in check)")
            return
        for line in board.eval_trace().splitlines():
            self.emit(line)
        network_score = self._emit_network_eval(board)
        evaluation = self.engine.evaluation
        self.emit(f"Search uses: {evaluation.describe()}")
        score = network_score if evaluation.active is not None else board.evaluate(None)
        final = self._white_cp(score, board, evaluation.wdl_model())
        self.emit(f"Final evaluation: {final / 100:+.2f} (white side)")

    def cmd_flip(self, args: List[str]) -> None:
        """Stockfish's ``flip``: the position seen from the other side (ranks mirrored,
        colours and the side to move swapped), without its moves; ``eval`` before and
        after checks that the evaluation is symmetric."""
        board = self.engine.board
        mirrored = chess.Board(board.fen(), chess960=board.chess960).mirror()
        self.engine.set_board(Board.from_python_chess(mirrored))

    def _emit_network_eval(self, board: Any) -> Optional[int]:
        """The loaded network's score, used by the search or not, in both units (its
        own WDL model normalises it); returns it, None without a network."""
        evaluation = self.engine.evaluation
        if evaluation.network is None:
            return None
        score = board.evaluate(evaluation.network)
        white = score if board.turn else -score
        model = evaluation.network_wdl_model()
        self.emit(f"NNUE evaluation: {self._white_cp(score, board, model) / 100:+.2f} (white side; "
                  f"{white / 100:+.2f} in the network's units, {model.midpoint(material_of_fen(board.fen())):.0f} "
                  f"of them a pawn here)")
        return score

    @staticmethod
    def _white_cp(score: int, board: Any, model: Any) -> int:
        """A static score of the side to move as ``info score`` shows it, from white's
        view, by the WDL model ``model``."""
        white = score if board.turn else -score
        return model.to_cp(white, material_of_fen(board.fen()))

    def cmd_genfens(self, args: List[str]) -> None:
        """OpenBench's ``genfens N seed S book B [extra...]`` (fianchetto.genfens)."""
        from fianchetto import genfens

        problems: List[str] = []
        try:
            request = genfens.parse(args, problems)
        except ValueError as exc:
            self.message(str(exc))
            return
        for problem in problems:
            self.message(problem)
        self.engine.finish_search("genfens")
        try:
            for fen in genfens.openings(request, genfens.search_score(self.engine.search)):
                self.emit(genfens.PREFIX + fen)
        except (OSError, ValueError) as exc:
            self.message(f"genfens: {clip(str(exc), 200)}")

    def cmd_bench(self, args: List[str]) -> None:
        from fianchetto.benchmark import bench_depth, run_bench

        try:
            if len(args) > 1:
                raise ValueError("bench takes one depth at the most")
            depth = bench_depth(args[0] if args else None)
        except ValueError as exc:
            self.message(str(exc))
            return
        self.engine.finish_search("bench")
        result = run_bench(depth, progress=self.message, network=self.engine.evaluation.active)
        for line in result.summary_lines():
            self.emit(line)


if __name__ == "__main__":
    raise SystemExit(UciLoop().run())
