# Position: piece bitboards, mailbox, state stack, make/unmake with incremental key.
#
# Castling moves are encoded king-takes-rook (from = king square, to = rook square),
# which serves standard chess and Chess960 alike.

ctypedef struct StateInfo:
    uint64_t key
    Bitboard checkers       # enemy pieces giving check to the side to move
    int castling            # rights mask (WHITE_OO | ...)
    int ep_square           # NO_SQUARE unless an enemy pawn could capture en passant
    int rule50              # plies since the last capture or pawn move
    int plies_from_null
    int captured            # piece captured by the move that led here
    Move move               # move that led here
    PackedScore psq         # material + piece-square sum, white's view (undo pops it)
    int phase               # game phase from non-pawn material, PHASE_MAX = opening
    uint32_t psq_epoch      # the PSQ_EPOCH the sum was made under (the checked build
                            #   carries it through do_move; see sum_is_current)
    # What the move that led here changed on the board, for the network's
    # accumulators: piece dirty_piece[i] left dirty_from[i] (NO_SQUARE: it
    # appeared) and arrived on dirty_to[i] (NO_SQUARE: it vanished).
    uint8_t dirty_count
    uint8_t dirty_piece[3]
    uint8_t dirty_from[3]
    uint8_t dirty_to[3]
    uint8_t acc_computed    # the accumulator of this state is up to date
    # The bitboards as they were before the move that led here: undo_move copies
    # them back and restores only the mailbox squares the move touched.
    Bitboard by_type_before[7]
    Bitboard by_color_before[2]

ctypedef struct Position:
    Bitboard by_type[7]     # [0] = all occupied squares, [PAWN..KING] = both colours
    Bitboard by_color[2]
    uint8_t board[64]
    Color side
    int chess960
    int game_ply            # 2 * (fullmove - 1) + (black to move)
    StateInfo* st           # current state, == states + st_index
    StateInfo* states
    int st_index
    int st_capacity
    int castling_mask[64]           # rights lost when a move touches the square
    Square castling_rook[16]        # rook square by right bit
    Bitboard castling_path[16]      # squares that must be empty (excluding king and rook)
    Bitboard castling_king_path[16] # squares the king stands on or crosses, to destination
    int castling_off_corner         # rights whose rook is not in a corner (Chess960 only)
    Accumulator* accs               # network accumulators, one per state slot (NULL: none kept)
    const Network* net              # the network that evaluates (NULL: the hand-crafted evaluation)
    const void* tables              # the Syzygy tables probes read (a TBSet, tb_load.pxi; NULL: none)


cdef inline int type_of(int pc) noexcept nogil:
    return pc & 7

cdef inline int color_of(int pc) noexcept nogil:
    return pc >> 3

cdef inline Piece make_piece(Color c, int pt) noexcept nogil:
    return c * 8 + pt

cdef inline Bitboard pieces(const Position* pos, Color c, int pt) noexcept nogil:
    return pos.by_color[c] & pos.by_type[pt]

cdef inline Square king_square(const Position* pos, Color c) noexcept nogil:
    return fc_lsb(pos.by_color[c] & pos.by_type[KING])

# --- moves -------------------------------------------------------------------

cdef inline Square move_from(Move m) noexcept nogil:
    return m & 63

cdef inline Square move_to(Move m) noexcept nogil:
    return (m >> 6) & 63

cdef inline int move_kind(Move m) noexcept nogil:
    return m >> 14

cdef inline int promotion_type(Move m) noexcept nogil:
    return ((m >> 12) & 3) + KNIGHT

cdef inline Move make_move(Square f, Square t) noexcept nogil:
    return <Move>(f | (t << 6))

cdef inline Move make_special(Square f, Square t, int kind) noexcept nogil:
    return <Move>(f | (t << 6) | (kind << 14))

cdef inline Move make_promotion(Square f, Square t, int pt) noexcept nogil:
    return <Move>(f | (t << 6) | ((pt - KNIGHT) << 12) | (MK_PROMOTION << 14))

cdef inline Square castling_king_to(Color c, bint kingside) noexcept nogil:
    return relative_square(c, 6 if kingside else 2)

cdef inline Square castling_rook_to(Color c, bint kingside) noexcept nogil:
    return relative_square(c, 5 if kingside else 3)

