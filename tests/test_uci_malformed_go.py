"""Malformed ``go`` limits through a raw pipe: each is reported, the search ends by
itself within a second with a legal move, and the next position gets its own
``bestmove`` (never a stale one)."""
from __future__ import annotations

import time

import chess
import pytest

from support.uci_pipe import ready_engine

FIRST = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
SECOND = "8/5k2/8/3K4/8/8/2R5/8 b - - 0 1"

MALFORMED = [
    "go depth -3", "go depth", "go depth abc", "go depth 1.5", "go depth 99999999999999999999",
    "go movetime", "go movetime -100", "go movetime x", "go movetime 10s",
    "go movetime 99999999999999999999", "go nodes -1", "go nodes", "go nodes 1e5",
    "go mate -2", "go mate", "go mate 99999", "go wtime", "go wtime abc", "go btime",
    "go winc -5", "go binc", "go movestogo -1", "go movestogo", "go frobnicate 3",
    "go searchmoves", "go searchmoves z9z9", "go depth depth", "go nodes movetime",
    "go wtime 99999999999999999999 btime 99999999999999999999",
]


@pytest.fixture(scope="module")
def engine():
    yield from ready_engine()


@pytest.mark.parametrize("command", MALFORMED)
def test_malformed_go_ends_quickly_and_the_next_position_gets_its_own_move(engine, command):
    engine.send(f"position fen {FIRST}")
    started = time.monotonic()
    lines, best, _ = engine.go(command, timeout=5)
    assert time.monotonic() - started < 1.0, f"{command}: bestmove took too long"
    assert any(l.startswith("info string") for l in lines), f"{command}: not reported"
    assert chess.Move.from_uci(best) in chess.Board(FIRST).legal_moves
    engine.send(f"position fen {SECOND}")
    _, best, _ = engine.go("go depth 3", timeout=10)
    assert chess.Move.from_uci(best) in chess.Board(SECOND).legal_moves
    assert not any(l.startswith("bestmove") for l in engine.drain(0.2))


def test_a_bare_go_still_waits_for_stop(engine):
    """A go without limits is an infinite search by UCI custom; only a garbled one is cut."""
    engine.send(f"position fen {FIRST}")
    engine.send("go")
    assert not any(l.startswith("bestmove") for l in engine.drain(0.5))
    engine.send("stop")
    best = [l for l in engine.read_until(lambda l: l.startswith("bestmove"))][-1].split()[1]
    assert chess.Move.from_uci(best) in chess.Board(FIRST).legal_moves
