"""push / pop, move spelling, copies and python-chess interop."""
from __future__ import annotations

import chess
import chess.polyglot
import pytest

from support.reference import (
    special_position_params,
    CHESS960_FENS_SMALL,
    EP_FENS,
    KIWIPETE_FEN,
    POSITION3_FEN,
    POSITION4_FEN,
    POSITION5_FEN,
    assert_matches_python_chess,
    chess_perft,
    chess_uci_moves,
    engine_state,
)
from fianchetto import Board

START = chess.STARTING_FEN
CASTLE_FEN = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
PROMO_FEN = "1n2k3/P7/8/8/8/8/7p/4K1N1 w - - 0 1"

ROUNDTRIP_POSITIONS = [
    pytest.param(START, False, id="start"),
    pytest.param(KIWIPETE_FEN, False, id="kiwipete"),
    pytest.param(POSITION3_FEN, False, id="position3"),
    pytest.param(POSITION4_FEN, False, id="position4"),
    pytest.param(POSITION5_FEN, False, id="position5"),
    pytest.param(CASTLE_FEN, False, id="castling"),
    pytest.param(CASTLE_FEN, True, id="castling-960-mode"),
    pytest.param(PROMO_FEN, False, id="promotion"),
    pytest.param(PROMO_FEN.replace(" w ", " b "), False, id="promotion-black"),
] + special_position_params()


# ---------------------------------------------------------------------------
# push / pop
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("fen,chess960", ROUNDTRIP_POSITIONS)
def test_every_legal_move_pushes_and_pops_cleanly(fen, chess960):
    board = Board(fen, chess960=chess960)
    reference = chess.Board(fen, chess960=chess960)
    before = engine_state(board)
    for move in board.legal_moves():
        board.push(move)
        reference.push(reference.parse_uci(move))
        assert_matches_python_chess(board, reference, f"{fen} after {move}")
        assert board.move_stack == [move]
        assert board.pop() == move
        reference.pop()
        assert engine_state(board) == before, f"{fen}: state not restored after {move}"


def test_move_stack_and_turn_follow_pushes():
    board = Board()
    assert board.turn is True
    board.push("e2e4")
    assert board.turn is False
    board.push("c7c5")
    board.push("g1f3")
    assert board.move_stack == ["e2e4", "c7c5", "g1f3"]
    assert board.turn is False
    assert board.pop() == "g1f3"
    assert board.move_stack == ["e2e4", "c7c5"]
    assert board.turn is True


def test_pop_on_a_fresh_board_raises_index_error():
    with pytest.raises(IndexError):
        Board().pop()
    with pytest.raises(IndexError):
        Board(KIWIPETE_FEN).pop()


def test_pop_past_the_root_raises_index_error_and_keeps_the_root():
    board = Board(KIWIPETE_FEN)
    board.push("e1g1")
    board.pop()
    with pytest.raises(IndexError):
        board.pop()
    assert board.fen() == KIWIPETE_FEN
    assert board.move_stack == []


def test_long_game_push_pop_roundtrip():
    """A real game (Opera game, Morphy 1858) forward and back."""
    moves = ("e2e4 e7e5 g1f3 d7d6 d2d4 c8g4 d4e5 g4f3 d1f3 d6e5 f1c4 g8f6 f3b3 d8e7 "
             "b1c3 c7c6 c1g5 b7b5 c3b5 c6b5 c4b5 b8d7 e1c1 a8d8 d1d7 d8d7 h1d1 e7e6 "
             "b5d7 f6d7 b3b8 d7b8 d1d8").split()
    board = Board()
    reference = chess.Board()
    states = [engine_state(board)]
    for move in moves:
        board.push(move)
        reference.push_uci(move)
        assert_matches_python_chess(board, reference, move)
        states.append(engine_state(board))
    assert reference.is_checkmate()
    assert board.legal_moves() == []
    assert board.is_check()
    for move in reversed(moves):
        states.pop()
        assert board.pop() == move
        assert engine_state(board) == states[-1]


