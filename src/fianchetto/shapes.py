"""python-chess's shapes for :class:`fianchetto.Engine`: limits in, InfoDicts out, a stream.

``Engine.analyse(board, chess.engine.Limit(...))``, ``Engine.play(board, Limit)``
and ``Engine.analysis(board)`` answer as ``chess.engine.SimpleEngine`` does;
this module converts between the two worlds:

* :func:`core_limits`: a ``Limit`` as the core's limits. Time, depth, nodes,
  mate and the clock combine, the first reached ending the search; the clock
  (``white_clock``/``black_clock``, increments, ``remaining_moves``) is planned
  as the UCI engine plans ``wtime``/``btime``, and ``time`` wins over it as
  ``movetime`` does.
* :func:`info_dict`: one search line as an ``InfoDict`` (``score`` a
  ``PovScore``, ``wdl`` a ``PovWdl``, ``pv`` a list of ``chess.Move``, ``time``
  in seconds), filtered by the ``info`` selector as python-chess filters.
* :class:`AnalysisStream`: a search on a thread of its own, used as
  python-chess's ``SimpleAnalysisResult`` is.
"""
from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence

import chess
import chess.engine

from fianchetto.score import Score, SearchInfo, normalised
from fianchetto.timeman import plan
from fianchetto.wdl import WdlModel

Info = chess.engine.Info
InfoDict = Dict[str, Any]


def core_limits(limit: chess.engine.Limit, white_to_move: bool, multipv: int, *,
                infinite: bool = False, overhead_ms: int = 0) -> Dict[str, Any]:
    """The core's limits for ``limit``; ValueError for a negative value or, unless
    ``infinite`` (a stream searches until stopped), for a Limit that limits nothing.
    A clock or a time is planned as the UCI engine plans ``go`` with ``overhead_ms``
    as its ``Move Overhead``."""
    for name in ("time", "depth", "nodes", "mate", "white_clock", "black_clock", "white_inc", "black_inc",
                 "remaining_moves"):
        value = getattr(limit, name)
        if value is not None and value < 0:
            raise ValueError(f"Limit.{name} must not be negative, not {value}")
    clock = limit.white_clock if white_to_move else limit.black_clock
    increment = (limit.white_inc if white_to_move else limit.black_inc) or 0.0
    bounded = any(value is not None for value in (limit.time, limit.depth, limit.nodes, limit.mate, clock))
    if not bounded and not infinite:
        raise ValueError("the Limit limits nothing: give time, depth, nodes, mate or the mover's clock")
    if not 1 <= multipv <= 256:
        raise ValueError(f"multipv must be 1..256, not {multipv}")
    limits: Dict[str, Any] = {"depth": max(0, int(limit.depth or 0)), "nodes": int(limit.nodes or 0),
                              "mate": int(limit.mate or 0), "multipv": multipv}
    if 0 in (limit.depth, limit.nodes, limit.mate):
        limits["depth"] = 1                                # a zero limit: the shallowest search, still a move
    if limit.time is not None or clock is not None:
        planned = plan(time_left=None if clock is None else int(clock * 1000), increment=int(increment * 1000),
                       movestogo=int(limit.remaining_moves or 0),
                       movetime=max(1, int(limit.time * 1000)) if limit.time is not None else 0,
                       overhead=overhead_ms)
        limits.update(soft_ms=planned.soft_ms, hard_ms=planned.hard_ms, adaptive_time=limit.time is None)
    return limits


def pov_score(score: Score, turn: chess.Color) -> chess.engine.PovScore:
    relative = chess.engine.Mate(score.value) if score.is_mate else chess.engine.Cp(score.value)
    return chess.engine.PovScore(relative, turn)


