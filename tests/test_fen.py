"""FEN parsing, validation and output."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import chess
import chess.polyglot
import pytest

from support.fuzz import Fuzz
from support.reference import (
    special_position_params,
    CHESS960_FENS_SMALL,
    EP_FENS,
    KIWIPETE_FEN,
    POSITION3_FEN,
    POSITION4_FEN,
    POSITION5_FEN,
    engine_state,
)
from fianchetto import Board

START = chess.STARTING_FEN


# ---------------------------------------------------------------------------
# Invalid FENs, one class at a time.  Each entry: (id, fen, chess960).
# ---------------------------------------------------------------------------
WRONG_FIELD_COUNT = [
    ("empty", "", False),
    ("blank", "   ", False),
    ("board-only", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", False),
    ("two-fields", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", False),
    ("three-fields", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", False),
    ("seven-fields", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1", False),
    ("trailing-junk", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves", False),
]
BAD_PIECE_LETTERS = [
    ("letter-x", "rnbqkbnr/pppppppp/8/8/8/8/PPPPXPPP/RNBQKBNR w KQkq - 0 1", False),
    ("letter-lowercase-x", "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
    ("digit-zero", "rnbqkbnr/pppppppp/80/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
    ("digit-nine", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
    ("punctuation", "rnbqkbnr/pppppppp/8/8/3.4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
    ("non-ascii", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ\u265aBNR w KQkq - 0 1", False),
]
RANK_NOT_EIGHT = [
    ("seven-pawns", "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
    ("nine-pawns", "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
    ("seven-empty", "rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
    ("overflow-with-digit", "rnbqkbnr/pppppppp/8/8/4P4/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1", False),
    ("empty-rank", "rnbqkbnr/pppppppp//8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
]
WRONG_RANK_COUNT = [
    ("seven-ranks", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
    ("nine-ranks", "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
    ("trailing-slash", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1", False),
]
BAD_SIDE = [
    ("side-x", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", False),
    ("side-upper", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1", False),
    ("side-word", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR white KQkq - 0 1", False),
    ("side-dash", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR - KQkq - 0 1", False),
]
BAD_CASTLING_FIELD = [
    ("castling-x", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w X - 0 1", False),
    ("castling-digit", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq1 - 0 1", False),
    ("castling-dash-mixed", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ-kq - 0 1", False),
    ("castling-double-dash", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w -- - 0 1", False),
    ("castling-960-x", "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAhz - 0 1", True),
]
BAD_EP_FIELD = [
    ("ep-rank-9", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", False),
    ("ep-file-i", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq i6 0 1", False),
    ("ep-file-only", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e 0 1", False),
    ("ep-upper", "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq D6 0 3", False),
    ("ep-long", "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6d 0 3", False),
]
BAD_NUMBERS = [
    ("halfmove-letter", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", False),
    ("halfmove-negative", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", False),
    ("fullmove-letter", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 y", False),
    ("fullmove-negative", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -3", False),
    ("fullmove-decimal", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1.5", False),
]
KING_COUNT = [
    ("no-kings", "8/8/8/8/8/8/8/8 w - - 0 1", False),
    ("no-white-king", "4k3/8/8/8/8/8/8/8 w - - 0 1", False),
    ("no-black-king", "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", False),
    ("two-white-kings", "4k3/8/8/8/8/8/8/3KK3 w - - 0 1", False),
    ("two-black-kings", "k3k3/8/8/8/8/8/8/4K3 b - - 0 1", False),
]
PAWNS_ON_BACK_RANK = [
    ("white-pawn-rank-8", "4k2P/8/8/8/8/8/8/4K3 w - - 0 1", False),
    ("black-pawn-rank-1", "4k3/8/8/8/8/8/8/p3K3 w - - 0 1", False),
    ("white-pawn-rank-1", "4k3/8/8/8/8/8/8/P3K3 b - - 0 1", False),
    ("black-pawn-rank-8", "p3k3/8/8/8/8/8/8/4K3 b - - 0 1", False),
]
OPPONENT_IN_CHECK = [
    ("black-in-check-white-to-move", "4k3/8/8/8/8/8/8/4RK2 w - - 0 1", False),
    ("white-in-check-black-to-move", "4k3/8/8/8/8/2n5/8/3K4 b - - 0 1", False),
    ("pawn-check", "8/8/8/8/8/3k4/4P3/4K3 w - - 0 1", False),
]
IMPOSSIBLE_CASTLING = [
    ("no-h1-rook", "r3k2r/8/8/8/8/8/8/R3K3 w KQkq - 0 1", False),
    ("no-a8-rook", "4k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", False),
    ("enemy-rook-in-corner", "r3k2r/8/8/8/8/8/8/R3KB1r w KQkq - 0 1", False),
    ("white-king-off-e1", "r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 0 1", False),
    ("black-king-off-e8", "r4k1r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", False),
    ("black-rights-without-rooks", "4k3/8/8/8/8/8/8/R3K2R w KQkq - 0 1", False),
    # A Chess960 start position is not a standard-chess castling position.
    ("960-start-in-standard-mode", "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1", False),
    ("960-xfen-in-standard-mode", "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1", False),
    # Chess960: the letter must name a rook of the right colour on the back rank.
    ("960-no-rook-on-h", "4k3/8/8/8/8/8/8/R3K3 w HA - 0 1", True),
    ("960-letter-names-knight", "4k3/8/8/8/8/8/8/RN2K2R w HB - 0 1", True),
    ("960-king-side-no-rook", "4k3/8/8/8/8/8/8/R3K3 w K - 0 1", True),
    ("960-king-not-on-back-rank", "4k3/8/8/8/8/8/4K3/R6R w HA - 0 1", True),
    ("960-rook-on-king-file-letter", "4k3/8/8/8/8/8/8/R3K2R w E - 0 1", True),
]
IMPOSSIBLE_EP = [
    # White to move: the e.p. square must be on rank 6 (and on rank 3 for black).
    ("ep-wrong-rank-white", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", False),
    ("ep-wrong-rank-black", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR b KQkq e6 0 1", False),
    ("ep-rank-4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1", False),
    # No black pawn on e5 that could have just double-pushed.
    ("ep-no-pawn", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", False),
    ("ep-knight-not-pawn", "r1bqkbnr/pppppppp/8/4n3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", False),
    ("ep-own-pawn", "rnbqkbnr/pppp1ppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 1", False),
    # The square passed over (e6) and the start square (e7) must be empty.
    ("ep-square-occupied", "rnbqkb1r/pppp1ppp/4n3/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", False),
    ("ep-origin-occupied", "rnbqk1nr/ppppbppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", False),
]

INVALID_CLASSES = {
    "wrong-field-count": WRONG_FIELD_COUNT,
    "bad-piece-letters": BAD_PIECE_LETTERS,
    "rank-not-eight": RANK_NOT_EIGHT,
    "wrong-rank-count": WRONG_RANK_COUNT,
    "bad-side": BAD_SIDE,
    "bad-castling-field": BAD_CASTLING_FIELD,
    "bad-ep-field": BAD_EP_FIELD,
    "bad-numbers": BAD_NUMBERS,
    "king-count": KING_COUNT,
    "pawns-on-back-rank": PAWNS_ON_BACK_RANK,
    "opponent-in-check": OPPONENT_IN_CHECK,
    "impossible-castling": IMPOSSIBLE_CASTLING,
    "impossible-ep": IMPOSSIBLE_EP,
}
ALL_INVALID = [
    pytest.param(fen, chess960, id=f"{cls}:{name}")
    for cls, cases in INVALID_CLASSES.items()
    for name, fen, chess960 in cases
]

# python-chess reports these position-level problems through Board.status().
EXPECTED_STATUS = {
    "king-count": chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING | chess.STATUS_TOO_MANY_KINGS | chess.STATUS_EMPTY,
    "pawns-on-back-rank": chess.STATUS_PAWNS_ON_BACKRANK,
    "opponent-in-check": chess.STATUS_OPPOSITE_CHECK,
    "impossible-castling": chess.STATUS_BAD_CASTLING_RIGHTS,
    "impossible-ep": chess.STATUS_INVALID_EP_SQUARE,
}


def _assert_value_error(fen: str, chess960: bool) -> ValueError:
    with pytest.raises(ValueError) as info:
        Board(fen, chess960=chess960)
    assert str(info.value).strip(), f"ValueError without a message for {fen!r}"
    return info.value


@pytest.mark.parametrize("fen,chess960", ALL_INVALID)
def test_invalid_fen_raises_value_error_with_message(fen, chess960):
    _assert_value_error(fen, chess960)


@pytest.mark.parametrize("cls", list(EXPECTED_STATUS))
def test_invalid_position_cases_are_what_they_claim(cls):
    """Each position-level case really has (only) the defect its class names,
    according to python-chess -- so the engine is tested on one thing at a time."""
    for name, fen, chess960 in INVALID_CLASSES[cls]:
        status = chess.Board(fen, chess960=chess960).status()
        assert status & EXPECTED_STATUS[cls], (name, status)
        assert not status & ~EXPECTED_STATUS[cls], (name, status)


@pytest.mark.parametrize("cls", ["bad-piece-letters", "rank-not-eight", "wrong-rank-count", "bad-side",
                                 "bad-castling-field", "bad-ep-field", "bad-numbers"])
def test_malformed_cases_are_malformed_for_python_chess_too(cls):
    for _name, fen, chess960 in INVALID_CLASSES[cls]:
        with pytest.raises(ValueError):
            chess.Board(fen, chess960=chess960)


@pytest.mark.parametrize("fen,chess960", ALL_INVALID)
def test_set_fen_failure_leaves_the_board_intact(fen, chess960):
    board = Board(KIWIPETE_FEN, chess960=chess960)
    board.push("e2a6")
    board.push("b4c3")
    before = engine_state(board)
    with pytest.raises(ValueError):
        board.set_fen(fen)
    assert engine_state(board) == before
    # Still fully usable afterwards.
    assert board.pop() == "b4c3"
    assert board.pop() == "e2a6"
    assert board.fen() == KIWIPETE_FEN


# ---------------------------------------------------------------------------
# Valid edge cases
# ---------------------------------------------------------------------------
VALID = [
    pytest.param(START, False, id="start"),
    pytest.param("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", False, id="four-fields"),
    pytest.param("r3k2r/8/8/8/8/8/8/R3K2R b kq -", False, id="four-fields-black"),
    pytest.param(KIWIPETE_FEN, False, id="kiwipete"),
    pytest.param(POSITION3_FEN, False, id="position3"),
    pytest.param(POSITION4_FEN, False, id="position4"),
    pytest.param(POSITION5_FEN, False, id="position5"),
    pytest.param("8/8/8/8/8/8/8/K6k w - - 99 200", False, id="clocks"),
    pytest.param("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Qk - 0 1", False, id="partial-castling"),
    pytest.param("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", False, id="no-castling"),
    pytest.param("4k3/8/8/8/8/8/8/4K2R w K - 0 1", False, id="lone-rook-castling"),
    pytest.param("4k3/8/8/8/8/8/8/4K3 w - - 0 1", False, id="bare-kings"),
    pytest.param("4k3/8/8/8/8/8/8/4K2R b K - 0 1", False, id="castling-not-side-to-move"),
    pytest.param("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", True, id="960-xfen-standard-layout"),
    pytest.param("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1", True, id="960-shredder-standard-layout"),
    pytest.param(START, True, id="960-mode-start"),
    pytest.param("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1", True, id="960-mode-start-shredder"),
    pytest.param("4k3/8/8/8/8/8/8/1R1RK3 w D - 0 1", True, id="960-inner-rook-letter"),
    pytest.param("1r1rk3/8/8/8/8/8/8/4K3 b d - 0 1", True, id="960-inner-rook-letter-black"),
    pytest.param("4k3/8/8/8/8/8/8/1R1RK3 w Q - 0 1", True, id="960-outer-rook-by-q"),
    pytest.param("4k3/8/8/8/8/8/8/1R1RK3 w B - 0 1", True, id="960-outer-rook-by-letter"),
    pytest.param("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1", True, id="960-king-on-b"),
    pytest.param("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1", True, id="960-king-on-b-xfen"),
    pytest.param("1r4kr/8/8/8/8/8/8/1R4KR w HBhb -", True, id="960-four-fields"),
] + special_position_params()


@pytest.mark.parametrize("fen,chess960", VALID)
def test_valid_fen_is_accepted_and_written_like_python_chess(fen, chess960):
    reference = chess.Board(fen, chess960=chess960)
    assert reference.is_valid(), "test data: python-chess must consider this valid"
    board = Board(fen, chess960=chess960)
    assert board.fen() == reference.fen()
    assert board.fen(shredder=True) == reference.shredder_fen()
    assert board.key == chess.polyglot.zobrist_hash(reference)
    assert board.turn == reference.turn
    assert board.chess960 == chess960
    assert sorted(board.legal_moves()) == sorted(reference.uci(m, chess960=chess960) for m in reference.legal_moves)


@pytest.mark.parametrize("fen,chess960", VALID)
def test_fen_output_reparses_to_the_same_position(fen, chess960):
    board = Board(fen, chess960=chess960)
    for text in (board.fen(), board.fen(shredder=True)):
        again = Board(text, chess960=chess960)
        assert again.fen() == board.fen()
        # Not board.key: a pinned e.p. square is hashed but not written.
        assert again.key == chess.polyglot.zobrist_hash(chess.Board(text, chess960=chess960))


def test_default_board_is_the_start_position():
    board = Board()
    assert board.fen() == START
    assert board.turn is True
    assert board.chess960 is False
    assert board.move_stack == []
    assert board.key == chess.polyglot.zobrist_hash(chess.Board())


def test_four_field_fen_gets_default_clocks():
    assert Board("8/8/8/8/8/8/8/K6k b - -").fen() == "8/8/8/8/8/8/8/K6k b - - 0 1"


def test_en_passant_square_shown_only_when_a_legal_capture_exists():
    for fen, chess960, legal in EP_FENS:
        board = Board(fen, chess960=chess960)
        ep_field = board.fen().split()[3]
        if legal:
            assert ep_field == fen.split()[3], fen
        else:
            assert ep_field == "-", fen


def test_pinned_en_passant_is_still_hashed_polyglot_style():
    """Polyglot hashes the e.p. file when a pawn stands next to the pushed
    pawn, legal or not; the key must match python-chess even though fen()
    hides the square."""
    fen = "8/8/8/KPp4r/8/8/8/7k w - c6 0 2"
    board = Board(fen)
    reference = chess.Board(fen)
    assert not reference.has_legal_en_passant() and reference.has_pseudo_legal_en_passant()
    assert board.key == chess.polyglot.zobrist_hash(reference)
    assert board.key != Board("8/8/8/KPp4r/8/8/8/7k w - - 0 2").key
    assert "b5c6" not in board.legal_moves()


def test_idle_en_passant_square_is_not_hashed():
    """No pawn can take: the position is the same as without the square."""
    with_ep = Board("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2")
    without = Board("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2")
    assert with_ep.key == without.key
    assert with_ep.fen() == without.fen()


def test_inner_rook_castling_right_is_used_and_written():
    board = Board("4k3/8/8/8/8/8/8/1R1RK3 w D - 0 1", chess960=True)
    assert "e1d1" in board.legal_moves()  # king to c1, the d1 rook to d1
    assert board.fen().split()[2] == "D"
    board.push("e1d1")
    assert board.fen().split()[0] == "4k3/8/8/8/8/8/8/1RKR4"
    assert board.fen().split()[2] == "-"


def test_set_fen_replaces_position_and_clears_the_move_stack():
    board = Board()
    board.push("e2e4")
    board.set_fen(KIWIPETE_FEN)
    assert board.fen() == KIWIPETE_FEN
    assert board.move_stack == []
    assert board.key == chess.polyglot.zobrist_hash(chess.Board(KIWIPETE_FEN))
    with pytest.raises(IndexError):
        board.pop()


def test_set_fen_keeps_the_chess960_mode():
    board = Board(START, chess960=True)
    board.set_fen("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1")
    assert board.chess960 is True
    assert "b1h1" in board.legal_moves()


@pytest.mark.parametrize(
    "fen,chess960,word",
    [
        ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", False, "king"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1".replace("4k3", "8"), False, "king"),
        ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", False, "pawn"),
        ("r3k2r/8/8/8/8/8/8/R3K3 w KQkq - 0 1", False, "castl"),
    ],
    ids=["two-kings", "no-king", "pawn-on-rank-8", "castling"],
)
def test_error_message_names_the_problem(fen, chess960, word):
    """Messages are for humans: they must say what was wrong."""
    assert word in str(_assert_value_error(fen, chess960)).lower()


# ---------------------------------------------------------------------------
# Fuzzing
# ---------------------------------------------------------------------------
FUZZ_BASES = [
    START,
    KIWIPETE_FEN,
    POSITION3_FEN,
    POSITION4_FEN,
    POSITION5_FEN,
    "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
    "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq -",
] + [fen for fen in CHESS960_FENS_SMALL]
FUZZ_ALPHABET = "pnbrqkPNBRQK0123456789/ -wbKQkqABCDEFGHabcdefgh+.\t\n"


CHARACTER_MUTATIONS = ["replace", "delete", "insert", "swap"]
FIELD_MUTATIONS = ["drop-field", "dup-field", "swap-fields"]


def mutate_characters(f: Fuzz, text: str, op: str) -> str:
    i = f.integer(0, len(text) - 1)
    if op == "replace":
        return text[:i] + f.choice(FUZZ_ALPHABET) + text[i + 1:]
    if op == "delete":
        return text[:i] + text[i + 1:]
    if op == "insert":
        i = f.integer(0, len(text))
        return text[:i] + f.choice(FUZZ_ALPHABET) + text[i:]
    j = f.integer(0, len(text) - 1)
    chars = list(text)
    chars[i], chars[j] = chars[j], chars[i]
    return "".join(chars)


def mutate_fields(f: Fuzz, text: str, op: str) -> str:
    fields = text.split(" ")
    i = f.integer(0, len(fields) - 1)
    if op == "drop-field":
        del fields[i]
    elif op == "dup-field":
        fields.insert(i, fields[i])
    else:
        j = f.integer(0, len(fields) - 1)
        fields[i], fields[j] = fields[j], fields[i]
    return " ".join(fields)


def mutated_fen(f: Fuzz) -> str:
    """A valid FEN with one to four character or field mutations."""
    text = f.choice(FUZZ_BASES)
    for _ in range(f.integer(1, 4)):
        op = f.choice(CHARACTER_MUTATIONS + FIELD_MUTATIONS)
        if op in FIELD_MUTATIONS:
            text = mutate_fields(f, text, op)
        elif text:
            text = mutate_characters(f, text, op)
    return text


def fuzz_input(f: Fuzz) -> str:
    """A mutated FEN, a string of FEN characters, or arbitrary Unicode text."""
    return f.one_of(mutated_fen, lambda f: f.text(90, FUZZ_ALPHABET), lambda f: f.text(60))


def _check_fuzz_case(text: str, chess960: bool) -> None:
    try:
        board = Board(text, chess960=chess960)
    except ValueError as exc:
        assert str(exc).strip(), f"empty ValueError message for {text!r}"
        return
    out = board.fen()
    again = Board(out, chess960=chess960)
    assert again.fen() == out, f"fen() of {text!r} does not re-parse to itself"
    assert Board(board.fen(shredder=True), chess960=chess960).fen() == out
    # Where python-chess reads the same text, both must describe the same position.
    try:
        reference = chess.Board(text, chess960=chess960)
    except ValueError:
        return
    assert out == reference.fen(), f"engine and python-chess read {text!r} differently"


def test_fuzz_in_a_subprocess_never_crashes():
    """A hard crash (segfault, abort) would kill pytest; run a fuzz pass in a
    child process first and require a clean exit."""
    script = textwrap.dedent(
        """
        import random, sys
        from fianchetto import Board
        bases = %r
        alphabet = %r
        rng = random.Random(12345)
        accepted = rejected = 0
        for i in range(4000):
            if i %% 4 == 0:
                text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 90)))
            else:
                text = list(rng.choice(bases))
                for _ in range(rng.randrange(1, 5)):
                    pos = rng.randrange(len(text) + 1)
                    op = rng.randrange(3)
                    if op == 0 and pos < len(text):
                        text[pos] = rng.choice(alphabet)
                    elif op == 1 and pos < len(text):
                        del text[pos]
                    else:
                        text.insert(pos, rng.choice(alphabet))
                text = "".join(text)
            chess960 = rng.random() < 0.3
            try:
                board = Board(text, chess960=chess960)
            except ValueError:
                rejected += 1
                continue
            accepted += 1
            board.fen(); board.fen(shredder=True); board.key; board.is_check()
            moves = board.legal_moves()
            board.perft(2)
            for move in moves[:3]:
                board.push(move)
                board.legal_moves()
                board.pop()
        print("accepted", accepted, "rejected", rejected)
        """
        % (FUZZ_BASES, FUZZ_ALPHABET)
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-3000:]}"
    words = proc.stdout.split()
    assert words[0] == "accepted" and int(words[1]) >= 10 and int(words[3]) > 1000, proc.stdout


def test_fuzz_constructor_accepts_or_raises_value_error():
    for seed in range(400):
        f = Fuzz(seed)
        _check_fuzz_case(fuzz_input(f), f.boolean())


def test_fuzz_set_fen_failure_keeps_the_board():
    for seed in range(150):
        text = fuzz_input(Fuzz(seed))
        board = Board(POSITION4_FEN)
        board.push("c4c5")
        before = engine_state(board)
        try:
            board.set_fen(text)
        except ValueError:
            assert engine_state(board) == before, f"set_fen({text!r}) failed but changed the board"
        else:
            assert board.move_stack == []
            assert Board(board.fen()).fen() == board.fen(), text


def test_fuzz_inputs_are_varied():
    """The fuzzer reaches each kind of input, and both outcomes of the parser."""
    texts = [fuzz_input(Fuzz(seed)) for seed in range(400)]
    assert len(set(texts)) > 350
    assert any(not text.isascii() for text in texts)
    accepted = 0
    for text in texts:
        try:
            Board(text)
            accepted += 1
        except ValueError:
            pass
    assert 3 <= accepted <= 390, accepted


def test_fuzz_seeds_are_valid():
    for fen in FUZZ_BASES:
        chess960 = fen in CHESS960_FENS_SMALL
        Board(fen, chess960=chess960)
        assert chess.Board(fen, chess960=chess960).is_valid()