# ---------------------------------------------------------------------------
# The fast path: moves read without the generator, listed moves trusted
# ---------------------------------------------------------------------------
PINS_AND_CHECKS = [
    "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",            # the d2 pawn pinned by a bishop
    "4k3/4r3/8/8/8/8/4P3/4K3 w - - 0 1",            # a pawn pinned on the file may push
    "4k3/8/8/8/8/5n2/3P1P2/4K3 w - - 0 1",          # knight check: only a capture or a king move
    "4k3/8/8/1b6/8/8/3P4/4K2R w K - 0 1",           # bishop check: block with the pawn
    "4k3/8/8/8/8/8/1p6/R3K3 b - - 0 1",             # promotion by push and by capture
    "4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 2",            # en passant
    "4k3/8/8/8/8/8/8/r3K2R w K - 0 1",              # attacked squares around the king
]


@pytest.mark.parametrize("fen,chess960", ROUNDTRIP_POSITIONS
                         + [pytest.param(fen, False, id=f"pins-checks-{i}")
                            for i, fen in enumerate(PINS_AND_CHECKS)])
def test_move_validator_agrees_with_the_generator_on_every_16_bit_value(fen, chess960):
    """is_legal_move (which push uses, and the search for hash moves) accepts exactly
    the generated moves, whatever the 16 bits say."""
    board = Board(fen, chess960=chess960)
    assert board._validator_disagreements() == []
    for move in board.legal_moves()[:6]:
        board.push(move)
        assert board._validator_disagreements() == [], f"{fen} after {move}"
        board.pop()


def test_a_listed_move_is_not_trusted_in_another_position_at_the_same_ply():
    board = Board()
    for move in ("e2e4", "f7f5", "a2a3"):
        board.push(move)
    assert "a7a6" in board.legal_moves()           # listed at ply 3
    board.pop()
    board.push("d1h5")                             # check: a7a6 is now illegal at ply 3
    with pytest.raises(ValueError, match="illegal"):
        board.push("a7a6")
    assert board.move_stack == ["e2e4", "f7f5", "d1h5"]
    board.push("g7g6")
    assert board.fen().startswith("rnbqkbnr/ppppp2p/6p1/5p1Q/4P3")


def test_a_listed_move_is_not_trusted_after_the_fen_changes():
    board = Board()
    assert "e2e4" in board.legal_moves()
    board.set_fen("4k3/8/8/8/8/8/4P3/4K2r w - - 0 1")   # in check from h1
    with pytest.raises(ValueError, match="illegal"):
        board.push("e2e4")
    board.push("e1d2")
    assert board.move_stack == ["e1d2"]


def test_listed_and_unlisted_moves_push_alike():
    listed, unlisted = Board(KIWIPETE_FEN), Board(KIWIPETE_FEN)
    for move in listed.legal_moves():
        listed.push(move)
        unlisted.push(move)
        assert engine_state(listed) == engine_state(unlisted), move
        assert listed.pop() == unlisted.pop() == move


def test_a_str_subclass_is_a_move_too():
    class Text(str):
        pass

    board = Board()
    board.push(Text("e2e4"))
    assert board.move_stack == ["e2e4"]


# ---------------------------------------------------------------------------
# Bad moves
# ---------------------------------------------------------------------------
MALFORMED = ["", "e2", "e2e", "e2e4e", "e2e9", "i2i4", "e0e4", "E2E4", "e2-e4", "e2e4x", "e7e8k", "e7e8p", "e2e4qq", "Nf3", "O-O", "\x00", "e2e4\x00"]
ILLEGAL_AT_START = ["e2e5", "e7e5", "e1g1", "e1h1", "e1c1", "e1e2", "a1a3", "b1d2", "d1h5",
                    "a7a8q", "e2e4q", "g1g3", "e2d3", "h2h4n", "e8e7"]


