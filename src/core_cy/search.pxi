# Search: iterative deepening, aspiration windows, principal variation search
# with alpha-beta, quiescence, pruning and reductions. One SearchThread holds
# everything a search mutates; only the transposition table is shared.

cdef enum:
    VALUE_DRAW = 0
    VALUE_MATE = 32000
    VALUE_INFINITE = 32001
    VALUE_NONE = 32002
    VALUE_MATE_IN_MAX_PLY = VALUE_MATE - MAX_PLY
    VALUE_TB_WIN = 20000          # a tablebase win, minus the ply where it was found
    VALUE_TB_WIN_IN_MAX_PLY = VALUE_TB_WIN - MAX_PLY   # at or beyond: a proven result

# Pruning and reduction constants, each used by one rule below.
cdef enum:
    ASPIRATION_MIN_DEPTH = 5
    ASPIRATION_DELTA = 16
    RFP_MAX_DEPTH = 8           # reverse futility: static eval far above beta
    RFP_MARGIN = 75
    NMP_MIN_DEPTH = 3           # null move: pass and still beat beta
    NMP_BASE_REDUCTION = 3
    NMP_EVAL_DIVISOR = 200
    RAZOR_MAX_DEPTH = 2         # razoring: static eval far below alpha, trust quiescence
    RAZOR_MARGIN = 250
    IIR_MIN_DEPTH = 4           # internal iterative reduction without a TT move
    LMP_MAX_DEPTH = 8           # late move pruning: stop trying quiets after many
    FUTILITY_MAX_DEPTH = 6      # futility: eval plus margin cannot reach alpha
    FUTILITY_BASE = 80
    FUTILITY_MARGIN = 90
    SEE_QUIET_MAX_DEPTH = 8     # quiet moves that lose material by SEE
    SEE_QUIET_MARGIN = 25       # times depth squared
    SEE_CAPTURE_MAX_DEPTH = 6   # captures that lose material by SEE
    SEE_CAPTURE_MARGIN = 90     # times depth
    LMR_MIN_DEPTH = 3
    QS_DELTA_MARGIN = 200       # quiescence delta pruning
    HISTORY_MAX = 16384
    TIME_CHECK_INTERVAL = 1024
    CURRMOVE_AFTER_MS = 1000


cdef int LMR_TABLE[64][64]

cdef void init_search_tables() noexcept nogil:
    cdef int d, m
    for d in range(64):
        for m in range(64):
            LMR_TABLE[d][m] = 0 if d == 0 or m == 0 else <int>(0.8 + log(<double>d) * log(<double>m) / 2.3)

cdef inline int lmp_threshold(int depth, bint improving) noexcept nogil:
    return (3 + depth * depth) // (2 - improving)


ctypedef struct RootMove:
    Move move
    int score
    int previous_score
    int seldepth
    int pv_length
    Move pv[MAX_PLY + 1]

ctypedef struct SharedState:
    volatile int stop
    volatile int soft_ms        # 0 = none; measured from start_ms
    volatile int hard_ms

ctypedef struct SearchLimits:
    int depth
    uint64_t nodes
    int mate
    int multipv

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
    Move killers[MAX_PLY + 4][2]
    Move counter_moves[16][64]
    int history[2][64][64]
    int static_eval[MAX_PLY + 4]
    Move pv[MAX_PLY + 4][MAX_PLY + 4]
    int pv_length[MAX_PLY + 4]
    void* reporter               # the Python Search object, for info callbacks (main thread only)
    int thread_id                # 0 = main thread; helpers share the TT and the stop flag
    int time_check_countdown     # nodes until the clock is read again
    int tb_pieces                # probe the tablebases with at most this many pieces (0: off)
    bint tb_50_move_rule         # cursed wins and blessed losses count as draws
    uint64_t tb_hits
    StateInfo* own_states        # state stack storage for this thread's position copy
    int own_capacity
    Accumulator* own_accs        # network accumulators, one per state slot
    int own_accs_capacity


# --- helpers ---------------------------------------------------------------------

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

