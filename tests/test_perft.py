"""Perft against published node counts.

Standard positions: https://www.chessprogramming.org/Perft_Results
Chess960 positions: https://www.chessprogramming.org/Chess960_Perft_Results
(the same list ships as ``fischer.epd`` with Ethereal).

The default run goes to small depths (well under a second each); the
``slow`` tests go to the full depths and are run with ``pytest -m slow``.
"""
from __future__ import annotations

import chess
import pytest

from support.reference import (
    KIWIPETE_FEN,
    POSITION3_FEN,
    POSITION4_FEN,
    POSITION4_MIRROR_FEN,
    POSITION5_FEN,
    POSITION6_FEN,
    chess_divide,
    chess_perft,
    engine_state,
)
from fianchetto import Board

# name -> (fen, node counts for depth 1, 2, 3, ...)
STANDARD = {
    "startpos": (chess.STARTING_FEN, [20, 400, 8902, 197281, 4865609, 119060324]),
    "kiwipete": (KIWIPETE_FEN, [48, 2039, 97862, 4085603, 193690690]),
    "position3": (POSITION3_FEN, [14, 191, 2812, 43238, 674624, 11030083, 178633661]),
    "position4": (POSITION4_FEN, [6, 264, 9467, 422333, 15833292]),
    "position4-mirror": (POSITION4_MIRROR_FEN, [6, 264, 9467, 422333, 15833292]),
    "position5": (POSITION5_FEN, [44, 1486, 62379, 2103487, 89941194]),
    "position6": (POSITION6_FEN, [46, 2079, 89890, 3894594, 164075551]),
}

# Deepest depth run by default (each well under a second for a compiled core).
DEFAULT_DEPTH = {
    "startpos": 4,
    "kiwipete": 3,
    "position3": 5,
    "position4": 4,
    "position4-mirror": 4,
    "position5": 3,
    "position6": 3,
}

# Depths for the slow run.
FULL_DEPTH = {
    "startpos": 6,
    "kiwipete": 5,
    "position3": 7,
    "position4": 5,
    "position4-mirror": 5,
    "position5": 5,
    "position6": 5,
}

# Chess960 (Shredder-FEN castling) -> node counts for depth 1..6.
CHESS960 = {
    "bqnb1rkr": (
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        [21, 528, 12189, 326672, 8146062, 227689589],
    ),
    "b1q1rrkb": (
        "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9",
        [20, 479, 10471, 273318, 6417013, 177654692],
    ),
    "qbbnnrkr": (
        "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9",
        [22, 593, 13440, 382958, 9183776, 274103539],
    ),
    "bnqnrbkr-ep": (
        "bnqnrbkr/1pp2pp1/p7/3pP2p/4P1P1/8/PPPP3P/BNQNRBKR w HEhe d6 0 9",
        [31, 984, 28677, 962591, 29032175, 1008880643],
    ),
    "n1bb1rkr": (
        "n1bb1rkr/qpnppppp/2p5/p7/P1P5/5P2/1P1PPRPP/NQBBN1KR w Hhf - 1 9",
        [27, 697, 18724, 505089, 14226907, 400942568],
    ),
    "nnrqbkrb": (
        "nnrqbkrb/pppp1pp1/7p/4p3/6P1/2N2B2/PPPPPP1P/NR1QBKR1 w Ggc - 2 9",
        [29, 658, 19364, 476620, 14233587, 373744834],
    ),
    "nnrkrbbq": (
        "nnrkrbbq/pppp2pp/8/4pp2/4P3/P7/1PPPBPPP/NNKRR1BQ w c - 0 9",
        [25, 792, 19883, 636041, 16473376, 532214177],
    ),
    "bnnqrbkr": (
        "bnnqrbkr/pp1p2p1/2p1p2p/5p2/1P5P/1R6/P1PPPPP1/BNNQRBK1 w Ehe - 0 9",
        [33, 1022, 32724, 1024721, 32898113, 1047360456],
    ),
    "nnrkbbrq": (
        "nnrkbbrq/1pp2p1p/p2pp1p1/2P5/8/8/PP1PPPPP/NNRKBBRQ w Ggc - 0 9",
        [24, 762, 19283, 624598, 16838099, 555230555],
    ),
}
CHESS960_DEFAULT_DEPTH = 3
CHESS960_FULL_DEPTH = 5


def _cases(table, depths):
    return [
        pytest.param(name, depth, id=f"{name}-d{depth}")
        for name in table
        for depth in range(1, depths[name] + 1)
    ]


# ---------------------------------------------------------------------------
# Standard chess
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name,depth", _cases(STANDARD, DEFAULT_DEPTH))
def test_perft_published_counts(name, depth):
    fen, counts = STANDARD[name]
    assert Board(fen).perft(depth) == counts[depth - 1]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(STANDARD))
