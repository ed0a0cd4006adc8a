"""The engine: the game the GUI set up, the option values and the search thread.

:class:`UciSession` is driven by the UCI loop (:mod:`fianchetto.uci`) from the reader
thread and reports through a :class:`Listener`. A ``go`` starts one worker
thread that runs the compiled ``Search`` (which releases the GIL for the
whole search), so the reader thread keeps answering ``isready``, ``stop``,
``ponderhit`` and ``quit`` at once. The core's reports arrive as typed
:mod:`fianchetto.score` events; each ``go``'s clock belongs to its :class:`_Job`.

Rules kept here (the UCI contract):

* exactly one ``bestmove`` per ``go``, sent by the worker when its search ends;
* ``go infinite`` and ``go ponder`` hold ``bestmove`` back until ``stop``
  (or, for ponder, ``ponderhit``), even when the search finishes early;
* a ``stop`` with no search running does nothing, and never reaches a later search;
* a ``go`` while a search runs stops the old one first (its ``bestmove`` goes out);
* commands that touch the transposition table (``ucinewgame``, ``Hash``,
  ``Clear Hash``) stop a running search first, because the table is in use;
* ``go perft`` runs on a worker thread too, with ``Threads`` threads and a
  perft table of ``Hash`` MB of its own: ``stop`` ends it at once, while a
  later ``go``, ``quit`` or end of input waits for its count, as a script that
  pipes ``go perft 6`` and ``quit`` expects.
"""
from __future__ import annotations

import dataclasses
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Protocol, Tuple, Union

from core_cy.core import PerftHash

from fianchetto import deep_perft, strength
from fianchetto.board import START_FEN, Board
from fianchetto.evaluation import EvaluationChoice, NetworkError, evaluate_with
from fianchetto.book import BookError, OpeningBook, default_book_path, game_ply, should_use_book
from fianchetto.tablebase import RootDecision, TablebaseError, Tablebases
from fianchetto.options import OPTION_TABLE, OptionError, Options, Value, clip
from fianchetto.score import CurrMove, Event, Score, SearchInfo, event_from_core, finished_line, normalised
from fianchetto.timeman import NO_LIMITS, TimeLimits, plan_for_side
from fianchetto.tuning import apply as apply_tunable, is_tunable, tunable_options
from fianchetto.wdl import DEFAULT_MODEL, WdlModel, material_of_fen


class Listener(Protocol):
    """Where the engine's events go (the UCI loop formats them as text)."""

    def info(self, event: Event) -> None: ...

    def bestmove(self, best: Optional[str], ponder: Optional[str]) -> None: ...

    def message(self, text: str) -> None: ...


@dataclass
class GoParams:
    """Everything a ``go`` command can say. Zero / ``None`` means "not given"."""

    searchmoves: List[str] = field(default_factory=list)
    ponder: bool = False
    wtime: Optional[int] = None
    btime: Optional[int] = None
    winc: int = 0
    binc: int = 0
    movestogo: int = 0
    depth: int = 0
    nodes: int = 0
    mate: int = 0
    movetime: int = 0
    infinite: bool = False
    perft: Optional[int] = None
    #: A ``go perft`` line, even one whose depth was unusable: it never searches.
    perft_asked: bool = False

    def has_bound(self) -> bool:
        """Does something end this search: a limit, a clock, or the GUI's stop?"""
        return bool(self.depth or self.nodes or self.mate or self.movetime or self.infinite
                    or self.ponder or self.perft_asked or self.wtime is not None
                    or self.btime is not None)


#: A search info line identical to the previous one (but for depth and counters)
#: is sent again only after this many milliseconds.
REPEAT_INFO_MS = 200


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