cdef inline void check_limits(SearchThread* t) noexcept nogil:
    """Raise the stop flag when the node budget or the hard time limit is spent."""
    cdef int hard
    if t.limits.nodes and t.nodes >= t.limits.nodes:
        fc_store_flag(&t.shared.stop, 1)
        return
    t.time_check_countdown -= 1
    if t.time_check_countdown <= 0:
        t.time_check_countdown = TIME_CHECK_INTERVAL
        hard = fc_load_flag(&t.shared.hard_ms)
        if hard and elapsed_ms(t) >= hard:
            fc_store_flag(&t.shared.stop, 1)

cdef inline bint has_non_pawn_material(const Position* pos, Color c) noexcept nogil:
    return (pos.by_color[c] & ~pos.by_type[PAWN] & ~pos.by_type[KING]) != 0

cdef inline bint is_draw(const Position* pos, int ply) noexcept nogil:
    """Fifty-move rule (unless it is mate), repetition, insufficient material."""
    cdef Move moves[MAX_MOVES]
    if pos.st.rule50 >= 100:
        return not pos.st.checkers or generate_legal(pos, moves, GEN_ALL) > 0
    return is_repetition(pos, ply) or has_insufficient_material(pos)

cdef inline void update_pv(SearchThread* t, int ply, Move m) noexcept nogil:
    cdef int i
    t.pv[ply][ply] = m
    for i in range(ply + 1, t.pv_length[ply + 1]):
        t.pv[ply][i] = t.pv[ply + 1][i]
    t.pv_length[ply] = max(t.pv_length[ply + 1], ply + 1)

cdef inline void update_history(int* entry, int bonus) noexcept nogil:
    """History with gravity: entries saturate towards +-HISTORY_MAX."""
    entry[0] += bonus - entry[0] * iabs(bonus) // HISTORY_MAX

cdef inline Move previous_move(const Position* pos) noexcept nogil:
    return pos.st.move

cdef inline Move counter_move(const SearchThread* t) noexcept nogil:
    cdef Move prev = previous_move(&t.pos)
    if prev == MOVE_NONE or prev == MOVE_NULL:
        return MOVE_NONE
    return t.counter_moves[t.pos.board[move_to(prev)]][move_to(prev)]

cdef void update_quiet_stats(SearchThread* t, int ply, Move best, const Move* quiets, int quiet_count,
                             int depth) noexcept nogil:
    """Reward the quiet move that cut off; penalise the quiets tried before it."""
    cdef Color us = t.pos.side
    cdef int bonus = min(16 * depth * depth, 1200), i
    cdef Move prev = previous_move(&t.pos)
    if t.killers[ply][0] != best:
        t.killers[ply][1] = t.killers[ply][0]
        t.killers[ply][0] = best
    if prev != MOVE_NONE and prev != MOVE_NULL:
        t.counter_moves[t.pos.board[move_to(prev)]][move_to(prev)] = best
    update_history(&t.history[us][move_from(best)][move_to(best)], bonus)
    for i in range(quiet_count):
        update_history(&t.history[us][move_from(quiets[i])][move_to(quiets[i])], -bonus)


cdef inline int probe_tablebase(SearchThread* t, int ply, int* value) noexcept nogil:
    """After a capture or pawn move, ask the tables about a position they cover.

    Returns the bound the table's verdict gives (BOUND_NONE when not probed) and
    sets `value`: a win is a lower bound, a loss an upper bound, a draw exact."""
    cdef Position* pos = &t.pos
    cdef int ok = 0, wdl
    if t.tb_pieces == 0 or pos.st.rule50 != 0 or pos.st.castling != 0 \
            or fc_popcount(pos.by_type[0]) > t.tb_pieces:
        return BOUND_NONE
    wdl = tb_probe_wdl(pos, &ok)
    if not ok:
        return BOUND_NONE
    t.tb_hits += 1
    if t.tb_50_move_rule and (wdl == 1 or wdl == -1):
        wdl = 0
    if wdl > 0:
        value[0] = VALUE_TB_WIN - ply
        return BOUND_LOWER
    if wdl < 0:
        value[0] = -VALUE_TB_WIN + ply
        return BOUND_UPPER
    value[0] = VALUE_DRAW
    return BOUND_EXACT


# --- quiescence -------------------------------------------------------------------

