"""The engine inside Python: ``from fianchetto import Engine``.

>>> from fianchetto import Engine, Board
>>> engine = Engine()
>>> result = engine.analyse(Board(), depth=6)
>>> result.best_move in Board().legal_moves(), sum(result.wdl)
(True, 1000)
>>> import chess, chess.engine
>>> info = engine.analyse(chess.Board(), chess.engine.Limit(depth=6))
>>> info["pv"][0] in chess.Board().legal_moves, info["score"].turn
(True, True)
>>> engine.close()

Given a ``chess.engine.Limit``, an Engine answers as python-chess's
``SimpleEngine`` does (``InfoDict``, ``PlayResult``, a streaming
``analysis``; :mod:`fianchetto.shapes`), in this process and without UCI's
text in between; given keyword limits it returns an :class:`Analysis`.
An :class:`Engine` holds its own hash table and threads; the search runs in the
compiled core with the GIL released, so other Python threads go on meanwhile
and :meth:`Engine.stop` from one of them ends a running search. Positions are a
Fianchetto :class:`~fianchetto.Board` or a python-chess ``chess.Board``; scores
are normalised centipawns (100 = a 50% chance to win, :mod:`fianchetto.wdl`) or
mates, with python-chess's ``PovScore`` one call away. Each Engine evaluates
with its own choice of network (the shipped one unless ``eval_file`` names
another, or ``"none"`` for the hand-crafted evaluation); Engines that name the
same file share its weights, and no Engine's choice changes another's.
``syzygy_path`` (or the ``SyzygyPath`` option) lets an Engine use Syzygy tables
as the UCI engine does (the root's verdict, probes in the search); each Engine
loads its own set (:mod:`fianchetto.tablebase`), so Engines of other folders,
or of none, never see each other's tables. ``UCI_LimitStrength``, ``UCI_Elo``
and ``Skill Level`` play weaker as the UCI engine does (:mod:`fianchetto.strength`).
"""
from __future__ import annotations

import contextlib
import random
import threading
import warnings
from dataclasses import dataclass, replace
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import chess
import chess.engine

from fianchetto import strength
from fianchetto.board import Board
from fianchetto.evaluation import EvaluationChoice, evaluate_with
from fianchetto.options import OPTION_TABLE
from fianchetto.score import Score, SearchInfo, event_from_core, finished_line, normalised
from fianchetto.shapes import AnalysisStream, core_limits, info_dict, pov_score, root_move_texts
from fianchetto.tablebase import TablebaseError, Tablebases
from fianchetto.timeman import plan
from fianchetto.wdl import WdlModel, material_of_fen


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
        return pov_score(self.lines[line].score, self.turn)


def as_board(board: Union[Board, chess.Board]) -> Board:
    if isinstance(board, chess.Board):
        if not board.is_valid():
            raise ValueError(f"not a legal position: {board.status()!r}")
        return Board.from_python_chess(board)       # the moves too: repetitions count
    if isinstance(board, Board):
        return board.copy()
    from core_cy.core import Board as CoreBoard

    if isinstance(board, CoreBoard):
        return Board(board.fen(), chess960=board.chess960)
    raise ValueError(f"a position must be a fianchetto.Board or a chess.Board, not {type(board).__name__}")


def limits_for(depth: Optional[int], nodes: Optional[int], movetime: Optional[float], multipv: int,
               clock: Optional[float] = None, increment: float = 0.0, overhead_ms: int = 0) -> Dict[str, Any]:
    """The core's limits; ValueError for a negative or missing limit. A ``clock``
    (the side to move's time left, seconds, with its ``increment``) is planned as
    the UCI engine plans ``wtime``/``btime`` (:func:`fianchetto.timeman.plan`, with
    ``overhead_ms`` as its ``Move Overhead``) and the search stretches it the same way."""
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
        planned = plan(time_left=int(clock * 1000), increment=int(increment * 1000), overhead=overhead_ms)
        limits.update(soft_ms=planned.soft_ms, hard_ms=planned.hard_ms, adaptive_time=True)
    return limits


