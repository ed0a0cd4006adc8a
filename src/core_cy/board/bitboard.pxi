# Bitboards: square masks, leaper attacks, magic slider attacks, between/line tables.
# Square 0 is a1, 7 is h1, 63 is h8. Tables are filled once by init_bitboards().

cdef Bitboard FILE_A = 0x0101010101010101ULL
cdef Bitboard RANK_1 = 0xFFULL

cdef Bitboard FILE_BB[8]
cdef Bitboard RANK_BB[8]
cdef Bitboard PAWN_ATTACKS[2][64]
cdef Bitboard KNIGHT_ATTACKS[64]
cdef Bitboard KING_ATTACKS[64]
cdef Bitboard BETWEEN_BB[64][64]   # squares strictly between two aligned squares
cdef Bitboard LINE_BB[64][64]      # the whole line through two aligned squares, else 0

ctypedef struct Magic:
    Bitboard mask
    Bitboard magic
    Bitboard* attacks
    int shift

cdef extern from "platform/bitops.h":
    const bint FC_HAS_PEXT                 # this build may use PEXT (BMI2)
    uint64_t fc_pext(uint64_t b, uint64_t mask) noexcept nogil

cdef extern from "platform/cpu_features.h":
    int fc_cpu_fast_pext() noexcept nogil

# Slider tables indexed by PEXT of the occupancy rather than by the magic
# multiplication: chosen by init_sliders() for the running CPU.
cdef bint PEXT_SLIDERS = False

cdef Magic ROOK_MAGICS[64]
cdef Magic BISHOP_MAGICS[64]
cdef Bitboard ROOK_TABLE[102400]
cdef Bitboard BISHOP_TABLE[5248]

cdef int ROOK_DIRS[4][2]
cdef int BISHOP_DIRS[4][2]
ROOK_DIRS[:] = [[1, 0], [-1, 0], [0, 1], [0, -1]]
BISHOP_DIRS[:] = [[1, 1], [1, -1], [-1, 1], [-1, -1]]
cdef int KNIGHT_DELTAS[8][2]
cdef int KING_DELTAS[8][2]
KNIGHT_DELTAS[:] = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]]
KING_DELTAS[:] = [[1, 1], [1, 0], [1, -1], [0, -1], [-1, -1], [-1, 0], [-1, 1], [0, 1]]


cdef inline int iabs(int x) noexcept nogil:
    """abs() without Cython's overflow check (which would need the GIL)."""
    return x if x >= 0 else -x

cdef inline Bitboard sq_bb(Square s) noexcept nogil:
    return (<Bitboard>1) << s

cdef inline int file_of(Square s) noexcept nogil:
    return s & 7

cdef inline int rank_of(Square s) noexcept nogil:
    return s >> 3

cdef inline Square make_square(int f, int r) noexcept nogil:
    return r * 8 + f

cdef inline Square relative_square(Color c, Square s) noexcept nogil:
    return s ^ (c * 56)

cdef inline int relative_rank(Color c, Square s) noexcept nogil:
    return (s >> 3) ^ (c * 7)

cdef inline Square pop_lsb(Bitboard* b) noexcept nogil:
    cdef Square s = fc_lsb(b[0])
    b[0] &= b[0] - 1
    return s

cdef inline bint more_than_one(Bitboard b) noexcept nogil:
    return (b & (b - 1)) != 0

cdef inline Bitboard shift_up(Bitboard b, Color c) noexcept nogil:
    return b << 8 if c == WHITE else b >> 8

cdef inline Bitboard shift_west(Bitboard b) noexcept nogil:
    return (b & ~FILE_A) >> 1

cdef inline Bitboard shift_east(Bitboard b) noexcept nogil:
    return (b & ~(FILE_A << 7)) << 1

cdef inline Bitboard pawn_attacks_bb(Bitboard pawns, Color c) noexcept nogil:
    """Squares attacked by a set of pawns of colour c."""
    cdef Bitboard up = shift_up(pawns, c)
    return shift_west(up) | shift_east(up)

