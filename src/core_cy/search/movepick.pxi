# Static exchange evaluation and the staged move picker.
#
# Main search order: TT move, good captures (MVV-LVA, SEE >= 0), killers, counter
# move, quiets (safe checks first, then by history and threats), bad captures. In
# check: TT move, then all evasions. Quiescence: TT move, then captures and
# promotions.
# Quiet moves are generated only when the earlier stages did not cut off.

cdef enum:
    QUIET_CHECK_BONUS = 1 << 16     # above any history score: safe checks first
    EVASION_QUIET_MALUS = 1 << 20   # quiet evasions after every capturing one
    # Every score is within +-PICK_SCORE_BOUND: histories are within +-HISTORY_MAX
    # (three tables and the threat term make under 2^18), captures within
    # +-2^15, quiet evasions within 2^20 + HISTORY_MAX. So a score and its place
    # fit one int32 key (pick_key).
    PICK_SCORE_BOUND = 1 << 22

cdef int SEE_VALUE[7]
SEE_VALUE[:] = [0, 100, 320, 330, 500, 950, 20000]

cdef enum:
    STAGE_TT = 0
    STAGE_CAPTURES_INIT = 1
    STAGE_GOOD_CAPTURES = 2
    STAGE_KILLER_1 = 3
    STAGE_KILLER_2 = 4
    STAGE_COUNTER = 5
    STAGE_QUIETS_INIT = 6
    STAGE_QUIETS = 7
    STAGE_BAD_CAPTURES = 8
    STAGE_EVASION_TT = 9
    STAGE_EVASIONS_INIT = 10
    STAGE_EVASIONS = 11
    STAGE_QS_TT = 12
    STAGE_QS_INIT = 13
    STAGE_QS_CAPTURES = 14
    STAGE_DONE = 15

cdef inline bint is_capture(const Position* pos, Move m) noexcept nogil:
    return (pos.board[move_to(m)] != NO_PIECE and move_kind(m) != MK_CASTLING) \
        or move_kind(m) == MK_EN_PASSANT

cdef inline bint is_quiet(const Position* pos, Move m) noexcept nogil:
    return not is_capture(pos, m) and move_kind(m) != MK_PROMOTION


cdef bint see_ge(const Position* pos, Move m, int threshold) noexcept nogil:
    """Does the exchange sequence on the target square win at least `threshold`?"""
    cdef Square f = move_from(m), t = move_to(m)
    cdef Bitboard occ, attackers, stm_attackers, diagonal, straight, b
    cdef Color stm
    cdef int swap, result = 1
    if move_kind(m) != MK_NORMAL:
        return 0 >= threshold
    swap = SEE_VALUE[type_of(pos.board[t])] - threshold
    if swap < 0:
        return False
    swap = SEE_VALUE[type_of(pos.board[f])] - swap
    if swap <= 0:
        return True
    occ = pos.by_type[0] ^ sq_bb(f) ^ sq_bb(t)
    stm = pos.side
    attackers = attackers_to(pos, t, occ)
    diagonal = pos.by_type[BISHOP] | pos.by_type[QUEEN]
    straight = pos.by_type[ROOK] | pos.by_type[QUEEN]
    while True:
        stm ^= 1
        attackers &= occ
        stm_attackers = attackers & pos.by_color[stm]
        if not stm_attackers:
            break
        result ^= 1
        # Capture with the least valuable attacker, revealing x-rays behind it.
        b = stm_attackers & pos.by_type[PAWN]
        if b:
            swap = SEE_VALUE[PAWN] - swap
            if swap < result:
                break
            occ ^= b & -b
            attackers |= bishop_attacks(t, occ) & diagonal
            continue
        b = stm_attackers & pos.by_type[KNIGHT]
        if b:
            swap = SEE_VALUE[KNIGHT] - swap
            if swap < result:
                break
            occ ^= b & -b
            continue
        b = stm_attackers & pos.by_type[BISHOP]
        if b:
            swap = SEE_VALUE[BISHOP] - swap
            if swap < result:
                break
            occ ^= b & -b
            attackers |= bishop_attacks(t, occ) & diagonal
            continue
        b = stm_attackers & pos.by_type[ROOK]
        if b:
            swap = SEE_VALUE[ROOK] - swap
            if swap < result:
                break
            occ ^= b & -b
            attackers |= rook_attacks(t, occ) & straight
            continue
        b = stm_attackers & pos.by_type[QUEEN]
        if b:
            swap = SEE_VALUE[QUEEN] - swap
            if swap < result:
                break
            occ ^= b & -b
            attackers |= (bishop_attacks(t, occ) & diagonal) | (rook_attacks(t, occ) & straight)
            continue
        # Only the king is left: it may capture only if nothing defends the square.
        if attackers & ~pos.by_color[stm]:
            return result ^ 1
        return result
    return result