def _uci_option(name: str, **default: Any) -> chess.engine.Option:
    """The UCI engine's option of this name, as python-chess describes options
    (``default=`` when this process's default differs)."""
    spec = next(option for option in OPTION_TABLE if option.name == name)
    return chess.engine.Option(spec.name, spec.type, default.get("default", spec.default), spec.min, spec.max, [])


#: Options a python-chess user may ``configure``, declared as the UCI engine
#: declares them but for two defaults: EvalFile's is ``default``, and Move
#: Overhead's is 0, as no pipe lies between a caller and an Engine (raise it when
#: the clock is kept elsewhere, a server's). The rest of UCI's are managed or
#: belong to the UCI engine: MultiPV and UCI_Chess960 follow each call, as
#: python-chess manages them.
ENGINE_OPTIONS = {
    "Hash": _uci_option("Hash"),
    "Threads": _uci_option("Threads"),
    "Clear Hash": _uci_option("Clear Hash"),
    "Move Overhead": _uci_option("Move Overhead", default=0),
    "EvalFile": chess.engine.Option("EvalFile", "string", "default", None, None, []),
    "Use NNUE": _uci_option("Use NNUE"),
    "SyzygyPath": _uci_option("SyzygyPath"),
    "SyzygyProbeLimit": _uci_option("SyzygyProbeLimit"),
    "SyzygyProbeDepth": _uci_option("SyzygyProbeDepth"),
    "Syzygy50MoveRule": _uci_option("Syzygy50MoveRule"),
    "UCI_LimitStrength": _uci_option("UCI_LimitStrength"),
    "UCI_Elo": _uci_option("UCI_Elo"),
    "Skill Level": _uci_option("Skill Level"),
}


