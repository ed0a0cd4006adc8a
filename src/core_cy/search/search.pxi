# The search, part two: quiescence, the main search in numbered steps, and the
# root with iterative deepening and aspiration windows (part one: thread.pxi).

# --- small rules the steps share: draws, the PV, histories, the tablebases --------------

cdef inline bint has_non_pawn_material(const Position* pos, Color c) noexcept nogil:
    return (pos.by_color[c] & ~pos.by_type[PAWN] & ~pos.by_type[KING]) != 0

cdef inline bint is_draw(const Position* pos, int ply) noexcept nogil:
    """Fifty-move rule (unless it is mate), repetition, insufficient material."""
    cdef Move moves[MAX_MOVES]
    if pos.st.rule50 >= 100:
        return not pos.st.checkers or generate_legal(pos, moves, GEN_ALL) > 0
    return is_repetition(pos, ply) or has_insufficient_material(pos)

cdef inline void update_pv(PlyFrame* ss, int ply, Move m) noexcept nogil:
    """The PV from this ply: m, then the child's PV."""
    cdef PlyFrame* child = ss + 1
    cdef int i
    ss.pv[ply] = m
    for i in range(ply + 1, child.pv_length):
        ss.pv[i] = child.pv[i]
    ss.pv_length = max(child.pv_length, ply + 1)