@pytest.mark.parametrize("move", MALFORMED + ILLEGAL_AT_START)
def test_bad_move_raises_value_error_and_leaves_the_board(move):
    # The start position, but with a move stack, so we can see that neither
    # the position nor the stack changes.
    board = Board()
    board.push("b1c3")
    board.push("b8c6")
    board.push("c3b1")
    board.push("c6b8")
    before = engine_state(board)
    with pytest.raises(ValueError):
        board.push(move)
    assert engine_state(board) == before
    board.push("e2e4")  # still usable
    assert board.pop() == "e2e4"


def test_bad_move_cases_are_bad_for_python_chess_too():
    reference = chess.Board()
    for move in MALFORMED + ILLEGAL_AT_START:
        with pytest.raises(ValueError):
            reference.push_uci(move)


def test_moving_into_check_or_ignoring_check_is_rejected():
    board = Board("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")  # white king in check from e2
    assert board.is_check()
    for move in ("e1d2", "e1f2"):  # both attacked by the rook
        before = engine_state(board)
        with pytest.raises(ValueError):
            board.push(move)
        assert engine_state(board) == before
    assert sorted(board.legal_moves()) == ["e1d1", "e1e2", "e1f1"]

    pinned = Board("4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1")  # bishop pinned on the e-file
    assert not [m for m in pinned.legal_moves() if m.startswith("e2")]
    with pytest.raises(ValueError):
        pinned.push("e2d3")


# ---------------------------------------------------------------------------
# Castling spelling
# ---------------------------------------------------------------------------
def test_standard_castling_is_written_king_two_squares():
    board = Board(CASTLE_FEN)
    moves = board.legal_moves()
    assert {"e1g1", "e1c1"} <= set(moves)
    assert not {"e1h1", "e1a1"} & set(moves)
    assert [m for m, _ in board.divide(1) if m in ("e1g1", "e1c1")]


@pytest.mark.parametrize("spelling,result", [("e1g1", "r3k2r/8/8/8/8/8/8/R4RK1"), ("e1h1", "r3k2r/8/8/8/8/8/8/R4RK1"),
                                             ("e1c1", "r3k2r/8/8/8/8/8/8/2KR3R"), ("e1a1", "r3k2r/8/8/8/8/8/8/2KR3R")])
@pytest.mark.parametrize("chess960", [False, True], ids=["standard", "chess960"])
def test_both_castling_spellings_are_accepted_in_both_modes(spelling, result, chess960):
    board = Board(CASTLE_FEN, chess960=chess960)
    board.push(spelling)
    assert board.fen().split()[0] == result
    assert board.fen().split()[2] == "kq"
    king_to = {"e1g1": "g1", "e1h1": "g1", "e1c1": "c1", "e1a1": "c1"}[spelling]
    if chess960:
        expected = "e1h1" if king_to == "g1" else "e1a1"
    else:
        expected = "e1g1" if king_to == "g1" else "e1c1"
    assert board.move_stack == [expected]
    assert board.pop() == expected
    assert board.fen() == CASTLE_FEN


def test_chess960_castling_is_written_king_takes_rook():
    board = Board(CASTLE_FEN, chess960=True)
    moves = set(board.legal_moves())
    assert {"e1h1", "e1a1"} <= moves
    assert not {"e1g1", "e1c1"} & moves
    board.push("a1a2")
    moves = set(board.legal_moves())
    assert {"e8h8", "e8a8"} <= moves and not {"e8g8", "e8c8"} & moves


def test_chess960_king_on_b1_castles_both_ways():
    fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"
    board = Board(fen, chess960=True)
    moves = set(board.legal_moves())
    assert {"b1h1", "b1a1", "b1c1"} <= moves  # b1c1 is an ordinary king step
    board.push("b1h1")
    assert board.fen() == "rk5r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1"
    board.pop()
    board.push("b1a1")
    assert board.fen() == "rk5r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R b kq - 1 1"
    board.pop()
    board.push("b1c1")  # the king step, not castling: the rook stays on a1
    assert board.fen() == "rk5r/pppppppp/8/8/8/8/PPPPPPPP/R1K4R b kq - 1 1"
    assert board.fen(shredder=True) == "rk5r/pppppppp/8/8/8/8/PPPPPPPP/R1K4R b ha - 1 1"