# --- attacks -----------------------------------------------------------------

cdef inline Bitboard attackers_to(const Position* pos, Square s, Bitboard occ) noexcept nogil:
    """Pieces of both colours attacking s with the given occupancy."""
    return ((PAWN_ATTACKS[BLACK][s] & pieces(pos, WHITE, PAWN))
            | (PAWN_ATTACKS[WHITE][s] & pieces(pos, BLACK, PAWN))
            | (KNIGHT_ATTACKS[s] & pos.by_type[KNIGHT])
            | (KING_ATTACKS[s] & pos.by_type[KING])
            | (bishop_attacks(s, occ) & (pos.by_type[BISHOP] | pos.by_type[QUEEN]))
            | (rook_attacks(s, occ) & (pos.by_type[ROOK] | pos.by_type[QUEEN])))

cdef inline bint attacked_by(const Position* pos, Square s, Color c, Bitboard occ) noexcept nogil:
    """Is s attacked by colour c? Sliders first-tested cheaply by leapers."""
    cdef Bitboard them = pos.by_color[c]
    if PAWN_ATTACKS[c ^ 1][s] & pos.by_type[PAWN] & them:
        return True
    if KNIGHT_ATTACKS[s] & pos.by_type[KNIGHT] & them:
        return True
    if KING_ATTACKS[s] & pos.by_type[KING] & them:
        return True
    if bishop_attacks(s, occ) & (pos.by_type[BISHOP] | pos.by_type[QUEEN]) & them:
        return True
    return (rook_attacks(s, occ) & (pos.by_type[ROOK] | pos.by_type[QUEEN]) & them) != 0

cdef inline Bitboard attacks_by(const Position* pos, Color c, Bitboard occ) noexcept nogil:
    """Every square a piece of colour c attacks, sliders seeing through `occ`."""
    cdef Bitboard them = pos.by_color[c]
    cdef Bitboard att = pawn_attacks_bb(pos.by_type[PAWN] & them, c) | KING_ATTACKS[king_square(pos, c)]
    cdef Bitboard b = pos.by_type[KNIGHT] & them
    while b:
        att |= KNIGHT_ATTACKS[pop_lsb(&b)]
    b = (pos.by_type[BISHOP] | pos.by_type[QUEEN]) & them
    while b:
        att |= bishop_attacks(pop_lsb(&b), occ)
    b = (pos.by_type[ROOK] | pos.by_type[QUEEN]) & them
    while b:
        att |= rook_attacks(pop_lsb(&b), occ)
    return att

cdef inline Bitboard slider_blockers(const Position* pos, Color c) noexcept nogil:
    """Pieces of either colour that alone shield the king of c from an enemy slider."""
    cdef Square ksq = king_square(pos, c)
    cdef Bitboard them = pos.by_color[c ^ 1]
    cdef Bitboard snipers = ((rook_rays(ksq) & (pos.by_type[ROOK] | pos.by_type[QUEEN]))
                             | (bishop_rays(ksq) & (pos.by_type[BISHOP] | pos.by_type[QUEEN]))) & them
    cdef Bitboard blockers = 0, b
    cdef Square s
    while snipers:
        s = pop_lsb(&snipers)
        b = BETWEEN_BB[ksq][s] & pos.by_type[0]
        if b and not more_than_one(b):
            blockers |= b
    return blockers

cdef inline Bitboard compute_checkers(const Position* pos) noexcept nogil:
    return attackers_to(pos, king_square(pos, pos.side), pos.by_type[0]) & pos.by_color[pos.side ^ 1]

cdef inline bint on_one_rank_or_file(Square a, Square b) noexcept nogil:
    return ((a ^ b) & 7) == 0 or ((a ^ b) >> 3) == 0

