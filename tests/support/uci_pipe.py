"""A raw-pipe UCI driver for the protocol tests (test_uci*.py, test_bench_signature.py).

It starts the installed ``fianchetto`` executable, writes lines to its stdin
and reads its stdout on a background thread, stamping every line with the time
it arrived, so tests can measure answer latencies and check ordering.
"""
from __future__ import annotations

import os
import queue
import re
import statistics
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import chess
import pytest

from fianchetto.cli import engine_command

#: Generous bound that only guards against hangs.
TIMEOUT = 60.0

INFO_LINE = re.compile(
    r"^info depth (?P<depth>\d+)"
    r"(?: seldepth (?P<seldepth>\d+))?"
    r"(?: multipv (?P<multipv>\d+))?"
    r" score (?P<kind>cp|mate) (?P<score>-?\d+)(?: (?P<bound>lowerbound|upperbound))?"
    r" nodes (?P<nodes>\d+) nps (?P<nps>\d+)"
    r"(?: hashfull (?P<hashfull>\d+))?"
    r" tbhits (?P<tbhits>\d+) time (?P<time>\d+)"
    r"(?: pv (?P<pv>.+))?$"
)
CURRMOVE_LINE = re.compile(r"^info depth \d+ currmove [a-h][1-8][a-h][1-8][nbrq]? currmovenumber \d+$")
BESTMOVE_LINE = re.compile(r"^bestmove (\S+)(?: ponder (\S+))?$")

Predicate = Union[str, Callable[[str], bool]]


def _matcher(predicate: Predicate) -> Callable[[str], bool]:
    if callable(predicate):
        return predicate
    return lambda line: line == predicate or line.startswith(predicate + " ")


