"""The engine inside Python: ``from fianchetto import Engine``.

>>> from fianchetto import Engine, Board
>>> engine = Engine()
>>> result = engine.analyse(Board(), depth=6)
>>> result.best_move in Board().legal_moves(), sum(result.wdl)
(True, 1000)
>>> engine.close()

An :class:`Engine` holds its own hash table and threads; the search runs in the
compiled core with the GIL released, so other Python threads go on meanwhile
and :meth:`Engine.stop` from one of them ends a running search. Positions are a
Fianchetto :class:`~fianchetto.Board` or a python-chess ``chess.Board``; scores
are normalised centipawns (100 = a 50% chance to win, :mod:`fianchetto.wdl`) or
mates, with python-chess's ``PovScore`` one call away. Each Engine evaluates
with its own choice of network (the shipped one unless ``eval_file`` names
another, or ``"none"`` for the hand-crafted evaluation); Engines that name the
same file share its weights, and no Engine's choice changes another's.
"""
from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple, Union

import chess
import chess.engine

from fianchetto.board import Board
from fianchetto.score import Score, SearchInfo, event_from_core, normalised
from fianchetto.timeman import plan
from fianchetto.wdl import WdlModel, load_model, material_of_fen


@dataclass(frozen=True)
class Line:
    """One principal variation: its moves (UCI), score and WDL for the side to move."""

    pv: List[str]
    score: Score
    wdl: Tuple[int, int, int]
    depth: int
    seldepth: int
    multipv: int

    @property
    def move(self) -> str:
        return self.pv[0]


@dataclass(frozen=True)
class Analysis:
    """What a search found: its lines (best first), nodes and the side to move."""

    lines: List[Line]
    nodes: int
    turn: bool            # chess.WHITE or chess.BLACK: whose view the scores are
    time_ms: int = 0

    @property
    def best_move(self) -> str:
        return self.lines[0].move

    @property
    def pv(self) -> List[str]:
        return self.lines[0].pv

    @property
    def score(self) -> Score:
        return self.lines[0].score

    @property
    def wdl(self) -> Tuple[int, int, int]:
        return self.lines[0].wdl

    @property
    def depth(self) -> int:
        return self.lines[0].depth

    def pov_score(self, line: int = 0) -> chess.engine.PovScore:
        """The score of a line as python-chess's ``PovScore``."""
        score = self.lines[line].score
        relative = chess.engine.Mate(score.value) if score.is_mate else chess.engine.Cp(score.value)
        return chess.engine.PovScore(relative, self.turn)


def as_board(board: Union[Board, chess.Board]) -> Board:
    if isinstance(board, chess.Board):
        if not board.is_valid():
            raise ValueError(f"not a legal position: {board.status()!r}")
        return Board.from_python_chess(board)
    if isinstance(board, Board):
        return board.copy()
    from core_cy.core import Board as CoreBoard

    if isinstance(board, CoreBoard):
        return Board(board.fen(), chess960=board.chess960)
    raise ValueError(f"a position must be a fianchetto.Board or a chess.Board, not {type(board).__name__}")


def limits_for(depth: Optional[int], nodes: Optional[int], movetime: Optional[float], multipv: int,
               clock: Optional[float] = None, increment: float = 0.0) -> Dict[str, Any]:
    """The core's limits; ValueError for a negative or missing limit. A ``clock``
    (the side to move's time left, seconds, with its ``increment``) is planned as
    the UCI engine plans ``wtime``/``btime`` (:func:`fianchetto.timeman.plan`, no
    move overhead) and the search stretches it the same way."""
    for name, value in (("depth", depth), ("nodes", nodes), ("movetime", movetime), ("clock", clock)):
        if value is not None and value <= 0:
            raise ValueError(f"{name} must be positive, not {value}")
    if increment < 0:
        raise ValueError(f"increment must not be negative, not {increment}")
    if depth is None and nodes is None and movetime is None and clock is None:
        raise ValueError("give a limit: depth, nodes, movetime or clock (seconds)")
    if not 1 <= multipv <= 256:
        raise ValueError(f"multipv must be 1..256, not {multipv}")
    limits: Dict[str, Any] = {"depth": int(depth or 0), "nodes": int(nodes or 0), "multipv": int(multipv)}
    if movetime is not None:
        ms = max(1, int(movetime * 1000))
        limits.update(soft_ms=ms, hard_ms=ms)
    elif clock is not None:
        planned = plan(time_left=int(clock * 1000), increment=int(increment * 1000))
        limits.update(soft_ms=planned.soft_ms, hard_ms=planned.hard_ms, adaptive_time=True)
    return limits