def info_dict(event: SearchInfo, turn: chess.Color, model: WdlModel, material: int,
              selector: Info = Info.ALL) -> InfoDict:
    """One search line as python-chess's ``InfoDict``, the keys ``selector`` asks for."""
    info: InfoDict = {}
    if selector & Info.BASIC:
        info.update(depth=event.depth, seldepth=event.seldepth or event.depth, multipv=event.multipv or 1)
        for key in ("nodes", "nps", "hashfull"):
            if getattr(event, key) is not None:
                info[key] = getattr(event, key)
        info["tbhits"] = event.tbhits
        if event.time is not None:
            info["time"] = event.time / 1000.0
    if selector & Info.SCORE and event.score is not None:
        shown, wdl = normalised(event.score, model, material, proven=event.proven)
        info["score"] = pov_score(shown, turn)
        info["wdl"] = chess.engine.PovWdl(chess.engine.Wdl(*wdl), turn)
        if event.bound is not None:
            info[event.bound] = True
    if selector & Info.PV and event.pv:
        info["pv"] = [chess.Move.from_uci(move) for move in event.pv]
    return info


class AnalysisStream:
    """A running analysis, as python-chess's ``SimpleAnalysisResult``: iterate over
    its InfoDicts, read ``info`` (line 1) and ``multipv`` (every line, best first),
    ``stop()`` it, ``wait()`` for the ``BestMove``; a context manager that stops
    the search when the block ends."""

    def __init__(self, run: Callable[[Callable[[SearchInfo], None]], Any], stop: Callable[[], None],
                 convert: Callable[[SearchInfo], InfoDict]) -> None:
        self._stop = stop
        self._convert = convert
        self._queue: "queue.Queue[Optional[InfoDict]]" = queue.Queue()
        self._lines: Dict[int, InfoDict] = {}
        self._best: Optional[chess.engine.BestMove] = None
        self._error: Optional[BaseException] = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._search, args=(run,), name="fianchetto-analysis", daemon=True)
        self._thread.start()

    def _search(self, run: Callable[[Callable[[SearchInfo], None]], Any]) -> None:
        try:
            best, ponder = run(self._on_line)
            self._best = chess.engine.BestMove(chess.Move.from_uci(best) if best else None,
                                               chess.Move.from_uci(ponder) if ponder else None)
        except BaseException as exc:  # noqa: BLE001 - handed to the reader in wait()
            self._error = exc
        finally:
            self._done.set()
            self._queue.put(None)

    def _on_line(self, event: SearchInfo) -> None:
        info = self._convert(event)
        rank = event.multipv or 1
        # a bound alone never hides a known line; one of a whole set does
        if event.final or event.partial or event.bound is None or rank not in self._lines:
            self._lines[rank] = {**self._lines.get(rank, {}), **info}
        self._queue.put(info)

    @property
    def info(self) -> InfoDict:
        """What is known of the best line (python-chess's ``info``)."""
        return dict(self._lines.get(1, {}))

    @property
    def multipv(self) -> List[InfoDict]:
        """Every line known, in rank order."""
        return [dict(self._lines[rank]) for rank in sorted(self._lines)]

    def stop(self) -> None:
        """End the search; the stream still gives what was reported before."""
        if not self._done.is_set():
            self._stop()

    def wait(self) -> chess.engine.BestMove:
        """Wait for the search to end (it is not stopped); its best move and ponder move."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._best is not None
        return self._best

    def would_block(self) -> bool:
        return self._queue.empty() and not self._done.is_set()

    def empty(self) -> bool:
        return self._queue.empty() or self._queue.queue[0] is None

    def get(self) -> InfoDict:
        """The next InfoDict, waiting for it; ``AnalysisComplete`` once the search
        has ended and every report was read."""
        info = self._queue.get()
        if info is None:
            self._queue.put(None)          # every later get() ends too
            raise chess.engine.AnalysisComplete()
        return info

    def next(self) -> Optional[InfoDict]:
        try:
            return self.get()
        except chess.engine.AnalysisComplete:
            return None

    def __iter__(self) -> "AnalysisStream":
        return self

    def __next__(self) -> InfoDict:
        try:
            return self.get()
        except chess.engine.AnalysisComplete:
            raise StopIteration from None

    def close(self) -> None:
        """Stop the search and wait until it has ended."""
        self.stop()
        self._done.wait()

    def __enter__(self) -> "AnalysisStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def root_move_texts(board: Any, moves: Optional[Sequence[chess.Move]]) -> Optional[List[str]]:
    """``root_moves`` as the core's move text (king-takes-rook castling in Chess960)."""
    if moves is None:
        return None
    if isinstance(board, chess.Board):
        return [board.uci(move, chess960=board.chess960) for move in moves]
    return [move.uci() for move in moves]