cdef int qsearch(SearchThread* t, int alpha, int beta, int ply) noexcept nogil:
    cdef Position* pos = &t.pos
    cdef bint pv_node = beta - alpha > 1
    cdef bint in_check = pos.st.checkers != 0
    cdef TTHit hit
    cdef bint tt_hit
    cdef Move tt_move = MOVE_NONE, m, best_move = MOVE_NONE
    cdef int tt_score = VALUE_NONE, stand_pat, best, score, move_count = 0
    cdef int raw_eval = VALUE_NONE
    cdef MovePicker mp

    t.nodes += 1
    check_limits(t)
    if ply > t.seldepth:
        t.seldepth = ply
    if stopped(t):
        return 0
    if is_draw(pos, ply):
        return VALUE_DRAW
    if ply >= MAX_PLY - 1:
        return evaluate(pos) if not in_check else VALUE_DRAW

    tt_hit = tt_probe(t.tt, pos.st.key, &hit)
    if tt_hit:
        tt_move = hit.move
        tt_score = score_from_tt(hit.score, ply)
        if not pv_node and tt_score != VALUE_NONE and (
                hit.bound & (BOUND_LOWER if tt_score >= beta else BOUND_UPPER)):
            return tt_score

    if in_check:
        best = -VALUE_INFINITE
        stand_pat = -VALUE_INFINITE
    else:
        raw_eval = hit.eval if tt_hit and hit.eval != VALUE_NONE else evaluate(pos)
        stand_pat = raw_eval
        if tt_score != VALUE_NONE and (hit.bound & (BOUND_LOWER if tt_score > stand_pat else BOUND_UPPER)):
            stand_pat = tt_score
        if stand_pat >= beta:
            if not tt_hit:
                tt_store(t.tt, pos.st.key, MOVE_NONE, score_to_tt(stand_pat, ply), raw_eval, 0, BOUND_LOWER)
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        best = stand_pat

    picker_init_qsearch(&mp, pos, tt_move, <const int (*)[64][64]>t.history)
    while True:
        m = next_move(&mp, pos, False)
        if m == MOVE_NONE:
            break
        move_count += 1
        if not in_check or best > -VALUE_TB_WIN_IN_MAX_PLY:
            if not in_check and move_kind(m) != MK_PROMOTION and \
                    stand_pat + SEE_VALUE[type_of(pos.board[move_to(m)])] + QS_DELTA_MARGIN <= alpha \
                    and move_kind(m) != MK_EN_PASSANT:
                continue      # delta pruning: even winning this piece cannot lift alpha
            if not see_ge(pos, m, 0):
                continue
        do_move(pos, m)
        score = -qsearch(t, -beta, -alpha, ply + 1)
        undo_move(pos, m)
        if stopped(t):
            return 0
        if score > best:
            best = score
            if score > alpha:
                best_move = m
                if score >= beta:
                    break
                alpha = score

    if in_check and move_count == 0:
        return mated_in(ply)
    tt_store(t.tt, pos.st.key, best_move, score_to_tt(best, ply), raw_eval, 0,
             node_bound(best, beta, pv_node and best_move != MOVE_NONE))
    return best


# --- main search --------------------------------------------------------------------

