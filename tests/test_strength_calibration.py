"""Slow: UCI_Elo still means what docs/strength.md says, checked in games.

At each of three levels, 1500, 2000 and 2400, forty games at 10+0.1 against
Stockfish limited to the same UCI_Elo, two games at a time: the next strength
gain (a network, a search change) moves every level, and this test is there so
that it cannot do so silently. A level fails when it leaves 30-70% (a
calibrated level, 35-65% over 60 games, stays inside all but rarely; a level
that drifted as far as the 88% once seen at 1500 leaves it). About twenty minutes
on two cores. The full calibration is tools/calibrate.py.
"""
from __future__ import annotations

import random
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import List

import chess
import chess.engine
import pytest

from fianchetto import strength

pytestmark = pytest.mark.slow

STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"
OPENINGS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "openings.epd"
LEVELS = (1500, 2000, 2400)
GAMES = 40
CLOCK, INCREMENT = 10.0, 0.1
AT_ONCE = 2


def play_game(white: chess.engine.SimpleEngine, black: chess.engine.SimpleEngine, fen: str) -> str:
    """One game at 10+0.1 on real clocks (a side whose clock runs out loses)."""
    board = chess.Board(fen)
    game = object()                       # a new game for both engines: ucinewgame
    clocks = {chess.WHITE: CLOCK, chess.BLACK: CLOCK}
    while not board.is_game_over(claim_draw=True) and board.ply() < 400:
        engine = white if board.turn == chess.WHITE else black
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=INCREMENT, black_inc=INCREMENT)
        started = time.monotonic()
        move = engine.play(board, limit, game=game).move
        clocks[board.turn] -= time.monotonic() - started
        if clocks[board.turn] < 0:
            return "0-1" if board.turn == chess.WHITE else "1-0"
        clocks[board.turn] += INCREMENT
        board.push(move)
    return board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "1/2-1/2"


def play_pairs(level: int, fens: List[str], points: List[float]) -> None:
    """Colour-reversed pairs from `fens`, with a pair of engines of this thread's own."""
    ours = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "fianchetto"])
    theirs = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    try:
        for engine in (ours, theirs):
            engine.configure({"UCI_LimitStrength": True, "UCI_Elo": level, "Hash": 16, "Threads": 1})
        for fen in fens:
            for ours_white in (True, False):
                white, black = (ours, theirs) if ours_white else (theirs, ours)
                result = play_game(white, black, fen)
                won = "1-0" if ours_white else "0-1"
                points.append(1.0 if result == won else 0.5 if result == "1/2-1/2" else 0.0)
    finally:
        ours.quit()
        theirs.quit()


@pytest.mark.skipif(not Path(STOCKFISH).exists(), reason="Stockfish is not installed")
@pytest.mark.skipif(not OPENINGS.exists(), reason="../shared/data/openings.epd is not there")
@pytest.mark.parametrize("level", LEVELS)
def test_uci_elo_holds_its_own_against_stockfish_at_the_same_level(level):
    assert strength.MIN_ELO <= level < strength.MAX_ELO
    starts = [line.strip() + " 0 1" for line in OPENINGS.read_text().splitlines() if line.strip()]
    rng = random.Random(level)
    fens = [rng.choice(starts) for _ in range(GAMES // 2)]
    points: List[float] = []
    workers = [threading.Thread(target=play_pairs, args=(level, fens[i::AT_ONCE], points)) for i in range(AT_ONCE)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(points) == GAMES
    share = sum(points) / GAMES
    assert 0.30 <= share <= 0.70, f"UCI_Elo {level} scored {share:.0%} against Stockfish at the same level"
