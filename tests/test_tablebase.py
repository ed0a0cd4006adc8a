"""Root tablebase decisions keep wins and draws (checked with python-chess's prober)."""
import os
import random

import chess
import chess.syzygy
import pytest

from fianchetto import Board
from fianchetto.tablebase import DRAW, LOSS, WIN, TablebaseError, Tablebases

from support.tables import SYZYGY   # noqa: E402


@pytest.fixture(scope="module")
def tables():
    tb = Tablebases()
    assert tb.configure(str(SYZYGY)) == []
    yield tb
    tb.close()


@pytest.fixture(scope="module")
def oracle():
    with chess.syzygy.open_tablebase(str(SYZYGY)) as tb:
        yield tb


def random_position(rng, white, black):
    """A legal position with the given extra pieces (kings added), white to move."""
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), 2 + len(white) + len(black))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq, symbol in zip(squares[2:], white + black):
            board.set_piece_at(sq, chess.Piece.from_symbol(symbol))
        board.turn = chess.WHITE
        if board.is_valid() and not board.is_game_over():
            return board


def play_out(tb, oracle, board, plies):
    """Let the root decision play both sides; return the python-chess boards seen."""
    seen = []
    ours = Board(board.fen())
    for _ in range(plies):
        decision = tb.root(ours, 7, True)
        assert decision is not None
        move = decision.move or decision.moves[0]
        assert move in ours.legal_moves()
        ours.push(move)
        board.push_uci(move)
        seen.append(board.copy())
        if board.is_game_over() or board.halfmove_clock == 0:
            break
    return seen


WIN_MATERIAL = [("R", ""), ("P", ""), ("Q", "r"), ("BN", "")]


@pytest.mark.parametrize("material", WIN_MATERIAL)
def test_winning_side_keeps_the_win(tables, oracle, material):
    check_wins_are_kept(tables, oracle, material, positions=1, plies=6)


@pytest.mark.slow
@pytest.mark.parametrize("material", WIN_MATERIAL)
def test_winning_side_keeps_the_win_many_positions(tables, oracle, material):
    check_wins_are_kept(tables, oracle, material, positions=8, plies=30)


def check_wins_are_kept(tables, oracle, material, positions, plies):
    rng = random.Random(7)
    checked = 0
    while checked < positions:
        board = random_position(rng, list(material[0]), list(material[1]))
        if oracle.probe_wdl(board) != 2:
            continue
        decision = tables.root(Board(board.fen()), 7, True)
        assert decision.wdl == WIN and decision.score_cp > 10000 and decision.tbhits > 0
        for after in play_out(tables, oracle, board, plies):
            if after.is_checkmate():
                break
            # After each move the side that was winning still wins.
            expected = -2 if after.turn != chess.WHITE else 2
            assert oracle.probe_wdl(after) == expected, after.fen()
        checked += 1


def test_drawn_position_keeps_the_draw(tables, oracle):
    rng = random.Random(11)
    checked = 0
    while checked < 8:
        board = random_position(rng, ["R"], ["n"])
        board.turn = chess.BLACK
        if not board.is_valid() or board.is_game_over() or oracle.probe_wdl(board) != 0:
            continue
        decision = tables.root(Board(board.fen()), 7, True)
        assert decision.wdl == DRAW and decision.score_cp == 0
        for move in decision.moves:
            board.push_uci(move)
            assert oracle.probe_wdl(board) == 0
            board.pop()
        checked += 1


def test_lost_position_reports_a_loss(tables, oracle):
    rng = random.Random(5)
    while True:
        board = random_position(rng, [], ["q"])
        if oracle.probe_wdl(board) == -2:
            break
    decision = tables.root(Board(board.fen()), 7, True)
    assert decision.wdl == LOSS and decision.score_cp < -10000 and decision.move is not None


def test_probe_limit_and_castling_disable_probing(tables):
    assert tables.root(Board("8/8/8/3k4/8/8/1R2K3/8 w - - 0 1"), 2, True) is None
    assert tables.root(Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1"), 7, True) is None
    assert tables.root(Board(), 7, True) is None


def test_a_path_without_tables_is_refused_and_the_tables_held_before_stay(tmp_path):
    krk = Board("8/8/8/3k4/8/8/1R2K3/8 w - - 0 1")
    bad_paths = ((tmp_path / "missing", "not found"), (tmp_path, "no Syzygy tables"))
    tb = Tablebases()
    try:
        for bad, reason in bad_paths:
            with pytest.raises(TablebaseError, match=reason):
                tb.configure(str(bad))
            assert tb.max_pieces == 0 and tb.root(krk, 7, True) is None
        assert tb.configure(str(SYZYGY)) == []
        for bad, reason in bad_paths:
            with pytest.raises(TablebaseError, match=reason):
                tb.configure(str(bad))
            assert tb.max_pieces == 4 and tb.root(krk, 7, True) is not None
        problems = tb.configure(os.pathsep.join([str(tmp_path / "missing"), str(SYZYGY)]))
        assert problems == [f"Syzygy folder not found: {tmp_path / 'missing'}"] and tb.max_pieces == 4
    finally:
        tb.close()
