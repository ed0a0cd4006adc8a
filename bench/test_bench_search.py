"""Search speed: the whole ``bench`` list searched to a fixed depth.

One call is ``run_bench(depth)``: every bench position with one fresh 16 MB
table, one thread, exactly as ``fianchetto bench`` does, so the node count is
the search's signature and must be identical in every round. The rate recorded
is nodes per second of CPU time.
"""
import pytest

from fianchetto.benchmark import BENCH_FENS, run_bench

#: About 0.2 s per call on the reference machine.
SEARCH_DEPTH = 8
#: A few positions searched deeper, one benchmark each: opening, middlegame, endgame.
SINGLE_CASES = [
    ("opening", BENCH_FENS[0], 11),
    ("kiwipete", BENCH_FENS[1], 9),
    ("endgame", "8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1", 16),
]


@pytest.mark.benchmark(group="search")
def test_bench_list_to_fixed_depth(benchmark, record_rate):
    expected = run_bench(SEARCH_DEPTH).nodes
    result = benchmark.pedantic(run_bench, args=(SEARCH_DEPTH,), rounds=12, warmup_rounds=1)
    assert result.nodes == expected
    record_rate(result.nodes, "nodes")


@pytest.mark.benchmark(group="search")
@pytest.mark.parametrize("name, fen, depth", SINGLE_CASES, ids=[name for name, _, _ in SINGLE_CASES])
def test_single_position_to_fixed_depth(benchmark, record_rate, name, fen, depth):
    expected = run_bench(depth, fens=(fen,)).nodes
    result = benchmark.pedantic(run_bench, args=(depth,), kwargs={"fens": (fen,)}, rounds=12, warmup_rounds=1)
    assert result.nodes == expected and result.lines[0].best is not None
    record_rate(result.nodes, "nodes")