class Engine:
    """A search engine in this process: ``analyse``, ``play``, ``stop``, ``close``."""

    def __init__(self, hash_mb: int = 16, threads: int = 1, eval_file: Optional[str] = None) -> None:
        from core_cy.core import Search

        from fianchetto import evaluation

        self.network = evaluation.for_tool(eval_file)        # NetworkError is a ValueError
        path = evaluation.resolve(eval_file or "")
        self.wdl_model: WdlModel
        self.wdl_model, wdl_problem = load_model(path if eval_file != "none" else None)
        if wdl_problem:
            warnings.warn(wdl_problem, stacklevel=2)
        self._search = Search(hash_mb=hash_mb, threads=threads, network=self.network)
        self._lock = threading.Lock()

    def analyse(self, board: Union[Board, chess.Board], *, depth: Optional[int] = None,
                nodes: Optional[int] = None, movetime: Optional[float] = None, multipv: int = 1,
                clock: Optional[float] = None, increment: float = 0.0) -> Analysis:
        """Search ``board`` within the limits (``movetime``, ``clock`` and ``increment``
        in seconds); the lines found, best first. ValueError for an illegal or
        finished position or a bad limit."""
        ours = as_board(board)
        if not ours.legal_moves():
            raise ValueError("the game is over: no legal move in this position")
        limits = limits_for(depth, nodes, movetime, multipv, clock, increment)
        exact: Dict[int, SearchInfo] = {}
        closing: Dict[int, SearchInfo] = {}

        def on_info(report: Any) -> None:
            event = event_from_core(report)
            if isinstance(event, SearchInfo) and event.bound is None and event.pv:
                (closing if event.final else exact)[event.multipv or 1] = event

        with self._lock:
            search = self._open_search()
            search.go(ours, info=on_info, **limits)
            nodes_done = int(search.nodes)
        # The closing report gives every line, each root move once; the lines of
        # the iterations before it may name a move twice once the order changed.
        final = closing or exact
        material = material_of_fen(ours.fen())
        lines = [self._line(final[k], material) for k in sorted(final)]
        if not lines:
            raise RuntimeError("the search reported no line")
        return Analysis(lines, nodes_done, bool(ours.turn), time_ms=max(e.time or 0 for e in final.values()))

    def play(self, board: Union[Board, chess.Board], **limits: Any) -> str:
        """The move to play (UCI), after a search within the limits."""
        return self.analyse(board, **limits).best_move

    def stop(self) -> None:
        """End the running search (from any thread); it returns what it has found."""
        search = self._search
        if search is not None:
            search.stop()

    def close(self) -> None:
        """Free the hash table (the Engine cannot search afterwards)."""
        with self._lock:
            self._search = None
            self.network = None

    def _open_search(self) -> Any:
        """The search, or a clear error once the Engine is closed."""
        if self._search is None:
            raise RuntimeError("this Engine is closed; create a new one")
        return self._search

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _line(self, event: SearchInfo, material: int) -> Line:
        shown, wdl = normalised(event.score or Score.cp(0), self.wdl_model, material)
        return Line(list(event.pv), shown, wdl, event.depth, event.seldepth or event.depth, event.multipv or 1)