class UciPipe:
    """The engine on the other end of two pipes, as a GUI sees it."""

    def __init__(self, args: Sequence[str] = ()) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            engine_command() + list(args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            env=env,
        )
        self.lines: "queue.Queue[Tuple[float, Optional[str]]]" = queue.Queue()
        self.transcript: List[str] = []
        self.stderr: List[str] = []
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- plumbing -------------------------------------------------------------------
    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines.put((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\r\n")))
        self.lines.put((time.monotonic(), None))

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in iter(self.proc.stderr.readline, b""):
            self.stderr.append(raw.decode("utf-8", "replace").rstrip("\r\n"))

    def send(self, line: Union[str, bytes]) -> float:
        """Write one line; return the time it was written."""
        assert self.proc.stdin is not None
        data = line if isinstance(line, bytes) else line.encode()
        self.transcript.append(f">> {data[:200]!r}" if isinstance(line, bytes) else f">> {line[:200]}")
        sent = time.monotonic()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()
        return sent

    def fail(self, why: str) -> None:
        tail = "\n".join(self.transcript[:30] + ["..."] + self.transcript[-30:])
        pytest.fail(f"{why}\n--- transcript (tail) ---\n{tail}\n--- stderr ---\n" + "\n".join(self.stderr[-20:]))

    def _take(self, timeout: float) -> Optional[Tuple[float, Optional[str]]]:
        """The next line and its arrival time, logged; ``None`` if none came within
        ``timeout``; the line is ``None`` once the engine closed its stdout."""
        try:
            stamp, line = self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        if line is not None:
            self.transcript.append(f"<< {line}")
        return stamp, line

    def next_line(self, timeout: float = TIMEOUT) -> Tuple[float, Optional[str]]:
        return self._take(timeout) or (time.monotonic(), None)

    # -- reading --------------------------------------------------------------------
    def read_until(self, predicate: Predicate, timeout: float = TIMEOUT) -> List[str]:
        """Lines up to and including the first matching ``predicate``."""
        return [line for _, line in self.read_until_stamped(predicate, timeout)]

    def read_until_stamped(self, predicate: Predicate, timeout: float = TIMEOUT) -> List[Tuple[float, str]]:
        match = _matcher(predicate)
        deadline = time.monotonic() + timeout
        got: List[Tuple[float, str]] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.fail(f"no matching line within {timeout}s")
            taken = self._take(left)
            if taken is None:
                continue
            if taken[1] is None:
                self.fail("engine closed stdout")
            got.append(taken)  # type: ignore[arg-type]
            if match(taken[1]):
                return got

    def drain(self, quiet: float = 0.3) -> List[str]:
        """Every line that arrives until ``quiet`` seconds pass without one."""
        got: List[str] = []
        while (taken := self._take(quiet)) is not None and taken[1] is not None:
            got.append(taken[1])
        return got

    def sync(self) -> List[str]:
        """``isready`` round trip: every line before ``readyok``."""
        self.send("isready")
        return self.read_until("readyok")[:-1]

    def handshake(self) -> List[str]:
        self.send("uci")
        return self.read_until("uciok")

    def shown_fen(self) -> str:
        """The FEN of the engine's current position, as ``d`` shows it."""
        self.send("d")
        lines = self.read_until(lambda l: l.startswith("Checkers:"))
        return [l for l in lines if l.startswith("Fen: ")][-1][len("Fen: "):]

    def go(self, command: str, timeout: float = TIMEOUT) -> Tuple[List[str], str, Optional[str]]:
        """Send a ``go`` and wait for its bestmove: (all lines, best, ponder)."""
        self.send(command)
        lines = self.read_until(lambda l: l.startswith("bestmove"), timeout)
        match = BESTMOVE_LINE.match(lines[-1])
        if not match:
            self.fail(f"malformed bestmove line {lines[-1]!r}")
        return lines, match.group(1), match.group(2)

    def assert_silent(self, seconds: float, what: Predicate = "bestmove") -> List[str]:
        """Nothing matching ``what`` arrives within ``seconds``; return what did arrive."""
        match = _matcher(what)
        got: List[str] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0 and (taken := self._take(left)) is not None:
            if taken[1] is None:
                self.fail("engine closed stdout")
            got.append(taken[1])
            if match(taken[1]):
                self.fail(f"unexpected {taken[1]!r} within {seconds}s")
        return got

    def latency(self, command: str, answer: Predicate, timeout: float = TIMEOUT) -> float:
        """Seconds from writing ``command`` to reading the first line matching ``answer``."""
        sent = self.send(command)
        stamp, _ = self.read_until_stamped(answer, timeout)[-1]
        return stamp - sent

    # -- ending ----------------------------------------------------------------------
    def quit(self, timeout: float = TIMEOUT) -> int:
        self.send("quit")
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.fail(f"engine did not exit within {timeout}s of quit")
            raise

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass


def info_lines(lines: Sequence[str]) -> List[re.Match]:
    """Parsed search ``info`` lines (no currmove, no info string)."""
    return [m for m in (INFO_LINE.match(l) for l in lines) if m]


def assert_pv_legal(fen_or_board, lines: Sequence[str], chess960: bool = False) -> None:
    """Every PV in the ``info`` lines of ``lines`` is a legal sequence from the
    position that stops where a move of it ends the game (as fastchess checks), and every
    ``currmove`` a legal root move (lines parsed by the grammar). A board with
    moves played gives the history that repetitions count."""
    root = fen_or_board if isinstance(fen_or_board, chess.Board) else chess.Board(fen_or_board, chess960=chess960)
    for line in lines:
        if not line.startswith("info"):
            continue
        info = parse_info(line)
        if "currmove" in info:
            try:
                root.parse_uci(info["currmove"])
            except ValueError:
                raise AssertionError(f"illegal currmove in {root.fen()}: {line!r}") from None
        board = root.copy()
        for ply, uci in enumerate(info.get("pv", [])):
            if ply > 0 and game_has_ended(board):     # a root where the game is over is still searched
                raise AssertionError(f"PV goes on with {uci} after the game ended in {board.fen()} (line {line!r})")
            try:
                move = board.parse_uci(uci)
            except ValueError:
                raise AssertionError(f"illegal PV move {uci} in {board.fen()} (line {line!r})") from None
            board.push(move)


def game_has_ended(board: chess.Board) -> bool:
    """Mate, stalemate, material that cannot mate, a threefold repetition or the
    fifty-move rule (which a tournament manager applies without a claim)."""
    return (board.is_checkmate() or board.is_stalemate() or board.is_insufficient_material()
            or board.is_repetition(3) or board.halfmove_clock >= 100)


def median_and_max(values: Sequence[float]) -> Tuple[float, float]:
    return statistics.median(values), max(values)


# ---------------------------------------------------------------------------
# The core's ply limit, read from the source it is compiled from
# ---------------------------------------------------------------------------
TYPES_PXD = Path(__file__).resolve().parents[2] / "src" / "core_cy" / "types.pxd"


def _max_ply() -> int:
    match = re.search(r"^\s*MAX_PLY\s*=\s*(\d+)", TYPES_PXD.read_text(), re.MULTILINE)
    assert match, f"MAX_PLY not found in {TYPES_PXD}"
    return int(match.group(1))


MAX_PLY = _max_ply()


# ---------------------------------------------------------------------------
# The UCI grammar of one stdout line
# ---------------------------------------------------------------------------
MOVE = r"(?:[a-h][1-8][a-h][1-8][nbrq]?)"
MOVE_RE = re.compile(rf"^{MOVE}$")
BESTMOVE_RE = re.compile(rf"^bestmove ({MOVE}|\(none\))(?: ponder ({MOVE}))?$")
OTHER_UCI = [
    re.compile(r"^readyok$"),
    re.compile(r"^uciok$"),
    re.compile(r"^id (?:name|author) \S.*$"),
    re.compile(r"^option name \S.* type (?:check|spin|combo|button|string)(?: .*)?$"),
]
INT_FIELDS = ("depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "tbhits", "time", "currmovenumber")


# ---------------------------------------------------------------------------
# The UCI grammar of one stdout line
# ---------------------------------------------------------------------------
def last_line_of_each_rank(lines: Sequence[str]) -> Dict[int, List[str]]:
    """The PV a GUI (or python-chess) shows at each multipv rank once the search
    is over: each rank's last ``info`` line with a PV."""
    shown: Dict[int, List[str]] = {}
    for line in lines:
        if line.startswith("info") and " pv " in line:
            info = parse_info(line)
            shown[int(info.get("multipv", 1))] = list(info["pv"])  # type: ignore[arg-type]
    return shown


def parse_info(line: str) -> Dict[str, object]:
    """The fields of one ``info`` line; AssertionError if it is not UCI."""
    tokens = line.split(" ")
    assert tokens[0] == "info" and len(tokens) > 1, f"not an info line: {line!r}"
    out: Dict[str, object] = {}
    i = 1
    while i < len(tokens):
        key = tokens[i]
        assert key not in out, f"{key} twice in {line!r}"
        if key == "string":
            assert len(tokens) > i + 1, f"empty info string: {line!r}"
            out["string"] = " ".join(tokens[i + 1:])
            break
        if key == "pv":
            moves = tokens[i + 1:]
            assert moves and all(MOVE_RE.match(m) for m in moves), f"bad pv in {line!r}"
            out["pv"] = moves
            break
        assert i + 1 < len(tokens), f"{key} without a value in {line!r}"
        value = tokens[i + 1]
        if key in INT_FIELDS:
            assert value.isdigit(), f"{key} {value!r} is not a non-negative integer in {line!r}"
            out[key] = int(value)
            i += 2
        elif key == "score":
            assert value in ("cp", "mate") and i + 2 < len(tokens), f"bad score in {line!r}"
            assert re.fullmatch(r"-?\d+", tokens[i + 2]), f"bad score value in {line!r}"
            out["score"] = (value, int(tokens[i + 2]))
            i += 3
            if i < len(tokens) and tokens[i] in ("lowerbound", "upperbound"):
                out["bound"] = tokens[i]
                i += 1
        elif key == "wdl":                  # UCI_ShowWDL: win, draw, loss per mille
            triple = tokens[i + 1:i + 4]
            assert len(triple) == 3 and all(t.isdigit() for t in triple), f"bad wdl in {line!r}"
            assert sum(map(int, triple)) == 1000, f"wdl does not sum to 1000 in {line!r}"
            out["wdl"] = tuple(map(int, triple))
            i += 4
            if i < len(tokens) and tokens[i] in ("lowerbound", "upperbound") and "bound" not in out:
                out["bound"] = tokens[i]        # after the wdl, as Stockfish writes it
                i += 1
        elif key == "currmove":
            assert MOVE_RE.match(value), f"bad currmove in {line!r}"
            out["currmove"] = value
            i += 2
        else:
            raise AssertionError(f"unknown info field {key!r} in {line!r}")
    if "depth" in out:
        assert out["depth"] <= MAX_PLY, f"depth above MAX_PLY {MAX_PLY}: {line!r}"
    if "seldepth" in out:
        assert out["seldepth"] <= MAX_PLY, f"seldepth above MAX_PLY {MAX_PLY}: {line!r}"
    if "pv" in out:
        assert len(out["pv"]) <= MAX_PLY, f"pv longer than MAX_PLY: {line!r}"
    if "hashfull" in out:
        assert out["hashfull"] <= 1000, line
    if "multipv" in out:
        assert out["multipv"] >= 1, line
    return out


def assert_uci_line(line: str) -> None:
    if line.startswith("info"):
        parse_info(line)
    elif line.startswith("bestmove"):
        assert BESTMOVE_RE.match(line), f"malformed bestmove line {line!r}"
    else:
        assert any(p.match(line) for p in OTHER_UCI), f"stdout line outside the UCI grammar: {line!r}"


def ready_engine(args: Sequence[str] = ()) -> Iterator[UciPipe]:
    """A started engine past ``uci`` and ``isready``, closed afterwards: the body
    of the engine fixtures (``yield from ready_engine()``)."""
    pipe = UciPipe(args)
    pipe.handshake()
    pipe.sync()
    yield pipe
    pipe.close()