cdef int search(SearchThread* t, int alpha, int beta, int depth, int ply, bint cut_node) noexcept nogil:
    cdef Position* pos = &t.pos
    cdef bint pv_node = beta - alpha > 1
    cdef bint in_check = pos.st.checkers != 0
    cdef bint improving, tt_hit, quiet, checking
    cdef TTHit hit
    cdef Move tt_move = MOVE_NONE, m, best_move = MOVE_NONE
    cdef Move quiets_tried[64]
    cdef int quiet_count = 0
    cdef int tt_score = VALUE_NONE, eval = VALUE_NONE, raw_eval = VALUE_NONE
    cdef int best = -VALUE_INFINITE, score = -VALUE_INFINITE, move_count = 0, new_depth, reduction, r, extension
    cdef int tb_bound, tb_value = 0, max_value = VALUE_INFINITE
    cdef MovePicker mp

    if depth <= 0:
        return qsearch(t, alpha, beta, ply)

    t.pv_length[ply] = ply
    t.nodes += 1
    check_limits(t)
    if ply > t.seldepth:
        t.seldepth = ply
    if stopped(t):
        return 0
    if is_draw(pos, ply):
        return VALUE_DRAW
    if ply >= MAX_PLY - 1:
        return evaluate(pos) if not in_check else VALUE_DRAW

    # Mate distance pruning: no line from here beats a mate already found nearer the root.
    alpha = max(alpha, mated_in(ply))
    beta = min(beta, mate_in(ply + 1))
    if alpha >= beta:
        return alpha

    tt_hit = tt_probe(t.tt, pos.st.key, &hit)
    if tt_hit:
        tt_move = hit.move
        tt_score = score_from_tt(hit.score, ply)
        if not pv_node and hit.depth >= depth and tt_score != VALUE_NONE and (
                hit.bound & (BOUND_LOWER if tt_score >= beta else BOUND_UPPER)):
            return tt_score

    # Tablebases: a settling verdict ends the node; otherwise it bounds the PV score.
    tb_bound = probe_tablebase(t, ply, &tb_value)
    if tb_bound != BOUND_NONE:
        if tb_bound == BOUND_EXACT or (tb_bound == BOUND_LOWER and tb_value >= beta) \
                or (tb_bound == BOUND_UPPER and tb_value <= alpha):
            tt_store(t.tt, pos.st.key, MOVE_NONE, score_to_tt(tb_value, ply), VALUE_NONE,
                     min(depth + 6, MAX_PLY - 1), tb_bound)
            return tb_value
        if pv_node and tb_bound == BOUND_LOWER:
            best = tb_value
            alpha = max(alpha, best)
        elif pv_node:
            max_value = tb_value

    # Static evaluation, refined by the TT score when its bound allows.
    if in_check:
        t.static_eval[ply] = VALUE_NONE
        improving = False
    else:
        raw_eval = hit.eval if tt_hit and hit.eval != VALUE_NONE else evaluate(pos)
        t.static_eval[ply] = raw_eval
        eval = raw_eval
        if tt_score != VALUE_NONE and (hit.bound & (BOUND_LOWER if tt_score > eval else BOUND_UPPER)):
            eval = tt_score
        improving = ply >= 2 and t.static_eval[ply - 2] != VALUE_NONE and raw_eval > t.static_eval[ply - 2]

    if not in_check and not pv_node:
        # Reverse futility pruning.
        if depth <= RFP_MAX_DEPTH and eval - RFP_MARGIN * (depth - improving) >= beta \
                and eval < VALUE_TB_WIN_IN_MAX_PLY:
            return eval
        # Razoring.
        if depth <= RAZOR_MAX_DEPTH and eval + RAZOR_MARGIN * depth < alpha:
            score = qsearch(t, alpha, alpha + 1, ply)
            if score <= alpha:
                return score
        # Null move pruning.
        if depth >= NMP_MIN_DEPTH and eval >= beta and pos.st.move != MOVE_NULL \
                and has_non_pawn_material(pos, pos.side) and beta > -VALUE_TB_WIN_IN_MAX_PLY:
            r = NMP_BASE_REDUCTION + depth // 4 + min((eval - beta) // NMP_EVAL_DIVISOR, 3)
            do_null_move(pos)
            score = -search(t, -beta, -beta + 1, depth - r, ply + 1, not cut_node)
            undo_null_move(pos)
            if stopped(t):
                return 0
            if score >= beta:
                return beta if score >= VALUE_TB_WIN_IN_MAX_PLY else score

    # Internal iterative reduction: without a TT move this node is probably less important.
    if depth >= IIR_MIN_DEPTH and tt_move == MOVE_NONE:
        depth -= 1

    t.killers[ply + 1][0] = MOVE_NONE
    t.killers[ply + 1][1] = MOVE_NONE
    picker_init(&mp, pos, tt_move, t.killers[ply], counter_move(t), <const int (*)[64][64]>t.history)
    while True:
        m = next_move(&mp, pos, False)
        if m == MOVE_NONE:
            break
        move_count += 1
        quiet = is_quiet(pos, m)

        # Shallow-depth pruning of quiet moves that do not check, only once a move
        # has saved us from being mated.
        if best > -VALUE_TB_WIN_IN_MAX_PLY and has_non_pawn_material(pos, pos.side):
            if quiet and not gives_check(pos, m):
                if depth <= LMP_MAX_DEPTH and move_count >= lmp_threshold(depth, improving):
                    continue
                if not in_check and depth <= FUTILITY_MAX_DEPTH \
                        and eval + FUTILITY_BASE + FUTILITY_MARGIN * depth <= alpha:
                    continue
                if depth <= SEE_QUIET_MAX_DEPTH and not see_ge(pos, m, -SEE_QUIET_MARGIN * depth * depth):
                    continue
            elif not quiet and depth <= SEE_CAPTURE_MAX_DEPTH and not see_ge(pos, m, -SEE_CAPTURE_MARGIN * depth):
                continue

        do_move(pos, m)
        t.pv_length[ply + 1] = ply + 1
        checking = pos.st.checkers != 0
        # Check extension, bounded so that perpetual checks cannot run away.
        extension = 1 if checking and ply < 2 * t.root_depth else 0
        new_depth = depth - 1 + extension

        # Late move reductions for quiet moves searched late.
        if depth >= LMR_MIN_DEPTH and move_count > 1 + pv_node and quiet:
            reduction = LMR_TABLE[min(depth, 63)][min(move_count, 63)]
            reduction += not pv_node
            reduction += cut_node
            reduction -= improving
            reduction -= checking
            reduction -= m == mp.killers[0] or m == mp.killers[1] or m == mp.counter
            reduction -= t.history[pos.side ^ 1][move_from(m)][move_to(m)] // 6000
            r = max(1, min(new_depth - max(reduction, 0), new_depth))
            score = -search(t, -alpha - 1, -alpha, r, ply + 1, True)
            if score > alpha and r < new_depth:
                score = -search(t, -alpha - 1, -alpha, new_depth, ply + 1, not cut_node)
        elif not pv_node or move_count > 1:
            score = -search(t, -alpha - 1, -alpha, new_depth, ply + 1, not cut_node)
        if pv_node and (move_count == 1 or (score > alpha and score < beta)):
            score = -search(t, -beta, -alpha, new_depth, ply + 1, False)
        undo_move(pos, m)

        if stopped(t):
            return 0
        if score > best:
            best = score
            if score > alpha:
                best_move = m
                if pv_node:
                    update_pv(t, ply, m)
                if score >= beta:
                    if quiet:
                        update_quiet_stats(t, ply, m, quiets_tried, quiet_count, depth)
                    break
                alpha = score
        if quiet and m != best_move and quiet_count < 64:
            quiets_tried[quiet_count] = m
            quiet_count += 1

    if move_count == 0:
        return mated_in(ply) if in_check else VALUE_DRAW
    best = min(best, max_value)
    tt_store(t.tt, pos.st.key, best_move, score_to_tt(best, ply), raw_eval, depth,
             node_bound(best, beta, pv_node and best_move != MOVE_NONE))
    return best


