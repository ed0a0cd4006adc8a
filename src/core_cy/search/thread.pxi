# The search, part one: its values and constants, the per-ply frames, the root
# moves, the search thread and the helpers every part uses. The search itself
# is in search.pxi, the time decisions in timeman.pxi, the reports and a
# thread's life in report.pxi.
#
# Search: iterative deepening, aspiration windows, principal variation search
# with alpha-beta, quiescence, pruning and reductions. One SearchThread holds
# everything a search mutates; only the transposition table and the stop flag
# are shared.
#
# `search` reads in numbered steps, each with the reason for its rule; every
# number a rule uses is a named constant below, beside the rule's other numbers.

cdef enum:
    VALUE_DRAW = 0
    VALUE_MATE = 32000
    VALUE_INFINITE = 32001
    VALUE_NONE = 32002
    VALUE_MATE_IN_MAX_PLY = VALUE_MATE - MAX_PLY
    VALUE_TB_WIN = 20000          # a tablebase win, minus the ply where it was found
    VALUE_TB_WIN_IN_MAX_PLY = VALUE_TB_WIN - MAX_PLY   # at or beyond: a proven result

# The pruning, reduction, extension and history constants that a tuner may move
# (RFP_MARGIN, NMP_BASE_REDUCTION, LMR_BASE_X100, ...) are declared with their
# ranges in tunables.py, one table, and reach this file through tunables.pxi
# (generated): literals in the default build, UCI options in the tune build.
# Margins on the static evaluation are in the network's units, which run about
# 1.5 times the hand-crafted evaluation's centipawns (a knight is worth ~470);
# the SEE margins are in SEE's own piece values. The constants below are the
# ones no tuner should touch, grouped by rule.
cdef enum:
    ASPIRATION_MAX_DELTA = 1000 # aspiration windows wider than this search the full window
    TB_STORE_DEPTH_BONUS = 6    # tablebase verdicts are stored this much deeper
    CHECK_EXTENSION_PLIES = 2   # check extension: only within this many times the root depth
    HISTORY_MAX = 16384         # history scores saturate here (each table)
    CONT_SIZE = 16 * 64         # continuation history rows and columns: piece x destination
    CONT_NONE = 0               #   the row of "no move" (root, null move): never updated
    MAX_QUIETS_TRIED = 64       # quiet moves remembered for the history malus
    MATE_DEPTH_MARGIN = 6       # `go mate N` searches at most 2 N + this plies
    MAX_SEARCH_DEPTH = MAX_PLY - 10
    FRAMES_BEFORE_ROOT = 4      # stack frames below ply 0, so that (ss - 4) always exists
    TIME_CHECK_INTERVAL = 1024  # nodes between two readings of the clock
    TM_MAX_STRETCH_X100 = 250   # the soft limit is stretched at most 2.5 times ...
    TM_EFFORT_MIN_DEPTH = 6     # ... and by the node effort from this completed depth on
    CURRMOVE_AFTER_MS = 1000    # report the current root move after this long
    MULTIPV_SET_AFTER_MS = 3000 # with MultiPV, report the set after each line after this long


# Late move reductions: LMR_BASE + log(depth) * log(move number) / LMR_DIVISOR
# (the two tunables are in hundredths). Recomputed when a tunable changes.
cdef int LMR_TABLE[64][64]

cdef void init_search_tables() noexcept nogil:
    cdef int d, m
    cdef double base = LMR_BASE_X100 / 100.0, divisor = LMR_DIVISOR_X100 / 100.0
    for d in range(64):
        for m in range(64):
            LMR_TABLE[d][m] = 0 if d == 0 or m == 0 else \
                <int>(base + log(<double>d) * log(<double>m) / divisor)

cdef inline int lmp_threshold(int depth, bint improving) noexcept nogil:
    """(LMP_BASE + depth^2) / 2, or / 1 when improving; a shift, not a division per move."""
    return (LMP_BASE + depth * depth) >> (1 - improving)


ctypedef struct RootMove:
    Move move
    int score
    int previous_score
    int seldepth
    int depth                   # the depth `score`, `seldepth` and `pv` were found at (0: none yet)
    bint exact                  # that score lay inside its window (not a bound)
    int slot                    # this move's RootLine in SearchThread.root_lines
    int pv_length
    uint64_t nodes              # nodes this thread spent under the move, this search
    Move pv[MAX_PLY + 1]

# The last completed line of a root move: kept when a MultiPV line's search ends
# (not stopped), so that a search stopped mid-iteration can still report every line
# as of the iteration that finished it, with that iteration's depth and whole PV.
ctypedef struct RootLine:
    int depth                   # 0: the move has never completed a line
    int score
    int seldepth
    int pv_length
    Move pv[MAX_PLY + 1]

ctypedef struct SharedState:
    volatile int stop
    volatile int soft_ms        # the planned limits, in ms on the caller's clock; 0 = none
    volatile int hard_ms
    volatile int clock_offset_ms  # the caller's clock when the search started (negative
                                  #   when the clock started later: a ponderhit)

ctypedef struct SearchLimits:
    int depth
    uint64_t nodes
    int mate
    int multipv
    bint adaptive_time          # stretch the soft limit as the root changes (clock searches)
    int multipv_set_ms          # with several lines, report the whole set after each line
                                #   once the search has run this long (ms)

