"""Perft speed: leaf nodes counted in compiled code, bulk counting at the last ply.

Each case runs ``rounds`` timed rounds of ``iterations`` calls (after two warm-up
rounds); pytest-benchmark compares the median round.
"""
import pytest

from fianchetto import Board

# (position, depth, leaf nodes, rounds, iterations per round)
CASES = [
    ("startpos", 4, 197_281, 80, 5),
    ("startpos", 5, 4_865_609, 50, 1),
    ("kiwipete", 3, 97_862, 80, 10),
    ("kiwipete", 4, 4_085_603, 50, 1),
]


@pytest.mark.benchmark(group="perft")
@pytest.mark.parametrize(
    "name, depth, expected, rounds, iterations",
    CASES,
    ids=[f"{name}-d{depth}" for name, depth, *_ in CASES],
)
def test_perft(benchmark, record_rate, positions, name, depth, expected, rounds, iterations):
    board = Board(positions[name])
    nodes = benchmark.pedantic(
        board.perft, args=(depth,), rounds=rounds, iterations=iterations, warmup_rounds=2
    )
    assert nodes == expected
    record_rate(nodes, "nodes")
