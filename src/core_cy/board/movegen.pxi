# Legal move generation into C arrays, move validation for TT moves, and the
# bulk count of legal moves that perft's last ply uses (perft itself: perft.pxi).
#
# The generator is fully legal: pins restrict pinned pieces to their line, a check
# restricts the targets to the checker and the squares between, the king never
# steps onto an attacked square, and en passant is verified by replaying it on
# the occupancy. Generation kinds partition the moves: CAPTURES holds captures and
# every promotion, QUIETS the rest; in check both hold only evasions.

cdef enum:
    GEN_CAPTURES = 1
    GEN_QUIETS = 2
    GEN_ALL = 3

cdef inline int add_promotions(Move* moves, int n, Square f, Square t) noexcept nogil:
    moves[n] = make_promotion(f, t, QUEEN)
    moves[n + 1] = make_promotion(f, t, KNIGHT)
    moves[n + 2] = make_promotion(f, t, ROOK)
    moves[n + 3] = make_promotion(f, t, BISHOP)
    return n + 4

cdef inline int add_moves_from(Move* moves, int n, Square f, Bitboard targets) noexcept nogil:
    while targets:
        moves[n] = make_move(f, pop_lsb(&targets))
        n += 1
    return n

cdef inline int add_pawn_moves(Move* moves, int n, Bitboard targets, int delta, bint promotion) noexcept nogil:
    """Pawn moves to each target from target - delta."""
    cdef Square t
    while targets:
        t = pop_lsb(&targets)
        if promotion:
            n = add_promotions(moves, n, t - delta, t)
        else:
            moves[n] = make_move(t - delta, t)
            n += 1
    return n

cdef inline bint en_passant_is_legal(const Position* pos, Square f, Square ep) noexcept nogil:
    """Replay the capture on the occupancy and look for any attack on our king."""
    cdef Color us = pos.side
    cdef Square capsq = ep ^ 8
    cdef Square ksq = king_square(pos, us)
    cdef Bitboard occ = (pos.by_type[0] ^ sq_bb(f) ^ sq_bb(capsq)) | sq_bb(ep)
    cdef Bitboard them = pos.by_color[us ^ 1] ^ sq_bb(capsq)
    return (attackers_to(pos, ksq, occ) & them) == 0

ctypedef struct PawnSets:
    Bitboard single            # one step ahead, empty and in the target
    Bitboard double            # two steps from the third rank
    Bitboard west              # captures towards the a-file
    Bitboard east              # captures towards the h-file
    Bitboard last_rank         # where a pawn promotes
    int up                     # the square step ahead: +8 for white, -8 for black

cdef inline PawnSets unpinned_pawn_sets(const Position* pos, Bitboard target, Bitboard pinned) noexcept nogil:
    """Where the side to move's unpinned pawns go, as bulk sets (the generator writes
    them as moves, perft counts them)."""
    cdef PawnSets p
    cdef Color us = pos.side
    cdef Bitboard empty = ~pos.by_type[0]
    cdef Bitboard enemies = pos.by_color[us ^ 1] & target
    cdef Bitboard free = pieces(pos, us, PAWN) & ~pinned
    cdef Bitboard third_rank = RANK_BB[2] if us == WHITE else RANK_BB[5]
    p.last_rank = RANK_BB[7] if us == WHITE else RANK_BB[0]
    p.up = 8 if us == WHITE else -8
    p.single = shift_up(free, us) & empty
    p.double = shift_up(p.single & third_rank, us) & empty & target
    p.single &= target
    p.west = shift_west(shift_up(free, us)) & enemies
    p.east = shift_east(shift_up(free, us)) & enemies
    return p

cdef inline bint has_pinned_pawn_or_en_passant(const Position* pos, Bitboard pinned) noexcept nogil:
    """Is there work for generate_pinned_pawn_moves? Mostly not: it is skipped."""
    return (pieces(pos, pos.side, PAWN) & pinned) != 0 or pos.st.ep_square != NO_SQUARE

