# Zobrist keys: the Polyglot random array, so a position key equals its book key.

include "zobrist_keys.pxi"

cdef uint64_t ZOBRIST_PSQ[16][64]     # indexed by piece code (colour * 8 + type) and square
cdef uint64_t ZOBRIST_CASTLING[16]    # indexed by the castling-rights mask
cdef uint64_t ZOBRIST_EP[8]           # by file
cdef uint64_t ZOBRIST_WHITE_TO_MOVE = POLYGLOT_KEYS[780]


cdef void init_zobrist() noexcept nogil:
    cdef int color, pt, s, mask, kind
    for color in range(2):
        for pt in range(PAWN, KING + 1):
            kind = 2 * (pt - 1) + (1 if color == WHITE else 0)
            for s in range(64):
                ZOBRIST_PSQ[color * 8 + pt][s] = POLYGLOT_KEYS[64 * kind + s]
    for mask in range(16):
        ZOBRIST_CASTLING[mask] = 0
        for kind in range(4):
            if mask & (1 << kind):
                ZOBRIST_CASTLING[mask] ^= POLYGLOT_KEYS[768 + kind]
    for s in range(8):
        ZOBRIST_EP[s] = POLYGLOT_KEYS[772 + s]