cdef inline Bitboard checkers_after_move(const Position* pos, Square f, Square t) noexcept nogil:
    """compute_checkers() after an ordinary move or a promotion from f to t (made;
    the side to move is the one that did not move). The king was not in check
    before it, so only the piece now on t and a slider whose line to the king ran
    through f can check."""
    cdef Color mover = pos.side ^ 1
    cdef Square ksq = king_square(pos, pos.side)
    cdef Bitboard occ = pos.by_type[0], sliders
    cdef Bitboard checkers = 0
    cdef int pt = type_of(pos.board[t])
    if pt == PAWN:
        if PAWN_ATTACKS[mover][t] & sq_bb(ksq):
            checkers = sq_bb(t)
    elif pt == KNIGHT:
        if KNIGHT_ATTACKS[t] & sq_bb(ksq):
            checkers = sq_bb(t)
    elif pt != KING and LINE_BB[t][ksq] and not (BETWEEN_BB[t][ksq] & occ):
        if pt == QUEEN or (pt == ROOK) == on_one_rank_or_file(t, ksq):
            checkers = sq_bb(t)
    if LINE_BB[ksq][f]:
        if on_one_rank_or_file(ksq, f):
            sliders = (pos.by_type[ROOK] | pos.by_type[QUEEN]) & pos.by_color[mover]
            checkers |= rook_attacks(ksq, occ) & sliders
        else:
            sliders = (pos.by_type[BISHOP] | pos.by_type[QUEEN]) & pos.by_color[mover]
            checkers |= bishop_attacks(ksq, occ) & sliders
    return checkers

# --- piece placement ------------------------------------------------------------
# The board only: the material-and-square sum of a state is do_move's business
# (add_psq, sub_psq, shift_psq), and set-up code recomputes it
# (refresh_incremental_eval).

cdef inline void put_piece(Position* pos, Piece pc, Square s) noexcept nogil:
    cdef Bitboard b = sq_bb(s)
    pos.board[s] = pc
    pos.by_type[0] |= b
    pos.by_type[type_of(pc)] |= b
    pos.by_color[color_of(pc)] |= b

cdef inline void remove_piece(Position* pos, Square s) noexcept nogil:
    cdef Piece pc = pos.board[s]
    cdef Bitboard b = sq_bb(s)
    pos.by_type[0] ^= b
    pos.by_type[type_of(pc)] ^= b
    pos.by_color[color_of(pc)] ^= b
    pos.board[s] = NO_PIECE

cdef inline void move_piece(Position* pos, Square f, Square t) noexcept nogil:
    cdef Piece pc = pos.board[f]
    cdef Bitboard b = sq_bb(f) | sq_bb(t)
    pos.by_type[0] ^= b
    pos.by_type[type_of(pc)] ^= b
    pos.by_color[color_of(pc)] ^= b
    pos.board[f] = NO_PIECE
    pos.board[t] = pc

cdef inline void add_psq(StateInfo* st, Piece pc, Square s) noexcept nogil:
    """Piece pc arrived on s: the state's sum and phase take it in."""
    st.psq += PSQ[pc][s]
    st.phase += PHASE_WEIGHT[type_of(pc)]

cdef inline void sub_psq(StateInfo* st, Piece pc, Square s) noexcept nogil:
    """Piece pc left the board from s."""
    st.psq -= PSQ[pc][s]
    st.phase -= PHASE_WEIGHT[type_of(pc)]

cdef inline void shift_psq(StateInfo* st, Piece pc, Square f, Square t) noexcept nogil:
    """Piece pc went from f to t (the phase stays)."""
    st.psq += PSQ[pc][t] - PSQ[pc][f]

cdef void refresh_incremental_eval(Position* pos) noexcept nogil:
    """The current state's material-and-square sum and phase, from the board
    (after a set-up, or after the evaluation's weights changed)."""
    cdef Bitboard b = pos.by_type[0]
    cdef Square s
    pos.st.psq = 0
    pos.st.phase = 0
    pos.st.psq_epoch = PSQ_EPOCH
    while b:
        s = pop_lsb(&b)
        add_psq(pos.st, pos.board[s], s)

# --- make / unmake ----------------------------------------------------------------

cdef inline void add_dirty(StateInfo* st, Piece pc, Square f, Square t) noexcept nogil:
    """Record for the accumulators that piece pc went from f to t (either may be NO_SQUARE)."""
    cdef int i = st.dirty_count
    st.dirty_piece[i] = pc
    st.dirty_from[i] = f
    st.dirty_to[i] = t
    st.dirty_count = i + 1

cdef inline bint can_capture_en_passant(const Position* pos, Square pawn_to, Color capturer) noexcept nogil:
    """Does a pawn of `capturer` stand beside the pawn that just double-pushed?"""
    return ((shift_west(sq_bb(pawn_to)) | shift_east(sq_bb(pawn_to)))
            & pieces(pos, capturer, PAWN)) != 0