@pytest.mark.parametrize(
    "fen,moves",
    [
        # The d1 rook does not move when castling queenside (king e1 -> c1).
        ("3rk2r/3p4/8/8/8/8/3P4/3RK1R1 w GDhd - 0 1", ["e1g1", "e1d1"]),
        # The king does not move when castling kingside (rook h1 -> f1).
        ("r5kr/8/8/8/8/8/8/R5KR w HAha - 0 1", ["g1h1", "g1a1"]),
        # Black, with the king on g8: both castlings.
        ("r5kr/8/8/8/8/8/8/R5KR b HAha - 0 1", ["g8h8", "g8a8"]),
    ],
    ids=["rook-stays", "king-stays", "king-stays-black"],
)
def test_chess960_castling_where_king_or_rook_does_not_move(fen, moves):
    reference = chess.Board(fen, chess960=True)
    board = Board(fen, chess960=True)
    assert sorted(board.legal_moves()) == chess_uci_moves(reference)
    for move in moves:
        assert move in board.legal_moves()
        assert reference.is_castling(reference.parse_uci(move))
        board.push(move)
        reference.push(reference.parse_uci(move))
        assert_matches_python_chess(board, reference, move)
        assert board.pop() == move
        reference.pop()
        assert board.fen() == reference.fen()


def test_chess960_property_switches_the_spelling():
    board = Board(CASTLE_FEN)
    assert board.chess960 is False
    board.chess960 = True
    assert board.chess960 is True
    assert "e1h1" in board.legal_moves() and "e1g1" not in board.legal_moves()
    assert dict(board.divide(1)).keys() == set(board.legal_moves())
    board.chess960 = False
    assert "e1g1" in board.legal_moves() and "e1h1" not in board.legal_moves()
    assert board.fen() == CASTLE_FEN


def test_castling_through_check_is_not_offered_in_either_spelling():
    fen = "r3k2r/8/8/8/8/5r2/8/R3K2R w KQkq - 0 1"  # the f3 rook covers f1
    for chess960 in (False, True):
        board = Board(fen, chess960=chess960)
        for move in ("e1g1", "e1h1"):
            assert move not in board.legal_moves()
            with pytest.raises(ValueError):
                board.push(move)
        assert ("e1a1" if chess960 else "e1c1") in board.legal_moves()


def test_chess960_castling_is_refused_when_the_rook_shielded_the_kings_square():
    # The b1 rook hides c1 from the a1 rook; after castling the king stands on c1
    # and the rook on d1, in check. The map of enemy attacks, taken with the b1
    # rook in place, would allow it: a rook off the corner is tested square by square.
    fen = "4k3/8/8/8/8/8/8/rR3K2 w B - 0 1"
    board, reference = Board(fen, chess960=True), chess.Board(fen, chess960=True)
    assert "f1b1" not in board.legal_moves()
    assert sorted(board.legal_moves()) == chess_uci_moves(reference)
    assert board.perft(1) == reference.legal_moves.count()     # perft's bulk count too


def test_castling_with_the_kings_next_squares_covered_reads_the_attack_map():
    # Several king steps to test: king steps and both castlings read one map.
    fen = "r3k2r/8/8/8/1b6/8/8/R3K2R w KQkq - 0 1"    # the b4 bishop covers e1: check
    board = Board(fen)
    assert board.is_check() and not any(m in board.legal_moves() for m in ("e1g1", "e1c1"))
    fen = "r3k2r/8/8/8/8/8/6n1/R3K2R w KQkq - 0 1"    # the g2 knight covers e1 too
    board = Board(fen)
    assert sorted(board.legal_moves()) == chess_uci_moves(chess.Board(fen))
    fen = "r3k2r/8/8/8/8/8/3n4/R3K2R w KQkq - 0 1"    # the d2 knight covers f1 and b1
    board, reference = Board(fen), chess.Board(fen)
    assert "e1g1" not in board.legal_moves() and "e1c1" in board.legal_moves()
    assert sorted(board.legal_moves()) == chess_uci_moves(reference)