cdef inline Bitboard slider_index(const Magic* m, Bitboard occ) noexcept nogil:
    """Where the attacks for this occupancy sit in the square's table. Without
    PEXT in the build, the test folds away at compile time."""
    if FC_HAS_PEXT and PEXT_SLIDERS:
        return fc_pext(occ, m.mask)
    return ((occ & m.mask) * m.magic) >> m.shift

cdef inline Bitboard rook_attacks(Square s, Bitboard occ) noexcept nogil:
    cdef Magic* m = &ROOK_MAGICS[s]
    return m.attacks[slider_index(m, occ)]

cdef inline Bitboard bishop_attacks(Square s, Bitboard occ) noexcept nogil:
    cdef Magic* m = &BISHOP_MAGICS[s]
    return m.attacks[slider_index(m, occ)]

cdef inline Bitboard rook_rays(Square s) noexcept nogil:
    """rook_attacks(s, 0): an empty board's occupancy indexes every table at 0."""
    return ROOK_MAGICS[s].attacks[0]

cdef inline Bitboard bishop_rays(Square s) noexcept nogil:
    """bishop_attacks(s, 0)."""
    return BISHOP_MAGICS[s].attacks[0]

cdef inline Bitboard queen_attacks(Square s, Bitboard occ) noexcept nogil:
    return rook_attacks(s, occ) | bishop_attacks(s, occ)

cdef inline Bitboard piece_attacks(int pt, Square s, Bitboard occ) noexcept nogil:
    """Attacks of a non-pawn piece type from s."""
    if pt == KNIGHT:
        return KNIGHT_ATTACKS[s]
    if pt == BISHOP:
        return bishop_attacks(s, occ)
    if pt == ROOK:
        return rook_attacks(s, occ)
    if pt == QUEEN:
        return queen_attacks(s, occ)
    return KING_ATTACKS[s]


# --- table construction (runs once at import) -------------------------------

cdef inline bint on_board(int f, int r) noexcept nogil:
    return 0 <= f < 8 and 0 <= r < 8

cdef Bitboard leaper_attacks(Square s, const int (*deltas)[2], int n) noexcept nogil:
    cdef Bitboard b = 0
    cdef int i, f, r
    for i in range(n):
        f = file_of(s) + deltas[i][0]
        r = rank_of(s) + deltas[i][1]
        if on_board(f, r):
            b |= sq_bb(make_square(f, r))
    return b

cdef Bitboard slide(Square s, Bitboard occ, int (*dirs)[2]) noexcept nogil:
    """Reference slider attacks by walking rays (used only to build tables)."""
    cdef Bitboard b = 0
    cdef int d, f, r
    for d in range(4):
        f = file_of(s) + dirs[d][0]
        r = rank_of(s) + dirs[d][1]
        while on_board(f, r):
            b |= sq_bb(make_square(f, r))
            if occ & sq_bb(make_square(f, r)):
                break
            f += dirs[d][0]
            r += dirs[d][1]
    return b