cdef inline void do_castling(Position* pos, Color us, Square kfrom, Square rfrom) noexcept nogil:
    """King and rook to their castling squares (both lifted first: in Chess960
    either may land where the other stood)."""
    cdef bint kingside = rfrom > kfrom
    remove_piece(pos, kfrom)
    remove_piece(pos, rfrom)
    put_piece(pos, make_piece(us, KING), castling_king_to(us, kingside))
    put_piece(pos, make_piece(us, ROOK), castling_rook_to(us, kingside))

cdef inline uint64_t key_after(const Position* pos, Move m) noexcept nogil:
    """The key after m for an ordinary move or capture, cheaply, without making it.
    Castling, promotions, en passant and changes of castling rights or of the
    en-passant square are left out: good enough to prefetch a hash bucket, never
    used for anything that must be exact."""
    cdef Square f = move_from(m), t = move_to(m)
    cdef Piece pc = pos.board[f], captured = pos.board[t]
    cdef uint64_t key = pos.st.key ^ ZOBRIST_WHITE_TO_MOVE ^ ZOBRIST_PSQ[pc][f] ^ ZOBRIST_PSQ[pc][t]
    if captured != NO_PIECE:
        key ^= ZOBRIST_PSQ[captured][t]
    if pos.st.ep_square != NO_SQUARE:
        key ^= ZOBRIST_EP[file_of(pos.st.ep_square)]
    return key

cdef void do_move(Position* pos, Move m) noexcept nogil:
    """Play a legal move. The caller guarantees a free state slot."""
    cdef StateInfo* prev = pos.st
    cdef StateInfo* st = prev + 1
    cdef Color us = pos.side, them = us ^ 1
    cdef Square f = move_from(m), t = move_to(m), capsq
    cdef int kind = move_kind(m)
    cdef Piece pc = pos.board[f], captured = NO_PIECE, promo
    cdef uint64_t key = prev.key ^ ZOBRIST_WHITE_TO_MOVE
    cdef bint kingside
    cdef int rights

    memcpy(st.by_type_before, pos.by_type, sizeof(pos.by_type))
    memcpy(st.by_color_before, pos.by_color, sizeof(pos.by_color))
    st.castling = prev.castling
    st.psq = prev.psq
    st.phase = prev.phase
    if FC_DEBUG:
        st.psq_epoch = prev.psq_epoch
    st.rule50 = prev.rule50 + 1
    st.plies_from_null = prev.plies_from_null + 1
    st.ep_square = NO_SQUARE
    st.move = m
    st.dirty_count = 0
    st.acc_computed = False
    if prev.ep_square != NO_SQUARE:
        key ^= ZOBRIST_EP[file_of(prev.ep_square)]

    if kind == MK_CASTLING:
        kingside = t > f
        key ^= (ZOBRIST_PSQ[pc][f] ^ ZOBRIST_PSQ[pc][castling_king_to(us, kingside)]
                ^ ZOBRIST_PSQ[make_piece(us, ROOK)][t]
                ^ ZOBRIST_PSQ[make_piece(us, ROOK)][castling_rook_to(us, kingside)])
        shift_psq(st, pc, f, castling_king_to(us, kingside))
        shift_psq(st, make_piece(us, ROOK), t, castling_rook_to(us, kingside))
        do_castling(pos, us, f, t)
        add_dirty(st, pc, f, castling_king_to(us, kingside))
        add_dirty(st, make_piece(us, ROOK), t, castling_rook_to(us, kingside))
    else:
        capsq = t
        if kind == MK_EN_PASSANT:
            capsq = t ^ 8
        captured = pos.board[capsq]
        if captured != NO_PIECE:
            key ^= ZOBRIST_PSQ[captured][capsq]
            remove_piece(pos, capsq)
            sub_psq(st, captured, capsq)
            add_dirty(st, captured, capsq, NO_SQUARE)
            st.rule50 = 0
        key ^= ZOBRIST_PSQ[pc][f] ^ ZOBRIST_PSQ[pc][t]
        move_piece(pos, f, t)
        shift_psq(st, pc, f, t)
        if type_of(pc) == PAWN:
            st.rule50 = 0
            if (f ^ t) == 16 and can_capture_en_passant(pos, t, them):
                st.ep_square = (f + t) >> 1
                key ^= ZOBRIST_EP[file_of(st.ep_square)]
            elif kind == MK_PROMOTION:
                promo = make_piece(us, promotion_type(m))
                remove_piece(pos, t)
                put_piece(pos, promo, t)
                sub_psq(st, pc, t)
                add_psq(st, promo, t)
                key ^= ZOBRIST_PSQ[pc][t] ^ ZOBRIST_PSQ[promo][t]
        if kind == MK_PROMOTION:
            add_dirty(st, pc, f, NO_SQUARE)
            add_dirty(st, make_piece(us, promotion_type(m)), NO_SQUARE, t)
        else:
            add_dirty(st, pc, f, t)

    rights = st.castling & (pos.castling_mask[f] | pos.castling_mask[t])
    if rights:
        key ^= ZOBRIST_CASTLING[st.castling] ^ ZOBRIST_CASTLING[st.castling & ~rights]
        st.castling &= ~rights

    st.captured = captured
    st.key = key
    pos.st = st
    pos.st_index += 1
    pos.game_ply += 1
    pos.side = them
    if kind == MK_NORMAL or kind == MK_PROMOTION:
        st.checkers = checkers_after_move(pos, f, t)
    else:
        st.checkers = compute_checkers(pos)       # castling and en passant move two pieces
    if FC_DEBUG:
        verify_position(pos, "after do_move")