def test_perft_published_counts_full_depth(name):
    fen, counts = STANDARD[name]
    depth = FULL_DEPTH[name]
    assert Board(fen).perft(depth) == counts[depth - 1]


@pytest.mark.parametrize("name", list(STANDARD))
def test_perft_depth_zero_is_one(name):
    assert Board(STANDARD[name][0]).perft(0) == 1
    with pytest.raises(ValueError):
        Board(STANDARD[name][0]).perft(-1)
    with pytest.raises(ValueError):
        Board(STANDARD[name][0]).divide(0)


@pytest.mark.parametrize("name", list(STANDARD))
def test_published_counts_agree_with_python_chess(name):
    """Guards the table above (and the oracle helper) against typos."""
    fen, counts = STANDARD[name]
    board = chess.Board(fen)
    for depth in (1, 2, 3):
        assert chess_perft(board, depth) == counts[depth - 1], (name, depth)


@pytest.mark.parametrize("name", list(STANDARD))
def test_divide_matches_python_chess(name):
    fen, counts = STANDARD[name]
    board = Board(fen)
    divide = board.divide(2)
    moves = [move for move, _ in divide]
    assert len(moves) == len(set(moves)), "divide lists a root move twice"
    assert dict(divide) == chess_divide(chess.Board(fen), 2)
    assert sum(count for _, count in divide) == counts[1]


@pytest.mark.parametrize("name", list(STANDARD))
def test_divide_depth_one_lists_the_legal_moves(name):
    board = Board(STANDARD[name][0])
    divide = board.divide(1)
    assert sorted(move for move, _ in divide) == sorted(board.legal_moves())
    assert all(count == 1 for _, count in divide)


@pytest.mark.parametrize("name", ["kiwipete", "position4", "position5"])
def test_perft_and_divide_leave_the_board_unchanged(name):
    board = Board(STANDARD[name][0])
    board.push(board.legal_moves()[0])
    before = engine_state(board)
    board.perft(3)
    assert engine_state(board) == before
    board.divide(2)
    assert engine_state(board) == before


# ---------------------------------------------------------------------------
# Chess960
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,depth",
    [pytest.param(n, d, id=f"{n}-d{d}") for n in CHESS960 for d in range(1, CHESS960_DEFAULT_DEPTH + 1)],
)
def test_chess960_perft_published_counts(name, depth):
    fen, counts = CHESS960[name]
    assert Board(fen, chess960=True).perft(depth) == counts[depth - 1]


def test_chess960_perft_depth_four():
    fen, counts = CHESS960["bnqnrbkr-ep"]
    assert Board(fen, chess960=True).perft(4) == counts[3]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CHESS960))
def test_chess960_perft_published_counts_full_depth(name):
    fen, counts = CHESS960[name]
    assert Board(fen, chess960=True).perft(CHESS960_FULL_DEPTH) == counts[CHESS960_FULL_DEPTH - 1]


@pytest.mark.parametrize("name", list(CHESS960))
def test_chess960_published_counts_agree_with_python_chess(name):
    fen, counts = CHESS960[name]
    board = chess.Board(fen, chess960=True)
    for depth in (1, 2, 3):
        assert chess_perft(board, depth) == counts[depth - 1], (name, depth)


@pytest.mark.parametrize("name", list(CHESS960))
def test_chess960_divide_matches_python_chess(name):
    """Root moves are spelled king-takes-rook for castling in Chess960 mode."""
    fen, counts = CHESS960[name]
    divide = Board(fen, chess960=True).divide(2)
    assert dict(divide) == chess_divide(chess.Board(fen, chess960=True), 2)
    assert sum(count for _, count in divide) == counts[1]


@pytest.mark.parametrize("name", list(CHESS960))
def test_chess960_xfen_and_shredder_spellings_give_the_same_tree(name):
    fen, counts = CHESS960[name]
    xfen = chess.Board(fen, chess960=True).fen()  # X-FEN spelling of the same position
    a = Board(fen, chess960=True)
    b = Board(xfen, chess960=True)
    assert a.fen() == b.fen() == xfen
    assert a.key == b.key
    assert b.perft(3) == counts[2]


def test_chess960_castling_both_sides_perft():
    """A position where both castlings are legal at the root, for both sides."""
    fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"
    board = Board(fen, chess960=True)
    reference = chess.Board(fen, chess960=True)
    root = dict(board.divide(3))
    assert "b1h1" in root and "b1a1" in root
    assert root == chess_divide(reference, 3)
    assert board.perft(3) == sum(root.values())


def test_standard_position_in_chess960_mode_has_the_same_counts():
    """Castling spelled differently must not change the tree."""
    fen, counts = STANDARD["kiwipete"]
    board = Board(fen, chess960=True)
    assert board.perft(3) == counts[2]
    moves = dict(board.divide(1))
    assert "e1h1" in moves and "e1a1" in moves
    assert "e1g1" not in moves and "e1c1" not in moves