cdef inline uint64_t xorshift64(uint64_t* state) noexcept nogil:
    cdef uint64_t x = state[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    state[0] = x
    return x * 2685821657736338717ULL

cdef inline uint64_t sparse_random(uint64_t* state) noexcept nogil:
    return xorshift64(state) & xorshift64(state) & xorshift64(state)

cdef bint fill_magic(Magic* m, const Bitboard* occupancies, const Bitboard* references, int size,
                     int* epoch, int* attempt) noexcept nogil:
    """Fill m.attacks through m.magic; False if two occupancies with different
    attacks collide (the multiplier is not a magic for this mask)."""
    cdef int i
    cdef Bitboard idx
    attempt[0] += 1
    for i in range(size):
        idx = (occupancies[i] * m.magic) >> m.shift
        if epoch[idx] < attempt[0]:
            epoch[idx] = attempt[0]
            m.attacks[idx] = references[i]
        elif m.attacks[idx] != references[i]:
            return False
    return True

cdef Bitboard* init_magics(Magic* magics, Bitboard* table, int (*dirs)[2], const uint64_t* known) noexcept nogil:
    """Set up each square's magic and fill the table. The multipliers in `known`
    (magic_numbers.pxi) are tried first; a square whose stored number is missing
    or does not work gets a new one from a seeded search, as the generator did."""
    cdef Bitboard occupancies[4096]
    cdef Bitboard references[4096]
    cdef int epoch[4096]
    cdef int attempt = 0, size
    cdef Square s
    cdef Bitboard edges, b
    cdef uint64_t seed = 728
    cdef Magic* m
    cdef Bitboard* next_free = table
    memset(epoch, 0, sizeof(epoch))
    for s in range(64):
        edges = (((RANK_1 | (RANK_1 << 56)) & ~RANK_BB[rank_of(s)])
                 | ((FILE_A | (FILE_A << 7)) & ~FILE_BB[file_of(s)]))
        m = &magics[s]
        m.mask = slide(s, 0, dirs) & ~edges
        m.shift = 64 - fc_popcount(m.mask)
        m.attacks = next_free
        # Enumerate all subsets of the mask (Carry-Rippler).
        size = 0
        b = 0
        while True:
            occupancies[size] = b
            references[size] = slide(s, b, dirs)
            size += 1
            b = (b - m.mask) & m.mask
            if b == 0:
                break
        m.magic = known[s]
        if m.magic == 0 or not fill_magic(m, occupancies, references, size, epoch, &attempt):
            while True:
                m.magic = sparse_random(&seed)
                if fc_popcount((m.magic * m.mask) >> 56) < 6:
                    continue
                if fill_magic(m, occupancies, references, size, epoch, &attempt):
                    break
        if PEXT_SLIDERS:
            # The multiplier stays checked either way (magic_numbers() reports it).
            # The enumeration above runs through the subsets in increasing order,
            # which is the order of their PEXT values: subset i goes to entry i.
            memcpy(m.attacks, references, size * sizeof(Bitboard))
        next_free += size
    return next_free

cdef void init_sliders(bint use_pext) noexcept nogil:
    """Fill the slider tables for one way of indexing them: PEXT (only where the
    build has it) or the magic multiplication. The attacks are the same."""
    global PEXT_SLIDERS
    PEXT_SLIDERS = use_pext and FC_HAS_PEXT
    init_magics(ROOK_MAGICS, ROOK_TABLE, ROOK_DIRS, ROOK_MAGIC_NUMBERS)
    init_magics(BISHOP_MAGICS, BISHOP_TABLE, BISHOP_DIRS, BISHOP_MAGIC_NUMBERS)

cdef void init_bitboards() noexcept nogil:
    cdef int i, s1, s2
    cdef Square s
    for i in range(8):
        FILE_BB[i] = FILE_A << i
        RANK_BB[i] = RANK_1 << (8 * i)
    for s in range(64):
        KNIGHT_ATTACKS[s] = leaper_attacks(s, KNIGHT_DELTAS, 8)
        KING_ATTACKS[s] = leaper_attacks(s, KING_DELTAS, 8)
        PAWN_ATTACKS[WHITE][s] = pawn_attacks_bb(sq_bb(s), WHITE)
        PAWN_ATTACKS[BLACK][s] = pawn_attacks_bb(sq_bb(s), BLACK)
    init_sliders(fc_cpu_fast_pext())
    for s1 in range(64):
        for s2 in range(64):
            BETWEEN_BB[s1][s2] = 0
            LINE_BB[s1][s2] = 0
            if s1 == s2:
                continue
            if bishop_attacks(s1, 0) & sq_bb(s2):
                LINE_BB[s1][s2] = (bishop_attacks(s1, 0) & bishop_attacks(s2, 0)) | sq_bb(s1) | sq_bb(s2)
                BETWEEN_BB[s1][s2] = bishop_attacks(s1, sq_bb(s2)) & bishop_attacks(s2, sq_bb(s1))
            elif rook_attacks(s1, 0) & sq_bb(s2):
                LINE_BB[s1][s2] = (rook_attacks(s1, 0) & rook_attacks(s2, 0)) | sq_bb(s1) | sq_bb(s2)
                BETWEEN_BB[s1][s2] = rook_attacks(s1, sq_bb(s2)) & rook_attacks(s2, sq_bb(s1))
