# The Search face of the core: a search with its own transposition table, history
# tables and threads, run with the GIL released; its results reach Python through
# an optional `info` callback (plain dicts: the Python layer types them).

#: The core's score units, for the Python layer's score type: a mate in n plies
#: scores SCORE_MATE - n, a tablebase win SCORE_TB_WIN minus the plies to it.
SCORE_MATE = VALUE_MATE
SCORE_MATE_IN_MAX_PLY = VALUE_MATE_IN_MAX_PLY
SCORE_TB_WIN = VALUE_TB_WIN


cdef class Search:
    """A search with its own transposition table, history tables and threads.

    ``start(board, ...)`` prepares a search synchronously (a ``stop()`` from then on
    ends it); ``run()`` performs it with the GIL released and returns
    ``(best, ponder)`` as UCI strings; ``go(board, ...)`` does both. With several
    threads (Lazy SMP) the helpers search the same root and share the table; the
    main thread decides and reports.
    """
    cdef TranspositionTable tt
    cdef SearchThread** threads
    cdef SearchThread* thread          # the main thread, threads[0]
    cdef int thread_count
    cdef SharedState shared
    cdef object info
    cdef bint chess960
    cdef bint prepared

    def __cinit__(self, hash_mb=16, threads=1):
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

    def set_time_limits(self, soft_ms, hard_ms):
        """Soft (no new iteration) and hard (abort) limits in ms from the start of the search."""
        fc_store_flag(&self.shared.soft_ms, max(0, int(soft_ms)))
        fc_store_flag(&self.shared.hard_ms, max(0, int(hard_ms)))

    def start(self, Board board, *, depth=0, nodes=0, soft_ms=0, hard_ms=0, mate=0,
              multipv=1, searchmoves=None, info=None, tb_probe_limit=7, tb_50_move_rule=True):
        """Prepare a search of `board`; 0 means no limit. Raises ValueError on bad limits.

        `soft_ms` and `hard_ms` are the time limits (see set_time_limits), measured
        from this call.

        Tablebases loaded with syzygy_init() are probed inside the search for
        positions of at most `tb_probe_limit` pieces."""
        cdef SearchThread* t = self.thread
        cdef Move moves[MAX_MOVES]
        cdef SearchLimits limits
        cdef int n, i, kept = 0
        cdef int64_t start_ms
        for i in range(self.thread_count):
            if not thread_set_position(self.threads[i], &board.pos, 0):
                raise MemoryError()
            self.threads[i].tt = &self.tt
            self.threads[i].shared = &self.shared
        self.chess960 = board.pos.chess960
        self.info = info
        t.reporter = <void*>self
        t.tb_pieces = min(TB_LARGEST, max(0, int(tb_probe_limit)))
        t.tb_50_move_rule = bool(tb_50_move_rule)
        limits.depth = max(0, min(int(depth), MAX_SEARCH_DEPTH))
        limits.nodes = max(0, int(nodes))
        limits.mate = max(0, min(int(mate), 100))
        limits.multipv = max(1, int(multipv))
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
        self.set_time_limits(soft_ms, hard_ms)
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
        self._report_line(max(t.completed_depth, 1), 0, BOUND_EXACT, True)
        return self._best_and_ponder()

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
        cdef SearchThread* t = self.thread
        cdef RootMove* rm = &t.root_moves[0]
        cdef Move ponder = MOVE_NONE
        cdef TTHit hit
        best = move_to_uci(&t.pos, rm.move, self.chess960)
        do_move(&t.pos, rm.move)
        if rm.pv_length >= 2 and is_legal_move(&t.pos, rm.pv[1]):
            ponder = rm.pv[1]
        elif tt_probe(&self.tt, t.pos.st.key, &hit) and is_legal_move(&t.pos, hit.move):
            ponder = hit.move
        ponder_text = move_to_uci(&t.pos, ponder, self.chess960) if ponder != MOVE_NONE else None
        undo_move(&t.pos, rm.move)
        return best, ponder_text

    cdef list _pv_text(self, RootMove* rm):
        """The PV as UCI text, cut at the first move that is not legal (never expected)."""
        cdef SearchThread* t = self.thread
        cdef int i, played = 0
        out = []
        for i in range(rm.pv_length):
            if not is_legal_move(&t.pos, rm.pv[i]):
                break
            out.append(move_to_uci(&t.pos, rm.pv[i], self.chess960))
            do_move(&t.pos, rm.pv[i])
            played += 1
        for i in range(played - 1, -1, -1):
            undo_move(&t.pos, rm.pv[i])
        return out

    cdef void _report_line(self, int depth, int pv_index, int bound, bint final=False):
        cdef SearchThread* t = self.thread
        cdef RootMove* rm = &t.root_moves[pv_index]
        cdef int64_t elapsed = max(elapsed_ms(t), 0)
        cdef int score = rm.score if rm.score != -VALUE_INFINITE else rm.previous_score
        if self.info is None:
            return
        if score == -VALUE_INFINITE:
            score = 0
        bound_text = None
        if bound == BOUND_UPPER:
            bound_text = "upperbound"
        elif bound == BOUND_LOWER:
            bound_text = "lowerbound"
        data = {
            "depth": depth, "seldepth": max(rm.seldepth, 1), "multipv": pv_index + 1,
            "score": score, "bound": bound_text, "nodes": self._total_nodes(),
            "nps": self._total_nodes() * 1000 // max(elapsed, 1), "time": elapsed,
            "hashfull": tt_hashfull(&self.tt), "tbhits": self._total_nodes(tb_hits=True),
            "pv": self._pv_text(rm), "final": final,
            "effort": <double>rm.nodes / <double>max(t.nodes, 1),
        }
        try:
            self.info(data)
        except Exception:
            pass

    cdef void _report_currmove(self, Move m, int number, int depth):
        if self.info is None:
            return
        try:
            self.info({"currmove": move_to_uci(&self.thread.pos, m, self.chess960),
                       "currmovenumber": number, "depth": depth})
        except Exception:
            pass