cdef int generate_pawn_moves(const Position* pos, Move* moves, int n, int gen,
                             Bitboard target, Bitboard pinned, Square ksq) noexcept nogil:
    cdef PawnSets p = unpinned_pawn_sets(pos, target, pinned)
    if gen & GEN_CAPTURES:
        n = add_pawn_moves(moves, n, p.west & ~p.last_rank, p.up - 1, False)
        n = add_pawn_moves(moves, n, p.east & ~p.last_rank, p.up + 1, False)
        n = add_pawn_moves(moves, n, p.west & p.last_rank, p.up - 1, True)
        n = add_pawn_moves(moves, n, p.east & p.last_rank, p.up + 1, True)
        n = add_pawn_moves(moves, n, p.single & p.last_rank, p.up, True)
    if gen & GEN_QUIETS:
        n = add_pawn_moves(moves, n, p.single & ~p.last_rank, p.up, False)
        n = add_pawn_moves(moves, n, p.double, p.up + p.up, False)
    if has_pinned_pawn_or_en_passant(pos, pinned):
        n = generate_pinned_pawn_moves(pos, moves, n, gen, target, pinned, ksq)
    return n

cdef int generate_pinned_pawn_moves(const Position* pos, Move* moves, int n, int gen,
                                    Bitboard target, Bitboard pinned, Square ksq) noexcept nogil:
    """The pawn moves the bulk sets leave out: pinned pawns and en passant."""
    cdef Color us = pos.side
    cdef Bitboard empty = ~pos.by_type[0]
    cdef Bitboard enemies = pos.by_color[us ^ 1] & target
    cdef Bitboard pawns = pieces(pos, us, PAWN)
    cdef Bitboard last_rank = RANK_BB[7] if us == WHITE else RANK_BB[0]
    cdef int up = 8 if us == WHITE else -8
    cdef Bitboard b, line
    cdef Square s, t

    # Pinned pawns move only along the pin line, and never out of a check.
    b = pawns & pinned if target == ~(<Bitboard>0) else 0
    while b:
        s = pop_lsb(&b)
        line = LINE_BB[ksq][s]
        t = s + up
        if gen & GEN_CAPTURES:
            n = add_pinned_pawn_targets(moves, n, s, PAWN_ATTACKS[us][s] & enemies & line, last_rank)
        if sq_bb(t) & empty & line:
            if sq_bb(t) & last_rank:
                if gen & GEN_CAPTURES:
                    n = add_promotions(moves, n, s, t)
            elif gen & GEN_QUIETS:
                moves[n] = make_move(s, t)
                n += 1
                if (sq_bb(s) & (RANK_BB[1] if us == WHITE else RANK_BB[6])) and (sq_bb(t + up) & empty):
                    moves[n] = make_move(s, t + up)
                    n += 1

    # En passant: rare, so verified by replaying it.
    if (gen & GEN_CAPTURES) and pos.st.ep_square != NO_SQUARE:
        b = PAWN_ATTACKS[us ^ 1][pos.st.ep_square] & pawns
        while b:
            s = pop_lsb(&b)
            if en_passant_is_legal(pos, s, pos.st.ep_square):
                moves[n] = make_special(s, pos.st.ep_square, MK_EN_PASSANT)
                n += 1
    return n

cdef inline int add_pinned_pawn_targets(Move* moves, int n, Square s, Bitboard targets,
                                        Bitboard last_rank) noexcept nogil:
    cdef Square t
    while targets:
        t = pop_lsb(&targets)
        if sq_bb(t) & last_rank:
            n = add_promotions(moves, n, s, t)
        else:
            moves[n] = make_move(s, t)
            n += 1
    return n

cdef int generate_piece_moves(const Position* pos, Move* moves, int n,
                              Bitboard target, Bitboard pinned, Square ksq) noexcept nogil:
    cdef Color us = pos.side
    cdef Bitboard occ = pos.by_type[0]
    cdef Bitboard b, att
    cdef Square s
    b = pieces(pos, us, KNIGHT) & ~pinned        # a pinned knight never moves
    while b:
        s = pop_lsb(&b)
        n = add_moves_from(moves, n, s, KNIGHT_ATTACKS[s] & target)
    b = (pos.by_type[BISHOP] | pos.by_type[QUEEN]) & pos.by_color[us]
    while b:
        s = pop_lsb(&b)
        att = bishop_attacks(s, occ) & target
        if sq_bb(s) & pinned:
            att &= LINE_BB[ksq][s]
        n = add_moves_from(moves, n, s, att)
    b = (pos.by_type[ROOK] | pos.by_type[QUEEN]) & pos.by_color[us]
    while b:
        s = pop_lsb(&b)
        att = rook_attacks(s, occ) & target
        if sq_bb(s) & pinned:
            att &= LINE_BB[ksq][s]
        n = add_moves_from(moves, n, s, att)
    return n