# --- root ---------------------------------------------------------------------------

cdef void sort_root_moves(SearchThread* t, int first, int last) noexcept nogil:
    """Stable insertion sort of root_moves[first:last] by score, best first."""
    cdef int i, j
    cdef RootMove tmp
    for i in range(first + 1, last):
        if t.root_moves[i].score <= t.root_moves[i - 1].score:
            continue
        tmp = t.root_moves[i]
        j = i
        while j > first and t.root_moves[j - 1].score < tmp.score:
            t.root_moves[j] = t.root_moves[j - 1]
            j -= 1
        t.root_moves[j] = tmp

cdef inline void save_root_pv(SearchThread* t, RootMove* rm) noexcept nogil:
    cdef int i
    rm.pv[0] = rm.move
    rm.pv_length = 1
    for i in range(1, t.pv_length[1]):
        rm.pv[i] = t.pv[1][i]
        rm.pv_length = i + 1

cdef int search_root(SearchThread* t, int alpha, int beta, int depth) noexcept nogil:
    cdef Position* pos = &t.pos
    cdef RootMove* rm
    cdef int i, score, best = -VALUE_INFINITE, move_count = 0, new_depth, r
    cdef bint quiet
    for i in range(t.pv_index, t.root_count):
        rm = &t.root_moves[i]
        move_count += 1
        if t.reporter != NULL and elapsed_ms(t) >= CURRMOVE_AFTER_MS:
            report_currmove(t, rm.move, move_count + t.pv_index, depth)
        quiet = is_quiet(pos, rm.move)
        do_move(pos, rm.move)
        t.nodes += 1
        t.pv_length[1] = 1
        new_depth = depth - 1 + (1 if pos.st.checkers else 0)
        if move_count == 1:
            score = -search(t, -beta, -alpha, new_depth, 1, False)
        else:
            r = 0
            if depth >= LMR_MIN_DEPTH and move_count > 3 and quiet and not pos.st.checkers:
                r = LMR_TABLE[min(depth, 63)][min(move_count, 63)] // 2
            score = -search(t, -alpha - 1, -alpha, new_depth - r, 1, True)
            if score > alpha and r > 0:
                score = -search(t, -alpha - 1, -alpha, new_depth, 1, True)
            if score > alpha:
                score = -search(t, -beta, -alpha, new_depth, 1, False)
        undo_move(pos, rm.move)
        if stopped(t):
            break
        if move_count == 1 or score > alpha:
            rm.score = score
            rm.seldepth = t.seldepth
            save_root_pv(t, rm)
        else:
            rm.score = -VALUE_INFINITE
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best

