"""Deep perft: several threads, a table of subtree counts of its own, and a stop.

Every count is checked against the plain single-thread perft (itself checked
against published counts and python-chess in test_perft.py) or python-chess.
"""
from __future__ import annotations

import re
import threading

import chess
import pytest

from core_cy.core import PerftHash
from fianchetto import Board, deep_perft
from support.reference import KIWIPETE_FEN, POSITION3_FEN, chess_divide
from support.uci_pipe import UciPipe

MOVE_LINE = re.compile(r"^([a-h][1-8][a-h][1-8][nbrq]?): (\d+)$")


@pytest.mark.parametrize("threads,hash_mb", [(1, 0), (1, 8), (2, 0), (2, 8)])
def test_deep_counts_equal_the_plain_count_on_random_positions(samples, threads, hash_mb):
    for sample in samples[:60]:
        board = Board(sample.fen_text, chess960=sample.board.chess960)
        assert deep_perft.count(board, 3, threads=threads, hash_mb=hash_mb) == board.perft(3), sample.label


def test_a_tiny_table_that_keeps_replacing_entries_still_counts_exactly():
    board = Board(KIWIPETE_FEN)
    table = PerftHash(1)
    assert board.perft_deep(4, table) == board.perft(4)
    assert board.perft_deep(4, table) == board.perft(4)      # now mostly from the table


def test_the_table_is_keyed_by_depth_too():
    """A position's depth-3 count must never answer for its depth-2 count."""
    board, table = Board(POSITION3_FEN), PerftHash(4)
    for depth in (4, 3, 2, 5, 3):
        assert board.perft_deep(depth, table) == board.perft(depth)


def test_the_board_is_left_as_it_was():
    board = Board(KIWIPETE_FEN)
    board.push("e1g1")
    deep_perft.count(board, 3, threads=2, hash_mb=4)
    assert board.move_stack == ["e1g1"]


def test_divide_lists_every_root_move_in_generation_order_with_threads():
    board = Board(KIWIPETE_FEN)
    divided = deep_perft.divide(board, 3, threads=2, hash_mb=8)
    assert list(divided) == board.legal_moves()
    assert divided == chess_divide(chess.Board(KIWIPETE_FEN), 3)


def test_mate_and_stalemate_roots_count_zero_below_them():
    # After Qxf7 it is mate: that root move has no leaves at depth 3.
    board = Board("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    assert deep_perft.divide(board, 3, threads=2)["h5f7"] == 0
    assert deep_perft.count(board, 3, threads=2) == board.perft(3)


def test_depth_zero_and_one():
    board = Board()
    assert deep_perft.count(board, 0) == 1
    assert deep_perft.count(board, 1, threads=2, hash_mb=1) == 20


def test_a_stopped_table_ends_the_count_with_no_total():
    table = PerftHash(0)
    table.stop()
    assert Board().perft_deep(6, table) is None
    assert deep_perft.count(Board(), 6, threads=2, table=table) is None


def test_stop_from_another_thread_ends_a_long_count():
    table = PerftHash(0)
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("n", deep_perft.count(Board(), 9, threads=2,
                                                                                     table=table)))
    worker.start()
    worker.join(0.3)
    assert worker.is_alive()                 # depth 9 (2.4e12 leaves) is far from done
    table.stop()
    worker.join(30)
    assert not worker.is_alive() and result["n"] is None


def test_an_impossible_table_is_refused():
    with pytest.raises((MemoryError, OverflowError)):
        PerftHash(1 << 60)


# --- go perft: on the worker thread, with Threads and Hash ---------------------------------
def read_divide(engine: UciPipe):
    lines = engine.read_until(lambda line: line.startswith("Nodes searched"))
    moves = {m.group(1): int(m.group(2)) for m in map(MOVE_LINE.match, lines) if m}
    return moves, int(lines[-1].split()[-1]), lines


@pytest.fixture
def engine():
    pipe = UciPipe()
    pipe.sync()
    yield pipe
    pipe.close()


def test_go_perft_with_threads_and_hash_matches_python_chess(engine):
    engine.send("setoption name Threads value 2")
    engine.send("setoption name Hash value 32")
    engine.send(f"position fen {KIWIPETE_FEN} moves e2a6")
    engine.send("go perft 3")
    moves, total, lines = read_divide(engine)
    reference = chess.Board(KIWIPETE_FEN)
    reference.push_uci("e2a6")
    assert moves == chess_divide(reference, 3)
    assert total == sum(moves.values()) and lines[-2] == ""


def test_stop_ends_go_perft_and_the_engine_answers_while_it_counts(engine):
    engine.send("position startpos")
    engine.send("go perft 9")
    engine.send("isready")
    engine.read_until("readyok", timeout=10)      # answered during the count
    engine.send("stop")
    lines = engine.read_until(lambda line: "perft stopped" in line, timeout=30)
    assert not any(line.startswith("Nodes searched") for line in lines)
    engine.send("position startpos moves e2e4")
    engine.send("go perft 2")
    moves, total, _ = read_divide(engine)
    assert total == 600 and len(moves) == 20


@pytest.mark.slow
def test_startpos_depth_seven_with_two_threads_and_a_table():
    assert deep_perft.count(Board(), 7, threads=2, hash_mb=256) == 3_195_901_860


@pytest.mark.slow
def test_kiwipete_depth_six_with_two_threads_and_a_table():
    assert deep_perft.count(Board(KIWIPETE_FEN), 6, threads=2, hash_mb=256) == 8_031_647_685