cdef void undo_move(Position* pos, Move m) noexcept nogil:
    """Take back the last move: the bitboards are copied back from its state,
    the mailbox squares it touched are put back one by one."""
    cdef StateInfo* st = pos.st
    cdef Color us = pos.side ^ 1
    cdef Square f = move_from(m), t = move_to(m)
    cdef int kind = move_kind(m)
    memcpy(pos.by_type, st.by_type_before, sizeof(pos.by_type))
    memcpy(pos.by_color, st.by_color_before, sizeof(pos.by_color))
    pos.side = us
    if kind == MK_CASTLING:         # lifted first, as do_castling does
        pos.board[castling_king_to(us, t > f)] = NO_PIECE
        pos.board[castling_rook_to(us, t > f)] = NO_PIECE
        pos.board[f] = make_piece(us, KING)
        pos.board[t] = make_piece(us, ROOK)
    else:
        pos.board[f] = make_piece(us, PAWN) if kind == MK_PROMOTION else pos.board[t]
        if kind == MK_EN_PASSANT:
            pos.board[t] = NO_PIECE
            pos.board[t ^ 8] = st.captured
        else:
            pos.board[t] = st.captured
    pos.st = st - 1
    pos.st_index -= 1
    pos.game_ply -= 1
    if FC_DEBUG:
        verify_position(pos, "after undo_move")

cdef void do_null_move(Position* pos) noexcept nogil:
    """Pass the move (never when in check). The caller guarantees a free state slot."""
    cdef StateInfo* prev = pos.st
    cdef StateInfo* st = prev + 1
    st[0] = prev[0]
    st.key ^= ZOBRIST_WHITE_TO_MOVE
    if prev.ep_square != NO_SQUARE:
        st.key ^= ZOBRIST_EP[file_of(prev.ep_square)]
        st.ep_square = NO_SQUARE
    st.rule50 = prev.rule50 + 1
    st.plies_from_null = 0
    st.captured = NO_PIECE
    st.move = MOVE_NULL
    st.checkers = 0
    st.dirty_count = 0
    st.acc_computed = False
    pos.st = st
    pos.st_index += 1
    pos.game_ply += 1
    pos.side ^= 1

cdef void undo_null_move(Position* pos) noexcept nogil:
    pos.st -= 1
    pos.st_index -= 1
    pos.game_ply -= 1
    pos.side ^= 1

# --- draws ------------------------------------------------------------------------

