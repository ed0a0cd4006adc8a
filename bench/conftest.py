"""Shared set-up for the benchmark suites.

The suites here are not part of the default test run (``pyproject.toml`` sets
``testpaths = ["tests"]``); run them with ``pytest bench`` from the repository
root. How to save a baseline and compare against it: ``bench/README.md``.

Each suite is one ``test_bench_<topic>.py`` file; every benchmark asserts the
answer it computed, so a fast but wrong build cannot pass as an improvement.
"""
from __future__ import annotations

import time
from typing import Callable

import pytest

from fianchetto import START_FEN, Board

WARM_UP_SECONDS = 1.0

# The standard perft positions (chessprogramming.org "Perft Results").
POSITIONS = {
    "startpos": START_FEN,
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "position3": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "position4": "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "position5": "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
}


@pytest.fixture(scope="session", autouse=True)
def warm_up_cpu() -> None:
    """Keep the CPU busy for a second before the first measurement.

    A machine that was idle runs the first benchmarks of a session measurably
    slower (clock ramp-up, cold caches); one warm-up round per benchmark does not
    cover that."""
    board = Board()
    end = time.perf_counter() + WARM_UP_SECONDS
    while time.perf_counter() < end:
        board.perft(4)


@pytest.fixture
def positions() -> dict:
    """Name -> FEN of the positions the suites measure."""
    return POSITIONS


@pytest.fixture
def record_rate(benchmark) -> Callable[[int, str], None]:
    """Store ``count`` items per call and the rate at the median as extra_info.

    Call it after ``benchmark.pedantic``; the rate then shows up in the saved
    JSON next to the timings (``extra_info``), e.g. ``nodes_per_second``.
    """

    def record(count: int, unit: str) -> None:
        median = benchmark.stats.stats.median
        benchmark.extra_info[unit] = count
        if median > 0:
            benchmark.extra_info[f"{unit}_per_second"] = round(count / median)

    return record
