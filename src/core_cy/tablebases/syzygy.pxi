# Syzygy reader, part four: probes that resolve captures and en passant, and the
# entry points the search and the Python face call (part one: tb_tables.pxi).

# --- probing with captures and en passant resolved ------------------------------------------
#
# These work on a private position (tb_private) and follow python-chess's
# Tablebase.probe_ab / probe_wdl / probe_dtz_no_ep / probe_dtz move for move.
# *success: 0 failed (a table missing, or too deep), 1 value from the table,
# 2 value from a capture.

cdef inline bint tb_is_capture(const Position* pos, Move m) noexcept nogil:
    """A capture of a piece standing on the target square (en passant excluded)."""
    return move_kind(m) != MK_CASTLING and (pos.by_color[pos.side ^ 1] & sq_bb(move_to(m))) != 0

cdef inline bint tb_room(const Position* pos) noexcept nogil:
    return pos.st_index + 2 < pos.st_capacity

cdef inline int tb_promo_rank(Move m) noexcept nogil:
    """Queen, rook, bishop, knight: the reference's promotion order."""
    if move_kind(m) != MK_PROMOTION:
        return 0
    return QUEEN - promotion_type(m)

cdef void tb_sort_keys(Move* moves, int* keys, int n) noexcept nogil:
    cdef int i, j, k
    cdef Move m
    for i in range(1, n):
        k = keys[i]
        m = moves[i]
        j = i - 1
        while j >= 0 and keys[j] > k:
            keys[j + 1] = keys[j]
            moves[j + 1] = moves[j]
            j -= 1
        keys[j + 1] = k
        moves[j + 1] = m

cdef int tb_reference_captures(const Position* pos, Move* out) noexcept nogil:
    """The legal captures (en passant excluded) in python-chess's generation order.

    The order decides nothing when every table is present; with some missing it
    decides whether a cut-off comes before a missing table, and following the
    reference keeps even those answers (None or a value) identical. The order:
    in check the king's moves first; then pieces before pawns; origin square
    descending, then target descending, then promotions Q R B N."""
    cdef Move moves[MAX_MOVES]
    cdef int keys[MAX_MOVES]
    cdef int n = generate_legal(pos, moves, GEN_CAPTURES), i, count = 0, pt, group
    cdef bint check = pos.st.checkers != 0
    for i in range(n):
        if not tb_is_capture(pos, moves[i]):
            continue
        pt = type_of(pos.board[move_from(moves[i])])
        if check:
            group = 0 if pt == KING else (2 if pt == PAWN else 1)
        else:
            group = 1 if pt == PAWN else 0
        out[count] = moves[i]
        keys[count] = ((group << 14) | ((63 - move_from(moves[i])) << 8)
                       | ((63 - move_to(moves[i])) << 2) | tb_promo_rank(moves[i]))
        count += 1
    tb_sort_keys(out, keys, count)
    return count

cdef int tb_reference_pawn_pushes(const Position* pos, const Move* moves, int n, Move* out) noexcept nogil:
    """Non-capturing pawn moves in python-chess's order: single steps by target
    square descending (promotions Q R B N), then double steps likewise."""
    cdef int keys[MAX_MOVES]
    cdef int i, count = 0, double
    cdef Move m
    for i in range(n):
        m = moves[i]
        if type_of(pos.board[move_from(m)]) != PAWN or move_kind(m) == MK_EN_PASSANT \
                or pos.board[move_to(m)] != NO_PIECE:
            continue
        double = (move_from(m) ^ move_to(m)) == 16
        out[count] = m
        keys[count] = (double << 14) | ((63 - move_to(m)) << 2) | tb_promo_rank(m)
        count += 1
    tb_sort_keys(out, keys, count)
    return count