cdef inline bint is_repetition(const Position* pos, int ply_from_root) noexcept nogil:
    """Twofold repetition inside the search (after the root), threefold before it."""
    cdef int end = min(pos.st.rule50, pos.st.plies_from_null)
    cdef int i, hits = 0
    cdef const StateInfo* stp
    if end < 4:
        return False
    i = 4
    stp = pos.st - 2
    while i <= end:
        stp -= 2
        if stp.key == pos.st.key:
            if i < ply_from_root:
                return True      # the repeated position lies inside the search tree
            hits += 1
            if hits >= 2:
                return True      # third occurrence in the game
        i += 2
    return False

cdef inline bint has_insufficient_material(const Position* pos) noexcept nogil:
    """No sequence of legal moves can mate: K v K, K+minor v K, KB v KB same colour."""
    cdef Bitboard minors
    cdef Bitboard dark = 0xAA55AA55AA55AA55ULL
    if pos.by_type[PAWN] | pos.by_type[ROOK] | pos.by_type[QUEEN]:
        return False
    minors = pos.by_type[KNIGHT] | pos.by_type[BISHOP]
    if not more_than_one(minors):
        return True
    if pos.by_type[KNIGHT] == 0:
        return (pos.by_type[BISHOP] & dark) == 0 or (pos.by_type[BISHOP] & ~dark) == 0
    return False

# --- copying ------------------------------------------------------------------------

cdef void copy_position_into(Position* dst, const Position* src, StateInfo* states,
                             int capacity) noexcept nogil:
    """dst becomes src with its own state stack `states` (capacity > src.st_index)."""
    cdef int i
    dst[0] = src[0]
    memcpy(states, src.states, sizeof(StateInfo) * (src.st_index + 1))
    dst.states = states
    dst.st_capacity = capacity
    dst.st = states + src.st_index
    dst.accs = NULL             # the copy owns no accumulators until some are attached
    for i in range(src.st_index + 1):
        states[i].acc_computed = False

# --- key from scratch (for validation) -------------------------------------------------

cdef uint64_t compute_key(const Position* pos) noexcept nogil:
    cdef uint64_t key = 0
    cdef Bitboard b = pos.by_type[0]
    cdef Square s
    while b:
        s = pop_lsb(&b)
        key ^= ZOBRIST_PSQ[pos.board[s]][s]
    key ^= ZOBRIST_CASTLING[pos.st.castling]
    if pos.st.ep_square != NO_SQUARE:
        key ^= ZOBRIST_EP[file_of(pos.st.ep_square)]
    if pos.side == WHITE:
        key ^= ZOBRIST_WHITE_TO_MOVE
    return key


cdef inline bint sum_is_current(const StateInfo* st) noexcept nogil:
    """Was the state's material-and-square sum made under the weights in force?
    A weight change leaves the sums of the states below the current one stale
    (every reader refreshes the current state first), so after a take-back the
    checked build must not hold them against today's weights. Only the checked
    build tracks it; a release build takes every sum as current."""
    return not FC_DEBUG or st.psq_epoch == PSQ_EPOCH

cdef bint position_is_consistent(const Position* pos) noexcept nogil:
    """Mailbox, bitboards, key, checkers and the material-and-square sum agree
    (recomputed from scratch)."""
    cdef Square s
    cdef Piece pc
    cdef Bitboard all_pieces = 0
    cdef StateInfo sums
    sums.psq = 0
    sums.phase = 0
    for s in range(64):
        pc = pos.board[s]
        if pc != NO_PIECE:
            if not (pos.by_type[type_of(pc)] & pos.by_color[color_of(pc)] & sq_bb(s)):
                return False
            all_pieces |= sq_bb(s)
            add_psq(&sums, pc, s)
    if sum_is_current(pos.st) and (sums.psq != pos.st.psq or sums.phase != pos.st.phase):
        return False
    if all_pieces != pos.by_type[0] or (pos.by_color[0] | pos.by_color[1]) != all_pieces:
        return False
    if pos.by_color[0] & pos.by_color[1]:
        return False
    if fc_popcount(pieces(pos, WHITE, KING)) != 1 or fc_popcount(pieces(pos, BLACK, KING)) != 1:
        return False
    if pos.st != pos.states + pos.st_index or pos.st_index >= pos.st_capacity:
        return False
    return compute_key(pos) == pos.st.key and compute_checkers(pos) == pos.st.checkers

cdef void verify_position(const Position* pos, const char* where) noexcept nogil:
    if not position_is_consistent(pos):
        fc_fail(where)
