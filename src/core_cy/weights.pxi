# Evaluation weights: one table, WEIGHTS, of packed (middlegame, endgame) pairs,
# so a tuner can rewrite it from a file (set_weight_table / weight_table in api_tables.pxi).
# PSQ folds material and piece-square values together for incremental updates.
#
# Starting values are this project's own hand-set figures, shaped by the usual
# principles (centralisation, pawn advancement, king shelter): a start for tuning.

ctypedef int32_t PackedScore       # mg in the high 16 bits, eg in the low 16 bits

cdef inline PackedScore S(int mg, int eg) noexcept nogil:
    return <PackedScore>((<uint32_t>mg << 16) + eg)

cdef inline int mg_of(PackedScore s) noexcept nogil:
    return <int16_t>(<uint16_t>(<uint32_t>(s + 0x8000) >> 16))

cdef inline int eg_of(PackedScore s) noexcept nogil:
    return <int16_t>(<uint16_t>(<uint32_t>s))

# Offsets of the weight groups in WEIGHTS.
cdef enum:
    W_MATERIAL = 0              # 7 entries, by piece type
    W_PSQT = 7                  # 7 * 64, by piece type and square (white's view)
    W_MOB_KNIGHT = W_PSQT + 7 * 64    # 9
    W_MOB_BISHOP = W_MOB_KNIGHT + 9   # 14
    W_MOB_ROOK = W_MOB_BISHOP + 14    # 15
    W_MOB_QUEEN = W_MOB_ROOK + 15     # 28
    W_PASSED = W_MOB_QUEEN + 28       # 8, by relative rank
    W_CONNECTED = W_PASSED + 8        # 8, by relative rank
    W_DOUBLED = W_CONNECTED + 8
    W_ISOLATED = W_DOUBLED + 1
    W_BACKWARD = W_ISOLATED + 1
    W_BISHOP_PAIR = W_BACKWARD + 1
    W_ROOK_OPEN = W_BISHOP_PAIR + 1
    W_ROOK_SEMI_OPEN = W_ROOK_OPEN + 1
    W_SHIELD_NEAR = W_ROOK_SEMI_OPEN + 1
    W_SHIELD_FAR = W_SHIELD_NEAR + 1
    W_KING_ATTACK = W_SHIELD_FAR + 1  # 7, attack units by piece type (mg part used)
    W_KING_DANGER = W_KING_ATTACK + 7 # mg: divisor of units^2, eg: cap
    W_PASSED_KING_DIST = W_KING_DANGER + 1  # eg bonus per square of king distance difference
    W_TEMPO = W_PASSED_KING_DIST + 1
    N_WEIGHTS = W_TEMPO + 1

cdef PackedScore WEIGHTS[N_WEIGHTS]
cdef PackedScore PSQ[16][64]      # material + PSQT by piece code, colour-mirrored

cdef int PHASE_WEIGHT[7]
PHASE_WEIGHT[:] = [0, 0, 1, 1, 2, 4, 0]
cdef enum:
    PHASE_MAX = 24

WEIGHT_GROUPS = [
    ("material", W_MATERIAL, 7), ("psqt", W_PSQT, 7 * 64),
    ("mobility_knight", W_MOB_KNIGHT, 9), ("mobility_bishop", W_MOB_BISHOP, 14),
    ("mobility_rook", W_MOB_ROOK, 15), ("mobility_queen", W_MOB_QUEEN, 28),
    ("passed", W_PASSED, 8), ("connected", W_CONNECTED, 8), ("doubled", W_DOUBLED, 1),
    ("isolated", W_ISOLATED, 1), ("backward", W_BACKWARD, 1), ("bishop_pair", W_BISHOP_PAIR, 1),
    ("rook_open_file", W_ROOK_OPEN, 1), ("rook_semi_open_file", W_ROOK_SEMI_OPEN, 1),
    ("shield_near", W_SHIELD_NEAR, 1), ("shield_far", W_SHIELD_FAR, 1),
    ("king_attack", W_KING_ATTACK, 7), ("king_danger", W_KING_DANGER, 1),
    ("passed_king_distance", W_PASSED_KING_DIST, 1), ("tempo", W_TEMPO, 1),
]


# --- default weights ------------------------------------------------------------

cdef inline int centrality(Square s) noexcept nogil:
    """0 on the rim corners .. 6 in the four centre squares."""
    return min(file_of(s), 7 - file_of(s)) + min(rank_of(s), 7 - rank_of(s))

cdef int KING_BACK_RANK_MG[8]
KING_BACK_RANK_MG[:] = [18, 26, 10, -4, -8, 0, 28, 20]   # castled corners good, centre poor


