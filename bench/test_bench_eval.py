"""Evaluation speed: ``Board.evaluate_rounds(n)`` evaluates one position ``n``
times in compiled code (no cache, so every round is the whole evaluation:
material, tables, pawns, mobility, king safety and the rest).
"""
import pytest

from fianchetto import Board

# (position, rounds per call): a few milliseconds per call.
CASES = [
    ("startpos", 20_000),
    ("kiwipete", 20_000),
    ("position3", 40_000),
    ("position4", 20_000),
    ("position5", 20_000),
]


@pytest.mark.benchmark(group="evaluate")
@pytest.mark.parametrize("name, rounds", CASES, ids=[name for name, _ in CASES])
def test_evaluate(benchmark, record_rate, positions, name, rounds):
    board = Board(positions[name])
    score = benchmark.pedantic(board.evaluate_rounds, args=(rounds,), rounds=50, warmup_rounds=2)
    assert score == board.evaluate()
    record_rate(rounds, "evaluations")