# Moves that check in each way the incremental checkers must see: the piece that
# arrives, a slider uncovered behind the square it left, both at once, a
# promotion, a castling rook, en passant opening a line.
CHECKING_MOVES = [
    pytest.param("4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1", "e4c5", id="discovered-by-knight"),
    pytest.param("4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1", "e4f6", id="double-knight-and-rook"),
    pytest.param("4k3/8/8/8/8/8/4B3/4R1K1 w - - 0 1", "e2b5", id="double-bishop-and-rook"),
    pytest.param("4k3/8/8/8/8/8/4K3/4R3 w - - 0 1", "e2d3", id="discovered-by-king"),
    pytest.param("4k3/8/8/8/2B5/8/8/6K1 w - - 0 1", "c4b5", id="direct-bishop"),
    pytest.param("4k3/8/8/8/8/1Q6/8/4K3 w - - 0 1", "b3b5", id="direct-queen-diagonal"),
    pytest.param("4k3/8/8/8/3N4/8/8/6K1 w - - 0 1", "d4f5", id="knight-no-check"),
    pytest.param("4k3/8/8/4p3/8/8/4Q3/4K3 w - - 0 1", "e2e5", id="capture-with-check"),
    pytest.param("4r1k1/8/8/8/4n3/8/8/4K3 b - - 0 1", "e4c3", id="black-discovers"),
    pytest.param("7k/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", id="promotion-queen-checks"),
    pytest.param("7k/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8n", id="promotion-knight-no-check"),
    pytest.param("2n4k/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7c8r", id="capture-promotion-rook-checks"),
    pytest.param("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1", id="castling-rook-checks"),
    pytest.param("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1", id="long-castling-rook-checks"),
    pytest.param("8/8/1k6/8/8/8/8/R3K2R w KQ - 0 1", "e1c1", id="castling-no-check"),
    pytest.param("8/8/8/R1pP3k/8/8/8/K7 w - c6 0 1", "d5c6", id="en-passant-opens-a-rank"),
    pytest.param("8/5k2/8/2pP4/8/1B6/8/K7 w - c6 0 1", "d5c6", id="en-passant-opens-a-diagonal"),
    pytest.param("8/3k4/8/2pP4/8/8/8/K7 w - c6 0 1", "d5c6", id="en-passant-pawn-checks"),
]


@pytest.mark.parametrize("fen,move", CHECKING_MOVES)
def test_checkers_after_a_move_are_those_python_chess_sees(fen, move):
    board, reference = Board(fen), chess.Board(fen)
    board.push(move)
    reference.push_uci(move)
    assert sorted(board.checkers()) == sorted(chess.square_name(s) for s in reference.checkers())
    assert sorted(board.legal_moves()) == chess_uci_moves(reference)
    assert board.perft(2) == chess_perft(reference, 2)


# ---------------------------------------------------------------------------
# Promotions
# ---------------------------------------------------------------------------
def test_promotion_requires_the_piece_letter():
    board = Board(PROMO_FEN)
    promotions = sorted(m for m in board.legal_moves() if m.startswith("a7a8"))
    assert promotions == ["a7a8b", "a7a8n", "a7a8q", "a7a8r"]
    for bad in ("a7a8", "a7a8k", "a7a8p", "a7a8Q"):
        before = engine_state(board)
        with pytest.raises(ValueError):
            board.push(bad)
        assert engine_state(board) == before
    for piece in "qrbn":
        board.push("a7a8" + piece)
        assert board.fen().split()[0].startswith(piece.upper() + "n2k3")
        assert board.pop() == "a7a8" + piece
    assert board.fen() == PROMO_FEN