cdef inline int castling_rights_to_try(const Position* pos) noexcept nogil:
    """The side to move's castling rights whose path between king and rook is empty."""
    cdef int rights = pos.st.castling & (3 << (2 * pos.side))
    cdef int kingside = rights & (WHITE_OO | BLACK_OO), queenside = rights & (WHITE_OOO | BLACK_OOO)
    cdef Bitboard occ = pos.by_type[0]
    if kingside and (pos.castling_path[kingside] & occ):
        rights ^= kingside
    if queenside and (pos.castling_path[queenside] & occ):
        rights ^= queenside
    return rights

cdef inline Bitboard unsafe_king_squares(const Position* pos, Square ksq) noexcept nogil:
    """The squares the enemy attacks with our king lifted from the board (so that
    a slider checking along a line also covers the square behind the king)."""
    return attacks_by(pos, pos.side ^ 1, pos.by_type[0] ^ sq_bb(ksq))

cdef inline bint castling_is_safe(const Position* pos, int right, Bitboard danger) noexcept nogil:
    """No square the king stands on, crosses or reaches is attacked (the path is
    known to be empty: castling_rights_to_try). `danger` is unsafe_king_squares().

    The danger map sees the board with the castling rook in place. With the rook
    in a corner nothing stands behind it on the king's rank, so the map answers;
    a Chess960 rook elsewhere may shield the king's path from a slider beyond it,
    and the path is then tested square by square (castling_path_is_safe)."""
    if pos.castling_king_path[right] & danger:
        return False
    return not (right & pos.castling_off_corner) or castling_path_is_safe(pos, right)

cdef bint castling_path_is_safe(const Position* pos, int right) noexcept nogil:
    """No enemy piece attacks the king's castling path with king and rook lifted."""
    cdef Bitboard path = pos.castling_king_path[right]
    cdef Bitboard occ = pos.by_type[0] ^ sq_bb(pos.castling_rook[right]) ^ sq_bb(king_square(pos, pos.side))
    while path:
        if attacked_by(pos, pop_lsb(&path), pos.side ^ 1, occ):
            return False
    return True

cdef int generate_castling(const Position* pos, Move* moves, int n, int rights, Bitboard danger) noexcept nogil:
    """The castling moves among `rights` (from castling_rights_to_try; not in check)."""
    cdef Square ksq = king_square(pos, pos.side)
    cdef int right
    while rights:
        right = rights & -rights
        rights ^= right
        if castling_is_safe(pos, right, danger):
            moves[n] = make_special(ksq, pos.castling_rook[right], MK_CASTLING)
            n += 1
    return n

cdef inline int count_castling(const Position* pos, int rights, Bitboard danger) noexcept nogil:
    """How many moves generate_castling writes: with the rooks in their corners,
    one test of the danger map for each right (at most two)."""
    cdef Move scratch[2]
    cdef int kingside = rights & (WHITE_OO | BLACK_OO), queenside = rights & (WHITE_OOO | BLACK_OOO)
    if rights & pos.castling_off_corner:
        return generate_castling(pos, scratch, 0, rights, danger)
    return ((kingside != 0 and (pos.castling_king_path[kingside] & danger) == 0)
            + (queenside != 0 and (pos.castling_king_path[queenside] & danger) == 0))

cdef inline Bitboard safe_king_steps(const Position* pos, Bitboard steps, Square ksq, int rights,
                                     Bitboard* danger) noexcept nogil:
    """The king's steps among `steps` that no enemy piece attacks. With several
    steps or castling to test, the enemy's attacks are gathered once (into
    *danger, for castling); a single step is tested alone."""
    if rights or more_than_one(steps):
        danger[0] = unsafe_king_squares(pos, ksq)
        return steps & ~danger[0]
    if steps and attacked_by(pos, fc_lsb(steps), pos.side ^ 1, pos.by_type[0] ^ sq_bb(ksq)):
        return 0
    return steps