ctypedef struct MovePicker:
    Move moves[MAX_MOVES]
    int scores[MAX_MOVES]
    Move bad_captures[MAX_MOVES]
    int count
    int index
    int bad_count
    int bad_index
    int stage
    Move tt_move
    Move killers[2]
    Move counter
    const int16_t (*history)[64][64]   # history[colour][from][to]
    const int16_t* cont1               # continuation history rows of the moves one and two
    const int16_t* cont2               #   plies back, indexed by piece * 64 + destination
    CheckInfo check_info               # for gives_check, computed when first needed
    bint check_info_ready


cdef inline int capture_score(const Position* pos, Move m) noexcept nogil:
    """Most valuable victim first, least valuable attacker as tie-break."""
    cdef int victim = PAWN if move_kind(m) == MK_EN_PASSANT else type_of(pos.board[move_to(m)])
    cdef int score = SEE_VALUE[victim] * 8 - type_of(pos.board[move_from(m)])
    if move_kind(m) == MK_PROMOTION:
        score += SEE_VALUE[promotion_type(m)] * 8 if promotion_type(m) == QUEEN else -20000
    return score

cdef inline int piece_to(const Position* pos, Move m) noexcept nogil:
    """Continuation history index of m (not yet made): moving piece and destination."""
    return pos.board[move_from(m)] * 64 + move_to(m)

cdef inline void picker_start(MovePicker* mp, const Position* pos, Move tt_move,
                              const int16_t (*history)[64][64], int first_stage) noexcept nogil:
    """What every picker starts from: nothing generated yet, and the evasion stages
    instead of `first_stage` when the side to move is in check."""
    mp.tt_move = tt_move
    mp.history = history
    mp.count = 0
    mp.index = 0
    mp.bad_count = 0
    mp.bad_index = 0
    mp.check_info_ready = False
    mp.stage = STAGE_EVASION_TT if pos.st.checkers else first_stage

cdef inline void picker_init(MovePicker* mp, const Position* pos, Move tt_move, const Move* killers,
                             Move counter, const int16_t (*history)[64][64], const int16_t* cont1,
                             const int16_t* cont2) noexcept nogil:
    """The main search's picker: every stage, with the node's killers, counter move
    and continuation history rows."""
    picker_start(mp, pos, tt_move, history, STAGE_TT)
    mp.killers[0] = killers[0]
    mp.killers[1] = killers[1]
    mp.counter = counter
    mp.cont1 = cont1
    mp.cont2 = cont2

cdef inline void picker_init_qsearch(MovePicker* mp, const Position* pos, Move tt_move,
                                     const int16_t (*history)[64][64]) noexcept nogil:
    """Quiescence's picker: the TT move and the captures (every evasion in check)."""
    picker_start(mp, pos, tt_move, history, STAGE_QS_TT)
    mp.killers[0] = MOVE_NONE
    mp.killers[1] = MOVE_NONE
    mp.counter = MOVE_NONE
    mp.cont1 = NULL
    mp.cont2 = NULL

cdef inline int32_t pick_key(const MovePicker* mp, int i) noexcept nogil:
    """A move's score and place in one number: the higher score wins, and the
    earlier place between equal scores (MAX_MOVES is 256). 32 bits, so that the
    maximum below compiles to eight lanes of vpmaxsd (AVX2) rather than emulated
    64-bit compares (|score| < PICK_SCORE_BOUND = 2^22, so |key| < 2^30)."""
    if FC_DEBUG and not -PICK_SCORE_BOUND < mp.scores[i] < PICK_SCORE_BOUND:
        fc_fail("move score outside PICK_SCORE_BOUND")
    return mp.scores[i] * MAX_MOVES + (MAX_MOVES - 1 - i)