cdef PackedScore default_psqt(int pt, Square s) noexcept nogil:
    """Hand-set piece-square values from simple principles (white's view)."""
    cdef int c = centrality(s), r = rank_of(s), f = file_of(s)
    cdef int fc = min(f, 7 - f)          # 0 on the a/h files .. 3 on d/e
    if pt == PAWN:
        if r == 0 or r == 7:
            return S(0, 0)
        # Advance is worth more in the endgame; centre pawns matter in the middlegame.
        return S(3 * (r - 1) + (12 if fc == 3 and 2 <= r <= 4 else 0) + (5 if fc == 2 and 2 <= r <= 3 else 0),
                 8 * (r - 1))
    if pt == KNIGHT:
        return S(7 * c - 22, 5 * c - 16)
    if pt == BISHOP:
        return S(4 * c - 10, 3 * c - 9)
    if pt == ROOK:
        # The seventh rank, and central files on the back rank (after castling).
        return S((18 if r == 6 else 0) + (5 if fc >= 2 and r == 0 else 0), 10 if r == 6 else 0)
    if pt == QUEEN:
        return S(2 * c - 6, 4 * c - 12)
    if pt == KING:
        if r == 0:
            return S(KING_BACK_RANK_MG[f], 5 * c - 22)
        return S(-14 - 16 * (r - 1) - 4 * fc, 6 * c - 16)
    return S(0, 0)


cdef void set_mobility_line(int offset, int count, int center, int mg_step, int eg_step) noexcept nogil:
    """Mobility bonus growing with the square root of extra squares, zero at `center`."""
    cdef int n
    cdef double x
    for n in range(count):
        x = sqrt(<double>n) - sqrt(<double>center)
        WEIGHTS[offset + n] = S(<int>(mg_step * x * 4), <int>(eg_step * x * 4))


cdef void init_default_weights() noexcept nogil:
    cdef int pt, r
    cdef Square s
    cdef int passed_mg[8]
    cdef int passed_eg[8]
    cdef int connected[8]
    passed_mg[:] = [0, 0, 4, 10, 22, 40, 70, 0]
    passed_eg[:] = [0, 8, 14, 30, 55, 95, 150, 0]
    connected[:] = [0, 4, 7, 10, 18, 32, 55, 0]
    memset(WEIGHTS, 0, sizeof(WEIGHTS))
    WEIGHTS[W_MATERIAL + PAWN] = S(100, 125)
    WEIGHTS[W_MATERIAL + KNIGHT] = S(325, 320)
    WEIGHTS[W_MATERIAL + BISHOP] = S(345, 340)
    WEIGHTS[W_MATERIAL + ROOK] = S(480, 550)
    WEIGHTS[W_MATERIAL + QUEEN] = S(990, 1030)
    for pt in range(PAWN, KING + 1):
        for s in range(64):
            WEIGHTS[W_PSQT + 64 * pt + s] = default_psqt(pt, s)
    set_mobility_line(W_MOB_KNIGHT, 9, 4, 4, 4)
    set_mobility_line(W_MOB_BISHOP, 14, 6, 5, 5)
    set_mobility_line(W_MOB_ROOK, 15, 6, 3, 6)
    set_mobility_line(W_MOB_QUEEN, 28, 12, 2, 4)
    for r in range(8):
        WEIGHTS[W_PASSED + r] = S(passed_mg[r], passed_eg[r])
        WEIGHTS[W_CONNECTED + r] = S(connected[r], connected[r])
    WEIGHTS[W_DOUBLED] = S(-10, -22)
    WEIGHTS[W_ISOLATED] = S(-12, -14)
    WEIGHTS[W_BACKWARD] = S(-8, -8)
    WEIGHTS[W_BISHOP_PAIR] = S(30, 50)
    WEIGHTS[W_ROOK_OPEN] = S(32, 12)
    WEIGHTS[W_ROOK_SEMI_OPEN] = S(14, 8)
    WEIGHTS[W_SHIELD_NEAR] = S(14, 0)
    WEIGHTS[W_SHIELD_FAR] = S(7, 0)
    WEIGHTS[W_KING_ATTACK + KNIGHT] = S(2, 0)
    WEIGHTS[W_KING_ATTACK + BISHOP] = S(2, 0)
    WEIGHTS[W_KING_ATTACK + ROOK] = S(3, 0)
    WEIGHTS[W_KING_ATTACK + QUEEN] = S(5, 0)
    WEIGHTS[W_KING_DANGER] = S(4, 500)        # penalty = units^2 / mg, at most eg
    WEIGHTS[W_PASSED_KING_DIST] = S(0, 5)
    WEIGHTS[W_TEMPO] = S(16, 8)
    build_psq()


cdef void build_psq() noexcept nogil:
    """Fold material and PSQT into PSQ, mirrored for black and negated."""
    cdef int pt
    cdef Square s
    memset(PSQ, 0, sizeof(PSQ))
    for pt in range(PAWN, KING + 1):
        for s in range(64):
            PSQ[make_piece(WHITE, pt)][s] = WEIGHTS[W_MATERIAL + pt] + WEIGHTS[W_PSQT + 64 * pt + s]
            PSQ[make_piece(BLACK, pt)][s ^ 56] = -PSQ[make_piece(WHITE, pt)][s]
