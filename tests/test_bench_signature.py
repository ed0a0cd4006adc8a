"""``fianchetto bench``: the fixed position set and its node-count signature."""
from __future__ import annotations

import re

import chess
import pytest

from support.cli import run_cli
from fianchetto.benchmark import BENCH_FENS, DEFAULT_DEPTH, run_bench
from support.uci_pipe import UciPipe

NODES = re.compile(r"^Nodes searched: (\d+)$")
NPS = re.compile(r"^Nodes/second: (\d+)$")

#: The search's signature: total bench nodes at SIGNATURE_DEPTH. Any change to
#: search behaviour (ordering, pruning, evaluation, TT) moves it; update it in
#: the same commit, with the new figure in the commit message ("Bench: N").
SIGNATURE_DEPTH = 8
SIGNATURE_NODES = 163279  # bench depth 8 with the shipped network (generation 8), tuned constants


# run_bench evaluates with the engine's default (the shipped network, as
# ``fianchetto bench`` and the UCI engine start) unless told otherwise.


def test_bench_positions_are_varied_and_valid():
    assert len(BENCH_FENS) >= 30
    assert len(set(BENCH_FENS)) == len(BENCH_FENS)
    phases = {"opening": 0, "middlegame": 0, "endgame": 0}
    for fen in BENCH_FENS:
        board = chess.Board(fen)
        assert board.is_valid(), fen
        assert not board.is_game_over(), fen
        assert not board.chess960
        assert board.fen() == fen, f"not in python-chess's canonical form: {fen}"
        pieces = chess.popcount(board.occupied)
        phases["opening" if pieces >= 30 else "middlegame" if pieces >= 16 else "endgame"] += 1
    assert all(count >= 2 for count in phases.values()), phases
    assert sum(1 for fen in BENCH_FENS if chess.Board(fen).turn == chess.BLACK) >= 5


def parse_bench(stdout: str):
    lines = stdout.strip().splitlines()
    nodes = NODES.match(lines[-2])
    nps = NPS.match(lines[-1])
    assert nodes and nps, lines[-4:]
    return int(nodes.group(1)), int(nps.group(1))


def test_bench_node_count_is_identical_on_every_run():
    counts = []
    for _ in range(2):
        proc = run_cli(["bench", "7"], timeout=120)
        assert proc.returncode == 0, proc.stderr
        nodes, nps = parse_bench(proc.stdout)
        assert nodes > 0 and nps > 0
        counts.append(nodes)
        # one progress line per position, on stderr; stdout is only the summary
        assert len([l for l in proc.stderr.splitlines() if l.startswith("Position:")]) == len(BENCH_FENS)
        assert len(proc.stdout.strip().splitlines()) <= 5
    assert counts[0] == counts[1]
    # the same signature in-process, through the Python API
    assert run_bench(7).nodes == counts[0]


def test_bench_signature():
    """The node count at SIGNATURE_DEPTH is the search's fingerprint."""
    nodes = run_bench(SIGNATURE_DEPTH).nodes
    print(f"bench depth {SIGNATURE_DEPTH}: {nodes} nodes")
    if SIGNATURE_NODES is None:
        pytest.skip(f"no signature recorded yet (now {nodes})")
    assert nodes == SIGNATURE_NODES, (
        f"bench signature changed: {nodes} != {SIGNATURE_NODES}. If the search change is "
        f"intended, update SIGNATURE_NODES in tests/test_bench_signature.py."
    )


def test_bench_results_are_sane():
    result = run_bench(5)
    assert len(result.lines) == len(BENCH_FENS)
    for line in result.lines:
        board = chess.Board(line.fen)
        assert line.best is not None and chess.Move.from_uci(line.best) in board.legal_moves
        assert line.depth == 5 and line.nodes > 0


def test_bench_default_depth_and_bad_arguments():
    assert 8 <= DEFAULT_DEPTH <= 20
    for args in (["bench", "0"], ["bench", "x"], ["bench", "99"]):
        proc = run_cli(args, timeout=60)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_bench_default_depth_runs():
    proc = run_cli(["bench"], timeout=300)
    assert proc.returncode == 0, proc.stderr
    nodes, nps = parse_bench(proc.stdout)
    total = re.search(r"Total time \(ms\) : (\d+)", proc.stdout)
    print(f"bench depth {DEFAULT_DEPTH}: {nodes} nodes, {nps} nps, {total.group(1) if total else '?'} ms")


def test_bench_from_the_uci_loop():
    pipe = UciPipe()
    try:
        pipe.sync()
        pipe.send("bench 4")
        lines = pipe.read_until(lambda l: l.startswith("Nodes/second"), timeout=120)
        assert NODES.match(lines[-2])
        assert int(NODES.match(lines[-2]).group(1)) == run_bench(4).nodes
        assert sum(1 for l in lines if l.startswith("info string Position:")) == len(BENCH_FENS)
        pipe.send("bench lots")
        assert any("bench" in l for l in pipe.sync())
        assert pipe.quit() == 0
    finally:
        pipe.close()