cdef inline Move pick_best(MovePicker* mp) noexcept nogil:
    """Selection step: swap the best remaining move (the first of the highest score)
    to the front and return it. The search for it is a maximum over pick_key,
    which compiles without a branch per move."""
    cdef int best, i
    cdef int32_t top = pick_key(mp, mp.index), key
    cdef Move tmp
    for i in range(mp.index + 1, mp.count):
        key = pick_key(mp, i)
        top = key if key > top else top
    best = MAX_MOVES - 1 - <int>(top & (MAX_MOVES - 1))   # the place: the low bits, whatever the sign
    tmp = mp.moves[best]
    mp.moves[best] = mp.moves[mp.index]
    mp.moves[mp.index] = tmp
    mp.scores[mp.index], mp.scores[best] = mp.scores[best], mp.scores[mp.index]
    mp.index += 1
    return tmp

cdef inline void score_captures(MovePicker* mp, const Position* pos) noexcept nogil:
    cdef int i
    for i in range(mp.count):
        mp.scores[i] = capture_score(pos, mp.moves[i])

cdef inline bint picker_gives_check(MovePicker* mp, const Position* pos, Move m) noexcept nogil:
    """Does m check? The picker's position's CheckInfo is built on the first question."""
    if not mp.check_info_ready:
        check_info_init(&mp.check_info, pos)
        mp.check_info_ready = True
    return gives_check_with(pos, &mp.check_info, m)

# Quiet order by threats: a piece attacked by a lesser enemy piece is worth moving
# away, and a square a lesser enemy piece attacks is worth avoiding. Indexed by the
# moving piece's type: its bonus for leaving such a square, its malus for entering one.
cdef int THREAT_ORDER[7]
THREAT_ORDER[:] = [0, 0, 12288, 12288, 16384, 32768, 0]

cdef inline Bitboard attacks_of(const Position* pos, Color c, int pt, Bitboard occ) noexcept nogil:
    """Every square a piece of colour c and type pt (not a pawn) attacks."""
    cdef Bitboard b = pieces(pos, c, pt), attacks = 0
    while b:
        attacks |= piece_attacks(pt, pop_lsb(&b), occ)
    return attacks

cdef inline void lesser_threats(const Position* pos, Bitboard* by_type) noexcept nogil:
    """by_type[pt]: the squares where the opponent attacks a piece of type pt with a
    lesser piece (pawns for minors, minors too for rooks, rooks too for queens)."""
    cdef Color them = pos.side ^ 1
    cdef Bitboard occ = pos.by_type[0]
    by_type[PAWN] = 0
    by_type[KING] = 0
    by_type[KNIGHT] = pawn_attacks_bb(pieces(pos, them, PAWN), them)
    by_type[BISHOP] = by_type[KNIGHT]
    by_type[ROOK] = by_type[KNIGHT] | attacks_of(pos, them, KNIGHT, occ) | attacks_of(pos, them, BISHOP, occ)
    by_type[QUEEN] = by_type[ROOK] | attacks_of(pos, them, ROOK, occ)

cdef inline int threat_order(const Bitboard* threats, int pt, Move m) noexcept nogil:
    """The threat term of a quiet move's order: + for leaving a lesser piece's
    attack, - for entering one, 0 when both or neither square is attacked."""
    cdef Bitboard danger = threats[pt]
    return THREAT_ORDER[pt] * (<int>((danger >> move_from(m)) & 1) - <int>((danger >> move_to(m)) & 1))

cdef inline void score_quiets(MovePicker* mp, const Position* pos) noexcept nogil:
    """By butterfly and continuation history and threats, safe checks first (a
    check that loses material by SEE is ordered like any quiet move)."""
    cdef int i, pt
    cdef Move m
    cdef Bitboard threats[7]
    lesser_threats(pos, threats)
    for i in range(mp.count):
        m = mp.moves[i]
        pt = piece_to(pos, m)
        mp.scores[i] = mp.history[pos.side][move_from(m)][move_to(m)] + mp.cont1[pt] + mp.cont2[pt] \
            + threat_order(threats, type_of(pos.board[move_from(m)]), m)
        if picker_gives_check(mp, pos, m) and see_ge(pos, m, 0):
            mp.scores[i] += QUIET_CHECK_BONUS

cdef inline void score_evasions(MovePicker* mp, const Position* pos) noexcept nogil:
    cdef int i
    cdef Move m
    for i in range(mp.count):
        m = mp.moves[i]
        if is_quiet(pos, m):
            mp.scores[i] = mp.history[pos.side][move_from(m)][move_to(m)] - EVASION_QUIET_MALUS
        else:
            mp.scores[i] = capture_score(pos, m)

