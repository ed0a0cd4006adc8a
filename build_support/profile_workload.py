"""The workload of a profile-guided build (``pgo.py``): what the instrumented core
runs between the two compilations, so that the compiler lays the second one out
for the paths a search takes.

Every variant of the core that this CPU runs, imported side by side, searches
the bench positions to a fixed depth with the shipped network and counts perft
from two positions. Only the built core is needed (no python-chess: a build
environment has none); the positions and the network are given by path.

    python -m build_support.profile_workload NETWORK BENCHMARK_PY [DEPTH] [--report FILE]

It prints one line per variant, and with ``--report`` writes the same as JSON
(``{"variants": {"avx2": nodes, ...}}``), which the build reads.
"""
import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Dict, List, Tuple

from core_cy import dispatch
from build_support.literals import module_constant

DEFAULT_DEPTH = 10
PERFT_POSITIONS = (
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
)


def bench_fens(benchmark_py: Path) -> Tuple[str, ...]:
    """BENCH_FENS of fianchetto/benchmark.py, read without importing the package."""
    return tuple(module_constant(benchmark_py, "BENCH_FENS"))


def exercise(name: str, network: bytes, fens: Tuple[str, ...], depth: int) -> int:
    """Search and perft with one variant; the nodes it visited."""
    module = importlib.import_module(f"core_cy._core_{name}")
    search = module.Search(hash_mb=16, network=module.load_network(network))
    search.clear()
    nodes = 0
    for fen in fens:
        search.go(module.Board(fen), depth=depth)
        nodes += int(search.nodes)
    for fen, perft_depth in PERFT_POSITIONS:
        nodes += module.Board(fen).perft(perft_depth)
    return nodes


def parse_arguments(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m build_support.profile_workload",
                                     usage="%(prog)s NETWORK BENCHMARK_PY [DEPTH] [--report FILE]")
    parser.add_argument("network", type=Path)
    parser.add_argument("benchmark_py", type=Path)
    parser.add_argument("depth", type=int, nargs="?", default=DEFAULT_DEPTH)
    parser.add_argument("--report", type=Path, help="write the variants run and their nodes as JSON")
    return parser.parse_args(argv)


def main(argv: List[str]) -> int:
    args = parse_arguments(argv)
    network = args.network.read_bytes()
    fens = bench_fens(args.benchmark_py)
    ran: Dict[str, int] = {}
    for name in dispatch.runnable_variants():
        ran[name] = exercise(name, network, fens, args.depth)
        print(f"profile workload: {name}: {ran[name]} nodes", flush=True)
    if args.report is not None:
        args.report.write_text(json.dumps({"variants": ran}), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