class _Job:
    """One ``go``: its parameters, its board and the state shared by the threads.

    Everything below ``lock`` is read and written under it.
    """

    def __init__(self, params: GoParams, board: Board, limits: TimeLimits, received_at: float,
                 wdl_model: WdlModel = DEFAULT_MODEL, show_wdl: bool = False,
                 roots: Optional[List[str]] = None) -> None:
        self.params = params
        self.board = board
        self.limits = limits             # planned on our clock; the core stretches soft
        #: Clock searches adapt to the root's instability; movetime is a fixed budget.
        self.adaptive_time = not params.movetime
        self.lock = threading.Condition()
        self.stop_requested = False
        self.pondering = params.ponder
        self.clock_start = received_at   # when our clock started: the go, or the ponderhit
        self.core_started: Optional[float] = None
        self.in_core = False
        self.done = False
        self.last_exact_line: Optional[SearchInfo] = None   # multipv 1, exact score
        self.exact_lines: Dict[int, SearchInfo] = {}         # every multipv's line of the last iteration
        self.last_main_line: Optional[SearchInfo] = None    # multipv 1, any bound
        self.final: Optional[SearchInfo] = None
        self.final_lines: List[SearchInfo] = []    # the core's closing report, multipv 2 on
        self.lines = 1                   # the lines (MultiPV) the core reports
        #: The lines the GUI sees (MultiPV): fewer than the core's at a limited
        #: strength, whose extra candidates are the search's own.
        self.shown = 1
        self.last_sent: Optional[tuple] = None
        self.last_sent_ms = 0
        self.thread: Optional[threading.Thread] = None
        #: The legal ``searchmoves`` in the board's spelling; None: every move.
        self.roots = roots
        #: The tables' score for a root they call drawn (or a win/loss spoilt by the
        #: fifty-move rule): reported instead of the search's centipawns.
        self.tb_score_cp: Optional[int] = None
        #: What turns the search's scores into normalised centipawns and WDL.
        self.material = material_of_fen(board.fen())
        self.wdl_model = wdl_model
        self.show_wdl = show_wdl

    def reported(self, event: SearchInfo) -> SearchInfo:
        """``event`` with the tablebase score in place of a centipawn score, if any."""
        return event.with_proven_score(self.tb_score_cp)

    def presented(self, event: SearchInfo) -> SearchInfo:
        """``event`` as the GUI sees it: centipawns normalised by the WDL model (100 =
        a 50% chance to win at the root's material), and the WDL when asked for.
        Mates, tablebase verdicts and other certain results (a stalemate: ``proven``)
        keep their scores and get an exact WDL."""
        if event.score is None:
            return event
        shown, wdl = normalised(event.score, self.wdl_model, self.material,
                                proven=event.proven or self.tb_score_cp is not None)
        return dataclasses.replace(event, score=shown, wdl=wdl if self.show_wdl else None)

    def worth_sending(self, event: SearchInfo) -> bool:
        """Skip a ``multipv 1`` line that repeats the last one sent (same score, bound
        and PV) unless :data:`REPEAT_INFO_MS` have passed: a search that runs through
        hundreds of trivial iterations (a drawn ending, a forced mate) would otherwise
        flood a Python GUI with lines it must parse while our clock runs. The closing
        line always goes out, and so does every set of several lines, whole."""
        if self.lines > 1:
            return True
        key = (event.score, event.bound, tuple(event.pv))
        now = event.time or 0
        if key == self.last_sent and now - self.last_sent_ms < REPEAT_INFO_MS:
            return False
        self.last_sent, self.last_sent_ms = key, now
        return True

    def must_wait(self) -> bool:
        """Hold bestmove back? (infinite or pondering, and no stop yet)."""
        return (self.params.infinite or self.pondering) and not self.stop_requested

    def core_limits(self) -> Tuple[TimeLimits, int]:
        """The planned limits for the core (none while pondering) and where the
        core's start lies on our clock (ms; negative after a ponderhit)."""
        if self.pondering or self.core_started is None:
            return NO_LIMITS, 0
        return self.limits, _ms(self.core_started - self.clock_start)

    def record(self, event: SearchInfo) -> None:
        """Keep a main-line report for the closing line, and each line of the last
        completed iteration (a set sent before its iteration completed mixes two)."""
        if event.bound is None and not event.final and not event.partial:
            self.exact_lines[event.multipv or 1] = event
        if event.final and not event.is_main_line:
            self.final_lines.append(event)   # held back with the first line
        if not event.is_main_line:
            return
        if event.final:
            self.final = event     # held back and sent right before bestmove
            return
        self.last_main_line = event
        if event.bound is None:
            self.last_exact_line = event


@dataclass
class _PerftJob:
    """One ``go perft``: its table (whose ``stop()`` ends it) and its thread."""

    table: PerftHash
    thread: Optional[threading.Thread] = None


