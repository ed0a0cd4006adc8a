# The Search face of the core: a search with its own transposition table, history
# tables and threads, run with the GIL released; its results reach Python through
# an optional `info` callback, as typed reports (SearchReport, CurrentMoveReport)
# that the Python layer words for UCI.

#: The core's score units, for the Python layer's score type: a mate in n plies
#: scores SCORE_MATE - n, a tablebase win SCORE_TB_WIN minus the plies to it.
SCORE_MATE = VALUE_MATE
SCORE_MATE_IN_MAX_PLY = VALUE_MATE_IN_MAX_PLY
SCORE_TB_WIN = VALUE_TB_WIN
#: A report's bound: the score is exact, at most (the line failed low) or at least.
REPORT_EXACT = BOUND_EXACT
REPORT_UPPER = BOUND_UPPER
REPORT_LOWER = BOUND_LOWER

_log = logging.getLogger("fianchetto.core")


cdef class SearchReport:
    """One line of a search's progress: a completed iteration's line, a bound
    found mid-iteration, a line of a set reported before its iteration completed
    (`partial`), or the closing line (`final`). `score` is in the search's
    units (core.SCORE_MATE - plies for a mate); `nodes`, `tb_hits` and `hashfull`
    count every thread; `effort` is the share of the main thread's nodes spent
    under the line's first move; `pv` is the line as move text."""
    cdef readonly int depth, seldepth, multipv, score, bound, hashfull
    cdef readonly bint final, partial
    cdef readonly uint64_t nodes, tb_hits
    cdef readonly int64_t time_ms
    cdef readonly double effort
    cdef readonly tuple pv

    def __init__(self, *, depth, score, nodes, time_ms, seldepth=1, multipv=1, bound=BOUND_EXACT,
                 hashfull=0, tb_hits=0, pv=(), final=False, effort=0.0, partial=False):
        self.depth, self.seldepth, self.multipv, self.score = depth, seldepth, multipv, score
        self.bound, self.hashfull, self.final, self.partial = bound, hashfull, final, partial
        self.nodes, self.tb_hits, self.time_ms, self.effort = nodes, tb_hits, time_ms, effort
        self.pv = tuple(pv)

    def __repr__(self):
        return (f"SearchReport(depth={self.depth}, multipv={self.multipv}, score={self.score}, "
                f"bound={self.bound}, nodes={self.nodes}, pv={' '.join(self.pv)!r}, final={self.final})")


cdef class CurrentMoveReport:
    """The root move a long search is on: its text, its number in the order, the depth."""
    cdef readonly int depth, number
    cdef readonly str move

    def __init__(self, *, depth, move, number):
        self.depth, self.move, self.number = depth, move, number


cdef class TimeManagerState:
    """The core's time manager on its own (the decision every search makes after an
    iteration), for tests and tools: record iterations, read the stretch and the
    soft limit it gives a plan."""
    cdef TimeManager tm

    def __init__(self, adaptive=True):
        tm_start(&self.tm, bool(adaptive))

    def record(self, int best, int score, double effort=0.0, int depth=0):
        """An iteration's best move (any number naming it), score and node effort;
        returns the new stretch."""
        tm_record_iteration(&self.tm, <Move>best, score, effort, depth)
        return self.tm.stretch

    @property
    def stretch(self):
        return self.tm.stretch

    def soft_limit(self, int soft_ms, int hard_ms):
        """The planned soft limit as the search would now use it (same clock)."""
        return tm_stretched_soft(&self.tm, soft_ms, hard_ms)

    @staticmethod
    def shifted_limit(int clock_ms, int offset_ms):
        """A limit on the caller's clock as a search that started offset_ms into
        that clock measures it (at least 1; 0 is no limit)."""
        return shifted_limit(clock_ms, offset_ms)


cdef void deliver_line(void* owner, const IterationReport* r) noexcept nogil:
    """The search's line reports, to the Search that owns it (SearchThread.on_line)."""
    with gil:
        (<Search>owner)._deliver_line(r)


cdef void deliver_currmove(void* owner, Move m, int number, int depth) noexcept nogil:
    with gil:
        (<Search>owner)._deliver_currmove(m, number, depth)