cdef int generate_legal(const Position* pos, Move* moves, int gen) noexcept nogil:
    """Write the legal moves of kind `gen` to moves; return how many."""
    cdef Color us = pos.side
    cdef Square ksq = king_square(pos, us)
    cdef Bitboard checkers = pos.st.checkers
    cdef Bitboard kind_mask = 0, target, pinned, danger = 0
    cdef int n, rights = 0
    if gen & GEN_CAPTURES:
        kind_mask |= pos.by_color[us ^ 1]
    if gen & GEN_QUIETS:
        kind_mask |= ~pos.by_type[0]
        if not checkers:
            rights = castling_rights_to_try(pos)
    n = add_moves_from(moves, 0, ksq, safe_king_steps(pos, KING_ATTACKS[ksq] & kind_mask, ksq, rights, &danger))
    if more_than_one(checkers):
        return n
    target = kind_mask
    if checkers:
        target &= BETWEEN_BB[ksq][fc_lsb(checkers)] | checkers
    elif rights:
        n = generate_castling(pos, moves, n, rights, danger)
    pinned = slider_blockers(pos, us) & pos.by_color[us]
    n = generate_piece_moves(pos, moves, n, target, pinned, ksq)
    # Pawns get the full check mask: a quiet promotion is a "capture" by kind.
    target = ~(<Bitboard>0)
    if checkers:
        target = BETWEEN_BB[ksq][fc_lsb(checkers)] | checkers
    return generate_pawn_moves(pos, moves, n, gen, target, pinned, ksq)

# --- counting without writing: perft's last ply -----------------------------------

cdef int count_pinned_pawn_moves(const Position* pos, Bitboard target, Bitboard pinned,
                                 Square ksq) noexcept nogil:
    """How many moves generate_pinned_pawn_moves(GEN_ALL) writes (it writes them)."""
    cdef Move scratch[MAX_MOVES]
    return generate_pinned_pawn_moves(pos, scratch, 0, GEN_ALL, target, pinned, ksq)

cdef inline int count_pawn_moves(const Position* pos, Bitboard target, Bitboard pinned,
                                 Square ksq) noexcept nogil:
    """How many moves generate_pawn_moves(GEN_ALL) writes: the unpinned pawns' sets
    are counted (a promotion is four moves), the rare rest is generated."""
    cdef PawnSets p = unpinned_pawn_sets(pos, target, pinned)
    cdef Bitboard promoting = (p.single | p.west | p.east) & p.last_rank
    cdef int n = fc_popcount(p.single) + fc_popcount(p.double) + fc_popcount(p.west) + fc_popcount(p.east)
    if promoting:       # three more moves for each: a promotion is four
        n += 3 * (fc_popcount(p.single & p.last_rank) + fc_popcount(p.west & p.last_rank)
                  + fc_popcount(p.east & p.last_rank))
    if has_pinned_pawn_or_en_passant(pos, pinned):
        n += count_pinned_pawn_moves(pos, target, pinned, ksq)
    return n

cdef inline int count_piece_moves(const Position* pos, Bitboard target, Bitboard pinned,
                                  Square ksq) noexcept nogil:
    """How many moves generate_piece_moves writes, by popcount of each piece's targets.
    The free pieces go first, untested; the pinned sliders (mostly none) after."""
    cdef Color us = pos.side
    cdef Bitboard occ = pos.by_type[0], b
    cdef Bitboard diagonal = (pos.by_type[BISHOP] | pos.by_type[QUEEN]) & pos.by_color[us]
    cdef Bitboard straight = (pos.by_type[ROOK] | pos.by_type[QUEEN]) & pos.by_color[us]
    cdef Square s
    cdef int n = 0
    b = pieces(pos, us, KNIGHT) & ~pinned
    while b:
        n += fc_popcount(KNIGHT_ATTACKS[pop_lsb(&b)] & target)
    b = diagonal & ~pinned
    while b:
        n += fc_popcount(bishop_attacks(pop_lsb(&b), occ) & target)
    b = straight & ~pinned
    while b:
        n += fc_popcount(rook_attacks(pop_lsb(&b), occ) & target)
    b = (diagonal | straight) & pinned
    while b:
        s = pop_lsb(&b)
        n += fc_popcount(piece_attacks(type_of(pos.board[s]), s, occ) & target & LINE_BB[ksq][s])
    return n