cdef inline void update_history(int16_t* entry, int bonus) noexcept nogil:
    """History with gravity: entries saturate towards +-HISTORY_MAX (|bonus| is at
    most HISTORY_MAX, so the entry never leaves that range)."""
    cdef int value = entry[0]
    entry[0] = <int16_t>(value + bonus - value * iabs(bonus) // HISTORY_MAX)

cdef inline Move previous_move(const Position* pos) noexcept nogil:
    return pos.st.move

cdef inline Move counter_move(const SearchThread* t) noexcept nogil:
    cdef Move prev = previous_move(&t.pos)
    if prev == MOVE_NONE or prev == MOVE_NULL:
        return MOVE_NONE
    return t.counter_moves[t.pos.board[move_to(prev)]][move_to(prev)]

cdef inline void set_move_made(SearchThread* t, PlyFrame* ss, Move m) noexcept nogil:
    """Record in the frame the move about to be made from it (MOVE_NULL: a null move)."""
    ss.cont_history = t.cont_history[CONT_NONE if m == MOVE_NULL else piece_to(&t.pos, m)]

cdef inline int quiet_history(const SearchThread* t, const PlyFrame* ss, Move m) noexcept nogil:
    """How well quiet move m (not yet made) has done: butterfly history plus the
    continuation histories of the moves one and two plies back."""
    cdef int pt = piece_to(&t.pos, m)
    return (t.history[t.pos.side][move_from(m)][move_to(m)]
            + (ss - 1).cont_history[pt] + (ss - 2).cont_history[pt])

cdef inline void update_quiet_history(SearchThread* t, const PlyFrame* ss, Move m, int bonus) noexcept nogil:
    """Move the three history entries of quiet move m by bonus (a malus when negative)."""
    cdef int pt = piece_to(&t.pos, m), back
    cdef int16_t* none_row = t.cont_history[CONT_NONE]
    update_history(&t.history[t.pos.side][move_from(m)][move_to(m)], bonus)
    for back in range(1, 3):
        if (ss - back).cont_history != none_row:
            update_history(&(ss - back).cont_history[pt], bonus)

cdef void update_quiet_stats(SearchThread* t, PlyFrame* ss, Move best, const Move* quiets, int quiet_count,
                             int depth) noexcept nogil:
    """Reward the quiet move that cut off; penalise the quiets tried before it."""
    cdef int bonus = min(HISTORY_BONUS_SCALE * depth - HISTORY_BONUS_OFFSET, HISTORY_BONUS_MAX, HISTORY_MAX), i
    cdef Move prev = previous_move(&t.pos)
    if ss.killers[0] != best:
        ss.killers[1] = ss.killers[0]
        ss.killers[0] = best
    if prev != MOVE_NONE and prev != MOVE_NULL:
        t.counter_moves[t.pos.board[move_to(prev)]][move_to(prev)] = best
    update_quiet_history(t, ss, best, bonus)
    for i in range(quiet_count):
        update_quiet_history(t, ss, quiets[i], -bonus)


cdef inline bint tablebase_worth_probing(const SearchThread* t, const Position* pos, int depth) noexcept nogil:
    """A position the tables cover, reached by a capture or a pawn move; one with
    the most pieces probed (the slowest tables, SyzygyProbeDepth) only at depth
    tb_probe_depth or more."""
    cdef int pieces
    if t.tb_pieces == 0 or pos.st.rule50 != 0 or pos.st.castling != 0:
        return False
    pieces = fc_popcount(pos.by_type[0])
    return pieces < t.tb_pieces or (pieces == t.tb_pieces and depth >= t.tb_probe_depth)

cdef inline int probe_tablebase(SearchThread* t, int ply, int depth, int* value) noexcept nogil:
    """After a capture or pawn move, ask the tables about a position they cover.

    Returns the bound the table's verdict gives (BOUND_NONE when not probed) and
    sets `value`: a win is a lower bound, a loss an upper bound, a draw exact."""
    cdef Position* pos = &t.pos
    cdef int ok = 0, wdl
    if not tablebase_worth_probing(t, pos, depth):
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

# --- steps shared by search and qsearch ---------------------------------------------

cdef inline int enter_node(SearchThread* t, int ply) noexcept nogil:
    """Count the node and watch the limits; end the node at once on a stop, a draw
    or the ply limit. VALUE_NONE: go on with the node."""
    t.nodes += 1
    check_limits(t)
    if ply > t.seldepth:
        t.seldepth = ply
    if stopped(t):
        return 0
    if is_draw(&t.pos, ply):
        return VALUE_DRAW
    if ply >= MAX_PLY - 1:
        return evaluate(&t.pos) if not t.pos.st.checkers else VALUE_DRAW
    return VALUE_NONE

cdef inline int probe_tt(SearchThread* t, int ply, TTHit* hit, bint* found) noexcept nogil:
    """Look the position up. Returns the stored score as seen from this ply (or
    VALUE_NONE); on a miss `hit.move` is MOVE_NONE."""
    found[0] = tt_probe(t.tt, t.pos.st.key, hit)
    if not found[0]:
        hit.move = MOVE_NONE
        return VALUE_NONE
    return score_from_tt(hit.score, ply)

cdef inline bint tt_bound_allows(const TTHit* hit, int tt_score, int value) noexcept nogil:
    """Does the stored bound put the true score on tt_score's side of `value`? A
    lower bound does when tt_score >= value, an upper bound when it is below."""
    return tt_score != VALUE_NONE and (hit.bound & (BOUND_LOWER if tt_score >= value else BOUND_UPPER)) != 0

cdef inline int eval_before_probe(Position* pos, bint in_check) noexcept nogil:
    """The static evaluation (VALUE_NONE in check), computed before the table probe:
    the probe waits on memory, and the network's work fills that wait instead of
    following it. A node cut off by the table has evaluated for nothing, which
    costs less than the wait saves (bench 1.035x, 11 alternating runs). The entry
    also stores the evaluation, but it is the same number and no longer read."""
    return VALUE_NONE if in_check else evaluate(pos)

cdef inline int refined_eval(const TTHit* hit, int tt_score, int raw_eval) noexcept nogil:
    """The static evaluation, replaced by the TT score when the bound says the true
    score lies beyond it (a searched score is the better guess)."""
    return tt_score if tt_bound_allows(hit, tt_score, raw_eval) else raw_eval


# --- quiescence -------------------------------------------------------------------

cdef inline bint qsearch_prunes(const Position* pos, Move m, bint in_check, int stand_pat,
                                int alpha) noexcept nogil:
    """Skip a capture that cannot matter: delta pruning (even winning the piece
    cannot lift alpha) and captures that lose material by SEE."""
    if not in_check and move_kind(m) != MK_PROMOTION and move_kind(m) != MK_EN_PASSANT \
            and stand_pat + SEE_VALUE[type_of(pos.board[move_to(m)])] + QS_DELTA_MARGIN <= alpha:
        return True
    return not see_ge(pos, m, 0)

cdef int qsearch(SearchThread* t, int alpha, int beta, int ply) noexcept nogil:
    """Search captures and promotions (every evasion in check) until the position is
    quiet; the side to move may stand pat on its static evaluation."""
    cdef Position* pos = &t.pos
    cdef bint pv_node = beta - alpha > 1
    cdef bint in_check = pos.st.checkers != 0
    cdef bint tt_hit
    cdef TTHit hit
    cdef Move m, best_move = MOVE_NONE
    cdef int tt_score, stand_pat, best, score, move_count = 0, raw_eval = VALUE_NONE
    cdef MovePicker mp

    # Step 1. Count the node; stop, draw and ply limit end it at once.
    score = enter_node(t, ply)
    if score != VALUE_NONE:
        return score

    # Step 2. Transposition table cut-off (quiescence entries have any depth).
    raw_eval = eval_before_probe(pos, in_check)
    tt_score = probe_tt(t, ply, &hit, &tt_hit)
    if tt_hit and not pv_node and tt_bound_allows(&hit, tt_score, beta):
        return tt_score

    # Step 3. Stand pat: out of check, the side to move need not capture at all.
    if in_check:
        best = stand_pat = -VALUE_INFINITE
    else:
        stand_pat = refined_eval(&hit, tt_score, raw_eval)
        if stand_pat >= beta:
            if not tt_hit:
                tt_store(t.tt, pos.st.key, MOVE_NONE, score_to_tt(stand_pat, ply), raw_eval, 0, BOUND_LOWER)
            return stand_pat
        alpha = max(alpha, stand_pat)
        best = stand_pat

    # Step 4. The captures, best first; once a move has saved us from being mated,
    # those that cannot matter are skipped.
    picker_init_qsearch(&mp, pos, hit.move, <const int16_t (*)[64][64]>t.history)
    while True:
        m = next_move(&mp, pos)
        if m == MOVE_NONE:
            break
        move_count += 1
        tt_prefetch(t.tt, key_after(pos, m))      # early: SEE below gives the load time
        if (not in_check or best > -VALUE_TB_WIN_IN_MAX_PLY) and qsearch_prunes(pos, m, in_check, stand_pat, alpha):
            continue
        do_move(pos, m)
        warm_accumulator(pos)
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

    # Step 5. Checkmate, or store the result.
    if in_check and move_count == 0:
        return mated_in(ply)
    tt_store(t.tt, pos.st.key, best_move, score_to_tt(best, ply), raw_eval, 0,
             node_bound(best, beta, pv_node and best_move != MOVE_NONE))
    return best


# --- main search: the steps before the moves ---------------------------------------

# What a node of the main search knows once it has looked itself up.
ctypedef struct Node:
    int alpha
    int beta
    int depth
    int ply
    PlyFrame* ss          # this ply's frame
    bint pv_node
    bint cut_node
    bint in_check
    bint improving        # static eval above its value two plies ago
    bint tt_hit
    TTHit hit             # the TT entry (hit.move is MOVE_NONE on a miss)
    int tt_score          # its score from this ply, or VALUE_NONE
    int raw_eval          # static evaluation (VALUE_NONE in check)
    int eval              # raw_eval refined by the TT score

cdef inline int tablebase_step(SearchThread* t, Node* n, int* best, int* max_value) noexcept nogil:
    """Step 4: a tablebase verdict that settles the node ends it (its score is
    returned); in a PV node any other verdict bounds the score. VALUE_NONE: go on."""
    cdef int value = 0
    cdef int bound = probe_tablebase(t, n.ply, n.depth, &value)
    if bound == BOUND_NONE:
        return VALUE_NONE
    if bound == BOUND_EXACT or (bound == BOUND_LOWER and value >= n.beta) \
            or (bound == BOUND_UPPER and value <= n.alpha):
        tt_store(t.tt, t.pos.st.key, MOVE_NONE, score_to_tt(value, n.ply), VALUE_NONE,
                 min(n.depth + TB_STORE_DEPTH_BONUS, MAX_PLY - 1), bound)
        return value
    if n.pv_node and bound == BOUND_LOWER:
        best[0] = value
        n.alpha = max(n.alpha, value)
    elif n.pv_node:
        max_value[0] = value
    return VALUE_NONE

cdef inline bint is_improving(const PlyFrame* ss, int ply, int eval) noexcept nogil:
    """Is eval above our static evaluation two plies ago? When we were in check
    then, four plies ago; when in check both times, count it as improving."""
    cdef int back
    for back in range(2, 5, 2):
        if ply < back:
            return False
        if (ss - back).static_eval != VALUE_NONE:
            return eval > (ss - back).static_eval
    return True

cdef inline void evaluate_node(SearchThread* t, Node* n) noexcept nogil:
    """Step 5: the static evaluation (computed before the probe), refined by the TT
    score, and whether it improves on the position two plies ago (pruning is then
    more careful)."""
    if n.in_check:
        n.ss.static_eval = VALUE_NONE
        n.eval = VALUE_NONE
        n.improving = False
        return
    n.ss.static_eval = n.raw_eval
    n.eval = refined_eval(&n.hit, n.tt_score, n.raw_eval)
    n.improving = is_improving(n.ss, n.ply, n.raw_eval)

cdef inline int prune_node(SearchThread* t, Node* n) noexcept nogil:
    """Steps 6 to 8, in non-PV nodes out of check: cut the node short when the static
    evaluation says how it will end. Returns the node's score, or VALUE_NONE."""
    cdef Position* pos = &t.pos
    cdef int score, r, depth = n.depth, eval = n.eval

    # Step 6. Reverse futility pruning: so far above beta that a quiet move keeps us there.
    if depth <= RFP_MAX_DEPTH and eval - RFP_MARGIN * (depth - n.improving) >= n.beta \
            and eval < VALUE_TB_WIN_IN_MAX_PLY:
        return eval

    # Step 7. Razoring: so far below alpha that only captures can help; ask quiescence.
    if depth <= RAZOR_MAX_DEPTH and eval + RAZOR_MARGIN * depth < n.alpha:
        score = qsearch(t, n.alpha, n.alpha + 1, n.ply)
        if score <= n.alpha:
            return score

    # Step 8. Null move pruning: if passing still beats beta, a real move will too
    # (not in pawn endings, where passing may be the best move: zugzwang).
    if depth >= NMP_MIN_DEPTH and eval >= n.beta and pos.st.move != MOVE_NULL \
            and has_non_pawn_material(pos, pos.side) and n.beta > -VALUE_TB_WIN_IN_MAX_PLY:
        r = NMP_BASE_REDUCTION + depth * 100 // NMP_DEPTH_DIVISOR_X100 \
            + min((eval - n.beta) // NMP_EVAL_DIVISOR, NMP_MAX_EVAL_REDUCTION)
        set_move_made(t, n.ss, MOVE_NULL)
        do_null_move(pos)
        tt_prefetch(t.tt, pos.st.key)
        score = -search(t, -n.beta, -n.beta + 1, depth - r, n.ply + 1, not n.cut_node)
        undo_null_move(pos)
        if stopped(t):
            return 0
        if score >= n.beta:
            return n.beta if score >= VALUE_TB_WIN_IN_MAX_PLY else score   # unproven mates
    return VALUE_NONE


# --- main search: the steps for each move ------------------------------------------

cdef inline bint prunes_later_quiets(const Node* n, int move_count) noexcept nogil:
    """Late move pruning and futility pruning of quiet moves that do not check. Both
    stay true for every later move of the node (move_count only grows, alpha only
    rises), which lets the picker skip the rest of the quiets at once."""
    cdef int depth = n.depth
    # Late move pruning: after this many quiets, the rest rarely matter.
    if depth <= LMP_MAX_DEPTH and move_count >= lmp_threshold(depth, n.improving):
        return True
    # Futility pruning: the eval plus a margin cannot reach alpha.
    return not n.in_check and depth <= FUTILITY_MAX_DEPTH \
        and n.eval + FUTILITY_BASE + FUTILITY_MARGIN * depth <= n.alpha

cdef enum:
    SEARCH_IT = 0               # prune_move's verdicts: search the move,
    PRUNE_IT = 1                #   prune it,
    PRUNE_LATER_QUIETS = 2      #   prune it and every later quiet that does not check

cdef inline int prune_move(SearchThread* t, const Node* n, MovePicker* mp, Move m, bint quiet,
                           int move_count) noexcept nogil:
    """Step 10: shallow-depth pruning of a move not worth searching."""
    cdef Position* pos = &t.pos
    cdef int depth = n.depth
    if quiet and not picker_gives_check(mp, pos, m):
        if prunes_later_quiets(n, move_count):
            return PRUNE_LATER_QUIETS
        # A quiet move that loses material by SEE.
        return PRUNE_IT if depth <= SEE_QUIET_MAX_DEPTH \
            and not see_ge(pos, m, -SEE_QUIET_MARGIN * depth * depth) else SEARCH_IT
    # A capture that loses material by SEE.
    return PRUNE_IT if not quiet and depth <= SEE_CAPTURE_MAX_DEPTH \
        and not see_ge(pos, m, -SEE_CAPTURE_MARGIN * depth) else SEARCH_IT

cdef inline int late_move_reduction(const Node* n, const MovePicker* mp, Move m, int move_count,
                                    bint checking, int history) noexcept nogil:
    """Plies to take off a late quiet move: the table's value, more in non-PV and
    expected cut nodes, less for improving positions, checks, killers and counter
    moves, and moves with a good history (quiet_history, read before the move)."""
    cdef int r = LMR_TABLE[min(n.depth, 63)][min(move_count, 63)]
    r += not n.pv_node
    r += n.cut_node
    r -= n.improving
    r -= checking
    r -= is_special_quiet(mp, m)
    r -= history // LMR_HISTORY_DIVISOR
    return r

cdef inline int search_move(SearchThread* t, const Node* n, const MovePicker* mp, Move m, bint quiet,
                            int move_count) noexcept nogil:
    """Steps 11 to 13: play m, search it with the right depth and window, take it back."""
    cdef Position* pos = &t.pos
    cdef int ply = n.ply, alpha = n.alpha, beta = n.beta
    cdef int score = -VALUE_INFINITE, new_depth, r, history = 0
    cdef bint checking
    if quiet:
        history = quiet_history(t, n.ss, m)
    set_move_made(t, n.ss, m)
    do_move(pos, m)
    tt_prefetch(t.tt, pos.st.key)
    warm_accumulator(pos)
    (n.ss + 1).pv_length = ply + 1
    checking = pos.st.checkers != 0

    # Step 11. Check extension, bounded so that perpetual checks cannot run away.
    new_depth = n.depth - 1 + (1 if checking and ply < CHECK_EXTENSION_PLIES * t.root_depth else 0)

    # Step 12. Late move reductions: a late quiet move is searched shallower with a
    # null window first, and again at full depth only if it beats alpha.
    if n.depth >= LMR_MIN_DEPTH and move_count > 1 + n.pv_node and quiet:
        r = late_move_reduction(n, mp, m, move_count, checking, history)
        r = max(1, min(new_depth - max(r, 0), new_depth))
        score = -search(t, -alpha - 1, -alpha, r, ply + 1, True)
        if score > alpha and r < new_depth:
            score = -search(t, -alpha - 1, -alpha, new_depth, ply + 1, not n.cut_node)
    elif not n.pv_node or move_count > 1:
        score = -search(t, -alpha - 1, -alpha, new_depth, ply + 1, not n.cut_node)

    # Step 13. Principal variation search: the first move of a PV node, and any move
    # that lands inside the window, is searched again with the full window.
    if n.pv_node and (move_count == 1 or (score > alpha and score < beta)):
        score = -search(t, -beta, -alpha, new_depth, ply + 1, False)
    undo_move(pos, m)
    return score


# --- main search ----------------------------------------------------------------------

cdef inline int search_moves(SearchThread* t, Node* n, int best, int max_value) noexcept nogil:
    """Steps 10 to 15: try the moves in the picker's order; the node's score."""
    cdef Position* pos = &t.pos
    cdef MovePicker mp
    cdef Move m, best_move = MOVE_NONE
    cdef Move quiets_tried[MAX_QUIETS_TRIED]
    cdef int quiet_count = 0, move_count = 0, score, ply = n.ply, verdict
    cdef bint quiet
    (n.ss + 1).killers[0] = MOVE_NONE
    (n.ss + 1).killers[1] = MOVE_NONE
    picker_init(&mp, pos, n.hit.move, n.ss.killers, counter_move(t), <const int16_t (*)[64][64]>t.history,
                (n.ss - 1).cont_history, (n.ss - 2).cont_history)
    while True:
        m = next_move(&mp, pos)
        if m == MOVE_NONE:
            break
        move_count += 1
        quiet = is_quiet(pos, m)
        tt_prefetch(t.tt, key_after(pos, m))

        # Step 10. Shallow-depth pruning, once a move has saved us from being mated
        # (and not in pawn endings, where the quiet moves are the whole game).
        if best > -VALUE_TB_WIN_IN_MAX_PLY and has_non_pawn_material(pos, pos.side):
            verdict = prune_move(t, n, &mp, m, quiet, move_count)
            # Every later quiet that does not check would be pruned the same way:
            # count them as tried and go on to the bad captures (no selection scan).
            if verdict == PRUNE_LATER_QUIETS:
                move_count += picker_skip_quiets(&mp, pos)
            if verdict != SEARCH_IT:
                continue

        # Steps 11 to 13. Extension, reductions, principal variation search.
        score = search_move(t, n, &mp, m, quiet, move_count)
        if stopped(t):
            return 0

        # Step 14. A new best move; a cut-off rewards the quiet move that caused it.
        if score > best:
            best = score
            if score > n.alpha:
                best_move = m
                if n.pv_node:
                    update_pv(n.ss, ply, m)
                if score >= n.beta:
                    if quiet:
                        update_quiet_stats(t, n.ss, m, quiets_tried, quiet_count, n.depth)
                    break
                n.alpha = score
        if quiet and m != best_move and quiet_count < MAX_QUIETS_TRIED:
            quiets_tried[quiet_count] = m
            quiet_count += 1

    # Step 15. Checkmate or stalemate; otherwise store the result.
    if move_count == 0:
        return mated_in(ply) if n.in_check else VALUE_DRAW
    best = min(best, max_value)
    tt_store(t.tt, pos.st.key, best_move, score_to_tt(best, ply), n.raw_eval, n.depth,
             node_bound(best, n.beta, n.pv_node and best_move != MOVE_NONE))
    return best

cdef int search(SearchThread* t, int alpha, int beta, int depth, int ply, bint cut_node) noexcept nogil:
    """Alpha-beta search of the position `depth` plies deep; the score of the side to move."""
    cdef Node n
    cdef int score, best = -VALUE_INFINITE, max_value = VALUE_INFINITE

    # At the horizon only captures are searched, until the position is quiet.
    if depth <= 0:
        return qsearch(t, alpha, beta, ply)
    n.pv_node = beta - alpha > 1
    n.cut_node = cut_node
    n.in_check = t.pos.st.checkers != 0
    n.depth = depth
    n.ply = ply
    n.ss = frame_at(t, ply)

    # Step 1. Count the node; stop, draw and ply limit end it at once.
    n.ss.pv_length = ply
    score = enter_node(t, ply)
    if score != VALUE_NONE:
        return score

    # Step 2. Mate distance pruning: no line from here beats a mate already found nearer the root.
    n.alpha = max(alpha, mated_in(ply))
    n.beta = min(beta, mate_in(ply + 1))
    if n.alpha >= n.beta:
        return n.alpha

    # Step 3. Transposition table cut-off, outside PV nodes, from an entry deep enough.
    n.raw_eval = eval_before_probe(&t.pos, n.in_check)
    n.tt_score = probe_tt(t, ply, &n.hit, &n.tt_hit)
    if n.tt_hit and not n.pv_node and n.hit.depth >= depth and tt_bound_allows(&n.hit, n.tt_score, n.beta):
        return n.tt_score

    # Step 4. Tablebases.
    score = tablebase_step(t, &n, &best, &max_value)
    if score != VALUE_NONE:
        return score

    # Step 5. Static evaluation.
    evaluate_node(t, &n)

    # Steps 6 to 8. Reverse futility pruning, razoring, null move.
    if not n.in_check and not n.pv_node:
        score = prune_node(t, &n)
        if score != VALUE_NONE:
            return score

    # Step 9. Internal iterative reduction: without a TT move this node is probably less important.
    if n.depth >= IIR_MIN_DEPTH and n.hit.move == MOVE_NONE:
        n.depth -= 1
    return search_moves(t, &n, best, max_value)


# --- root ---------------------------------------------------------------------------

cdef inline void add_root_move(SearchThread* t, Move m) noexcept nogil:
    """Append m to the root moves, not yet searched."""
    cdef RootMove* rm = &t.root_moves[t.root_count]
    rm.move = m
    rm.score = -VALUE_INFINITE
    rm.previous_score = -VALUE_INFINITE
    rm.pv[0] = m
    rm.pv_length = 1
    rm.seldepth = 0
    rm.depth = 0
    rm.exact = False
    rm.slot = t.root_count
    rm.nodes = 0
    t.root_lines[rm.slot].depth = 0
    t.root_count += 1

cdef void order_root_moves(SearchThread* t) noexcept nogil:
    """Initial root order: the staged picker's order (TT move, captures, quiets)."""
    cdef MovePicker mp
    cdef TTHit hit
    cdef Move m, tt_move = MOVE_NONE
    cdef Move no_killers[2]
    cdef RootMove tmp
    cdef int placed = 0, i
    no_killers[0] = MOVE_NONE
    no_killers[1] = MOVE_NONE
    if tt_probe(t.tt, t.pos.st.key, &hit):
        tt_move = hit.move
    picker_init(&mp, &t.pos, tt_move, no_killers, MOVE_NONE, <const int16_t (*)[64][64]>t.history,
                t.cont_history[CONT_NONE], t.cont_history[CONT_NONE])
    while placed < t.root_count:
        m = next_move(&mp, &t.pos)
        if m == MOVE_NONE:
            break
        for i in range(placed, t.root_count):
            if t.root_moves[i].move == m:
                tmp = t.root_moves[placed]
                t.root_moves[placed] = t.root_moves[i]
                t.root_moves[i] = tmp
                placed += 1
                break

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
    cdef PlyFrame* child = frame_at(t, 1)
    cdef int i
    rm.pv[0] = rm.move
    rm.pv_length = 1
    for i in range(1, child.pv_length):
        rm.pv[i] = child.pv[i]
        rm.pv_length = i + 1

cdef inline int root_reduction(int depth, int move_count, bint quiet, bint checking) noexcept nogil:
    """Late move reduction at the root: ROOT_LMR_PERCENT of the table's value, for
    quiet moves that do not check, after the first few (the root's order is the
    last iteration's)."""
    if depth >= LMR_MIN_DEPTH and move_count > ROOT_LMR_MIN_MOVES and quiet and not checking:
        return LMR_TABLE[min(depth, 63)][min(move_count, 63)] * ROOT_LMR_PERCENT // 100
    return 0

cdef inline int search_root_move(SearchThread* t, RootMove* rm, int alpha, int beta, int depth,
                                 int move_count) noexcept nogil:
    """Play a root move and search it: the first with the full window, the others
    with a null window (reduced when late) and again with the full window when they
    beat alpha. Every root move is extended when it checks."""
    cdef Position* pos = &t.pos
    cdef bint quiet = is_quiet(pos, rm.move)
    cdef int score, r, new_depth
    cdef uint64_t nodes_before = t.nodes
    set_move_made(t, frame_at(t, 0), rm.move)
    do_move(pos, rm.move)
    t.nodes += 1
    frame_at(t, 1).pv_length = 1
    new_depth = depth - 1 + (1 if pos.st.checkers else 0)
    if move_count == 1:
        score = -search(t, -beta, -alpha, new_depth, 1, False)
    else:
        r = root_reduction(depth, move_count, quiet, pos.st.checkers != 0)
        score = -search(t, -alpha - 1, -alpha, new_depth - r, 1, True)
        if score > alpha and r > 0:
            score = -search(t, -alpha - 1, -alpha, new_depth, 1, True)
        if score > alpha:
            score = -search(t, -beta, -alpha, new_depth, 1, False)
    undo_move(pos, rm.move)
    rm.nodes += t.nodes - nodes_before
    return score

cdef int search_root(SearchThread* t, int alpha, int beta, int depth) noexcept nogil:
    """Search the root moves from pv_index on. A move that fails low keeps no score
    (-VALUE_INFINITE), so sorting puts the moves that raised alpha first."""
    cdef RootMove* rm
    cdef int i, score, best = -VALUE_INFINITE, move_count = 0
    for i in range(t.pv_index, t.root_count):
        rm = &t.root_moves[i]
        move_count += 1
        if t.reporter != NULL and elapsed_ms(t) >= CURRMOVE_AFTER_MS:
            report_currmove(t, rm.move, move_count + t.pv_index, depth)
        score = search_root_move(t, rm, alpha, beta, depth, move_count)
        if stopped(t):
            break
        if move_count == 1 or score > alpha:
            rm.score = score
            rm.seldepth = t.seldepth
            rm.depth = depth
            rm.exact = alpha < score < beta
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

cdef inline int line_count(const SearchThread* t) noexcept nogil:
    """The lines (MultiPV) the search ranks: at most one per root move."""
    return min(max(t.limits.multipv, 1), t.root_count)

cdef inline void report_window_failure(SearchThread* t, int depth, int bound) noexcept nogil:
    """Line 1's failed window, as a bound. With several lines the failure is not
    reported: a line shown alone beside the last iteration's set could name a move
    another line names; the iteration reports its whole set when it completes."""
    if line_count(t) == 1:
        report_line(t, depth, t.pv_index, bound)

cdef inline bint set_report_due(const SearchThread* t, int depth, int done, int lines) noexcept nogil:
    """Report the set of lines before iteration `depth` completes? After each line
    but the last, from the second iteration on (the first has no completed lines
    to show beside its own), once the search has run `multipv_set_ms`."""
    return done < lines and depth > 1 and t.reporter != NULL \
        and elapsed_ms(t) >= t.limits.multipv_set_ms

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
            report_window_failure(t, depth, BOUND_UPPER)
        elif score >= beta:
            beta = min(score + delta, VALUE_INFINITE)
            report_window_failure(t, depth, BOUND_LOWER)
        else:
            return score
        delta += delta // 2
        if delta > ASPIRATION_MAX_DELTA:
            alpha = -VALUE_INFINITE
            beta = VALUE_INFINITE

cdef void keep_line(SearchThread* t, const RootMove* rm) noexcept nogil:
    """rm's line is complete at its depth: keep it for a report after a stop."""
    cdef RootLine* line = &t.root_lines[rm.slot]
    line.depth, line.score, line.seldepth, line.pv_length = rm.depth, rm.score, rm.seldepth, rm.pv_length
    memcpy(line.pv, rm.pv, rm.pv_length * sizeof(Move))

cdef inline bint helper_skips_depth(const SearchThread* t, int depth) noexcept nogil:
    """Lazy SMP: odd helper threads skip every other depth, so threads spread out."""
    return t.thread_id % 2 == 1 and depth > 1 and depth % 2 == 0

cdef void iterative_deepening(SearchThread* t) noexcept nogil:
    cdef int depth, i, soft, lines = line_count(t)
    cdef int max_depth = MAX_SEARCH_DEPTH
    if t.limits.depth > 0:
        max_depth = min(max_depth, t.limits.depth)
    if t.limits.mate > 0:
        max_depth = min(max_depth, 2 * t.limits.mate + MATE_DEPTH_MARGIN)
    warm_accumulator(&t.pos)
    for i in range(FRAMES_BEFORE_ROOT):      # no moves before the root
        t.stack[i].cont_history = t.cont_history[CONT_NONE]
    frame_at(t, 0).static_eval = VALUE_NONE if t.pos.st.checkers else evaluate(&t.pos)   # `improving` at ply 2
    for depth in range(1, max_depth + 1):
        if helper_skips_depth(t, depth):
            continue
        t.root_depth = depth
        for i in range(lines):
            t.pv_index = i
            t.seldepth = 0
            aspiration_search(t, depth)
            if not stopped(t):
                keep_line(t, &t.root_moves[i])
            sort_root_moves(t, 0, i + 1)
            if stopped(t):
                break
            if set_report_due(t, depth, i + 1, lines):
                report_set_so_far(t, depth)
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
        tm_record_iteration(&t.tm, t.root_moves[0].move, t.root_moves[0].score,
                            root_effort(t, &t.root_moves[0]), depth)
        soft = soft_limit_ms(t)
        if soft and (elapsed_ms(t) >= soft or t.root_count == 1):
            break
