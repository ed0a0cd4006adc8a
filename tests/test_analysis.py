"""The engine inside Python: ``fianchetto.Engine``."""
from __future__ import annotations

import doctest
import threading
import time

import chess
import chess.engine
import pytest

import fianchetto.analysis
from fianchetto import Board, Engine


@pytest.fixture(scope="module")
def engine():
    with Engine(hash_mb=8) as e:
        yield e


def test_doctests():
    assert doctest.testmod(fianchetto.analysis).failed == 0


def test_analyse_gives_a_legal_line_a_score_and_a_wdl(engine):
    result = engine.analyse(Board(), depth=6)
    board = chess.Board()
    for move in result.pv:
        board.push_uci(move)                    # every PV move is legal in turn
    assert result.depth >= 6 and result.nodes > 0
    assert result.score.kind == "cp" and abs(result.score.value) < 200
    assert sum(result.wdl) == 1000 and result.best_move == result.pv[0]


def test_a_python_chess_board_and_python_chess_scores(engine):
    board = chess.Board()
    board.push_san("e4")
    board.push_san("e5")
    result = engine.analyse(board, nodes=20000)
    assert chess.Move.from_uci(result.best_move) in board.legal_moves
    pov = result.pov_score()
    assert isinstance(pov, chess.engine.PovScore) and pov.turn == chess.WHITE
    assert pov.white().score() == result.score.value


def test_multipv_gives_distinct_moves_best_first(engine):
    result = engine.analyse(Board(), depth=5, multipv=3)
    moves = [line.move for line in result.lines]
    assert len(moves) == 3 and len(set(moves)) == 3
    assert [line.multipv for line in result.lines] == [1, 2, 3]


def test_a_mate_is_found_and_its_wdl_is_exact(engine):
    result = engine.analyse(Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), depth=4)
    assert result.best_move == "a1a8" and result.score == fianchetto.analysis.Score.mate(1)
    assert result.wdl == (1000, 0, 0)
    assert engine.play(chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), depth=3) == "a1a8"


@pytest.mark.parametrize("position, limits, message", [
    (Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), {"depth": 3}, "game is over"),      # stalemate
    (Board(), {"depth": -1}, "depth must be positive"),
    (Board(), {"nodes": 0}, "nodes must be positive"),
    (Board(), {}, "give a limit"),
    (Board(), {"depth": 2, "multipv": 0}, "multipv"),
    (Board(), {"clock": -1.0}, "clock must be positive"),
    (Board(), {"clock": 5.0, "increment": -0.1}, "increment must not be negative"),
    ("e2e4", {"depth": 2}, "fianchetto.Board or a chess.Board"),
])
def test_bad_input_raises_value_error(engine, position, limits, message):
    with pytest.raises(ValueError, match=message):
        engine.analyse(position, **limits)


def test_a_clock_is_planned_as_the_uci_engine_plans_it_and_stretched_by_the_search():
    from fianchetto.timeman import plan

    limits = fianchetto.analysis.limits_for(None, None, None, 1, clock=60.0, increment=0.5)
    planned = plan(time_left=60_000, increment=500)
    assert (limits["soft_ms"], limits["hard_ms"], limits["adaptive_time"]) == \
        (planned.soft_ms, planned.hard_ms, True)
    fixed = fianchetto.analysis.limits_for(None, None, 0.25, 1)
    assert (fixed["soft_ms"], fixed["hard_ms"]) == (250, 250) and "adaptive_time" not in fixed


def test_play_with_a_clock_returns_a_legal_move(engine):
    assert engine.play(Board(), clock=0.2, increment=0.01) in Board().legal_moves()


def test_an_illegal_python_chess_position_is_refused(engine):
    with pytest.raises(ValueError, match="legal position"):
        engine.analyse(chess.Board("kK6/8/8/8/8/8/8/8 w - - 0 1"), depth=2)     # kings side by side


def test_stop_from_another_thread_ends_the_search_and_other_threads_run(engine):
    counter = {"ticks": 0}
    done = threading.Event()

    def tick():
        while not done.is_set():
            counter["ticks"] += 1
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    stopper = threading.Timer(0.5, engine.stop)
    stopper.start()
    result = engine.analyse(Board(), nodes=10 ** 12)        # far more than half a second of search
    done.set()
    ticker.join()
    assert result.best_move in Board().legal_moves()
    assert 0 < result.nodes < 10 ** 12                      # the stop ended it, not the node limit
    assert counter["ticks"] > 10                            # the GIL was free while it searched


def test_a_network_without_its_wdl_model_is_used_with_a_warning(tmp_path):
    from support.networks import random_network_bytes

    net = tmp_path / "bare.nnue"
    net.write_bytes(random_network_bytes(hidden=32, seed=6))
    try:
        with pytest.warns(UserWarning, match="no win/draw/loss model beside .*bare.nnue"):
            bare = Engine(hash_mb=8, eval_file=str(net))
        with bare:
            assert bare.analyse(Board(), depth=3).pv
        with pytest.raises(ValueError):
            Engine(hash_mb=8, eval_file=str(tmp_path / "missing.nnue"))
    finally:
        Engine(hash_mb=1).close()       # the core holds one network: the shipped one again
