# Evaluation weights: one table, WEIGHTS, of packed (middlegame, endgame) pairs,
# so a tuner can rewrite it from a file (set_weight_table / weight_table in api_tables.pxi).
# PSQ (board/psq.pxi) folds material and piece-square values together for the
# position's incremental updates; fold_psq fills it from this table.
#
# The values live in weights_default.pxi, written by tools/gen_weights.py from a
# weights file (the output of `fianchetto tune`; docs/training.md).

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

include "weights_default.pxi"


cdef void init_default_weights() noexcept nogil:
    """The built-in table (weights_default.pxi), and the PSQ folded from it."""
    cdef int i
    for i in range(N_WEIGHTS):
        WEIGHTS[i] = S(DEFAULT_PAIRS[2 * i], DEFAULT_PAIRS[2 * i + 1])
    build_psq()


cdef void build_psq() noexcept nogil:
    """Fold material and PSQT into PSQ, mirrored for black and negated."""
    global PSQ_EPOCH
    cdef int pt
    cdef Square s
    PSQ_EPOCH += 1
    memset(PSQ, 0, sizeof(PSQ))
    for pt in range(PAWN, KING + 1):
        for s in range(64):
            PSQ[make_piece(WHITE, pt)][s] = WEIGHTS[W_MATERIAL + pt] + WEIGHTS[W_PSQT + 64 * pt + s]
            PSQ[make_piece(BLACK, pt)][s ^ 56] = -PSQ[make_piece(WHITE, pt)][s]
