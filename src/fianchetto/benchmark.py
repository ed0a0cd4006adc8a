"""``fianchetto bench``: a fixed set of positions searched to a fixed depth.

The total node count is the search's signature: it is the same on every run
and every machine (Threads=1, a fresh 16 MB hash cleared once at the start, the
positions always in this order), and it changes whenever the search's behaviour
changes. Nodes/second is the speed figure.

Positions: Stockfish's default bench list (``src/benchmark.cpp``, GPL-3.0, as
in Stockfish 15/16), standard chess only. The two entries written there as
``<fen> moves ...`` are given here as the FENs those moves reach; the mate,
stalemate and dead-draw entries (no search to do) and the Chess960 entry are
left out. Every FEN was checked with python-chess (valid, not game over);
``tests/test_bench_signature.py`` checks it again.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Tuple

from fianchetto.options import clip
from fianchetto.score import Score, last_main_line_keeper

#: Depth searched when ``bench`` is given none.
DEFAULT_DEPTH = 13
#: Deepest ``bench`` accepted.
MAX_BENCH_DEPTH = 64
#: Hash size for the bench, fixed so the node count is reproducible.
BENCH_HASH_MB = 16

BENCH_FENS: Tuple[str, ...] = (
    # Openings and early middlegames
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    # Middlegames, many of them tactical
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "rq3rk1/ppp2ppp/1bnpN3/3N2B1/4P3/7P/PPPQ1PP1/2KR3R b - - 0 14",
    "r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4PpP1/1BNP4/PPP2P1P/3R1RK1 b - g3 0 14",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
    "3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
    "r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18",
    "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
    "3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26",
    "6k1/3b3r/1p1p4/p1n2p2/1PPNpP1q/P3Q1p1/1R1RB1P1/5K2 b - - 0 1",
    "r2r1n2/pp2bk2/2p1p2p/3q4/3PN1QP/2P3R1/P4PP1/5RK1 w - - 0 1",
    "1r3k2/4q3/2Pp3b/3Bp3/2Q2p2/1p1P2P1/1P2KP2/3N4 w - - 0 1",
    "6k1/6p1/P6p/r1N5/5p2/7P/1b3PP1/4R1K1 w - - 0 1",
    "6k1/4pp1p/3p2p1/P1pPb3/R7/1r2P1PP/3B1P2/6K1 w - - 0 1",
    # Endgames: queen, rook, minor pieces, pawns
    "8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
    "7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "2K5/p7/7P/5pR1/8/5k2/r7/8 w - - 4 3",
    "5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
    "8/pp2r1k1/2p1p3/3pP2p/1P1P1P1P/P5KR/8/8 w - - 0 1",
    "8/R7/2q5/8/6k1/8/1P5p/K6R w - - 0 124",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "8/3p4/p1bk3p/Pp6/1Kp1PpPp/2P2P1P/2P5/5B2 b - - 0 1",
    "8/3p3B/5p2/5P2/p7/PP5b/k7/6K1 w - - 0 1",
    "8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1",
    "8/1p3pp1/7p/5P1P/2k3P1/8/2K2P2/8 w - - 0 1",
    # Few pieces: wins to find
    "8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1",
    "8/8/8/5N2/8/p7/8/2NK3k w - - 0 1",
    "8/8/1P6/5pr1/8/4R3/7k/2K5 w - - 0 1",
    "8/2p4P/8/kr6/6R1/8/8/1K6 w - - 0 1",
    "8/8/3P3k/8/1p6/8/1P6/1K3n2 b - - 0 1",
)


@dataclass
class BenchLine:
    fen: str
    nodes: int
    ms: int
    best: Optional[str]
    score: Optional[Score]
    depth: int


@dataclass
class BenchResult:
    depth: int
    lines: List[BenchLine] = field(default_factory=list)
    ms: int = 0

    @property
    def nodes(self) -> int:
        return sum(line.nodes for line in self.lines)

    @property
    def nps(self) -> int:
        return self.nodes * 1000 // max(1, self.ms)

    def summary_lines(self) -> List[str]:
        """The closing report; the last two lines are what tools parse."""
        return [
            "===========================",
            f"Total time (ms) : {self.ms}",
            f"Nodes searched: {self.nodes}",
            f"Nodes/second: {self.nps}",
        ]


def bench_depth(text: Optional[str]) -> int:
    """The depth a ``bench`` command asks for (:data:`DEFAULT_DEPTH` when none);
    ValueError unless it is 1 to :data:`MAX_BENCH_DEPTH`."""
    if text is None:
        return DEFAULT_DEPTH
    if not text.isdigit() or not 1 <= int(text) <= MAX_BENCH_DEPTH:
        raise ValueError(f"bench takes an optional depth 1..{MAX_BENCH_DEPTH}, not {clip(text, 20)!r}")
    return int(text)


#: run_bench's default evaluation: the shipped network, as the engine starts.
SHIPPED = "shipped"


def run_bench(
    depth: int = DEFAULT_DEPTH,
    *,
    fens: Tuple[str, ...] = BENCH_FENS,
    hash_mb: int = BENCH_HASH_MB,
    progress: Optional[Callable[[str], None]] = None,
    network: Any = SHIPPED,
) -> BenchResult:
    """Search every position to ``depth`` with one fresh search (cleared once),
    evaluating with ``network``: a LoadedNetwork, None for the hand-crafted
    evaluation, or SHIPPED for the shipped network, as the engine starts
    (:class:`fianchetto.evaluation.NetworkError` when that file is refused)."""
    from core_cy.core import Search

    from fianchetto.board import Board

    if isinstance(network, str):
        from fianchetto import evaluation

        network = evaluation.for_tool(None)
    search = Search(hash_mb=hash_mb, network=network)
    search.clear()
    result = BenchResult(depth)
    started = time.perf_counter()
    for index, fen in enumerate(fens, 1):
        last, on_info = last_main_line_keeper()
        t0 = time.perf_counter()
        best, _ = search.go(Board(fen), depth=depth, info=on_info)
        ms = int((time.perf_counter() - t0) * 1000)
        score = last[0].score if last else None
        line = BenchLine(fen, int(search.nodes), ms, best, score, last[0].depth if last else 0)
        result.lines.append(line)
        if progress is not None:
            progress(
                f"Position: {index}/{len(fens)} depth {line.depth} nodes {line.nodes} "
                f"time {ms} ms best {best} score {score.uci() if score else '-'} fen {fen}"
            )
    result.ms = int((time.perf_counter() - started) * 1000)
    return result