# The time manager's memory between iterations (the main thread's): how much the
# planned soft limit is stretched, and what the stretch is computed from.
ctypedef struct TimeManager:
    bint adaptive
    double stretch              # the planned soft limit's current factor
    double changes              # best-move changes, halved (by default) every iteration
    Move best                   # the last completed iteration's best move and score
    int score
    bint seen                   # an iteration has been recorded

# What the search keeps for one ply, on a stack addressed relative to the current
# ply: (ss - 1) is the parent, (ss - 2) the node where we last moved.
# Small (32 bytes, two to a cache line): the PV rows live apart, in
# SearchThread.pv_rows, so that the frames the search reads at every node stay
# close together.
ctypedef struct PlyFrame:
    int16_t* cont_history       # continuation history row of the move made from this ply
                                #   (the "no move" row for none or a null move)
    Move* pv                    # this frame's PV row: the PV from this ply is pv[ply:pv_length]
    Move killers[2]
    int static_eval             # VALUE_NONE when in check
    int pv_length

# A line of the search's progress, and the callbacks that take it to the search's
# owner (which sets them with `reporter`; the search never names the owner).
ctypedef struct IterationReport:
    int depth
    int seldepth
    int multipv                 # 1 for the best line
    int score                   # the search's units: VALUE_MATE - plies for a mate
    int bound                   # BOUND_EXACT, or BOUND_UPPER / BOUND_LOWER mid-iteration
    bint final                  # the search's closing line
    bint partial                # one of a set reported before its iteration completed
    int64_t time_ms
    double effort               # the share of the thread's nodes under the line's first move
    int pv_length
    const Move* pv

ctypedef void (*LineCallback)(void* owner, const IterationReport* r) noexcept nogil
ctypedef void (*CurrMoveCallback)(void* owner, Move m, int number, int depth) noexcept nogil

ctypedef struct SearchThread:
    Position pos
    TranspositionTable* tt
    SharedState* shared
    SearchLimits limits
    int64_t start_ms
    uint64_t nodes
    int seldepth
    int root_depth
    int completed_depth
    int pv_index
    int root_count
    RootMove root_moves[MAX_MOVES]
    RootLine root_lines[MAX_MOVES] # by RootMove.slot
    PlyFrame stack[FRAMES_BEFORE_ROOT + MAX_PLY + 4]
    Move counter_moves[16][64]
    # History scores stay within +-HISTORY_MAX, so 16 bits hold them: the tables
    # take half the cache they would as ints.
    int16_t history[2][64][64]
    int16_t cont_history[CONT_SIZE][CONT_SIZE]   # [earlier move's piece-to][this move's piece-to]
    void* reporter               # the search's owner, for reports (main thread only; NULL: none)
    LineCallback on_line         # a line to report, to the owner
    CurrMoveCallback on_currmove # the root move being searched, to the owner
    int thread_id                # 0 = main thread; helpers share the TT and the stop flag
    int time_check_countdown     # nodes until the clock is read again
    int tb_pieces                # probe the tablebases with at most this many pieces (0: off)
    int tb_probe_depth           # ...and with exactly that many only from this depth on
    bint tb_50_move_rule         # cursed wins and blessed losses count as draws
    uint64_t tb_hits
    StateInfo* own_states        # state stack storage for this thread's position copy
    int own_capacity
    Accumulator* own_accs        # network accumulators, one per state slot
    int own_accs_capacity
    TimeManager tm               # the main thread's time decisions between iterations
    Move pv_rows[FRAMES_BEFORE_ROOT + MAX_PLY + 4][MAX_PLY + 4]   # the frames' PV rows


# --- helpers ---------------------------------------------------------------------

cdef inline PlyFrame* frame_at(SearchThread* t, int ply) noexcept nogil:
    return &t.stack[FRAMES_BEFORE_ROOT + ply]

cdef inline int mate_in(int ply) noexcept nogil:
    return VALUE_MATE - ply

cdef inline int mated_in(int ply) noexcept nogil:
    return -VALUE_MATE + ply

cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    """Proven scores (mates, tablebase results) are stored relative to the node."""
    if score >= VALUE_TB_WIN_IN_MAX_PLY:
        return score + ply
    if score <= -VALUE_TB_WIN_IN_MAX_PLY:
        return score - ply
    return score

cdef inline int score_from_tt(int score, int ply) noexcept nogil:
    if score == VALUE_NONE:
        return VALUE_NONE
    if score >= VALUE_TB_WIN_IN_MAX_PLY:
        return score - ply
    if score <= -VALUE_TB_WIN_IN_MAX_PLY:
        return score + ply
    return score

cdef inline int node_bound(int best, int beta, bint exact) noexcept nogil:
    """Bound type of a node's result: a cut-off, an exact PV score, or all moves failed low."""
    if best >= beta:
        return BOUND_LOWER
    return BOUND_EXACT if exact else BOUND_UPPER

cdef inline bint stopped(SearchThread* t) noexcept nogil:
    """Has the search been told to stop? Depth 1 always completes, so even an
    immediate stop returns a move that the search has looked at."""
    return fc_load_flag(&t.shared.stop) != 0 and t.completed_depth > 0

cdef inline int64_t elapsed_ms(const SearchThread* t) noexcept nogil:
    return fc_now_ms() - t.start_ms
