# Syzygy endgame tablebases: a compiled reader of the WDL (.rtbw) and DTZ (.rtbz)
# formats, fast enough to probe at interior search nodes. In four files, in
# order: tb_tables.pxi (the file structures and the index tables), tb_load.pxi
# (the set of loaded tables, parsing a file, tb_init), tb_index.pxi (position ->
# index -> value) and syzygy.pxi (probing with captures and en passant resolved,
# the entry points).
#
# How the files work, in short. Each table covers one material signature (for
# example KRPvKR) and stores one small value per position: WDL = loss, blessed
# loss, draw, cursed win, win; DTZ = plies to the next capture or pawn move. A
# position becomes an index by (1) choosing the colour orientation that the
# table was built for, (2) moving the pieces into a canonical corner of the board
# with the board's symmetries (8 of them without pawns, the left-right mirror
# with pawns), and (3) numbering the placements of each group of alike pieces
# combinatorially, so that the index counts placements without repeats. The
# values, in index order, are cut into blocks and compressed with a canonical
# Huffman code over "pair" symbols: a symbol either stands for one value or for
# two shorter symbols in a row. A sparse index table says in which block a given
# index lands; the block is decoded until the wanted value is reached.
#
# The tables say nothing reliable about positions where a capture is better
# than the stored value and they ignore en passant, so a probe first tries the
# captures (recursively, alpha-beta on the -2..2 scale) and then en passant, as
# the reference probers do. Results equal python-chess's probe_wdl/probe_dtz,
# including which positions answer None when some tables are missing (the
# captures are tried in python-chess's order, see tb_reference_captures).
#
# Every table in the given folders is mapped and its header parsed in tb_init;
# afterwards the tables are only read, so any number of search threads may probe
# at once without locks. Probes work on a private copy of the position.

cdef extern from "tablebases/tbfile.h":
    const char TBF_LIST_SEP
    const char TBF_DIR_SEP
    ctypedef struct tbf_dir:
        pass
    const uint8_t* tbf_map(const char* path, uint64_t* size) noexcept nogil
    void tbf_unmap(const uint8_t* base, uint64_t size) noexcept nogil
    tbf_dir* tbf_dir_open(const char* path) noexcept nogil
    const char* tbf_dir_next(tbf_dir* d) noexcept nogil
    void tbf_dir_close(tbf_dir* d) noexcept nogil
    uint32_t tbf_le16(const uint8_t* p) noexcept nogil
    uint32_t tbf_le32(const uint8_t* p) noexcept nogil
    uint32_t tbf_be32(const uint8_t* p) noexcept nogil
    uint64_t tbf_be64(const uint8_t* p) noexcept nogil

from libc.string cimport strlen, strcmp

cdef enum:
    TB_PIECES = 7             # the most pieces a Syzygy table holds
    TB_HASH_BITS = 15         # slots for material keys (two per table), at most half used
    TB_HASH_SIZE = 1 << TB_HASH_BITS
    TB_STATES = 64            # states in a probe's private position copy
    TB_ENC_UNIQUE3 = 0        # three lone pieces lead the index (e.g. KQvKR: K, Q, k ...)
    TB_ENC_KINGS = 2          # only the two kings are lone pieces (e.g. KRRvK)

# File layout constants: the magic numbers (little-endian) and the header flags.
cdef uint32_t TB_MAGIC_WDL = 0x5d23e871U
cdef uint32_t TB_MAGIC_DTZ = 0xa50c66d7U
cdef enum:
    TB_FLAG_SPLIT = 1         # file header: both sides to move are stored (WDL)
    TB_FLAG_FILES = 2         # file header: one sub-table per pawn file
    TB_PAIRS_CONSTANT = 0x80  # sub-table header: every position has the same value
    TB_DTZ_STM_BLACK = 1      # DTZ sub-table: stored for the "black" side of the key
    TB_DTZ_MAPPED = 2         # DTZ values go through a per-WDL-class map
    TB_DTZ_WIN_PLIES = 4      # DTZ of wins counted in plies, not moves
    TB_DTZ_LOSS_PLIES = 8     # DTZ of losses counted in plies, not moves
    TB_DTZ_WIDE_MAP = 16      # the map holds 16-bit entries


