"""The ``fianchetto`` command line: perft mode and the UCI loop."""
from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from typing import Dict, List, Optional

import chess
import pytest

from fianchetto.cli import engine_command
from support.cli import run_cli
from support.reference import KIWIPETE_FEN, chess_divide, chess_perft

MOVE_LINE = re.compile(r"^([a-h][1-8][a-h][1-8][nbrq]?): (\d+)$")
NODES_LINE = re.compile(r"^Nodes searched: (\d+)$")

# Generous limits that only guard against hangs; no test measures speed.
TIMEOUT = 120


def move_lines(text: str) -> Dict[str, int]:
    moves: Dict[str, int] = {}
    for line in text.splitlines():
        match = MOVE_LINE.match(line.strip())
        if match:
            assert match.group(1) not in moves, f"root move listed twice: {line}"
            moves[match.group(1)] = int(match.group(2))
    return moves


def nodes_searched(text: str) -> List[int]:
    return [int(m.group(1)) for m in (NODES_LINE.match(line.strip()) for line in text.splitlines()) if m]


# ---------------------------------------------------------------------------
# perft sub-command
# ---------------------------------------------------------------------------
def test_perft_depth_three_from_the_start():
    proc = run_cli(["perft", "--depth", "3"], timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert nodes_searched(proc.stdout) == [8902]
    assert move_lines(proc.stdout) == {}, "no move lines without --divide"
    # Besides the node count, a time line and a nodes/second line.
    other = [line for line in proc.stdout.splitlines() if line.strip() and not NODES_LINE.match(line.strip())]
    assert len(other) >= 2, proc.stdout
    assert any("second" in line.lower() or "/s" in line.lower() or "nps" in line.lower() for line in other), proc.stdout


def test_perft_divide_kiwipete():
    proc = run_cli(["perft", "--depth", "2", "--fen", KIWIPETE_FEN, "--divide"], timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    moves = move_lines(proc.stdout)
    assert len(moves) == 48
    assert sum(moves.values()) == 2039
    assert moves == chess_divide(chess.Board(KIWIPETE_FEN), 2)
    assert nodes_searched(proc.stdout) == [2039]


def test_perft_chess960_divide_uses_king_takes_rook():
    fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"
    reference = chess.Board(fen, chess960=True)
    proc = run_cli(["perft", "--depth", "3", "--fen", fen, "--divide", "--chess960"], timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    moves = move_lines(proc.stdout)
    assert "b1h1" in moves and "b1a1" in moves
    assert moves == chess_divide(reference, 3)
    assert nodes_searched(proc.stdout) == [chess_perft(reference, 3)]


def test_perft_chess960_published_position():
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    proc = run_cli(["perft", "--depth", "3", "--fen", fen, "--chess960"], timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert nodes_searched(proc.stdout) == [12189]


def test_perft_with_an_invalid_fen_fails_cleanly():
    proc = run_cli(["perft", "--depth", "2", "--fen", "not a fen"], timeout=TIMEOUT)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr, proc.stderr
    assert (proc.stderr + proc.stdout).strip(), "an error message is expected"


@pytest.mark.parametrize("args", [["perft", "--depth", "2", "--divide"], ["doctor"]])
def test_a_reader_that_leaves_early_ends_the_command_quietly(args):
    """``fianchetto doctor | head -1``: the pipe closes before the command writes."""
    process = subprocess.Popen(engine_command() + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()
    _, err = process.communicate(timeout=120)
    assert process.returncode == 1
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err.decode(errors="replace")


def test_python_dash_m_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "fianchetto", "perft", "--depth", "2"],
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr
    assert nodes_searched(proc.stdout) == [400]


# ---------------------------------------------------------------------------
# UCI loop
# ---------------------------------------------------------------------------
class UciProcess:
    """A line-oriented driver for the engine's UCI loop, like a GUI."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            engine_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=env,
        )
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self.transcript: List[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)  # EOF

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.transcript.append(f">> {line}")
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, predicate, timeout: float = TIMEOUT) -> List[str]:
        """Lines up to and including the first one matching ``predicate``."""
        got: List[str] = []
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                pytest.fail(f"no answer within {timeout}s; transcript:\n" + "\n".join(self.transcript))
            if line is None:
                pytest.fail("engine closed stdout early; transcript:\n" + "\n".join(self.transcript))
            self.transcript.append(f"<< {line}")
            got.append(line)
            if predicate(line):
                return got

    def quit(self) -> int:
        self.send("quit")
        try:
            return self.proc.wait(timeout=TIMEOUT)
        finally:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream:
                try:
                    stream.close()
                except OSError:
                    pass


@pytest.fixture
def uci():
    engine = UciProcess()
    yield engine
    engine.close()


def test_uci_handshake_and_isready(uci):
    uci.send("uci")
    lines = uci.read_until(lambda l: l.strip() == "uciok")
    assert any(l.startswith("id name ") and l[len("id name "):].strip() for l in lines), lines
    assert any(l.startswith("id author ") and l[len("id author "):].strip() for l in lines), lines
    uci.send("isready")
    assert uci.read_until(lambda l: l.strip() == "readyok")[-1] == "readyok"
    assert uci.quit() == 0


def test_uci_go_perft_after_moves_answers_like_stockfish(uci):
    reference = chess.Board()
    reference.push_uci("e2e4")
    expected = chess_divide(reference, 3)

    uci.send("uci")
    uci.read_until(lambda l: l.strip() == "uciok")
    uci.send("isready")
    uci.read_until(lambda l: l.strip() == "readyok")
    uci.send("position startpos moves e2e4")
    uci.send("go perft 3")
    lines = uci.read_until(lambda l: NODES_LINE.match(l.strip()) is not None)
    assert uci.quit() == 0

    # Only move lines, then one empty line, then the total.
    total_line = lines[-1]
    assert lines[-2] == "", lines[-4:]
    body = [l for l in lines[:-2] if not l.startswith("info")]
    assert all(MOVE_LINE.match(l) for l in body), body
    moves = move_lines("\n".join(body))
    assert len(body) == len(moves) == 20
    assert moves == expected
    assert int(NODES_LINE.match(total_line).group(1)) == chess_perft(reference, 3) == sum(expected.values())


def test_uci_position_fen_with_moves_and_perft(uci):
    reference = chess.Board(KIWIPETE_FEN)
    for move in ("e1g1", "h3g2"):
        reference.push_uci(move)
    uci.send(f"position fen {KIWIPETE_FEN} moves e1g1 h3g2")
    uci.send("go perft 2")
    lines = uci.read_until(lambda l: NODES_LINE.match(l.strip()) is not None)
    assert move_lines("\n".join(lines)) == chess_divide(reference, 2)
    assert int(NODES_LINE.match(lines[-1].strip()).group(1)) == chess_perft(reference, 2)
    assert uci.quit() == 0


def test_uci_bad_input_does_not_kill_the_engine(uci):
    for line in ("position fen this is not a fen", "position startpos moves e2e5", "xyzzy", "", "position"):
        uci.send(line)
    uci.send("isready")
    uci.read_until(lambda l: l.strip() == "readyok")
    uci.send("position startpos")
    uci.send("go perft 2")
    lines = uci.read_until(lambda l: NODES_LINE.match(l.strip()) is not None)
    assert int(NODES_LINE.match(lines[-1].strip()).group(1)) == 400
    assert uci.quit() == 0


def test_uci_piped_session_exits_zero():
    """The whole session written at once through a pipe, like ``echo ... | fianchetto``."""
    script = "uci\nisready\nposition startpos moves e2e4\ngo perft 3\nquit\n"
    proc = subprocess.Popen(engine_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(script, timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    lines = out.splitlines()
    assert "uciok" in lines and "readyok" in lines
    reference = chess.Board()
    reference.push_uci("e2e4")
    # go perft must finish before quit is honoured (as in Stockfish).
    assert nodes_searched(out) == [chess_perft(reference, 3)], out
    assert move_lines(out) == chess_divide(reference, 3)


def test_uci_eof_exits_zero():
    proc = subprocess.run(engine_command(), input="isready\n", capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert "readyok" in proc.stdout.splitlines()