class Engine:
    """A search engine in this process.

    Two faces: python-chess's (``analyse(board, chess.engine.Limit(...))``
    returning an ``InfoDict``, ``play`` returning a ``PlayResult``, ``analysis``
    returning a stream, ``configure``, ``options``, ``quit``), and the keyword
    limits of :meth:`analyse` (``depth=``, ``nodes=``, ``movetime=``, ``clock=``),
    which return an :class:`Analysis`. ``stop`` ends a running search from any
    thread; ``close`` (or ``quit``) frees the table, and a closed Engine raises
    ``chess.engine.EngineTerminatedError`` (a RuntimeError)."""

    def __init__(self, hash_mb: int = 16, threads: int = 1, eval_file: Optional[str] = None,
                 syzygy_path: Optional[str] = None) -> None:
        from core_cy.core import Search

        self._values: Dict[str, Any] = {name: option.default for name, option in ENGINE_OPTIONS.items()}
        self._evaluation = EvaluationChoice()
        self._choose_evaluation(eval_file)
        self._search = Search(hash_mb=hash_mb, threads=threads, network=self._evaluation.active)
        self._values.update(Hash=int(hash_mb), Threads=int(threads), EvalFile=eval_file or "default")
        self._lock = threading.Lock()
        self._stream: Optional[AnalysisStream] = None
        self._game: Any = None
        self._tablebases = Tablebases()
        self._nodes = 0                  # the last search's
        self._rng = random.Random()      # the choice among candidates at a limited strength
        if syzygy_path:
            self._set_option("SyzygyPath", syzygy_path)

    def _choose_evaluation(self, eval_file: Optional[str]) -> None:
        """Load the network ``eval_file`` names (EvaluationChoice.choose; NetworkError,
        a ValueError, keeps the previous one), warning when its WDL model is missing."""
        self._evaluation.choose(eval_file)
        wdl_problem = self._evaluation.wdl_problem()
        if wdl_problem:
            warnings.warn(wdl_problem, stacklevel=3)

    @property
    def network(self) -> Any:
        """The loaded network (used while ``Use NNUE`` is on); None for ``eval_file="none"``."""
        return self._evaluation.network

    @property
    def wdl_model(self) -> WdlModel:
        """The win/draw/loss model of the evaluation in use: the network's (the file
        beside it), or the default model for the hand-crafted evaluation."""
        return self._evaluation.wdl_model()

    # --- python-chess's face -----------------------------------------------------------------
    @property
    def options(self) -> Dict[str, chess.engine.Option]:
        """The options ``configure`` accepts, as python-chess describes them."""
        return dict(ENGINE_OPTIONS)

    def configure(self, options: Dict[str, Any]) -> None:
        """Set the options of :attr:`options` (``chess.engine.EngineError`` for any
        other option or a bad value, the previous value kept); they hold for every
        later search. A running analysis stream ends first, as python-chess's
        engines end it when a command comes."""
        self._end_stream()
        self._set_options(options)

    def _set_options(self, options: Dict[str, Any]) -> None:
        for name, value in options.items():
            self._set_option(name, value)

    def _set_option(self, name: str, value: Any) -> None:
        spec = ENGINE_OPTIONS[self._option_name(name)]
        value = spec.parse(value)
        with self._lock:
            search = self._open_search()
            if spec.name == "Clear Hash":
                search.clear()                                 # a button: nothing to keep
                return
            if spec.name == "Hash":
                search.set_hash(value)
            elif spec.name == "Threads":
                search.set_threads(value)
            elif spec.name == "SyzygyPath":
                self._use_tables(value)
            elif spec.name == "EvalFile":
                try:
                    self._choose_evaluation(value)             # '' and 'default': the shipped one
                except ValueError as exc:
                    raise chess.engine.EngineError(str(exc)) from exc
            elif spec.name == "Use NNUE":
                self._evaluation.activate(value)
            self._values[spec.name] = value
            if spec.name in ("EvalFile", "Use NNUE"):
                evaluate_with(search, self._evaluation.active)

    def _use_tables(self, spec: str) -> None:
        """The tables of `spec`, or EngineError with the tables held before kept (a
        path with a missing folder is refused whole)."""
        try:
            problems = self._tablebases.configure(spec)
        except TablebaseError as exc:
            raise chess.engine.EngineError(str(exc)) from None
        if problems:
            with contextlib.suppress(TablebaseError):
                self._tablebases.configure(self._values["SyzygyPath"])
            raise chess.engine.EngineError("; ".join(problems))

    @property
    def id(self) -> Dict[str, str]:
        """The name and author, as the UCI engine gives them (``id name``, ``id author``)."""
        from fianchetto.uci import ENGINE_AUTHOR, ENGINE_NAME

        return {"name": ENGINE_NAME, "author": ENGINE_AUTHOR}

    def ping(self) -> None:
        """python-chess's liveness check: EngineTerminatedError once closed.
        Like every command, it ends a running analysis."""
        self._quiet_command()

    def send_opponent_information(self, *, opponent: Optional[chess.engine.Opponent] = None,
                                  engine_rating: Optional[int] = None) -> None:
        """Taken and unused, as by a UCI engine without ``UCI_Opponent``."""
        self._quiet_command()

    def send_game_result(self, board: chess.Board, winner: Optional[chess.Color] = None,
                         game_ending: Optional[str] = None, game_complete: bool = True) -> None:
        """Taken and unused: UCI has no word for a game's result."""
        self._quiet_command()

    def _quiet_command(self) -> None:
        """A command that searches nothing: refused once closed, and (as python-chess
        cancels the running command whatever comes next) it ends a running analysis."""
        self._open_search()
        self._end_stream()

    def play(self, board: Union[Board, chess.Board], limit: Optional[chess.engine.Limit] = None, *,
             game: object = None, info: chess.engine.Info = chess.engine.INFO_NONE, ponder: bool = False,
             draw_offered: bool = False, root_moves: Optional[Sequence[chess.Move]] = None,
             options: Optional[Dict[str, Any]] = None, opponent: Optional[chess.engine.Opponent] = None,
             **limits: Any) -> Any:
        """With a ``Limit``: python-chess's ``PlayResult`` (``ponder``, ``draw_offered``
        and ``opponent`` are accepted and ignored, as a UCI engine ignores them: nothing
        searches between calls). With keyword limits: the move (UCI)."""
        self._end_stream()                     # before anything waits for the search's lock
        if limit is None:
            return self.analyse(board, **limits).best_move
        with self._options(options or {}):      # the call's evaluation scores its lines
            best, ponder_move, lines, ours = self._search_shaped(board, limit, 1, game, root_moves)
            main = info_dict(lines[1], bool(ours.turn), self.wdl_model, material_of_fen(ours.fen()), info) \
                if info and 1 in lines else {}
        return chess.engine.PlayResult(chess.Move.from_uci(best) if best else None,
                                       chess.Move.from_uci(ponder_move) if ponder_move else None, main)

    def analysis(self, board: Union[Board, chess.Board], limit: Optional[chess.engine.Limit] = None, *,
                 multipv: Optional[int] = None, game: object = None, info: chess.engine.Info = chess.engine.INFO_ALL,
                 root_moves: Optional[Sequence[chess.Move]] = None,
                 options: Optional[Dict[str, Any]] = None) -> AnalysisStream:
        """A search on a thread of its own, until ``limit`` or ``stop()`` (no limit:
        until stopped), used as python-chess's ``SimpleAnalysisResult``."""
        ours = self._position(board)
        limits = core_limits(limit or chess.engine.Limit(), bool(ours.turn), 1 if multipv is None else multipv,
                             infinite=True, overhead_ms=self._overhead_ms(options or {}))
        limits["searchmoves"] = root_move_texts(board, root_moves)
        material = material_of_fen(ours.fen())
        convert = lambda event: info_dict(event, bool(ours.turn), self.wdl_model, material, info)  # noqa: E731
        self._end_stream()
        self._new_game(game)
        stream = AnalysisStream(lambda on_line: self._run_with(ours, limits, on_line, options or {}),
                                self.stop, convert)
        self._stream = stream
        return stream

    def quit(self) -> None:
        """python-chess's name for :meth:`close`."""
        self.close()

    # --- the search ---------------------------------------------------------------------------
    def analyse(self, board: Union[Board, chess.Board], limit: Optional[chess.engine.Limit] = None, *,
                multipv: Optional[int] = None, game: object = None, info: chess.engine.Info = chess.engine.INFO_ALL,
                root_moves: Optional[Sequence[chess.Move]] = None, options: Optional[Dict[str, Any]] = None,
                depth: Optional[int] = None, nodes: Optional[int] = None, movetime: Optional[float] = None,
                clock: Optional[float] = None, increment: float = 0.0) -> Any:
        """With a ``chess.engine.Limit``: python-chess's ``InfoDict`` (a list, best first,
        when ``multipv`` is given). With keyword limits (``movetime``, ``clock`` and
        ``increment`` in seconds): an :class:`Analysis`. ValueError for an illegal
        position or a bad limit. A finished game gets depth 0 and its result with a
        Limit (as python-chess's engines answer), ValueError with keyword limits."""
        self._end_stream()                     # before anything waits for the search's lock
        if limit is None:
            return self._analyse_keywords(board, depth, nodes, movetime, 1 if multipv is None else multipv, clock,
                                          increment)
        with self._options(options or {}):      # the call's evaluation scores its lines
            _, _, lines, ours = self._search_shaped(board, limit, 1 if multipv is None else multipv, game,
                                                     root_moves)
            material = material_of_fen(ours.fen())
            infos = [info_dict(lines[rank], bool(ours.turn), self.wdl_model, material, info)
                     for rank in sorted(lines)]
        return infos if multipv is not None else infos[0]

    def _analyse_keywords(self, board: Union[Board, chess.Board], depth: Optional[int], nodes: Optional[int],
                          movetime: Optional[float], multipv: int, clock: Optional[float],
                          increment: float) -> Analysis:
        ours = self._searchable(board)
        limits = limits_for(depth, nodes, movetime, multipv, clock, increment, self._overhead_ms({}))
        _, _, lines, nodes_done = self._final_lines(ours, limits)
        material = material_of_fen(ours.fen())
        return Analysis([self._line(lines[k], material) for k in sorted(lines)], nodes_done, bool(ours.turn),
                        time_ms=max(e.time or 0 for e in lines.values()))

    def _search_shaped(self, board: Union[Board, chess.Board], limit: chess.engine.Limit, multipv: int,
                       game: object, root_moves: Optional[Sequence[chess.Move]]):
        ours = self._position(board)
        limits = core_limits(limit, bool(ours.turn), multipv, overhead_ms=self._overhead_ms({}))
        limits["searchmoves"] = root_move_texts(board, root_moves)
        self._new_game(game)
        best, ponder, lines, _ = self._final_lines(ours, limits)
        return best, ponder, lines, ours

    def _final_lines(self, ours: Board, limits: Dict[str, Any]):
        """Search; (best, ponder, the closing report's lines by rank, nodes). The
        closing report gives every line, each root move once, at the depth that
        completed it; the iterations' own reports may name a move twice."""
        closing: Dict[int, SearchInfo] = {}

        def on_line(event: SearchInfo) -> None:
            closing[event.multipv or 1] = event

        best, ponder = self._run(ours, limits, on_line, final_only=True)
        if not closing or (best is None and ours.legal_moves()):
            raise RuntimeError("the search reported no line")
        return best, ponder, closing, self._nodes

    def _run(self, ours: Board, limits: Dict[str, Any], on_line: Any, final_only: bool = False):
        """One search under the lock; each reported line with a PV (with ``final_only``,
        each line of the closing report) goes to ``on_line`` as a SearchInfo. A root
        the tables decide is played without searching, as the UCI engine plays it; a
        finished game reports its result and has no move (None, None)."""
        with self._lock:
            search = self._open_search()
            if not ours.legal_moves():
                self._nodes = 0
                on_line(replace(finished_line(ours.is_check()), final=True))
                return None, None
            decision = self._tablebases.root(ours, int(self._values["SyzygyProbeLimit"]),
                                             bool(self._values["Syzygy50MoveRule"]))
            root_plan = decision.plan(limits.get("searchmoves")) if decision is not None else None
            if root_plan is None:
                return self._search_root(search, ours, limits, on_line, final_only, proven=None)
            if root_plan.play is not None:
                self._nodes = 0
                on_line(SearchInfo(depth=1, seldepth=1, multipv=1, score=Score.cp(decision.score_cp), nodes=0,
                                   time=0, pv=[root_plan.play], tbhits=decision.tbhits, final=True, proven=True))
                return root_plan.play, None
            return self._search_root(search, ours, dict(limits, searchmoves=root_plan.roots), on_line, final_only,
                                     proven=root_plan.score_cp)

    def _search_root(self, search: Any, ours: Board, limits: Dict[str, Any], on_line: Any, final_only: bool,
                     proven: Optional[int]) -> Tuple[Optional[str], Optional[str]]:
        """The core's search of ``ours`` (the lock held), its lines given the tables'
        ``proven`` score if any; at a limited strength, the rating's budget and
        candidates, and the move chosen among them."""
        elo = strength.rating_of(self._values)
        shown = limits.get("multipv", 1)       # the lines asked for; more are searched at a rating
        candidates: List[SearchInfo] = []      # the closing lines, at a limited strength

        def on_info(report: Any) -> None:
            closing = getattr(report, "final", False)
            if final_only and not closing:
                return
            event = event_from_core(report)
            if isinstance(event, SearchInfo) and event.pv:
                event = event.with_proven_score(proven)
                if elo is not None and closing:
                    candidates.append(event)
                elif (event.multipv or 1) <= shown:
                    on_line(event)

        if elo is not None:
            nodes, multipv = strength.limited_search(limits.get("nodes", 0), limits.get("multipv", 1), elo)
            limits = dict(limits, nodes=nodes, multipv=multipv)
        best = search.go(ours, info=on_info, **limits, **self._table_limits())
        self._nodes = int(search.nodes)
        if elo is not None:
            best = self._weaker_choice(candidates, elo, best, shown, on_line)
        return best

    def _weaker_choice(self, lines: List[SearchInfo], elo: int, best: Tuple[Optional[str], Optional[str]],
                       shown: int, on_line: Any) -> Tuple[Optional[str], Optional[str]]:
        """The move to play at a rating, as the UCI engine picks it: the chosen
        candidate heads the ``shown`` closing lines, the other root moves' after it
        (strength.lines_to_show); with fewer than two, the closing lines and the
        best move stand."""
        chosen = strength.pick_line(sorted(lines, key=lambda line: line.multipv or 1), elo, self._rng)
        if chosen is None:
            for line in lines:
                if (line.multipv or 1) <= shown:
                    on_line(line)
            return best
        for line in strength.lines_to_show(lines, chosen, shown):
            on_line(line)
        return chosen.best_and_ponder

    def _table_limits(self) -> Dict[str, Any]:
        return {"tb_probe_limit": self._tablebases.probe_limit(int(self._values["SyzygyProbeLimit"])),
                "tb_50_move_rule": bool(self._values["Syzygy50MoveRule"]),
                "tb_probe_depth": int(self._values["SyzygyProbeDepth"]), "tables": self._tablebases.tables}

    def _run_with(self, ours: Board, limits: Dict[str, Any], on_line: Any, options: Dict[str, Any]):
        with self._options(options):
            return self._run(ours, limits, on_line)

    def _searchable(self, board: Union[Board, chess.Board]) -> Board:
        """The position for the keyword limits, which ask for a best move: ValueError
        when the game is over."""
        ours = self._position(board)
        if not ours.legal_moves():
            raise ValueError("the game is over: no legal move in this position")
        return ours

    def _position(self, board: Union[Board, chess.Board]) -> Board:
        """The position for python-chess's face, which answers a finished game as
        python-chess's engines do (depth 0, the result, no move)."""
        self._open_search()
        return as_board(board)

    def _new_game(self, game: object) -> None:
        """A ``game`` other than the last one's forgets the table and history, as
        ``ucinewgame`` does."""
        if game != self._game:
            with self._lock:
                self._open_search().clear()
            self._game = game

    def _overhead_ms(self, options: Dict[str, Any]) -> int:
        """Move Overhead for a call: its own option if it gives one, else the configured."""
        for name, value in options.items():
            if self._option_name(name) == "Move Overhead":
                return int(ENGINE_OPTIONS["Move Overhead"].parse(value))
        return int(self._values["Move Overhead"])

    @contextlib.contextmanager
    def _options(self, options: Dict[str, Any]) -> Iterator[None]:
        """Options for one call, the configured values restored after it (a button,
        pressed before the call, is not pressed again). It runs on an analysis
        stream's own thread too, so it ends no stream."""
        before = {name: self._values[self._option_name(name)] for name in options
                  if ENGINE_OPTIONS[self._option_name(name)].type != "button"}
        self._set_options(options)
        try:
            yield
        finally:
            if options and self._search is not None:
                self._set_options(before)

    @staticmethod
    def _option_name(name: str) -> str:
        for known in ENGINE_OPTIONS:
            if known.lower() == name.lower():
                return known
        raise chess.engine.EngineError(f"Engine has no option {name!r} (it has {', '.join(ENGINE_OPTIONS)})")

    def _end_stream(self) -> None:
        """Any new command ends a running analysis stream, as python-chess's engines do."""
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()

    def stop(self) -> None:
        """End the running search (from any thread); it returns what it has found."""
        search = self._search
        if search is not None:
            search.stop()

    def close(self) -> None:
        """Stop any search and free the hash table (the Engine cannot search afterwards)."""
        self.stop()
        self._end_stream()
        with self._lock:
            self._search = None
            self._evaluation = EvaluationChoice()          # the network's reference let go
            self._tablebases.close()

    def _open_search(self) -> Any:
        """The search, or a clear error once the Engine is closed."""
        if self._search is None:
            raise chess.engine.EngineTerminatedError("this Engine is closed; create a new one")
        return self._search

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _line(self, event: SearchInfo, material: int) -> Line:
        shown, wdl = normalised(event.score or Score.cp(0), self.wdl_model, material, proven=event.proven)
        return Line(list(event.pv), shown, wdl, event.depth, event.seldepth or event.depth, event.multipv or 1)