class UciSession:
    """Game state, options and the search worker behind the UCI loop."""

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.options = Options(table=OPTION_TABLE + tunable_options())
        self.board = Board(START_FEN)
        self.debug = False
        self._search: Any = None
        #: Held while the search is made, so that it is made once (see `search`).
        self._search_lock = threading.Lock()
        self._job: Optional[_Job] = None
        self._perft: Optional[_PerftJob] = None
        self._book: Optional[OpeningBook] = None
        self._book_path: Optional[str] = None      # the path last tried (opened or not)
        self._rng = random.Random()
        self.tablebases = Tablebases()
        self.evaluation = EvaluationChoice()
        self._startup_problems = self._load_default_network()
        self._announced = False     # the core variant is named before the first search

    def _load_default_network(self) -> List[str]:
        """The shipped network, switched on as ``Use NNUE`` says; problems are told at isready."""
        problems = []
        try:
            self.evaluation.load(str(self.options["EvalFile"]))
        except NetworkError as exc:
            problems.append(f"{exc}; using the hand-crafted evaluation")
        problem = self.evaluation.wdl_problem()
        if problem:
            problems.append(problem)
        self.evaluation.activate(bool(self.options["Use NNUE"]))
        return problems

    # --- the compiled search ------------------------------------------------------------
    @property
    def search(self) -> Any:
        """The ``core_cy`` Search handle, made on first use (it allocates the hash).
        Made once: ``go`` makes it on the reader thread before its worker starts,
        and the lock keeps an ``isready`` and a worker from each making one (``stop``
        would then reach the one that is not running)."""
        self._make_search()
        return self._search

    def _make_search(self) -> None:
        """Make the search, with the ``Hash`` option's table, if there is none yet."""
        with self._search_lock:
            if self._search is None:
                self._search = self._new_search(int(self.options["Hash"]))

    def _new_search(self, megabytes: int) -> Any:
        from core_cy.core import Search

        return Search(hash_mb=megabytes, threads=int(self.options["Threads"]), network=self.evaluation.active)

    def _allocate_hash(self, megabytes: int) -> None:
        """The one place the transposition table is sized: the search is made with
        it on first use and resized afterwards (no search running). MemoryError when
        it does not fit."""
        with self._search_lock:
            if self._search is None:
                self._search = self._new_search(megabytes)
            else:
                self._search.set_hash(megabytes)

    def ready(self) -> None:
        """``isready``: make sure the search and its hash exist (the GUI may then ``go``)."""
        for problem in self._startup_problems:
            self.listener.message(problem)
        self._startup_problems = []
        self._ensure_search()

    def _ensure_search(self) -> None:
        """Make the search if there is none yet; a failure is said, never raised (the
        hash falls back to 1 MB for the next try; a search without one plays the
        fallback move)."""
        try:
            self._make_search()
        except (MemoryError, ValueError, OverflowError) as exc:
            self.listener.message(f"cannot allocate {self.options['Hash']} MB of hash ({exc}); using 1 MB")
            self.options.set("Hash", 1)
        except Exception as exc:  # noqa: BLE001 - reported, never fatal
            self.listener.message(f"search unavailable: {type(exc).__name__}: {clip(str(exc), 200)}")

    # --- game state -------------------------------------------------------------------
    def new_game(self) -> None:
        self.finish_search("ucinewgame")
        self.board = Board(START_FEN, chess960=bool(self.options["UCI_Chess960"]))
        if self._search is not None:
            self._search.clear()

    def set_board(self, board: Board) -> None:
        """A new position from ``position`` (already validated). A running search
        keeps its own copy, so this is safe at any time."""
        self.board = board

    # --- options --------------------------------------------------------------------------
    def set_option(self, name: str, text: Optional[str]) -> None:
        """Apply ``setoption name <name> [value <text>]``; :class:`OptionError` if refused
        (the old value stays)."""
        spec = self.options.spec(name)
        value: Value = spec.parse(text)
        if spec.name == "Hash":
            # Allocated now, the search created if need be: a size that does not fit is
            # refused here and the table that worked (or the default) stays.
            self.finish_search("Hash")
            try:
                self._allocate_hash(int(value))  # type: ignore[arg-type]
            except (MemoryError, ValueError, OverflowError) as exc:
                raise OptionError(f"cannot allocate {value} MB of hash ({exc}); "
                                  f"keeping {self.options['Hash']} MB") from None
        elif spec.name == "Threads":
            self.finish_search("Threads")
            if self._search is not None:
                self._search.set_threads(int(value))  # type: ignore[arg-type]
        elif spec.name == "Clear Hash":
            self.finish_search("Clear Hash")
            if self._search is not None:
                self._search.clear()
            return
        elif spec.name == "UCI_Chess960":
            self.board.chess960 = bool(value)
        elif spec.name in ("BookFile", "OwnBook"):
            self.finish_search(spec.name)
            self._close_book()
        elif spec.name in ("EvalFile", "Use NNUE"):
            self._set_evaluation(spec.name, value)
        elif is_tunable(spec.name):
            self.finish_search(spec.name)   # the search reads its constants while it runs
            apply_tunable(spec.name, int(value))  # type: ignore[arg-type]
        elif spec.name == "SyzygyPath":
            self.finish_search("SyzygyPath")   # the search's root verdict reads the tables
            try:
                problems = self.tablebases.configure(str(value))
            except TablebaseError as exc:
                raise OptionError(f"{exc}; keeping {self.tablebases.describe()}") from None
            for problem in problems:
                self.listener.message(problem)
            if self.tablebases.max_pieces:
                self.listener.message(f"Syzygy tables loaded: {self.tablebases.files} files, "
                                      f"up to {self.tablebases.max_pieces} pieces")
        self.options.set(spec.name, value)

    def _set_evaluation(self, name: str, value: Value) -> None:
        """Load a network file or switch evaluations between searches; when the
        evaluation changes the hash is cleared, as its stored scores came from the
        other function (the same network again keeps it)."""
        self.finish_search(name)
        use_network = bool(value) if name == "Use NNUE" else bool(self.options["Use NNUE"])
        if name == "EvalFile":
            try:
                self.evaluation.load(str(value))
            except NetworkError as exc:
                raise OptionError(f"{exc}; keeping {self.evaluation.describe()}") from None
            problem = self.evaluation.wdl_problem()
            if problem:
                self.listener.message(problem)
        problem = self.evaluation.activate(use_network)
        if problem:
            self.listener.message(problem)
        if self._search is not None:
            evaluate_with(self._search, self.evaluation.active)

    # --- opening book and tablebases at the root -------------------------------------------
    def _close_book(self) -> None:
        if self._book is not None:
            self._book.close()
        self._book = None
        self._book_path = None

    def _opening_book(self) -> Optional[OpeningBook]:
        """The book of the BookFile option (opened once per path); None if unusable."""
        path = str(self.options["BookFile"]) or str(default_book_path())
        if self._book_path != path:
            self._close_book()
            self._book_path = path
            try:
                self._book = OpeningBook.open(path)
            except BookError as exc:
                self.listener.message(f"{exc}; searching without a book")
        return self._book

    def _book_move(self, board: Board, params: GoParams) -> Optional[str]:
        if not self.options["OwnBook"] or params.searchmoves or board.chess960:
            return None
        if not should_use_book(game_ply(board), int(self.options["BookDepth"])):
            return None
        book = self._opening_book()
        if book is None:
            return None
        return book.pick(board, best=not self.options["BookVariety"], rng=self._rng)

    def _tablebase_root(self, board: Board) -> Optional[RootDecision]:
        return self.tablebases.root(board, int(self.options["SyzygyProbeLimit"]),
                                    bool(self.options["Syzygy50MoveRule"]))

    # --- searching --------------------------------------------------------------------------
    def go(self, params: GoParams, received_at: Optional[float] = None) -> None:
        """Start a search on the worker thread (stopping a running one first)."""
        received_at = time.monotonic() if received_at is None else received_at
        self.finish_search()
        self._announce_core()
        self._ensure_search()
        board = self.board.copy()
        legal = board.legal_moves()
        # Checked here, so that what is said of them precedes the next command's replies.
        roots = self._root_moves(board, params.searchmoves, legal) if legal else None
        if params.searchmoves and roots is None and not params.has_bound():
            self.listener.message("go: no legal searchmoves and no limit; searching to depth 1")
            params.depth = 1
        limits = plan_for_side(
            board.turn,
            wtime=params.wtime,
            btime=params.btime,
            winc=params.winc,
            binc=params.binc,
            movestogo=params.movestogo,
            movetime=params.movetime,
            overhead=int(self.options["Move Overhead"]),
        )
        if params.infinite:
            limits = NO_LIMITS  # infinite means: until stop, whatever the clock says
        if self.debug:
            self.listener.message(f"time limits soft {limits.soft_ms} ms hard {limits.hard_ms} ms")
        job = _Job(params, board, limits, received_at, self.evaluation.wdl_model(),
                   bool(self.options["UCI_ShowWDL"]), roots)
        job.thread = threading.Thread(target=self._worker, args=(job,), name="fianchetto-search", daemon=True)
        self._job = job
        job.thread.start()

    def _announce_core(self) -> None:
        """Before the first search, as Stockfish names its network: which variant of
        the compiled core runs and what evaluates (once per process)."""
        if self._announced:
            return
        self._announced = True
        import core_cy.core as core

        self.listener.message(f"core {core.CPU_VARIANT} ({core.CPU_VARIANT_SUMMARY}); "
                              f"evaluation: {self.evaluation.describe()}")
        if core.CPU_WARNING:
            self.listener.message(core.CPU_WARNING)

    def stop(self) -> None:
        """``stop``: end the running search or ``go perft`` now; nothing if none is running."""
        if self._perft is not None:
            self._perft.table.stop()
        job = self._job
        if job is None or job.done:
            return
        with job.lock:
            job.stop_requested = True
            job.pondering = False
            if job.in_core:
                self.search.stop()
            job.lock.notify_all()

    def ponderhit(self) -> None:
        """``ponderhit``: the pondered move was played; the clock runs from now."""
        job = self._job
        now = time.monotonic()
        if job is None or job.done or not job.pondering:
            self.listener.message("ponderhit without a ponder search: ignored")
            return
        with job.lock:
            job.pondering = False
            job.clock_start = now
            if job.in_core:
                limits, offset = job.core_limits()
                if not limits.unlimited:
                    self.search.set_time_limits(limits.soft_ms, limits.hard_ms, offset)
                if self.debug:
                    self.listener.message(f"ponderhit: limits soft {limits.soft_ms} hard {limits.hard_ms} "
                                          f"ms, the search started {offset} ms into the clock")
            job.lock.notify_all()

    def perft(self, depth: int, emit: Callable[[str], None]) -> None:
        """``go perft``: count on a worker thread, one ``move: count`` line per root
        move in generation order, an empty line and ``Nodes searched: N``."""
        self.finish_search("go perft")
        threads, hash_mb = int(self.options["Threads"]), int(self.options["Hash"])
        try:
            table = PerftHash(hash_mb)
        except MemoryError:
            self.listener.message(f"no memory for a {hash_mb} MB perft table; counting without one")
            table = PerftHash(0)
        job = _PerftJob(table=table)
        job.thread = threading.Thread(target=self._perft_worker, args=(job, self.board.copy(), depth, threads, emit),
                                      name="fianchetto-perft", daemon=True)
        self._perft = job
        job.thread.start()

    def _perft_worker(self, job: _PerftJob, board: Board, depth: int, threads: int,
                      emit: Callable[[str], None]) -> None:
        try:
            total = deep_perft.count(board, depth, threads=threads, table=job.table,
                                     on_root=lambda move, nodes: emit(f"{move}: {nodes}"))
        except Exception as exc:  # noqa: BLE001 - the protocol goes on whatever the count did
            self.listener.message(f"go perft failed: {type(exc).__name__}: {clip(str(exc), 200)}")
            return
        if total is None:
            self.listener.message("go perft stopped: the root moves above are complete, the rest not counted")
            return
        emit("")
        emit(f"Nodes searched: {total}")

    def _finish_perft(self) -> None:
        """Wait for a running ``go perft`` to print its count."""
        job = self._perft
        if job is not None and job.thread is not None and job.thread is not threading.current_thread():
            job.thread.join()

    def finish_search(self, reason: Optional[str] = None) -> None:
        """Stop a running search and wait for its bestmove to go out; wait for a
        running ``go perft`` to finish."""
        self._finish_perft()
        job = self._job
        if job is None:
            return
        if not job.done and reason:
            self.listener.message(f"{reason}: stopping the running search first")
        self.stop()
        if job.thread is not None and job.thread is not threading.current_thread():
            job.thread.join()

    def shutdown(self, timeout: float = 1.0) -> bool:
        """``quit``: let a ``go perft`` finish, stop the search; True if the worker
        ended within ``timeout`` (then the tables are let go)."""
        self._finish_perft()
        job = self._job
        self.stop()
        if job is not None and job.thread is not None:
            job.thread.join(timeout)
            if job.thread.is_alive():
                return False
        self.tablebases.close()
        return True

    # --- the worker thread ----------------------------------------------------------------
    def _worker(self, job: _Job) -> None:
        best: Optional[str] = None
        ponder: Optional[str] = None
        try:
            best, ponder = self._run_search(job)
        except Exception as exc:  # noqa: BLE001 - a core failure must not lose the bestmove
            self.listener.message(f"search failed: {type(exc).__name__}: {clip(str(exc), 200)}")
            best, ponder = self._fallback_move(job), None
        try:
            with job.lock:
                while job.must_wait():
                    job.lock.wait()
            for line in self._closing_lines(job, best, ponder):
                self.listener.info(job.presented(line))
            job.done = True  # from here on a stop or setoption has nothing to interrupt
            self.listener.bestmove(best, ponder)
        finally:
            job.done = True

    def _run_search(self, job: _Job) -> Tuple[Optional[str], Optional[str]]:
        board = job.board
        if not board.legal_moves():
            job.last_exact_line = finished_line(board.is_check())
            return None, None
        decided = self._root_decision(job, job.roots)
        if isinstance(decided, str):
            return decided, None
        elo = strength.rating_of(self.options)  # type: ignore[arg-type]
        best, ponder = self._run_core(job, decided, elo)
        if elo is not None and best is not None:
            best, ponder = self._weaker_choice(job, elo, best, ponder)
        if best is None:
            self.listener.message("search returned no move; playing a legal one")
            best, ponder = self._fallback_move(job), None
        return best, ponder

    def _root_decision(self, job: _Job, roots: Optional[List[str]]) -> Union[str, List[str], None]:
        """A move the book or the tablebases play without searching (a string), or
        the root moves to search (None: all), narrowed by the tablebases."""
        book_move = self._book_move(job.board, job.params)
        if book_move is not None:
            self.listener.message(f"book move {book_move}")
            job.last_exact_line = SearchInfo(depth=1, score=Score.cp(0), nodes=0, time=0, pv=[book_move])
            return book_move
        decision = self._tablebase_root(job.board)
        if decision is None:
            return roots
        plan = decision.plan(roots)
        if plan.play is not None:
            self.listener.message(f"tablebase move {plan.play}")
            job.last_exact_line = SearchInfo(depth=1, score=Score.cp(decision.score_cp), nodes=0, time=0,
                                             pv=[plan.play], tbhits=decision.tbhits)
            return plan.play
        job.tb_score_cp = plan.score_cp
        return plan.roots

    def _run_core(self, job: _Job, roots: Optional[List[str]],
                  elo: Optional[int]) -> Tuple[Optional[str], Optional[str]]:
        """Search in the core; (best, ponder) as it returns them. With a rating
        (UCI_LimitStrength), within its node budget and with its candidates."""
        search = self.search
        with job.lock:
            # start() prepares the search synchronously and clears the core's stop flag;
            # from then on stop() and set_time_limits() act on this search. Doing it under
            # the job lock closes the race with a stop/ponderhit arriving meanwhile.
            job.core_started = time.monotonic()
            limits, offset = job.core_limits()
            nodes, multipv = job.params.nodes, int(self.options["MultiPV"])
            if elo is not None:
                nodes, multipv = strength.limited_search(nodes, multipv, elo)
            job.lines = min(multipv, len(roots) if roots else len(job.board.legal_moves()))
            job.shown = min(job.lines, int(self.options["MultiPV"]))
            search.start(
                job.board,
                depth=1 if job.stop_requested else job.params.depth,
                nodes=nodes,
                soft_ms=limits.soft_ms,
                hard_ms=limits.hard_ms,
                clock_offset_ms=offset,
                adaptive_time=job.adaptive_time,
                mate=job.params.mate,
                multipv=multipv,
                searchmoves=roots,
                info=lambda report: self._on_core_event(job, report),
                tb_probe_limit=self.tablebases.probe_limit(int(self.options["SyzygyProbeLimit"])),
                tables=self.tablebases.tables,
                tb_50_move_rule=bool(self.options["Syzygy50MoveRule"]),
                tb_probe_depth=int(self.options["SyzygyProbeDepth"]),
            )
            job.in_core = True
            if job.stop_requested:
                search.stop()
        try:
            return search.run()
        finally:
            with job.lock:
                job.in_core = False

    def _weaker_choice(self, job: _Job, elo: int, best: str, ponder: Optional[str]) -> Tuple[str, Optional[str]]:
        """UCI_LimitStrength: pick among the candidates of the deepest iteration
        that offers them (strength.pick_line); the chosen line heads the closing lines,
        the other root moves' after it (strength.lines_to_show)."""
        chosen = strength.pick_line([job.exact_lines[k] for k in sorted(job.exact_lines)], elo, self._rng)
        if chosen is None:
            return best, ponder
        closing = ([job.final] if job.final is not None else []) + job.final_lines
        job.final, *job.final_lines = strength.lines_to_show(closing, dataclasses.replace(chosen, final=False),
                                                             job.shown)
        return chosen.best_and_ponder

    def _root_moves(self, board: Board, searchmoves: List[str], legal: List[str]) -> Optional[List[str]]:
        """``searchmoves`` in the board's spelling, illegal ones reported and dropped."""
        if not searchmoves:
            return None
        legal_set = set(legal)
        kept: List[str] = []
        for move in searchmoves:
            spelled = move if move in legal_set else self._respell(board, move)
            if spelled is None:
                self.listener.message(f"searchmoves: ignoring illegal move {clip(move, 12)}")
            elif spelled not in kept:
                kept.append(spelled)
        if not kept:
            self.listener.message("searchmoves: no legal move given, searching all moves")
            return None
        return kept

    @staticmethod
    def _respell(board: Board, move: str) -> Optional[str]:
        """The board's own spelling of a castling move written the other way, else None."""
        try:
            board.push(move)
        except ValueError:
            return None
        spelled = board.move_stack[-1]
        board.pop()
        return spelled

    def _on_core_event(self, job: _Job, report: Any) -> None:
        """A report from the core: the job records it; the listener gets it unless
        it is held back (the closing report), lies beyond the lines shown (a
        candidate at a limited strength) or repeats the last line."""
        try:
            event = event_from_core(report)
            if isinstance(event, CurrMove):
                self.listener.info(event)
                return
            event = job.reported(event)
            with job.lock:
                job.record(event)
            if event.final or (event.multipv or 1) > job.shown:
                return
            if event.is_main_line and not job.worth_sending(event):
                return
            self.listener.info(job.presented(event))
        except Exception as exc:  # noqa: BLE001 - never let output kill the search
            self.listener.message(f"info callback error: {type(exc).__name__}: {clip(str(exc), 200)}")

    def _closing_lines(self, job: _Job, best: Optional[str], ponder: Optional[str]) -> List[SearchInfo]:
        """The lines sent right before ``bestmove``: the first (``_final_info``) and,
        when it is the core's own closing line, the core's other MultiPV lines, each
        root move once, as of the iteration that completed it."""
        first = self._final_info(job, best, ponder)
        if first is None:
            return []
        if first is not job.final:
            return [first]
        shown = int(self.options["MultiPV"])
        return [first] + [line for line in job.final_lines if (line.multipv or 1) <= shown]

    def _final_info(self, job: _Job, best: Optional[str], ponder: Optional[str]) -> Optional[SearchInfo]:
        """The exact-score line sent right before ``bestmove``."""
        final, exact = job.final, job.last_exact_line
        if final is not None and final.bound is None and (best is None or final.pv[:1] == [best]):
            return final
        if best is None:
            return exact
        if exact is not None and exact.pv[:1] == [best]:
            return exact
        # The best move came from an iteration that did not finish with an exact score
        # (or none finished): report the latest score for it, without a bound.
        base = job.last_main_line or exact
        if base is None:
            try:
                score = Score.cp(int(job.board.evaluate(self.evaluation.active)))
            except Exception:  # noqa: BLE001
                score = Score.cp(0)
            base = SearchInfo(depth=0, score=score, nodes=0, time=0)
        return dataclasses.replace(base, bound=None, multipv=1, pv=[best] + ([ponder] if ponder else []),
                                   final=False)

    @staticmethod
    def _fallback_move(job: _Job) -> Optional[str]:
        """A legal move when the core failed: the last PV's first move, else the first legal."""
        legal = job.board.legal_moves()
        for event in (job.last_exact_line, job.last_main_line):
            if event is not None and event.pv and event.pv[0] in legal:
                return event.pv[0]
        return legal[0] if legal else None