cdef int count_legal(const Position* pos) noexcept nogil:
    """len(generate_legal(pos, GEN_ALL)) without writing the moves: the same sets,
    counted. Perft's last ply calls it (bulk counting)."""
    cdef Color us = pos.side
    cdef Square ksq = king_square(pos, us)
    cdef Bitboard checkers = pos.st.checkers
    cdef Bitboard target = ~pos.by_color[us], pawn_target = ~(<Bitboard>0), pinned, danger = 0
    cdef int rights = 0 if checkers else castling_rights_to_try(pos)
    cdef int n = fc_popcount(safe_king_steps(pos, KING_ATTACKS[ksq] & target, ksq, rights, &danger))
    if more_than_one(checkers):
        return n
    if checkers:
        pawn_target = BETWEEN_BB[ksq][fc_lsb(checkers)] | checkers
        target &= pawn_target
    elif rights:
        n += count_castling(pos, rights, danger)
    pinned = slider_blockers(pos, us) & pos.by_color[us]
    return n + count_piece_moves(pos, target, pinned, ksq) + count_pawn_moves(pos, pawn_target, pinned, ksq)

# --- validating a move from elsewhere (TT, killers) ---------------------------------

cdef inline bint pawn_move_fits(const Position* pos, Color us, Square f, Square t,
                                bint promotion) noexcept nogil:
    """Does a pawn on f reach t by a push, a double push or a capture (not en passant),
    promoting exactly when t is on the last rank? Pins and checks are not looked at."""
    cdef Bitboard to_bb = sq_bb(t)
    cdef int up = 8 if us == WHITE else -8
    if promotion != ((to_bb & (RANK_BB[0] | RANK_BB[7])) != 0):
        return False
    if PAWN_ATTACKS[us][f] & to_bb:
        return (pos.by_color[us ^ 1] & to_bb) != 0
    if pos.by_type[0] & to_bb:
        return False
    if t == f + up:
        return True
    return t == f + 2 * up and relative_rank(us, f) == 1 and not (pos.by_type[0] & sq_bb(f + up))


cdef bint is_legal_move(const Position* pos, Move m) noexcept nogil:
    """Is m a legal move here? Safe for any 16-bit value."""
    cdef Move moves[MAX_MOVES]
    cdef Color us = pos.side
    cdef Square f = move_from(m), t = move_to(m), ksq
    cdef Piece pc = pos.board[f]
    cdef int kind = move_kind(m), n, i
    cdef Bitboard occ
    if m == MOVE_NONE or m == MOVE_NULL or pc == NO_PIECE or color_of(pc) != us:
        return False
    if kind == MK_NORMAL and (m >> 12) & 3:
        return False
    if kind == MK_PROMOTION and type_of(pc) != PAWN:
        return False
    if kind == MK_EN_PASSANT or kind == MK_CASTLING:
        # Rare kinds: compare with the generator.
        n = generate_legal(pos, moves, GEN_ALL)
        for i in range(n):
            if moves[i] == m:
                return True
        return False
    occ = pos.by_type[0]
    if type_of(pc) == PAWN:
        if not pawn_move_fits(pos, us, f, t, kind == MK_PROMOTION):
            return False
    elif pos.by_color[us] & sq_bb(t) or not (piece_attacks(type_of(pc), f, occ) & sq_bb(t)):
        return False
    elif type_of(pc) == KING:
        return not attacked_by(pos, t, us ^ 1, occ ^ sq_bb(f))
    ksq = king_square(pos, us)
    if pos.st.checkers:
        if more_than_one(pos.st.checkers):
            return False
        if not ((BETWEEN_BB[ksq][fc_lsb(pos.st.checkers)] | pos.st.checkers) & sq_bb(t)):
            return False
    # A move off a pin line exposes the king to a slider.
    occ = (occ ^ sq_bb(f)) | sq_bb(t)
    return ((bishop_attacks(ksq, occ) & (pos.by_type[BISHOP] | pos.by_type[QUEEN])
             | rook_attacks(ksq, occ) & (pos.by_type[ROOK] | pos.by_type[QUEEN]))
            & pos.by_color[us ^ 1] & ~sq_bb(t)) == 0