# One compressed sub-table (one side to move, one leading pawn file).
ctypedef struct TBPairs:
    const uint8_t* index_table     # 6 bytes per 2^idx_bits indices: block (LE32), offset (LE16)
    const uint8_t* size_table      # LE16 per block: values in the block, minus one
    const uint8_t* data            # the blocks, each 2^block_bits bytes
    const uint8_t* first_symbol    # LE16 per code length: first symbol of that length
    const uint8_t* symbols         # 3 bytes per symbol: two 12-bit halves
    int* expansion                 # values a symbol stands for, minus one
    uint64_t* code_floor           # per code length, its smallest code left-aligned in 64 bits
    int block_bits
    int idx_bits
    int min_len
    int constant                   # every value equals min_len


# How positions of one (pawn file, side to move) map to an index.
ctypedef struct TBCoding:
    uint8_t pieces[TB_PIECES]      # piece codes (colour * 8 + type) in index order
    uint8_t group[TB_PIECES]       # at the first square of each group: its length
    uint64_t factor[TB_PIECES]     # index weight of each group (at its first square)
    uint64_t size                  # number of indices
    TBPairs pairs
    int present


ctypedef struct TBEntry:
    uint64_t key                   # material key, the file name's first side as white
    int num                        # pieces
    int has_pawns
    int symmetric                  # same material on both sides
    int encoding                   # TB_ENC_UNIQUE3 or TB_ENC_KINGS (pawnless tables)
    int lead_pawns                 # pawns of the leading colour (the fewer, if both have some)
    int other_pawns
    # WDL file
    const uint8_t* wdl_base
    uint64_t wdl_length
    uint64_t wdl_key               # key of the orientation stored without colour flip
    TBCoding wdl[4][2]             # [pawn file][side]
    # DTZ file
    const uint8_t* dtz_base
    uint64_t dtz_length
    uint64_t dtz_key
    TBCoding dtz[4]
    int dtz_flags[4]
    const uint8_t* dtz_map
    int dtz_map_start[4][4]


# --- tables that define the index (computed once) -----------------------------------

cdef uint64_t TB_BINOM[8][65]       # TB_BINOM[k][n] = n choose k
cdef int TB_TRIANGLE[64]            # class of a square under the 8 board symmetries: 0..9
cdef int TB_BELOW[64]               # 0..27 below the a1-h8 diagonal (mirrored above), 28.. on it
cdef int TB_ON_DIAG[64]             # position along the a1-h8 (0..7) or h1-a8 (8..15) diagonal
cdef int TB_KK[10][64]              # index of a pair of kings, -1 for impossible pairs
cdef int TB_PAWN_SLOT[64]           # 0..23 for a leading pawn on files a-d (mirrored e-h)
cdef int TB_PAWN_SQ[24]             # square of each slot on files a-d
cdef int TB_PAWN_ORDER[64]          # order of the other leading pawns: central and far first
cdef uint64_t TB_PAWN_BASE[5][24]   # index of the first leading pawn's slot, by pawn count
cdef uint64_t TB_PAWN_TOTAL[5][4]   # placements of the leading pawns, by count and file
cdef uint64_t TB_UNIQUE3_TOTAL      # placements of three lone leading pieces
cdef bint TB_TABLES_READY = False

cdef int TB_WDL_TO_MAP[5]
cdef int TB_PLIES_FLAG[5]
cdef int TB_WDL_TO_DTZ[5]

cdef inline int tb_offdiag(int sq) noexcept nogil:
    """Positive above the a1-h8 diagonal, zero on it, negative below."""
    return (sq >> 3) - (sq & 7)

cdef inline int tb_flipdiag(int sq) noexcept nogil:
    return ((sq >> 3) | (sq << 3)) & 63


# The ten square classes of the a1-d1-d4 triangle: first the six off the
# diagonal, then the four on it.
cdef int TB_TRI_SQ[10]
TB_TRI_SQ[:] = [1, 2, 3, 10, 11, 19, 0, 9, 18, 27]

cdef void tb_build_binomials() noexcept nogil:
    cdef int k, n
    for k in range(8):
        for n in range(65):
            if k == 0:
                TB_BINOM[k][n] = 1
            elif n == 0:
                TB_BINOM[k][n] = 0
            else:
                TB_BINOM[k][n] = TB_BINOM[k - 1][n - 1] + TB_BINOM[k][n - 1]