cdef inline bint is_special_quiet(const MovePicker* mp, Move m) noexcept nogil:
    """A killer or the counter move: tried before the other quiets, reduced less."""
    return m == mp.killers[0] or m == mp.killers[1] or m == mp.counter

cdef inline bint usable_quiet(const MovePicker* mp, const Position* pos, Move m) noexcept nogil:
    return m != MOVE_NONE and m != mp.tt_move and is_quiet(pos, m) and is_legal_move(pos, m)

cdef int picker_skip_quiets(MovePicker* mp, const Position* pos) noexcept nogil:
    """Drop the quiets the picker has still to return, when none of them checks (the
    search prunes every quiet that does not check from here on); return how many it
    would have returned. 0, and nothing dropped, when one of them checks or the
    picker is not in its quiet stage."""
    cdef int i, dropped = 0
    cdef Move m
    if mp.stage != STAGE_QUIETS:
        return 0
    for i in range(mp.index, mp.count):
        m = mp.moves[i]
        if m == mp.tt_move or is_special_quiet(mp, m):
            continue
        if picker_gives_check(mp, pos, m):
            return 0
        dropped += 1
    mp.index = mp.count
    return dropped

cdef Move next_move(MovePicker* mp, const Position* pos) noexcept nogil:
    """The next move to search, or MOVE_NONE when the stages are exhausted."""
    cdef Move m
    while True:
        if mp.stage == STAGE_TT or mp.stage == STAGE_EVASION_TT or mp.stage == STAGE_QS_TT:
            mp.stage += 1
            if mp.tt_move != MOVE_NONE and is_legal_move(pos, mp.tt_move):
                if mp.stage != STAGE_QS_INIT or not is_quiet(pos, mp.tt_move):
                    return mp.tt_move
        elif mp.stage == STAGE_CAPTURES_INIT or mp.stage == STAGE_QS_INIT:
            mp.count = generate_legal(pos, mp.moves, GEN_CAPTURES)
            mp.index = 0
            score_captures(mp, pos)
            mp.stage += 1
        elif mp.stage == STAGE_GOOD_CAPTURES:
            if mp.index < mp.count:
                m = pick_best(mp)
                if m == mp.tt_move:
                    continue
                if not see_ge(pos, m, 0):
                    mp.bad_captures[mp.bad_count] = m
                    mp.bad_count += 1
                    continue
                return m
            mp.stage = STAGE_KILLER_1
        elif mp.stage == STAGE_KILLER_1 or mp.stage == STAGE_KILLER_2:
            m = mp.killers[mp.stage - STAGE_KILLER_1]
            mp.stage += 1
            if usable_quiet(mp, pos, m):
                return m
        elif mp.stage == STAGE_COUNTER:
            mp.stage = STAGE_QUIETS_INIT
            m = mp.counter
            if m != mp.killers[0] and m != mp.killers[1] and usable_quiet(mp, pos, m):
                return m
        elif mp.stage == STAGE_QUIETS_INIT:
            mp.stage = STAGE_QUIETS
            mp.count = generate_legal(pos, mp.moves, GEN_QUIETS)
            mp.index = 0
            score_quiets(mp, pos)
        elif mp.stage == STAGE_QUIETS:
            if mp.index < mp.count:
                m = pick_best(mp)
                if m == mp.tt_move or is_special_quiet(mp, m):
                    continue
                return m
            mp.stage = STAGE_BAD_CAPTURES
        elif mp.stage == STAGE_BAD_CAPTURES:
            if mp.bad_index < mp.bad_count:
                mp.bad_index += 1
                return mp.bad_captures[mp.bad_index - 1]
            mp.stage = STAGE_DONE
        elif mp.stage == STAGE_EVASIONS_INIT:
            mp.count = generate_legal(pos, mp.moves, GEN_ALL)
            mp.index = 0
            score_evasions(mp, pos)
            mp.stage = STAGE_EVASIONS
        elif mp.stage == STAGE_EVASIONS or mp.stage == STAGE_QS_CAPTURES:
            if mp.index < mp.count:
                m = pick_best(mp)
                if m == mp.tt_move:
                    continue
                return m
            mp.stage = STAGE_DONE
        else:
            return MOVE_NONE
