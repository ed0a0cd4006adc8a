"""Scores and search reports, typed.

A :class:`Score` is the search's opinion of a position for the side to move:
centipawns, or a mate in a number of moves (negative when the side to move is
mated), as python-chess has ``Cp`` and ``Mate``. The core reports scores in its
own units; :meth:`Score.from_core` is the one place they are read.

>>> Score.cp(25).uci()
'cp 25'
>>> Score.mate(-2).uci()
'mate -2'
>>> Score.from_core(SCORE_MATE - 3)          # mate in 3 plies: in 2 moves
Score(kind='mate', value=2)
>>> Score.mate(1).as_cp() > Score.mate(3).as_cp() > Score.cp(900).as_cp()
True

The search reports through :class:`SearchInfo` (an iteration's result, or the
closing line) and :class:`CurrMove` (the root move being searched);
:func:`event_from_core` turns the core's typed reports into them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, List, Optional, Tuple, Union

from core_cy import core
from core_cy.core import SCORE_MATE, SCORE_MATE_IN_MAX_PLY, SCORE_TB_WIN
from fianchetto.wdl import WdlModel, exact

#: A mate, compared with centipawn scores, counts as this many centipawns
#: (minus its distance in moves).
MATE_CP = 100_000
#: The score of a tablebase win, minus the plies to it (the core's value).
TB_WIN_CP = SCORE_TB_WIN
#: At or beyond this the core's score is a tablebase verdict, not an evaluation
#: (evaluations stay far below: the network's are capped at 15000).
PROVEN_CP = TB_WIN_CP - 1000
#: A report's bound in UCI's words (an exact score has none).
_BOUND_WORDS = {core.REPORT_UPPER: "upperbound", core.REPORT_LOWER: "lowerbound"}


@dataclass(frozen=True)
class Score:
    """A score for the side to move: ``kind`` is ``"cp"`` or ``"mate"``."""

    kind: str
    value: int

    @classmethod
    def cp(cls, centipawns: int) -> "Score":
        return cls("cp", int(centipawns))

    @classmethod
    def mate(cls, moves: int) -> "Score":
        """Mate in ``moves`` (negative: mated in as many; 0: mated now)."""
        return cls("mate", int(moves))

    @classmethod
    def from_core(cls, value: int) -> "Score":
        """The core's score: centipawns, or mate distances in plies near ``SCORE_MATE``."""
        if value >= SCORE_MATE_IN_MAX_PLY:
            return cls.mate((SCORE_MATE - value + 1) // 2)
        if value <= -SCORE_MATE_IN_MAX_PLY:
            return cls.mate(-((SCORE_MATE + value) // 2))
        return cls.cp(value)

    @property
    def is_mate(self) -> bool:
        return self.kind == "mate"

    def as_cp(self) -> int:
        """One number that orders every score: mates beyond any centipawn value,
        nearer mates first.

        >>> Score.mate(-1).as_cp() < Score.mate(-5).as_cp() < Score.cp(-900).as_cp()
        True
        """
        if not self.is_mate:
            return self.value
        return MATE_CP - self.value if self.value > 0 else -MATE_CP - self.value

    def uci(self) -> str:
        """The score as UCI writes it after ``score``."""
        return f"{self.kind} {self.value}"


def normalised(score: Score, model: WdlModel, material: int,
               proven: bool = False) -> Tuple[Score, Tuple[int, int, int]]:
    """A search score as people read it, with its win/draw/loss per mille: centipawns
    normalised by the WDL model at ``material``, or, for a mate or a proven result (a
    tablebase score, or ``proven``), the score as it is and an exact WDL."""
    if score.is_mate:
        return score, exact(1 if score.value > 0 else -1)
    if proven or abs(score.value) >= PROVEN_CP:
        return score, exact((score.value > 0) - (score.value < 0))
    return Score.cp(model.to_cp(score.value, material)), model.wdl(score.value, material)


@dataclass
class SearchInfo:
    """One ``info`` line about the search. ``None`` fields are not reported."""

    depth: int = 0
    score: Optional[Score] = None
    seldepth: Optional[int] = None
    multipv: Optional[int] = None
    bound: Optional[str] = None          # "lowerbound", "upperbound", None when exact
    nodes: Optional[int] = None
    nps: Optional[int] = None
    hashfull: Optional[int] = None
    tbhits: int = 0
    time: Optional[int] = None           # ms since the search started
    pv: List[str] = field(default_factory=list)
    wdl: Optional[Tuple[int, int, int]] = None   # win, draw, loss per mille (UCI_ShowWDL)
    final: bool = False                  # the core's closing line, sent before bestmove
    partial: bool = False                # of a set sent before its iteration completed (not sent)
    proven: bool = False                 # a tablebase verdict: the score is exact (not sent)
    effort: Optional[float] = None       # share of the main thread's nodes spent on this line's first move (not sent)

    @property
    def is_main_line(self) -> bool:
        """The first (or only) principal variation."""
        return self.multipv in (None, 1)

    @property
    def best_and_ponder(self) -> Tuple[str, Optional[str]]:
        """The line's first move and the reply it expects (None when the line ends)."""
        return self.pv[0], (self.pv[1] if len(self.pv) > 1 else None)

    def with_proven_score(self, score_cp: Optional[int]) -> "SearchInfo":
        """This line with the tables' score ``score_cp`` (a root they call drawn, or a
        win or loss the fifty-move rule spoils) in place of the search's centipawns;
        unchanged when there is no such score, no score to replace, or a mate."""
        if score_cp is None or self.score is None or self.score.is_mate:
            return self
        return replace(self, score=Score.cp(score_cp), proven=True)

    @classmethod
    def from_core(cls, report: Any) -> "SearchInfo":
        """The info line of a ``core.SearchReport``: the bound and the speed in UCI's terms."""
        return cls(depth=report.depth, score=Score.from_core(report.score), seldepth=report.seldepth,
                   multipv=report.multipv, bound=_BOUND_WORDS.get(report.bound), nodes=report.nodes,
                   nps=report.nodes * 1000 // max(report.time_ms, 1), hashfull=report.hashfull,
                   tbhits=report.tb_hits, time=report.time_ms, pv=list(report.pv), final=report.final,
                   effort=report.effort, partial=report.partial)


def finished_line(in_check: bool) -> SearchInfo:
    """The report of a position without a legal move, as Stockfish gives it: depth 0
    and the game's result, mated (``mate 0``) or stalemate (``cp 0``), both certain."""
    return SearchInfo(depth=0, score=Score.mate(0) if in_check else Score.cp(0), nodes=0, time=0, proven=True)


@dataclass(frozen=True)
class CurrMove:
    """The root move the search is on (reported in long searches)."""

    depth: int
    currmove: str
    currmovenumber: int


Event = Union[SearchInfo, CurrMove]


def event_from_core(report: Any) -> Event:
    """The typed form of a report from the core's ``info`` callback (a
    ``core.SearchReport`` or ``core.CurrentMoveReport``)."""
    if isinstance(report, core.CurrentMoveReport):
        return CurrMove(report.depth, report.move, report.number)
    return SearchInfo.from_core(report)


def last_main_line_keeper() -> Tuple[List[SearchInfo], Callable[[Any], None]]:
    """A list that holds the last main-line report of a search, and the info
    callback (of a core search's ``go``) that keeps it there."""
    last: List[SearchInfo] = []

    def on_info(report: Any) -> None:
        event = event_from_core(report)
        if isinstance(event, SearchInfo) and event.is_main_line:
            last[:] = [event]

    return last, on_info