cdef void tb_build_square_maps() noexcept nogil:
    """Each square's triangle class, below-diagonal number and place on a diagonal."""
    cdef int sq, f, r, t, n
    for sq in range(64):
        f = sq & 7
        r = sq >> 3
        if f > 3:
            f = 7 - f
        if r > 3:
            r = 7 - r
        if r > f:
            f, r = r, f
        for t in range(10):
            if TB_TRI_SQ[t] == r * 8 + f:
                TB_TRIANGLE[sq] = t
    # Below-diagonal numbering: rank by rank, files right of the diagonal.
    n = 0
    for r in range(8):
        for f in range(r + 1, 8):
            TB_BELOW[r * 8 + f] = n
            TB_BELOW[f * 8 + r] = n
            n += 1
    for r in range(8):
        TB_BELOW[r * 9] = 28 + r
    for sq in range(64):
        TB_ON_DIAG[sq] = 0
    for r in range(8):
        TB_ON_DIAG[r * 9] = r
        TB_ON_DIAG[r * 8 + 7 - r] = 8 + r

cdef void tb_build_king_pairs() noexcept nogil:
    """King pairs: the first king in the triangle, the second anywhere not next to
    it; with the first king on the diagonal the second goes below it, and pairs
    with both kings on the diagonal are numbered last."""
    cdef int t, sq, ksq, n = 0
    for t in range(10):
        for sq in range(64):
            TB_KK[t][sq] = -1
    for t in range(10):
        ksq = TB_TRI_SQ[t]
        for sq in range(64):
            if tb_kings_touch(ksq, sq):
                continue
            if t >= 6 and tb_offdiag(sq) >= 0:
                continue
            TB_KK[t][sq] = n
            n += 1
    for t in range(6, 10):
        ksq = TB_TRI_SQ[t]
        for sq in range(64):
            if tb_offdiag(sq) == 0 and not tb_kings_touch(ksq, sq):
                TB_KK[t][sq] = n
                n += 1

cdef void tb_build_pawn_maps() noexcept nogil:
    """Pawns: slots run up each file from rank 2 to rank 7, files a to d."""
    cdef int sq, f, r, k, i, j
    cdef uint64_t total
    for sq in range(64):
        TB_PAWN_SLOT[sq] = 0
        TB_PAWN_ORDER[sq] = 0
    for sq in range(8, 56):
        f = sq & 7
        r = sq >> 3
        k = f if f < 4 else 7 - f
        TB_PAWN_SLOT[sq] = k * 6 + r - 1
        if f < 4:
            TB_PAWN_SQ[k * 6 + r - 1] = sq
        # A ranking of pawn squares: smaller on central files, on higher ranks,
        # and on the e-h half of a mirrored pair of files.
        TB_PAWN_ORDER[sq] = 12 * (3 - k) + 2 * (6 - r) + (1 if f < 4 else 0)
    for i in range(5):
        for f in range(4):
            total = 0
            for j in range(6):
                TB_PAWN_BASE[i][f * 6 + j] = total
                total += 1 if i == 0 else TB_BINOM[i][TB_PAWN_ORDER[TB_PAWN_SQ[f * 6 + j]]]
            TB_PAWN_TOTAL[i][f] = total

cdef void tb_build_tables() noexcept nogil:
    global TB_TABLES_READY, TB_UNIQUE3_TOTAL
    if TB_TABLES_READY:
        return
    tb_build_binomials()
    tb_build_square_maps()
    tb_build_king_pairs()
    # Three lone leading pieces: first piece off the diagonal; first on, second
    # off; first two on, third off; all three on.
    TB_UNIQUE3_TOTAL = 6 * 63 * 62 + 4 * 28 * 62 + 4 * 7 * 28 + 4 * 7 * 6
    tb_build_pawn_maps()
    # WDL value + 2 -> which DTZ map applies; which flag says "counted in plies";
    # the DTZ reported for a zeroing move of each WDL class.
    TB_WDL_TO_MAP[0] = 1; TB_WDL_TO_MAP[1] = 3; TB_WDL_TO_MAP[2] = 0
    TB_WDL_TO_MAP[3] = 2; TB_WDL_TO_MAP[4] = 0
    TB_PLIES_FLAG[0] = TB_DTZ_LOSS_PLIES; TB_PLIES_FLAG[1] = 0; TB_PLIES_FLAG[2] = 0
    TB_PLIES_FLAG[3] = 0; TB_PLIES_FLAG[4] = TB_DTZ_WIN_PLIES
    TB_WDL_TO_DTZ[0] = -1; TB_WDL_TO_DTZ[1] = -101; TB_WDL_TO_DTZ[2] = 0
    TB_WDL_TO_DTZ[3] = 101; TB_WDL_TO_DTZ[4] = 1
    TB_TABLES_READY = True

cdef inline bint tb_kings_touch(int a, int b) noexcept nogil:
    cdef int df = (a & 7) - (b & 7), dr = (a >> 3) - (b >> 3)
    return -1 <= df <= 1 and -1 <= dr <= 1