def test_capture_promotion_and_black_promotion():
    board = Board(PROMO_FEN)
    board.push("a7b8n")
    assert board.fen().split()[0] == "1N2k3/8/8/8/8/8/7p/4K1N1"
    board.push("h2g1q")
    assert board.fen().split()[0] == "1N2k3/8/8/8/8/8/8/4K1q1"
    assert board.is_check() is True  # the new queen checks along the first rank
    board.pop()
    board.push("h2h1r")
    assert board.fen().split()[0] == "1N2k3/8/8/8/8/8/8/4K1Nr"


# ---------------------------------------------------------------------------
# copy()
# ---------------------------------------------------------------------------
def test_copy_is_independent():
    board = Board(KIWIPETE_FEN)
    board.push("e1g1")
    clone = board.copy()
    assert engine_state(clone) == engine_state(board)
    board_state = engine_state(board)
    clone.push("a6e2")
    assert engine_state(board) == board_state
    assert clone.move_stack == ["e1g1", "a6e2"]
    clone_state = engine_state(clone)
    board.pop()
    board.push("e2a6")
    assert engine_state(clone) == clone_state
    assert clone.pop() == "a6e2"
    assert clone.pop() == "e1g1"
    assert clone.fen() == KIWIPETE_FEN


def test_copy_keeps_chess960_mode_and_is_a_board():
    board = Board(CHESS960_FENS_SMALL[-1], chess960=True)
    clone = board.copy()
    assert isinstance(clone, Board)
    assert clone.chess960 is True
    assert "b1h1" in clone.legal_moves()
    clone.chess960 = False
    assert board.chess960 is True


# ---------------------------------------------------------------------------
# python-chess interop
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("fen,chess960", [(START, False), (KIWIPETE_FEN, False), (CASTLE_FEN, True),
                                          (CHESS960_FENS_SMALL[-1], True), (EP_FENS[0][0], False)])
def test_to_python_chess_replays_the_move_stack(fen, chess960):
    board = Board(fen, chess960=chess960)
    reference = chess.Board(fen, chess960=chess960)
    for _ in range(6):
        moves = board.legal_moves()
        castles = [m for m in moves if reference.is_castling(reference.parse_uci(m))]
        move = (castles or sorted(moves))[0]
        board.push(move)
        reference.push(reference.parse_uci(move))
    pc = board.to_python_chess()
    assert isinstance(pc, chess.Board)
    assert pc.chess960 == chess960
    assert pc.fen() == board.fen() == reference.fen()
    assert [pc.uci(m, chess960=chess960) for m in pc.move_stack] == board.move_stack
    assert pc.root().fen() == chess.Board(fen, chess960=chess960).fen()
    assert chess.polyglot.zobrist_hash(pc) == board.key


@pytest.mark.parametrize("fen,chess960", [(START, False), (KIWIPETE_FEN, False), (CASTLE_FEN, True),
                                          (CHESS960_FENS_SMALL[-1], True), (EP_FENS[2][0], False)])
def test_from_python_chess_keeps_flag_and_move_stack(fen, chess960):
    reference = chess.Board(fen, chess960=chess960)
    for _ in range(6):
        moves = sorted(reference.legal_moves, key=lambda m: (not reference.is_castling(m), m.uci()))
        reference.push(moves[0])
    board = Board.from_python_chess(reference)
    assert isinstance(board, Board)
    assert board.chess960 == chess960
    expected_stack = []
    replay = reference.root()
    for move in reference.move_stack:
        expected_stack.append(replay.uci(move, chess960=chess960))
        replay.push(move)
    assert board.move_stack == expected_stack
    assert_matches_python_chess(board, reference)
    while expected_stack:
        assert board.pop() == expected_stack.pop()
    assert board.fen() == reference.root().fen()
    # The source board was not disturbed.
    assert len(reference.move_stack) == 6


def test_python_chess_roundtrip():
    board = Board(CASTLE_FEN, chess960=True)
    for move in ("e1h1", "e8a8", "f1f7", "d8d2"):
        board.push(move)
    again = Board.from_python_chess(board.to_python_chess())
    assert engine_state(again) == engine_state(board)
