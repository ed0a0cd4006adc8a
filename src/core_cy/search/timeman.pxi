# --- time management -------------------------------------------------------------------
# The caller plans a soft limit (start no new iteration after it) and a hard one
# (abort) on its own clock. After every completed iteration the main thread
# stretches the soft limit while the root is unstable (the best move keeps
# changing) or failing (the score falls, in the network's units), and scales it by
# the node effort (the share of the nodes spent under the best move: a move that
# took nearly all of them needs less time); never past the hard limit. Every caller
# (UCI, the Python API, datagen) gets the same decision.

cdef inline void tm_start(TimeManager* tm, bint adaptive) noexcept nogil:
    tm.adaptive = adaptive
    tm.stretch = 1.0
    tm.changes = 0.0
    tm.best = MOVE_NONE
    tm.score = 0
    tm.seen = False

cdef inline double tm_effort_factor(double effort, int depth) noexcept nogil:
    """How the node effort scales the soft limit (1 below TM_EFFORT_MIN_DEPTH)."""
    if depth < TM_EFFORT_MIN_DEPTH:
        return 1.0
    return (TM_NODE_EFFORT_BASE_X100 - TM_NODE_EFFORT_SLOPE_X100 * min(max(effort, 0.0), 1.0)) / 100.0

cdef void tm_record_iteration(TimeManager* tm, Move best, int score, double effort, int depth) noexcept nogil:
    """A completed iteration's best move, score and node effort: the new stretch."""
    cdef int drop = 0
    cdef double instability, falling
    tm.changes *= TM_BEST_MOVE_CHANGE_DECAY_X100 / 100.0
    if tm.seen:
        if best != tm.best:
            tm.changes += 1.0
        drop = tm.score - score
    tm.best, tm.score, tm.seen = best, score, True
    instability = 1.0 + TM_BEST_MOVE_CHANGE_WEIGHT_X100 / 100.0 * tm.changes
    falling = min(TM_MAX_SCORE_DROP_FACTOR_X100 / 100.0, 1.0 + max(0, drop) / <double>TM_SCORE_DROP_SCALE_CP)
    tm.stretch = min(TM_MAX_STRETCH_X100 / 100.0, instability * falling * tm_effort_factor(effort, depth))

cdef inline double root_effort(const SearchThread* t, const RootMove* rm) noexcept nogil:
    """The share of this search's nodes (the thread's) spent under a root move."""
    return <double>rm.nodes / <double>max(t.nodes, 1)

cdef inline int tm_stretched_soft(const TimeManager* tm, int soft, int hard) noexcept nogil:
    """The planned soft limit stretched, on the caller's clock (0 stays "none"); a
    fixed budget (soft = hard, as movetime plans it) is never stretched."""
    if soft == 0 or not tm.adaptive or soft >= hard:
        return soft
    return min(hard, max(1, <int>(soft * tm.stretch)))

cdef inline int shifted_limit(int clock_ms, int offset_ms) noexcept nogil:
    """A limit on the caller's clock measured from a search that started offset_ms
    into that clock: at least 1 ms, 0 staying "no limit"."""
    if clock_ms == 0:
        return 0
    return max(1, clock_ms - offset_ms)

cdef inline int core_ms(const SearchThread* t, int clock_ms) noexcept nogil:
    return shifted_limit(clock_ms, fc_load_flag(&t.shared.clock_offset_ms))

cdef inline int hard_limit_ms(const SearchThread* t) noexcept nogil:
    return core_ms(t, fc_load_flag(&t.shared.hard_ms))

cdef inline int soft_limit_ms(const SearchThread* t) noexcept nogil:
    return core_ms(t, tm_stretched_soft(&t.tm, fc_load_flag(&t.shared.soft_ms), fc_load_flag(&t.shared.hard_ms)))

cdef inline void check_limits(SearchThread* t) noexcept nogil:
    """Raise the stop flag when the node budget or the hard time limit is spent."""
    cdef int hard
    if t.limits.nodes and t.nodes >= t.limits.nodes:
        fc_store_flag(&t.shared.stop, 1)
        return
    t.time_check_countdown -= 1
    if t.time_check_countdown <= 0:
        t.time_check_countdown = TIME_CHECK_INTERVAL
        hard = hard_limit_ms(t)
        if hard and elapsed_ms(t) >= hard:
            fc_store_flag(&t.shared.stop, 1)