cdef inline bint mate_limit_reached(const SearchThread* t) noexcept nogil:
    cdef int score = t.root_moves[0].score
    return t.limits.mate > 0 and score >= VALUE_MATE_IN_MAX_PLY and VALUE_MATE - score <= 2 * t.limits.mate

cdef int aspiration_search(SearchThread* t, int depth) noexcept nogil:
    """Search the current PV line with a window around the previous score, widening on failure."""
    cdef int previous = t.root_moves[t.pv_index].previous_score
    cdef int delta = ASPIRATION_DELTA, alpha = -VALUE_INFINITE, beta = VALUE_INFINITE, score
    if depth >= ASPIRATION_MIN_DEPTH and iabs(previous) < VALUE_TB_WIN_IN_MAX_PLY:
        alpha = max(previous - delta, -VALUE_INFINITE)
        beta = min(previous + delta, VALUE_INFINITE)
    while True:
        score = search_root(t, alpha, beta, depth)
        sort_root_moves(t, t.pv_index, t.root_count)
        if stopped(t):
            return score
        if score <= alpha:
            beta = (alpha + beta) // 2
            alpha = max(score - delta, -VALUE_INFINITE)
            report_line(t, depth, t.pv_index, BOUND_UPPER)
        elif score >= beta:
            beta = min(score + delta, VALUE_INFINITE)
            report_line(t, depth, t.pv_index, BOUND_LOWER)
        else:
            return score
        delta += delta // 2
        if delta > 1000:
            alpha = -VALUE_INFINITE
            beta = VALUE_INFINITE

cdef inline bint helper_skips_depth(const SearchThread* t, int depth) noexcept nogil:
    """Lazy SMP: odd helper threads skip every other depth, so threads spread out."""
    return t.thread_id % 2 == 1 and depth > 1 and depth % 2 == 0

cdef void iterative_deepening(SearchThread* t) noexcept nogil:
    cdef int depth, i, soft, lines = min(max(t.limits.multipv, 1), t.root_count)
    cdef int max_depth = MAX_PLY - 10
    if t.limits.depth > 0:
        max_depth = min(max_depth, t.limits.depth)
    if t.limits.mate > 0:
        max_depth = min(max_depth, 2 * t.limits.mate + 6)
    for depth in range(1, max_depth + 1):
        if helper_skips_depth(t, depth):
            continue
        t.root_depth = depth
        for i in range(lines):
            t.pv_index = i
            t.seldepth = 0
            aspiration_search(t, depth)
            sort_root_moves(t, 0, i + 1)
            if stopped(t):
                break
        if stopped(t):
            break
        t.completed_depth = depth
        for i in range(t.root_count):
            t.root_moves[i].previous_score = t.root_moves[i].score
        for i in range(lines):
            report_line(t, depth, i, BOUND_EXACT)
        if t.thread_id != 0:
            continue          # helpers run until the main thread stops them
        if mate_limit_reached(t):
            break
        soft = fc_load_flag(&t.shared.soft_ms)
        if soft and (elapsed_ms(t) >= soft or t.root_count == 1):
            break


# --- reporting (the only places the search touches Python) ------------------------

cdef void report_line(SearchThread* t, int depth, int pv_index, int bound) noexcept nogil:
    if t.reporter == NULL:
        return
    with gil:
        (<Search>t.reporter)._report_line(depth, pv_index, bound)

cdef void report_currmove(SearchThread* t, Move m, int number, int depth) noexcept nogil:
    with gil:
        (<Search>t.reporter)._report_currmove(m, number, depth)