# --- checks -------------------------------------------------------------------

cdef bint gives_check(const Position* pos, Move m) noexcept nogil:
    """Does the legal move m check the enemy king (directly or by discovery)?"""
    cdef Color us = pos.side
    cdef Square f = move_from(m), t = move_to(m), ksq = king_square(pos, us ^ 1)
    cdef int kind = move_kind(m), pt = type_of(pos.board[f])
    cdef Bitboard occ = (pos.by_type[0] ^ sq_bb(f)) | sq_bb(t)
    cdef Bitboard ours, diagonal, straight
    cdef bint kingside
    if kind == MK_CASTLING:
        kingside = t > f
        occ = (pos.by_type[0] ^ sq_bb(f) ^ sq_bb(t)) | sq_bb(castling_king_to(us, kingside)) \
            | sq_bb(castling_rook_to(us, kingside))
        return (rook_attacks(castling_rook_to(us, kingside), occ) & sq_bb(ksq)) != 0
    if kind == MK_PROMOTION:
        pt = promotion_type(m)
    elif kind == MK_EN_PASSANT:
        occ ^= sq_bb(t ^ 8)
    if pt == PAWN:
        if PAWN_ATTACKS[us][t] & sq_bb(ksq):
            return True
    elif pt != KING and piece_attacks(pt, t, occ) & sq_bb(ksq):
        return True
    # Discovered check: one of our sliders now sees the king.
    ours = pos.by_color[us] & ~sq_bb(f)
    diagonal = (pos.by_type[BISHOP] | pos.by_type[QUEEN]) & ours
    straight = (pos.by_type[ROOK] | pos.by_type[QUEEN]) & ours
    return ((bishop_attacks(ksq, occ) & diagonal) | (rook_attacks(ksq, occ) & straight)) != 0

ctypedef struct CheckInfo:
    Bitboard direct[7]        # by piece type: the squares from which it checks the enemy king
    Bitboard discoverers      # our pieces that alone stand between one of our sliders and that king
    Square ksq                # the enemy king

cdef inline void check_info_init(CheckInfo* ci, const Position* pos) noexcept nogil:
    """What gives_check needs to know of a position, computed once for all its moves."""
    cdef Color us = pos.side, them = us ^ 1
    cdef Square ksq = king_square(pos, them)
    cdef Bitboard occ = pos.by_type[0]
    ci.ksq = ksq
    ci.direct[NO_PIECE_TYPE] = 0
    ci.direct[PAWN] = PAWN_ATTACKS[them][ksq]
    ci.direct[KNIGHT] = KNIGHT_ATTACKS[ksq]
    ci.direct[BISHOP] = bishop_attacks(ksq, occ)
    ci.direct[ROOK] = rook_attacks(ksq, occ)
    ci.direct[QUEEN] = ci.direct[BISHOP] | ci.direct[ROOK]
    ci.direct[KING] = 0
    ci.discoverers = slider_blockers(pos, them) & pos.by_color[us]

cdef inline bint gives_check_with(const Position* pos, const CheckInfo* ci, Move m) noexcept nogil:
    """gives_check(pos, m), exactly, from the position's CheckInfo. For an ordinary move
    the moved piece checks from its new square (a slider's line to the king cannot
    run through the square it left: it would have been checking already), or it
    leaves the line of a slider behind it. Castling, promotions and en passant
    change more than one square and take the full test."""
    cdef Square f = move_from(m), t = move_to(m)
    if move_kind(m) != MK_NORMAL:
        return gives_check(pos, m)
    if ci.direct[type_of(pos.board[f])] & sq_bb(t):
        return True
    return (ci.discoverers & sq_bb(f)) != 0 and (LINE_BB[f][ci.ksq] & sq_bb(t)) == 0
