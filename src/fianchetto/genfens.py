"""``genfens``: opening positions for OpenBench's datagen workloads.

OpenBench's client asks an engine for openings with

    ./engine "genfens N seed S book <None|FILE.epd> [extra ...]" "quit"

and reads every line that starts with ``info string genfens `` as one FEN. The
openings are made as ``fianchetto datagen`` makes its own: from the standard
position (or, with a book, a position of the book chosen by the seed; or, for a
share of them, a double Chess960 start) ``RANDOM_PLIES`` uniformly random legal
moves, kept when the position is not over and a short search
(``CHECK_NODES`` nodes) scores it within ``MAX_SCORE`` of equality, the same
bounds datagen applies to its games. The same seed gives the same lines.

Extras: ``dfrc=P`` (or ``dfrc``, P = 0.1) starts that share of the openings
from double Chess960 positions (Shredder-FEN castling); ``plies=K`` changes the
number of random moves. Anything else is reported and ignored.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Iterator, List, Optional

from fianchetto.board import START_FEN, Board

RANDOM_PLIES = 8
CHECK_NODES = 5000
MAX_SCORE = 400               # the search's units, as datagen's max_opening_score
MAX_ATTEMPTS = 1000           # per opening: tries before the bounds are given up
DEFAULT_DFRC = 0.1
PREFIX = "info string genfens "


@dataclass
class Request:
    count: int
    seed: int
    book: Optional[str] = None
    dfrc: float = 0.0
    plies: int = RANDOM_PLIES


def parse(tokens: List[str], problems: List[str]) -> Request:
    """``N seed S book B [extra...]``; ValueError for what cannot be used."""
    if len(tokens) < 3 or tokens[1] != "seed" or not tokens[0].isdigit() \
            or not tokens[2].lstrip("-").isdigit():
        raise ValueError("genfens: usage: genfens N seed S [book FILE|None] [extra...]")
    request = Request(count=int(tokens[0]), seed=int(tokens[2]))
    rest = tokens[3:]
    if rest[:1] == ["book"]:
        if len(rest) < 2:
            raise ValueError("genfens: book needs a file or None")
        request.book = None if rest[1].lower() == "none" else rest[1]
        rest = rest[2:]
    for extra in rest:
        name, _, value = extra.partition("=")
        try:
            if name == "dfrc":
                request.dfrc = min(1.0, max(0.0, float(value) if value else DEFAULT_DFRC))
            elif name == "plies" and value:
                request.plies = max(0, min(40, int(value)))
            else:
                problems.append(f"genfens: extra {extra[:40]!r} not understood; ignored")
        except ValueError:
            problems.append(f"genfens: extra {extra[:40]!r} has no usable value; ignored")
    return request


def read_book(path: str) -> List[str]:
    """The positions of an EPD book (first four fields of each line), checked."""
    positions = []
    with open(path, encoding="utf-8", errors="replace") as book:
        for line in book:
            fields = line.split()
            if len(fields) >= 4 and not line.startswith("#"):
                fen = " ".join(fields[:4]) + " 0 1"
                try:
                    Board(fen)
                except ValueError:
                    continue
                positions.append(fen)
    if not positions:
        raise ValueError(f"genfens: no position in book {path}")
    return positions


def start_of(rng: random.Random, request: Request, book: List[str]) -> Board:
    if request.dfrc and rng.random() < request.dfrc:
        from fianchetto.learn.selfplay import dfrc_fen

        return Board(dfrc_fen(rng.randrange(960), rng.randrange(960)), chess960=True)
    return Board(rng.choice(book) if book else START_FEN)


def random_walk(board: Board, plies: int, rng: random.Random) -> bool:
    """Play `plies` random legal moves; False when the game ends on the way or after."""
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            return False
        board.push(rng.choice(moves))
    return bool(board.legal_moves())


def openings(request: Request, score_of: Callable[[Board], Optional[int]]) -> Iterator[str]:
    """`request.count` FENs; `score_of` gives a short search's score (None: keep)."""
    book = read_book(request.book) if request.book else []
    rng = random.Random(request.seed * 0x9E3779B97F4A7C15 + 0x6E6F)
    for _ in range(request.count):
        fen = None
        for attempt in range(MAX_ATTEMPTS):
            board = start_of(rng, request, book)
            if not random_walk(board, request.plies, rng):
                continue
            score = score_of(board)
            fen = board.fen()
            if score is None or abs(score) <= MAX_SCORE or attempt == MAX_ATTEMPTS - 1:
                break
        if fen is not None:
            yield fen


def search_score(search: Any) -> Callable[[Board], Optional[int]]:
    """A short fixed-node search of `search` (a core Search), its last score."""
    from fianchetto.score import last_main_line_keeper

    def score_of(board: Board) -> Optional[int]:
        last, on_info = last_main_line_keeper()
        search.clear()
        search.go(board, nodes=CHECK_NODES, info=on_info)
        score = last[0].score if last else None
        return score.as_cp() if score is not None else None

    return score_of