cdef class Search:
    """A search with its own transposition table, history tables and threads.

    ``start(board, ...)`` prepares a search synchronously (a ``stop()`` from then on
    ends it); ``run()`` performs it with the GIL released and returns
    ``(best, ponder)`` as UCI strings; ``go(board, ...)`` does both. With several
    threads (Lazy SMP) the helpers search the same root and share the table; the
    main thread decides and reports.

    ``network`` (a LoadedNetwork, or None for the hand-crafted evaluation) is
    this search's own evaluation; ``set_network`` changes it from the next start.
    """
    cdef TranspositionTable tt
    cdef SearchThread** threads
    cdef SearchThread* thread          # the main thread, threads[0]
    cdef int thread_count
    cdef SharedState shared
    cdef object info
    cdef bint chess960
    cdef bint prepared
    cdef LoadedNetwork network          # the evaluation of the next start (None: hand-crafted)
    cdef LoadedNetwork running_network  # the one the prepared or running search points at
    cdef SyzygyTables running_tables    # the tables it probes (None: none)

    def __cinit__(self, hash_mb=16, threads=1, LoadedNetwork network=None):
        self.network = network
        self.tt.buckets = NULL
        self.threads = NULL
        self.thread_count = 0
        self.set_threads(threads)
        self.set_hash(hash_mb)

    def __dealloc__(self):
        self._free_threads()
        free(self.tt.buckets)

    cdef void _free_threads(self):
        cdef int i
        if self.threads != NULL:
            for i in range(self.thread_count):
                thread_free(self.threads[i])
            free(self.threads)
        self.threads = NULL
        self.thread = NULL
        self.thread_count = 0

    def set_threads(self, count):
        """Number of search threads (1 = a single deterministic thread)."""
        cdef int n = max(1, min(int(count), MAX_THREADS)), i
        self._free_threads()
        self.threads = <SearchThread**>calloc(n, sizeof(SearchThread*))
        if self.threads == NULL:
            raise MemoryError()
        self.thread_count = n
        for i in range(n):
            self.threads[i] = thread_new(i)
            if self.threads[i] == NULL:
                self._free_threads()
                raise MemoryError()
        self.thread = self.threads[0]

    def set_network(self, LoadedNetwork network):
        """Evaluate with `network` (None: the hand-crafted evaluation) from the next
        start on; a search already started keeps the network it began with."""
        self.network = network

    @property
    def evaluation(self):
        """The LoadedNetwork the next search evaluates with, or None (hand-crafted)."""
        return self.network

    def set_hash(self, megabytes):
        """Resize the transposition table (clearing it)."""
        if not tt_allocate(&self.tt, max(1, int(megabytes))):
            raise MemoryError(f"cannot allocate a {megabytes} MB hash table")

    def clear(self):
        """Forget everything learnt: transposition table, killers, history."""
        cdef int i
        tt_clear(&self.tt)
        for i in range(self.thread_count):
            thread_forget(self.threads[i])

    def stop(self):
        fc_store_flag(&self.shared.stop, 1)

    def set_time_limits(self, soft_ms, hard_ms, clock_offset_ms=0):
        """The planned soft (no new iteration) and hard (abort) limits in ms on the
        caller's clock, 0 for none, and where the search's start lies on that clock:
        `clock_offset_ms` after the clock started (negative when the clock started
        after the search, as at a ponderhit). The search stretches the soft limit
        as its root changes when it was started with `adaptive_time`."""
        fc_store_flag(&self.shared.clock_offset_ms, int(clock_offset_ms))
        fc_store_flag(&self.shared.soft_ms, max(0, int(soft_ms)))
        fc_store_flag(&self.shared.hard_ms, max(0, int(hard_ms)))

    def start(self, Board board, *, depth=0, nodes=0, soft_ms=0, hard_ms=0, clock_offset_ms=0,
              adaptive_time=False, mate=0, multipv=1, searchmoves=None, info=None, tb_probe_limit=7,
              tb_50_move_rule=True, tb_probe_depth=1, multipv_set_ms=MULTIPV_SET_AFTER_MS,
              SyzygyTables tables=None):
        """Prepare a search of `board`; 0 means no limit. Raises ValueError on bad limits.

        `soft_ms`, `hard_ms` and `clock_offset_ms` are the time limits (see
        set_time_limits); without an offset they are measured from this call.
        `adaptive_time`: stretch the soft limit while the root is unstable.
        With several lines (`multipv`), each iteration reports its whole set when
        it completes and, once the search has run `multipv_set_ms`, after each of
        its lines too (reports marked `partial`).

        `tables` (SyzygyTables) are probed inside the search for positions of
        at most `tb_probe_limit` pieces; those with exactly that many (or the
        largest tables' count, if fewer) only at depth `tb_probe_depth` or more."""
        cdef SearchThread* t = self.thread
        cdef Move moves[MAX_MOVES]
        cdef SearchLimits limits
        cdef int n, i, kept = 0
        cdef int64_t start_ms
        cdef const Network* net = &self.network.net if self.network is not None else NULL
        self.running_network = self.network
        self.running_tables = tables
        for i in range(self.thread_count):
            if not thread_set_position(self.threads[i], &board.pos, 0):
                raise MemoryError()
            self.threads[i].pos.net = net
            self.threads[i].pos.tables = tables_pointer(tables)
            self.threads[i].tt = &self.tt
            self.threads[i].shared = &self.shared
        self.chess960 = board.pos.chess960
        self.info = info
        t.reporter = <void*>self
        t.on_line = deliver_line
        t.on_currmove = deliver_currmove
        t.tb_pieces = min(tables_largest(tables), max(0, int(tb_probe_limit)))
        t.tb_50_move_rule = bool(tb_50_move_rule)
        t.tb_probe_depth = max(1, min(int(tb_probe_depth), MAX_PLY))
        limits.depth = max(0, min(int(depth), MAX_SEARCH_DEPTH))
        limits.nodes = max(0, int(nodes))
        limits.mate = max(0, min(int(mate), 100))
        limits.multipv = max(1, int(multipv))
        limits.adaptive_time = bool(adaptive_time)
        limits.multipv_set_ms = max(0, int(multipv_set_ms))
        n = generate_legal(&t.pos, moves, GEN_ALL)
        if searchmoves:
            allowed = {parse_uci_move(&t.pos, text, self.chess960) for text in searchmoves}
            for i in range(n):
                if moves[i] in allowed:
                    moves[kept] = moves[i]
                    kept += 1
            if kept == 0:
                raise ValueError("none of the searchmoves is legal")
            n = kept
        thread_set_roots(t, moves, n)
        fc_store_flag(&self.shared.stop, 0)
        self.set_time_limits(soft_ms, hard_ms, clock_offset_ms)
        start_ms = fc_now_ms()
        thread_start(t, limits, start_ms)
        limits.nodes = 0
        for i in range(1, self.thread_count):
            self._prepare_helper(self.threads[i], limits, start_ms)
        self.prepared = True

    cdef void _prepare_helper(self, SearchThread* helper, SearchLimits limits, int64_t start_ms):
        """A helper searches the main thread's root moves with no node limit and no reports."""
        cdef SearchThread* t = self.thread
        helper.reporter = NULL
        helper.root_count = t.root_count
        memcpy(helper.root_moves, t.root_moves, sizeof(RootMove) * t.root_count)
        helper.tb_pieces = t.tb_pieces
        helper.tb_50_move_rule = t.tb_50_move_rule
        helper.tb_probe_depth = t.tb_probe_depth
        thread_start(helper, limits, start_ms)

    def run(self):
        """Search what start() prepared; returns (best, ponder) UCI strings (None if absent)."""
        cdef SearchThread* t = self.thread
        if not self.prepared:
            raise RuntimeError("run() without start()")
        self.prepared = False
        if t.root_count == 0:
            return None, None
        tt_new_search(&self.tt)
        helpers = [threading.Thread(target=self._run_helper, args=(i,), daemon=True)
                   for i in range(1, self.thread_count)]
        for helper in helpers:
            helper.start()
        with nogil:
            iterative_deepening(t)
        fc_store_flag(&self.shared.stop, 1)
        for helper in helpers:
            helper.join()
        if t.completed_depth == 0 and t.root_moves[0].score == -VALUE_INFINITE:
            t.root_moves[0].score = 0
        best, ponder = self._best_and_ponder()
        self._report_final(ponder)
        return best, ponder

    def _run_helper(self, int index):
        cdef SearchThread* t = self.threads[index]
        with nogil:
            iterative_deepening(t)

    @property
    def nodes(self):
        """Nodes searched by all threads in the last search."""
        return self._total_nodes()

    cdef uint64_t _total_nodes(self, bint tb_hits=False):
        """Nodes (or tablebase hits) of all threads in the last search."""
        cdef uint64_t total = 0
        cdef int i
        for i in range(self.thread_count):
            total += self.threads[i].tb_hits if tb_hits else self.threads[i].nodes
        return total

    def go(self, Board board, **limits):
        self.start(board, **limits)
        return self.run()

    cdef tuple _best_and_ponder(self):
        """The move to play and the reply to ponder on: the second move of the
        closing report's first line, or the table's move after the best; none
        when the best move ends the game (mate, stalemate, a threefold
        repetition, the fifty-move rule, material that cannot mate)."""
        cdef SearchThread* t = self.thread
        cdef RootMove* rm = &t.root_moves[0]
        cdef Move ponder = MOVE_NONE
        cdef TTHit hit
        cdef IterationReport line
        fill_final_report(t, 0, &line)
        best = move_to_uci(&t.pos, rm.move, self.chess960)
        do_move(&t.pos, rm.move)
        if is_draw(&t.pos, 1):
            pass              # the game is over: nothing to ponder on
        elif line.pv_length >= 2 and is_legal_move(&t.pos, line.pv[1]):
            ponder = line.pv[1]
        elif tt_probe(&self.tt, t.pos.st.key, &hit) and is_legal_move(&t.pos, hit.move):
            ponder = hit.move
        ponder_text = move_to_uci(&t.pos, ponder, self.chess960) if ponder != MOVE_NONE else None
        undo_move(&t.pos, rm.move)
        return best, ponder_text

    cdef list _pv_text(self, const Move* pv, int length):
        """The PV as move text, cut at the first move that is not legal (never expected)."""
        cdef SearchThread* t = self.thread
        cdef int i, played = 0
        out = []
        for i in range(length):
            if not is_legal_move(&t.pos, pv[i]):
                break
            out.append(move_to_uci(&t.pos, pv[i], self.chess960))
            do_move(&t.pos, pv[i])
            played += 1
        for i in range(played - 1, -1, -1):
            undo_move(&t.pos, pv[i])
        return out

    cdef void _report_final(self, ponder):
        """The closing report: every MultiPV line, each root move once, in rank order
        (fill_final_report); the first line's second move is the ponder move."""
        cdef SearchThread* t = self.thread
        cdef IterationReport r
        cdef int i, lines = line_count(t)
        if self.info is None:
            return
        for i in range(lines):
            if fill_final_report(t, i, &r):
                self._deliver_line(&r, ponder if i == 0 else None)

    cdef void _deliver_line(self, const IterationReport* r, ponder=None):
        """The core's report of a line, with every thread's totals, to the callback;
        `ponder` completes a one-move line."""
        cdef SearchReport report
        if self.info is None:
            return
        report = SearchReport.__new__(SearchReport)
        report.depth, report.seldepth, report.multipv = r.depth, r.seldepth, r.multipv
        report.score, report.bound, report.final, report.partial = r.score, r.bound, r.final, r.partial
        report.nodes, report.tb_hits = self._total_nodes(), self._total_nodes(tb_hits=True)
        report.time_ms, report.hashfull, report.effort = r.time_ms, tt_hashfull(&self.tt), r.effort
        pv = self._pv_text(r.pv, r.pv_length)
        if ponder is not None and len(pv) == 1:
            pv.append(ponder)
        report.pv = tuple(pv)
        self._call_info(report)

    cdef void _deliver_currmove(self, Move m, int number, int depth):
        cdef CurrentMoveReport report
        if self.info is None:
            return
        report = CurrentMoveReport.__new__(CurrentMoveReport)
        report.move = move_to_uci(&self.thread.pos, m, self.chess960)
        report.number, report.depth = number, depth
        self._call_info(report)

    cdef void _call_info(self, report):
        """A failing callback cannot stop the search: its error is logged, with the
        traceback, and the search goes on."""
        try:
            self.info(report)
        except Exception:
            _log.exception("the search's info callback failed on %r", report)
