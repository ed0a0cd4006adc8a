"""Make/unmake speed: ``Board.make_unmake(n)`` plays and takes back every legal
move of the position ``n`` times in compiled code (move generation runs once,
outside the loop), so the time is do_move + undo_move, incremental key and
checkers included.
"""
import pytest

from fianchetto import Board

# (position, make_unmake rounds per call): about 0.5 million moves per call.
CASES = [
    ("startpos", 25_000),      # 20 quiet moves
    ("kiwipete", 10_000),      # 48 moves: captures, both castlings
    ("position3", 35_000),     # 14 moves: rook and pawn endgame, checks
    ("position4", 80_000),     # 6 moves: promotions with capture, in check
    ("position5", 12_000),     # 44 moves: promotions, castling
]


@pytest.mark.benchmark(group="make_unmake")
@pytest.mark.parametrize("name, rounds", CASES, ids=[name for name, _ in CASES])
def test_make_unmake(benchmark, record_rate, positions, name, rounds):
    board = Board(positions[name])
    fen = board.fen()
    moves = len(board.legal_moves())
    made = benchmark.pedantic(board.make_unmake, args=(rounds,), rounds=50, warmup_rounds=2)
    assert made == moves * rounds
    assert board.fen() == fen and board._check_invariants()
    record_rate(made, "moves")