cdef int tb_search_ab(Position* pos, int alpha, int beta, int* success) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int n, i, v, ok
    success[0] = 0
    if fc_popcount(pos.by_type[0]) > TB_PIECES + 1 or not tb_room(pos):
        return 0
    n = tb_reference_captures(pos, moves)
    for i in range(n):
        do_move(pos, moves[i])
        v = -tb_search_ab(pos, -beta, -alpha, &ok)
        undo_move(pos, moves[i])
        if not ok:
            return 0
        if v > alpha:
            if v >= beta:
                success[0] = 2
                return v
            alpha = v
    v = tb_read_wdl(pos, &ok)
    if not ok:
        return 0
    if alpha >= v:
        success[0] = 2 if alpha > 0 else 1
        return alpha
    success[0] = 1
    return v

cdef bint tb_only_en_passant(const Position* pos) noexcept nogil:
    """Every legal move is an en-passant capture (there is at least one move)."""
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_legal(pos, moves, GEN_ALL), i
    for i in range(n):
        if move_kind(moves[i]) != MK_EN_PASSANT:
            return False
    return True

cdef int tb_best_en_passant(Position* pos, int* found, int* success) noexcept nogil:
    """Best WDL over the legal en-passant captures (-3 and *found = 0 if none)."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i, v, best = -3, ok
    found[0] = 0
    success[0] = 1
    if pos.st.ep_square == NO_SQUARE:
        return best
    n = generate_legal(pos, moves, GEN_CAPTURES)
    for i in range(n):
        if move_kind(moves[i]) != MK_EN_PASSANT:
            continue
        do_move(pos, moves[i])
        v = -tb_search_ab(pos, -2, 2, &ok)
        undo_move(pos, moves[i])
        if not ok:
            success[0] = 0
            return 0
        found[0] = 1
        if v > best:
            best = v
    return best

cdef int tb_search_wdl(Position* pos, int* success) noexcept nogil:
    cdef int v, v1, found, ok
    v = tb_search_ab(pos, -2, 2, &ok)
    success[0] = 0
    if not ok:
        return 0
    if pos.st.ep_square != NO_SQUARE:
        v1 = tb_best_en_passant(pos, &found, &ok)
        if not ok:
            return 0
        if found:
            if v1 >= v:
                v = v1
            elif v == 0 and tb_only_en_passant(pos):
                v = v1
    success[0] = 1
    return v

cdef inline int tb_dtz_before_zeroing(int wdl) noexcept nogil:
    if wdl == 0:
        return 0
    if wdl > 0:
        return 1 if wdl == 2 else 101
    return -1 if wdl == -2 else -101

cdef int tb_search_dtz_no_ep(Position* pos, int* success) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef Move ordered[MAX_MOVES]
    cdef int n, i, wdl, how, v, ok, dtz, best, pushes
    cdef Move m
    cdef Piece pc
    success[0] = 0
    wdl = tb_search_ab(pos, -2, 2, &how)
    if not how:
        return 0
    if wdl == 0:
        success[0] = 1
        return 0
    if how == 2:
        success[0] = 1
        return tb_dtz_before_zeroing(wdl)
    if not tb_room(pos):
        return 0
    n = generate_legal(pos, moves, GEN_ALL)
    if wdl > 0:
        # A pawn push that keeps the result zeroes the counter at once.
        pushes = tb_reference_pawn_pushes(pos, moves, n, ordered)
        for i in range(pushes):
            m = ordered[i]
            do_move(pos, m)
            v = -tb_search_wdl(pos, &ok)
            undo_move(pos, m)
            if not ok:
                return 0
            if v == wdl:
                success[0] = 1
                return 1 if v == 2 else 101
    dtz = tb_read_dtz(pos, wdl, &ok)
    if ok == 0:
        return 0
    if ok > 0:
        success[0] = 1
        return tb_dtz_before_zeroing(wdl) + (dtz if wdl > 0 else -dtz)
    # The DTZ table stores the other side to move: look one ply ahead.
    if wdl > 0:
        best = 0xFFFF
        for i in range(n):
            m = moves[i]
            pc = pos.board[move_from(m)]
            if type_of(pc) == PAWN or move_kind(m) == MK_CASTLING or pos.board[move_to(m)] != NO_PIECE:
                continue
            do_move(pos, m)
            v = -tb_search_dtz(pos, &ok)
            if ok and v == 1 and pos.st.checkers and tb_no_moves(pos):
                best = 1
            elif ok and v > 0 and v + 1 < best:
                best = v + 1
            undo_move(pos, m)
            if not ok:
                return 0
        success[0] = 1
        return best
    best = -1
    for i in range(n):
        m = moves[i]
        do_move(pos, m)
        if pos.st.rule50 == 0:
            if wdl == -2:
                v = -1
                ok = 1
            else:
                v = tb_search_ab(pos, 1, 2, &ok)
                v = 0 if v == 2 else -101
        else:
            v = -tb_search_dtz(pos, &ok) - 1
        undo_move(pos, m)
        if not ok:
            return 0
        if v < best:
            best = v
    success[0] = 1
    return best

cdef inline bint tb_no_moves(const Position* pos) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    return generate_legal(pos, moves, GEN_ALL) == 0

cdef int tb_search_dtz(Position* pos, int* success) noexcept nogil:
    cdef int v, v1, found, ok
    v = tb_search_dtz_no_ep(pos, &ok)
    success[0] = 0
    if not ok:
        return 0
    if pos.st.ep_square != NO_SQUARE:
        v1 = tb_best_en_passant(pos, &found, &ok)
        if not ok:
            return 0
        if found:
            v1 = TB_WDL_TO_DTZ[v1 + 2]
            if v < -100:
                if v1 >= 0:
                    v = v1
            elif v < 0:
                if v1 >= 0 or v1 < -100:
                    v = v1
            elif v > 100:
                if v1 > 0:
                    v = v1
            elif v > 0:
                if v1 == 1:
                    v = v1
            elif v1 >= 0:
                v = v1
            elif tb_only_en_passant(pos):
                v = v1
    success[0] = 1
    return v


# --- entry points ---------------------------------------------------------------------------

cdef inline void tb_private(const Position* src, Position* dst, StateInfo* states) noexcept nogil:
    """A copy of src that plays moves into its own short state stack."""
    memcpy(dst, src, sizeof(Position))
    states[0] = src.st[0]
    dst.states = states
    dst.st = states
    dst.st_index = 0
    dst.st_capacity = TB_STATES
    dst.accs = NULL

cdef inline bint tb_probe_allowed(const Position* pos) noexcept nogil:
    """Can pos be probed at all: it points at tables, has no castling rights and
    not too many pieces (one more: a capture may lead into the tables)."""
    return pos.tables != NULL and tables_of(pos).largest > 0 and pos.st.castling == 0 \
        and fc_popcount(pos.by_type[0]) <= TB_PIECES + 1

cdef int tb_probe_wdl(const Position* pos, int* success) noexcept nogil:
    """Win/draw/loss for the side to move: 2 win, 1 cursed win (a win spoilt by the
    50-move rule), 0 draw, -1 blessed loss, -2 loss; assumes the last move zeroed
    the 50-move counter. *success = 0 (and 0 returned) when a needed table is
    missing or the position has castling rights or too many pieces."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    cdef Position copy
    cdef StateInfo states[TB_STATES]
    success[0] = 0
    if not tb_probe_allowed(pos):
        return 0
    # Quiet positions (no capture, no en passant) read the table directly.
    if pos.st.ep_square == NO_SQUARE:
        n = generate_legal(pos, moves, GEN_CAPTURES)
        for i in range(n):
            if tb_is_capture(pos, moves[i]):
                break
        else:
            return tb_read_wdl(pos, success)
    tb_private(pos, &copy, states)
    return tb_search_wdl(&copy, success)

cdef int tb_probe_dtz(const Position* pos, int* success) noexcept nogil:
    """Distance to zeroing (python-chess's probe_dtz: DTZ50'' with rounding), positive
    when the side to move wins; *success = 0 when it cannot be determined."""
    cdef Position copy
    cdef StateInfo states[TB_STATES]
    success[0] = 0
    if not tb_probe_allowed(pos):
        return 0
    tb_private(pos, &copy, states)
    return tb_search_dtz(&copy, success)
