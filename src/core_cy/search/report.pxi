# --- reporting ------------------------------------------------------------------------
# The search describes a line in a C struct (IterationReport, thread.pxi) and
# hands it to its owner's callback; the Search object (api/api_search.pxi) adds
# what all threads share and gives Python a typed report, which it words.

cdef void fill_report(const SearchThread* t, int depth, int pv_index, int bound, bint final,
                      IterationReport* r) noexcept nogil:
    """Line pv_index after an iteration (or an aspiration failure): a move that has
    no score of its own yet shows its previous iteration's, else 0."""
    cdef const RootMove* rm = &t.root_moves[pv_index]
    cdef int score = rm.score if rm.score != -VALUE_INFINITE else rm.previous_score
    r.depth = depth
    r.seldepth = max(rm.seldepth, 1)
    r.multipv = pv_index + 1
    r.score = 0 if score == -VALUE_INFINITE else score
    r.bound = bound
    r.final = final
    r.partial = False
    r.time_ms = max(elapsed_ms(t), 0)
    r.effort = root_effort(t, rm)
    r.pv_length = rm.pv_length
    r.pv = <const Move*>rm.pv

cdef bint fill_final_report(const SearchThread* t, int index, IterationReport* r) noexcept nogil:
    """Line `index` of the closing report, when the search stopped at any point.
    Line 1 is the move the search plays: its newest result when that beat the line
    it last completed (a new best move found mid-iteration), else that completed
    line. Every other line is its move's last completed line, at that line's depth
    with its whole PV. False for a move that never completed a line (skipped)."""
    cdef const RootMove* rm = &t.root_moves[index]
    cdef const RootLine* line = &t.root_lines[rm.slot]
    cdef bint newer = rm.depth > line.depth and rm.score != -VALUE_INFINITE \
        and (rm.exact or line.depth == 0 or rm.score > line.score)
    if line.depth > 0 and not (index == 0 and newer):
        fill_report(t, line.depth, index, BOUND_EXACT, True, r)
        r.score, r.seldepth = line.score, max(line.seldepth, 1)
        r.pv_length, r.pv = line.pv_length, <const Move*>line.pv
        return True
    if index > 0 and not newer:
        return False
    fill_report(t, max(rm.depth, t.completed_depth, 1), index, BOUND_EXACT, True, r)
    return True

cdef void report_line(SearchThread* t, int depth, int pv_index, int bound) noexcept nogil:
    cdef IterationReport r
    if t.reporter == NULL:
        return
    fill_report(t, depth, pv_index, bound, False, &r)
    t.on_line(t.reporter, &r)

cdef void fill_running_line(const SearchThread* t, int depth, int index, IterationReport* r) noexcept nogil:
    """Line `index` of a set reported while iteration `depth` runs: the move's result
    at this depth if it has one (a line done; a move that raised alpha in the search
    of one, exact; the first move of one that then failed low, an upper bound), else
    the line it last completed, at that line's depth (a move at one of the set's
    ranks always has one after the first iteration; else, never expected, its
    previous score)."""
    cdef const RootMove* rm = &t.root_moves[index]
    cdef const RootLine* line = &t.root_lines[rm.slot]
    if rm.score != -VALUE_INFINITE and rm.depth == depth:
        fill_report(t, depth, index, BOUND_EXACT if rm.exact else BOUND_UPPER, False, r)
    elif line.depth > 0:
        fill_report(t, line.depth, index, BOUND_EXACT, False, r)
        r.score, r.seldepth = line.score, max(line.seldepth, 1)
        r.pv_length, r.pv = line.pv_length, <const Move*>line.pv
    else:
        fill_report(t, max(depth - 1, 1), index, BOUND_EXACT, False, r)
    r.partial = True

cdef void report_set_so_far(SearchThread* t, int depth) noexcept nogil:
    """The whole set of lines while iteration `depth` runs (fill_running_line), so
    that a long iteration shows its progress and a GUI never shows a move twice."""
    cdef IterationReport r
    cdef int i
    if t.reporter == NULL:
        return
    for i in range(line_count(t)):
        fill_running_line(t, depth, i, &r)
        t.on_line(t.reporter, &r)

cdef void report_currmove(SearchThread* t, Move m, int number, int depth) noexcept nogil:
    t.on_currmove(t.reporter, m, number, depth)


# --- a search thread's life ------------------------------------------------------------
# Every user of the search (the Search object, the self-play worker, datagen) goes
# through these: new, forget, give a position, set the roots and limits, free.

cdef void link_pv_rows(SearchThread* t) noexcept nogil:
    """Point every frame at its PV row."""
    cdef int i
    for i in range(FRAMES_BEFORE_ROOT + MAX_PLY + 4):
        t.stack[i].pv = t.pv_rows[i]

cdef SearchThread* thread_new(int thread_id) noexcept nogil:
    """A thread with empty tables and no position (on huge pages where there are:
    the histories are read at random); NULL when out of memory."""
    cdef SearchThread* t = <SearchThread*>fc_alloc_table(sizeof(SearchThread))
    if t != NULL:
        t.thread_id = thread_id
        link_pv_rows(t)
    return t

cdef void thread_free(SearchThread* t) noexcept nogil:
    if t != NULL:
        free(t.own_states)
        fc_free_aligned(t.own_accs)
        free(t)

cdef void thread_forget(SearchThread* t) noexcept nogil:
    """Forget everything learnt (killers, histories, counters), keeping the buffers,
    the identity and the links to the shared table and stop flag."""
    cdef StateInfo* states = t.own_states
    cdef Accumulator* accs = t.own_accs
    cdef int capacity = t.own_capacity, accs_capacity = t.own_accs_capacity, thread_id = t.thread_id
    cdef TranspositionTable* tt = t.tt
    cdef SharedState* shared = t.shared
    memset(t, 0, sizeof(SearchThread))
    t.own_states, t.own_capacity = states, capacity
    t.own_accs, t.own_accs_capacity = accs, accs_capacity
    t.thread_id, t.tt, t.shared = thread_id, tt, shared
    link_pv_rows(t)

cdef bint thread_set_position(SearchThread* t, const Position* pos, int extra_plies) noexcept nogil:
    """Give t its own copy of pos (with the game's states, for repetitions) and room
    for `extra_plies` more moves plus a search; False when out of memory."""
    cdef int needed = pos.st_index + extra_plies + MAX_PLY + 16
    if needed > t.own_capacity:
        free(t.own_states)
        t.own_states = <StateInfo*>malloc(sizeof(StateInfo) * needed)
        t.own_capacity = needed if t.own_states != NULL else 0
        if t.own_states == NULL:
            return False
    copy_position_into(&t.pos, pos, t.own_states, t.own_capacity)
    if not attach_accumulators(&t.pos, &t.own_accs, &t.own_accs_capacity):
        return False
    refresh_incremental_eval(&t.pos)
    return True

cdef void thread_set_roots(SearchThread* t, const Move* moves, int count) noexcept nogil:
    """The root moves to search, in the picker's first order."""
    cdef int i
    t.root_count = 0
    for i in range(count):
        add_root_move(t, moves[i])
    order_root_moves(t)

cdef void thread_start(SearchThread* t, SearchLimits limits, int64_t start_ms) noexcept nogil:
    """A new search's limits and counters (the roots are set)."""
    t.limits = limits
    tm_start(&t.tm, limits.adaptive_time)
    t.nodes = 0
    t.seldepth = 0
    t.completed_depth = 0
    t.pv_index = 0
    t.tb_hits = 0
    t.start_ms = start_ms
