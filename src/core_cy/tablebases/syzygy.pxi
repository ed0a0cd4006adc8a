# Syzygy endgame tablebases: a compiled reader of the WDL (.rtbw) and DTZ (.rtbz)
# formats, fast enough to probe at interior search nodes.
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


# --- the set of loaded tables --------------------------------------------------------

cdef TBEntry* TB_ENTRIES = NULL
cdef int TB_COUNT = 0
cdef int TB_CAPACITY = 0
cdef uint64_t TB_SLOT_KEY[TB_HASH_SIZE]
cdef int TB_SLOT_ENTRY[TB_HASH_SIZE]
cdef int TB_LARGEST = 0           # most pieces of any WDL table loaded (0: none)
cdef int TB_TABLE_FILES = 0       # WDL + DTZ files loaded

cdef inline int tb_key_shift(int color, int pt) noexcept nogil:
    return 4 * (5 * color + pt - 1)

cdef inline uint64_t tb_position_key(const Position* pos, int flip) noexcept nogil:
    """Material key: 4 bits per (colour, pawn..queen); flip swaps the colours."""
    cdef uint64_t key = 0
    cdef int c, pt
    for c in range(2):
        for pt in range(PAWN, KING):
            key |= <uint64_t>fc_popcount(pos.by_color[c ^ flip] & pos.by_type[pt]) << tb_key_shift(c, pt)
    return key

cdef inline uint64_t tb_codes_key(const uint8_t* codes, int num, int flip) noexcept nogil:
    """Material key of a table's piece list (codes with bit 3 = black)."""
    cdef uint64_t key = 0
    cdef int i, pt
    for i in range(num):
        pt = codes[i] & 7
        if pt != KING:
            key += <uint64_t>1 << tb_key_shift((codes[i] >> 3) ^ flip, pt)
    return key

cdef inline uint64_t tb_mirror_key(uint64_t key) noexcept nogil:
    return (key >> 20) | ((key & 0xFFFFF) << 20)

cdef inline uint32_t tb_slot(uint64_t key) noexcept nogil:
    return <uint32_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - TB_HASH_BITS))

cdef inline TBEntry* tb_find(uint64_t key) noexcept nogil:
    cdef uint32_t s = tb_slot(key)
    while TB_SLOT_ENTRY[s] >= 0:
        if TB_SLOT_KEY[s] == key:
            return &TB_ENTRIES[TB_SLOT_ENTRY[s]]
        s = (s + 1) & (TB_HASH_SIZE - 1)
    return NULL

cdef int tb_slot_insert(uint64_t key, int index) noexcept nogil:
    cdef uint32_t s = tb_slot(key)
    cdef int probes = 0
    while TB_SLOT_ENTRY[s] >= 0:
        if TB_SLOT_KEY[s] == key:
            return 1
        s = (s + 1) & (TB_HASH_SIZE - 1)
        probes += 1
        if probes >= TB_HASH_SIZE // 2:
            return 0               # over half full: refuse (some 8000 tables)
    TB_SLOT_KEY[s] = key
    TB_SLOT_ENTRY[s] = index
    return 1


# --- parsing a file ----------------------------------------------------------------

cdef void tb_free_pairs(TBPairs* d) noexcept nogil:
    free(d.expansion)
    free(d.code_floor)
    d.expansion = NULL
    d.code_floor = NULL

cdef void tb_release_wdl(TBEntry* e) noexcept nogil:
    cdef int f, s
    for f in range(4):
        for s in range(2):
            tb_free_pairs(&e.wdl[f][s].pairs)
            e.wdl[f][s].present = 0
    tbf_unmap(e.wdl_base, e.wdl_length)
    e.wdl_base = NULL
    e.wdl_length = 0

cdef void tb_release_dtz(TBEntry* e) noexcept nogil:
    cdef int f
    for f in range(4):
        tb_free_pairs(&e.dtz[f].pairs)
        e.dtz[f].present = 0
    tbf_unmap(e.dtz_base, e.dtz_length)
    e.dtz_base = NULL
    e.dtz_length = 0

cdef void tb_expand_symbol(TBPairs* d, int s, int count, uint8_t* seen) noexcept nogil:
    """How many values symbol s stands for (minus one), from its two halves."""
    cdef const uint8_t* w = d.symbols + 3 * s
    cdef int left = ((w[1] & 0xF) << 8) | w[0]
    cdef int right = (w[2] << 4) | (w[1] >> 4)
    seen[s] = 1
    if right == 0xFFF:
        d.expansion[s] = 0         # a leaf: one value
        return
    if left >= count or right >= count:
        d.expansion[s] = 0         # damaged file: treat as a leaf
        return
    if not seen[left]:
        tb_expand_symbol(d, left, count, seen)
    if not seen[right]:
        tb_expand_symbol(d, right, count, seen)
    d.expansion[s] = d.expansion[left] + d.expansion[right] + 1

cdef int tb_read_pairs(TBPairs* d, const uint8_t* base, uint64_t length, uint64_t* at,
                       uint64_t positions, bint wdl, uint64_t sizes[3], int* flags) noexcept nogil:
    """Parse a sub-table header at *at; advance *at; return 0 if the file is damaged.

    sizes receives the byte lengths of its index table, size table and data."""
    cdef uint64_t p = at[0], blocks, real_blocks
    cdef int longest, count, lengths, i
    cdef uint8_t* seen
    memset(d, 0, sizeof(TBPairs))
    sizes[0] = sizes[1] = sizes[2] = 0
    if p + 12 > length:
        return 0
    flags[0] = base[p]
    if base[p] & TB_PAIRS_CONSTANT:
        d.constant = 1
        d.min_len = base[p + 1] if wdl else 0
        at[0] = p + 2
        return 1
    d.block_bits = base[p + 1]
    d.idx_bits = base[p + 2]
    real_blocks = tbf_le32(base + p + 4)
    blocks = real_blocks + base[p + 3]
    longest = base[p + 8]
    d.min_len = base[p + 9]
    lengths = longest - d.min_len + 1
    if d.min_len < 1 or lengths < 1 or longest > 64 or d.idx_bits < 1 or d.idx_bits > 62 or d.block_bits > 30:
        return 0
    if p + 12 + 2 * lengths > length:
        return 0
    count = tbf_le16(base + p + 10 + 2 * lengths)
    d.first_symbol = base + p + 10
    d.symbols = base + p + 12 + 2 * lengths
    at[0] = p + 12 + 2 * lengths + 3 * count + (count & 1)
    if at[0] > length or count == 0:
        return 0
    sizes[0] = 6 * ((positions + (<uint64_t>1 << d.idx_bits) - 1) >> d.idx_bits)
    sizes[1] = 2 * blocks
    sizes[2] = real_blocks << d.block_bits
    d.expansion = <int*>calloc(count, sizeof(int))
    d.code_floor = <uint64_t*>calloc(lengths, sizeof(uint64_t))
    seen = <uint8_t*>calloc(count, 1)
    if d.expansion == NULL or d.code_floor == NULL or seen == NULL:
        free(seen)
        tb_free_pairs(d)
        return 0
    for i in range(count):
        if not seen[i]:
            tb_expand_symbol(d, i, count, seen)
    free(seen)
    # Canonical Huffman: the smallest code of each length, from the longest down,
    # then left-aligned so that a 64-bit window compares directly.
    d.code_floor[lengths - 1] = 0
    for i in range(lengths - 2, -1, -1):
        d.code_floor[i] = (d.code_floor[i + 1] + tbf_le16(d.first_symbol + 2 * i)
                           - tbf_le16(d.first_symbol + 2 * i + 2)) // 2
    for i in range(lengths):
        d.code_floor[i] <<= 64 - (d.min_len + i)
    return 1

cdef void tb_group_pieces(TBEntry* e, TBCoding* c, int lead) noexcept nogil:
    """Group lengths: `lead` leading squares, then runs of equal pieces."""
    cdef int i, j
    memset(c.group, 0, sizeof(c.group))
    c.group[0] = lead
    i = lead
    while i < e.num:
        j = i
        while j < e.num and c.pieces[j] == c.pieces[i]:
            c.group[i] += 1
            j += 1
        i += c.group[i]

cdef void tb_group_pawns(TBEntry* e, TBCoding* c) noexcept nogil:
    cdef int i, j
    memset(c.group, 0, sizeof(c.group))
    c.group[0] = e.lead_pawns
    if e.other_pawns:
        c.group[e.lead_pawns] = e.other_pawns
    i = e.lead_pawns + e.other_pawns
    while i < e.num:
        j = i
        while j < e.num and c.pieces[j] == c.pieces[i]:
            c.group[i] += 1
            j += 1
        i += c.group[i]

cdef int tb_factors_pieces(TBEntry* e, TBCoding* c, int order) noexcept nogil:
    """Weights of the groups; the leading group sits at position `order`."""
    cdef int free_squares = 64 - c.group[0], i = c.group[0], k = 0, placed = 0
    cdef uint64_t f = 1
    while i < e.num or k == order:
        if k > TB_PIECES:
            return 0
        if k == order:
            c.factor[0] = f
            f *= TB_UNIQUE3_TOTAL if e.encoding == TB_ENC_UNIQUE3 else 462
            placed = 1
        else:
            c.factor[i] = f
            f *= TB_BINOM[c.group[i]][free_squares]
            free_squares -= c.group[i]
            i += c.group[i]
        k += 1
    c.size = f
    return placed

cdef int tb_factors_pawns(TBEntry* e, TBCoding* c, int order, int order2, int pfile) noexcept nogil:
    """Weights with pawns: leading pawns at `order`, the other colour's pawns at `order2`."""
    cdef int i = c.group[0], k = 0, free_squares, placed = 0
    cdef uint64_t f = 1
    if order2 < 0xF:
        i += c.group[i]
    free_squares = 64 - i
    while i < e.num or k == order or k == order2:
        if k > TB_PIECES:
            return 0
        if k == order:
            c.factor[0] = f
            f *= TB_PAWN_TOTAL[c.group[0] - 1][pfile]
            placed = 1
        elif k == order2:
            c.factor[c.group[0]] = f
            f *= TB_BINOM[c.group[c.group[0]]][48 - c.group[0]]
        else:
            c.factor[i] = f
            f *= TB_BINOM[c.group[i]][free_squares]
            free_squares -= c.group[i]
            i += c.group[i]
        k += 1
    c.size = f
    return placed

cdef int tb_pieces_match(TBEntry* e, const uint8_t* codes) noexcept nogil:
    """The piece list is this table's material (in either colouring), in runs."""
    cdef int i, j, pt
    cdef uint64_t key = 0
    cdef int kings[2]
    kings[0] = kings[1] = 0
    for i in range(e.num):
        pt = codes[i] & 7
        if pt < PAWN or pt > KING or codes[i] > 14:
            return 0
        if pt == KING:
            kings[codes[i] >> 3] += 1
        for j in range(i + 2, e.num):       # each piece kind forms one run
            if codes[j] == codes[i] and codes[j - 1] != codes[i]:
                return 0
    if kings[0] != 1 or kings[1] != 1:
        return 0
    key = tb_codes_key(codes, e.num, 0)
    return key == e.key or key == tb_mirror_key(e.key)

cdef inline uint64_t tb_align64(uint64_t p) noexcept nogil:
    return (p + 63) & ~(<uint64_t>63)

cdef inline int tb_coding_bytes(const TBEntry* e) noexcept nogil:
    """Bytes of one sub-table's coding: order byte(s), then one byte per piece."""
    return e.num + (2 if e.has_pawns and e.other_pawns else 1)

cdef int tb_read_coding(TBEntry* e, TBCoding* c, const uint8_t* at, int shift, int pawn_file) noexcept nogil:
    """Read one sub-table's piece order (the nibble at `shift` of each byte) and
    derive its index factors; 0 when the file disagrees with its name."""
    cdef int i, order = (at[0] >> shift) & 0xF, order2
    cdef int order_bytes = tb_coding_bytes(e) - e.num
    for i in range(e.num):
        c.pieces[i] = (at[order_bytes + i] >> shift) & 0xF
    if not tb_pieces_match(e, c.pieces):
        return 0
    if not e.has_pawns:
        tb_group_pieces(e, c, 3 if e.encoding == TB_ENC_UNIQUE3 else 2)
        return tb_factors_pieces(e, c, order)
    if (c.pieces[0] & 7) != PAWN:
        return 0
    order2 = (at[1] >> shift) & 0xF if e.other_pawns else 0xF
    tb_group_pawns(e, c)
    return tb_factors_pawns(e, c, order, order2, pawn_file)

cdef uint64_t tb_place_tables(TBPairs** pairs, uint64_t** sizes, int count, const uint8_t* base,
                              uint64_t p) noexcept nogil:
    """Point each sub-table at its index table, size table and data, stored kind
    after kind from offset p; returns the offset after them."""
    cdef int i
    for i in range(count):
        pairs[i].index_table = base + p
        p += sizes[i][0]
    for i in range(count):
        pairs[i].size_table = base + p
        p += sizes[i][1]
    for i in range(count):
        p = tb_align64(p)
        pairs[i].data = base + p
        p += sizes[i][2]
    return p

cdef int tb_parse_wdl(TBEntry* e, const uint8_t* base, uint64_t length) noexcept nogil:
    cdef uint64_t p = 5
    cdef uint64_t sizes[4][2][3]
    cdef TBPairs* pairs[8]
    cdef uint64_t* pair_sizes[8]
    cdef int split, files, f, s, flags, count = 0
    cdef int codings = 4 if e.has_pawns else 1, step = tb_coding_bytes(e)
    if length < 16 or length % 64 != 16 or tbf_le32(base) != TB_MAGIC_WDL:
        return 0
    split = base[4] & TB_FLAG_SPLIT
    files = 4 if base[4] & TB_FLAG_FILES and e.has_pawns else 1
    memset(sizes, 0, sizeof(sizes))
    if p + codings * step > length:
        return 0
    for f in range(codings):
        for s in range(2):
            if not tb_read_coding(e, &e.wdl[f][s], base + p, 4 * s, f):
                return 0
        p += step
    e.wdl_key = e.key if e.has_pawns else tb_codes_key(e.wdl[0][0].pieces, e.num, 0)
    p += p & 1
    for f in range(files):
        for s in range(1 + split):
            if not tb_read_pairs(&e.wdl[f][s].pairs, base, length, &p, e.wdl[f][s].size, True,
                                 sizes[f][s], &flags):
                return 0
            e.wdl[f][s].present = 1
            pairs[count] = &e.wdl[f][s].pairs
            pair_sizes[count] = sizes[f][s]
            count += 1
    return tb_place_tables(pairs, pair_sizes, count, base, p) <= length

cdef int tb_read_dtz_maps(TBEntry* e, const uint8_t* base, uint64_t length, uint64_t* at,
                          int files) noexcept nogil:
    """The maps from stored values to DTZ, four per sub-table (one per WDL class)."""
    cdef uint64_t p = at[0], map_start = at[0]
    cdef int f, i
    e.dtz_map = base + p
    for f in range(files):
        if not e.dtz_flags[f] & TB_DTZ_MAPPED:
            continue
        if not (e.dtz_flags[f] & TB_DTZ_WIDE_MAP):
            for i in range(4):
                if p >= length:
                    return 0
                e.dtz_map_start[f][i] = <int>(p + 1 - map_start)
                p += 1 + base[p]
        else:
            if e.has_pawns:
                p += p & 1
            for i in range(4):
                if p + 2 > length:
                    return 0
                e.dtz_map_start[f][i] = <int>((p + 2 - map_start) // 2)
                p += 2 + 2 * tbf_le16(base + p)
    at[0] = p
    return 1

cdef int tb_parse_dtz(TBEntry* e, const uint8_t* base, uint64_t length) noexcept nogil:
    cdef uint64_t p = 5
    cdef uint64_t sizes[4][3]
    cdef TBPairs* pairs[4]
    cdef uint64_t* pair_sizes[4]
    cdef int files, f, flags
    cdef int codings = 4 if e.has_pawns else 1, step = tb_coding_bytes(e)
    if length < 16 or length % 64 != 16 or tbf_le32(base) != TB_MAGIC_DTZ:
        return 0
    files = 4 if base[4] & TB_FLAG_FILES and e.has_pawns else 1
    memset(sizes, 0, sizeof(sizes))
    if p + codings * step > length:
        return 0
    for f in range(codings):
        if not tb_read_coding(e, &e.dtz[f], base + p, 0, f):
            return 0
        p += step
    e.dtz_key = e.key if e.has_pawns else tb_codes_key(e.dtz[0].pieces, e.num, 0)
    p += p & 1
    for f in range(files):
        if not tb_read_pairs(&e.dtz[f].pairs, base, length, &p, e.dtz[f].size, False, sizes[f], &flags):
            return 0
        e.dtz_flags[f] = flags
        e.dtz[f].present = 1
        pairs[f] = &e.dtz[f].pairs
        pair_sizes[f] = sizes[f]
    if not tb_read_dtz_maps(e, base, length, &p, files):
        return 0
    p += p & 1
    return tb_place_tables(pairs, pair_sizes, files, base, p) <= length


# --- file names ----------------------------------------------------------------------

cdef int tb_piece_rank(char ch) noexcept nogil:
    """Order of piece letters in a normalised name: K Q R B N P."""
    if ch == b'K': return 0
    if ch == b'Q': return 1
    if ch == b'R': return 2
    if ch == b'B': return 3
    if ch == b'N': return 4
    if ch == b'P': return 5
    return -1

cdef int tb_letter_type(int rank) noexcept nogil:
    """Piece type of the letter ranked `rank` (K Q R B N P)."""
    if rank == 0: return KING
    if rank == 1: return QUEEN
    if rank == 2: return ROOK
    if rank == 3: return BISHOP
    if rank == 4: return KNIGHT
    return PAWN

cdef int tb_parse_name(const char* name, int length, uint64_t* key, int* num, int* pawns_first,
                       int* pawns_second, int* lone) noexcept nogil:
    """Read a table name such as KRPvKR; 0 unless it is a normalised standard name.

    Normalised: letters in K Q R B N P order on each side, one king each, and the
    first side the larger one (more pieces, else stronger piece by piece)."""
    cdef int side = 0, i, r, prev = -1
    cdef int count[2]
    cdef int per[2][6]
    cdef int ranks[2][TB_PIECES + 1]
    memset(per, 0, sizeof(per))
    count[0] = count[1] = 0
    for i in range(length):
        if name[i] == b'v':
            if side == 1:
                return 0
            side = 1
            prev = -1
            continue
        r = tb_piece_rank(name[i])
        if r < 0 or r < prev or count[side] >= TB_PIECES:
            return 0
        prev = r
        ranks[side][count[side]] = r
        count[side] += 1
        per[side][r] += 1
    if side != 1 or count[0] + count[1] > TB_PIECES or per[0][0] != 1 or per[1][0] != 1:
        return 0
    if ranks[0][0] != 0 or ranks[1][0] != 0:
        return 0
    # The first side must not be the smaller: fewer pieces, or equally many but
    # weaker at the first difference.
    if count[0] < count[1]:
        return 0
    if count[0] == count[1]:
        for i in range(count[0]):
            if ranks[1][i] != ranks[0][i]:
                if ranks[1][i] < ranks[0][i]:
                    return 0
                break
    key[0] = 0
    for side in range(2):
        for r in range(1, 6):
            key[0] += <uint64_t>per[side][r] << tb_key_shift(side, tb_letter_type(r))
    num[0] = count[0] + count[1]
    pawns_first[0] = per[0][5]
    pawns_second[0] = per[1][5]
    lone[0] = 0
    for side in range(2):
        for r in range(6):
            if per[side][r] == 1:
                lone[0] += 1
    return 1

cdef TBEntry* tb_entry_for(uint64_t key, int num, int pawns_first, int pawns_second, int lone) noexcept nogil:
    """The entry of this material, created if new."""
    cdef TBEntry* e = tb_find(key)
    cdef TBEntry* grown
    cdef int index
    global TB_ENTRIES, TB_COUNT, TB_CAPACITY
    if e != NULL:
        return e
    if TB_COUNT == TB_CAPACITY:
        grown = <TBEntry*>realloc(TB_ENTRIES, sizeof(TBEntry) * (TB_CAPACITY * 2 + 64))
        if grown == NULL:
            return NULL
        TB_ENTRIES = grown
        TB_CAPACITY = TB_CAPACITY * 2 + 64
    index = TB_COUNT
    e = &TB_ENTRIES[index]
    memset(e, 0, sizeof(TBEntry))
    e.key = key
    e.num = num
    e.has_pawns = pawns_first + pawns_second > 0
    e.symmetric = key == tb_mirror_key(key)
    e.encoding = TB_ENC_UNIQUE3 if lone >= 3 else TB_ENC_KINGS
    # The leading colour: the one with fewer pawns, if it has any.
    e.lead_pawns = pawns_first
    e.other_pawns = pawns_second
    if pawns_first == 0 or (pawns_second > 0 and pawns_second < pawns_first):
        e.lead_pawns = pawns_second
        e.other_pawns = pawns_first
    if e.has_pawns and e.lead_pawns == 0:
        return NULL
    if e.has_pawns and e.lead_pawns > 5:
        return NULL
    if not tb_slot_insert(key, index) or not tb_slot_insert(tb_mirror_key(key), index):
        return NULL
    TB_COUNT += 1
    return e

cdef void tb_add_file(const char* folder, const char* name) noexcept nogil:
    cdef int length = <int>strlen(name), stem, num, pf, ps, lone, wdl, folder_len
    cdef uint64_t key, size
    cdef char* path
    cdef const uint8_t* base
    cdef TBEntry* e
    if length < 8 or length > 64:
        return
    stem = length - 5
    if strcmp(name + stem, ".rtbw") == 0:
        wdl = 1
    elif strcmp(name + stem, ".rtbz") == 0:
        wdl = 0
    else:
        return
    if not tb_parse_name(name, stem, &key, &num, &pf, &ps, &lone):
        return
    folder_len = <int>strlen(folder)
    path = <char*>malloc(folder_len + length + 2)
    if path == NULL:
        return
    memcpy(path, folder, folder_len)
    path[folder_len] = TBF_DIR_SEP
    memcpy(path + folder_len + 1, name, length + 1)
    base = tbf_map(path, &size)
    free(path)
    if base == NULL:
        return
    e = tb_entry_for(key, num, pf, ps, lone)
    if e == NULL:
        tbf_unmap(base, size)
        return
    if wdl:
        if e.wdl_base != NULL:          # a later folder replaces an earlier copy
            tb_release_wdl(e)
        e.wdl_base = base
        e.wdl_length = size
        if not tb_parse_wdl(e, base, size):
            tb_release_wdl(e)
            return
    else:
        if e.dtz_base != NULL:
            tb_release_dtz(e)
        e.dtz_base = base
        e.dtz_length = size
        if not tb_parse_dtz(e, base, size):
            tb_release_dtz(e)
            return

cdef void tb_free_all() noexcept nogil:
    cdef int i
    global TB_ENTRIES, TB_COUNT, TB_CAPACITY, TB_LARGEST, TB_TABLE_FILES
    for i in range(TB_COUNT):
        tb_release_wdl(&TB_ENTRIES[i])
        tb_release_dtz(&TB_ENTRIES[i])
    free(TB_ENTRIES)
    TB_ENTRIES = NULL
    TB_COUNT = 0
    TB_CAPACITY = 0
    for i in range(TB_HASH_SIZE):
        TB_SLOT_ENTRY[i] = -1
        TB_SLOT_KEY[i] = 0
    TB_LARGEST = 0
    TB_TABLE_FILES = 0

cdef int tb_init(const char* paths) noexcept nogil:
    """Load every table in the folders of `paths` (':'-separated, ';' on Windows).

    Replaces the tables loaded before (no probe may run meanwhile). Returns the
    most pieces of any WDL table found, 0 when none."""
    cdef int start = 0, end, i
    cdef char* folder
    cdef tbf_dir* d
    cdef const char* name
    global TB_LARGEST, TB_TABLE_FILES
    tb_build_tables()
    tb_free_all()
    if paths == NULL:
        return 0
    while paths[start] != 0:
        end = start
        while paths[end] != 0 and paths[end] != TBF_LIST_SEP:
            end += 1
        if end > start:
            folder = <char*>malloc(end - start + 1)
            if folder != NULL:
                memcpy(folder, paths + start, end - start)
                folder[end - start] = 0
                d = tbf_dir_open(folder)
                if d != NULL:
                    name = tbf_dir_next(d)
                    while name != NULL:
                        tb_add_file(folder, name)
                        name = tbf_dir_next(d)
                    tbf_dir_close(d)
                free(folder)
        start = end + 1 if paths[end] != 0 else end
    for i in range(TB_COUNT):
        if TB_ENTRIES[i].wdl_base != NULL:
            TB_TABLE_FILES += 1
            if TB_ENTRIES[i].num > TB_LARGEST:
                TB_LARGEST = TB_ENTRIES[i].num
        if TB_ENTRIES[i].dtz_base != NULL:
            TB_TABLE_FILES += 1
    return TB_LARGEST


# --- position -> index ------------------------------------------------------------------

cdef inline void tb_sort_up(int* p, int lo, int hi) noexcept nogil:
    """Sort p[lo:hi] ascending (a handful of squares)."""
    cdef int i, j, v
    for i in range(lo + 1, hi):
        v = p[i]
        j = i - 1
        while j >= lo and p[j] > v:
            p[j + 1] = p[j]
            j -= 1
        p[j + 1] = v

cdef inline uint64_t tb_encode_groups(const TBCoding* c, int* p, int i, int num) noexcept nogil:
    """Index contribution of the groups from i on: each group's squares as a
    combination among the squares the earlier groups left free."""
    cdef uint64_t idx = 0, s
    cdef int t, m, l, below, sq
    while i < num:
        t = c.group[i]
        tb_sort_up(p, i, i + t)
        s = 0
        for m in range(i, i + t):
            sq = p[m]
            below = 0
            for l in range(i):
                below += sq > p[l]
            s += TB_BINOM[m - i + 1][sq - below]
        idx += s * c.factor[i]
        i += t
    return idx

cdef uint64_t tb_encode_pieces(const TBEntry* e, const TBCoding* c, int* p) noexcept nogil:
    cdef int n = e.num, i, j, lead, d, a, b
    cdef uint64_t idx
    # Bring the first piece into the a1-d1-d4 triangle.
    if p[0] & 4:
        for i in range(n):
            p[i] ^= 7
    if p[0] & 0x20:
        for i in range(n):
            p[i] ^= 0x38
    lead = 3 if e.encoding == TB_ENC_UNIQUE3 else 2
    for i in range(lead):
        d = tb_offdiag(p[i])
        if d != 0:
            if d > 0:
                for j in range(n):
                    p[j] = tb_flipdiag(p[j])
            break
    if e.encoding == TB_ENC_UNIQUE3:
        a = p[1] > p[0]
        b = (p[2] > p[0]) + (p[2] > p[1])
        if tb_offdiag(p[0]):
            idx = <uint64_t>TB_TRIANGLE[p[0]] * 63 * 62 + (p[1] - a) * 62 + (p[2] - b)
        elif tb_offdiag(p[1]):
            idx = (6 * 63 * 62 + <uint64_t>TB_ON_DIAG[p[0]] * 28 * 62
                   + TB_BELOW[p[1]] * 62 + p[2] - b)
        elif tb_offdiag(p[2]):
            idx = (6 * 63 * 62 + 4 * 28 * 62 + <uint64_t>TB_ON_DIAG[p[0]] * 7 * 28
                   + (TB_ON_DIAG[p[1]] - a) * 28 + TB_BELOW[p[2]])
        else:
            idx = (6 * 63 * 62 + 4 * 28 * 62 + 4 * 7 * 28 + <uint64_t>TB_ON_DIAG[p[0]] * 7 * 6
                   + (TB_ON_DIAG[p[1]] - a) * 6 + (TB_ON_DIAG[p[2]] - b))
    else:
        d = TB_KK[TB_TRIANGLE[p[0]]][p[1]]
        if d < 0:
            return <uint64_t>-1        # kings side by side: no such position
        idx = <uint64_t>d
    return idx * c.factor[0] + tb_encode_groups(c, p, lead, n)

cdef inline int tb_pawn_file(const TBEntry* e, int* p) noexcept nogil:
    """Put the leading pawn with the lowest slot first; return its file (0..3)."""
    cdef int i, t
    for i in range(1, e.lead_pawns):
        if TB_PAWN_SLOT[p[0]] > TB_PAWN_SLOT[p[i]]:
            t = p[0]
            p[0] = p[i]
            p[i] = t
    t = p[0] & 7
    return t if t < 4 else 7 - t

cdef uint64_t tb_encode_pawns(const TBEntry* e, const TBCoding* c, int* p) noexcept nogil:
    cdef int n = e.num, i, j, t, v, lead = e.lead_pawns, sq, below, m
    cdef uint64_t idx, s
    if p[0] & 4:
        for i in range(n):
            p[i] ^= 7
    # The other leading pawns, in descending pawn order.
    for i in range(2, lead):
        v = p[i]
        j = i - 1
        while j >= 1 and TB_PAWN_ORDER[p[j]] < TB_PAWN_ORDER[v]:
            p[j + 1] = p[j]
            j -= 1
        p[j + 1] = v
    t = lead - 1
    idx = TB_PAWN_BASE[t][TB_PAWN_SLOT[p[0]]]
    for i in range(t, 0, -1):
        idx += TB_BINOM[t - i + 1][TB_PAWN_ORDER[p[i]]]
    idx *= c.factor[0]
    i = lead
    t = lead + e.other_pawns
    if t > i:
        tb_sort_up(p, i, t)
        s = 0
        for m in range(i, t):
            sq = p[m]
            below = 0
            for j in range(i):
                below += sq > p[j]
            s += TB_BINOM[m - i + 1][sq - below - 8]
        idx += s * c.factor[i]
        i = t
    return idx + tb_encode_groups(c, p, i, n)


# --- index -> value ----------------------------------------------------------------------

cdef int tb_decode(const TBPairs* d, uint64_t idx, bint wide) noexcept nogil:
    """The stored value at idx: a byte for WDL, 12 bits for DTZ."""
    cdef uint64_t main, code
    cdef int64_t lit
    cdef uint32_t block
    cdef const uint8_t* ptr
    cdef const uint8_t* w
    cdef int length, m, sym, bits, left
    if d.constant:
        return d.min_len
    main = idx >> d.idx_bits
    lit = <int64_t>(idx & ((<uint64_t>1 << d.idx_bits) - 1)) - (<int64_t>1 << (d.idx_bits - 1))
    block = tbf_le32(d.index_table + 6 * main)
    lit += tbf_le16(d.index_table + 6 * main + 4)
    if lit < 0:
        while lit < 0:
            block -= 1
            lit += tbf_le16(d.size_table + 2 * block) + 1
    else:
        while lit > tbf_le16(d.size_table + 2 * block):
            lit -= tbf_le16(d.size_table + 2 * block) + 1
            block += 1
    ptr = d.data + (<uint64_t>block << d.block_bits)
    code = tbf_be64(ptr)
    ptr += 8
    bits = 0                    # bits consumed beyond the refilled window
    m = d.min_len
    while True:
        length = m
        while code < d.code_floor[length - m]:
            length += 1
        sym = tbf_le16(d.first_symbol + 2 * (length - m)) + <int>((code - d.code_floor[length - m]) >> (64 - length))
        if lit < d.expansion[sym] + 1:
            break
        lit -= d.expansion[sym] + 1
        code <<= length
        bits += length
        if bits >= 32:
            bits -= 32
            code |= <uint64_t>tbf_be32(ptr) << bits
            ptr += 4
    # Walk down the pair tree to the single value.
    while d.expansion[sym]:
        w = d.symbols + 3 * sym
        left = ((w[1] & 0xF) << 8) | w[0]
        if lit < d.expansion[left] + 1:
            sym = left
        else:
            lit -= d.expansion[left] + 1
            sym = (w[2] << 4) | (w[1] >> 4)
    w = d.symbols + 3 * sym
    if wide:
        return ((w[1] & 0xF) << 8) | w[0]
    return w[0]


# --- table reads (no capture resolution) --------------------------------------------------

cdef inline void tb_orient(const TBEntry* e, uint64_t stored_key, uint64_t key, Color side,
                           int* cflip, int* sqflip, int* stored_side) noexcept nogil:
    """Colour and square flips that present the position as the table stores it."""
    cdef bint flip
    if e.symmetric:
        flip = side == BLACK
        stored_side[0] = 0
    else:
        flip = key != stored_key
        stored_side[0] = (side == WHITE) if flip else (side == BLACK)
    cflip[0] = 8 if flip else 0
    sqflip[0] = 0x38 if flip else 0

cdef inline int tb_gather(const Position* pos, const uint8_t* codes, int i, int num, int cflip,
                          int sqflip, int* p) noexcept nogil:
    """Squares of the pieces codes[i:num] into p (alike pieces in square order)."""
    cdef int pc
    cdef Bitboard b
    while i < num:
        pc = codes[i] ^ cflip
        b = pos.by_color[pc >> 3] & pos.by_type[pc & 7]
        if b == 0:
            return 0
        while b and i < num:
            p[i] = pop_lsb(&b) ^ sqflip
            i += 1
    return 1

cdef int tb_read_wdl(const Position* pos, int* ok) noexcept nogil:
    """The WDL table's value (-2..2) for pos, captures not considered; *ok = 0 if absent."""
    cdef uint64_t key, idx
    cdef TBEntry* e
    cdef const TBCoding* c
    cdef int cflip, sqflip, side, i, f, lead
    cdef Bitboard b
    cdef int p[TB_PIECES + 1]
    ok[0] = 0
    if pos.by_type[0] == pos.by_type[KING]:
        ok[0] = 1
        return 0
    key = tb_position_key(pos, 0)
    e = tb_find(key)
    if e == NULL or e.wdl_base == NULL:
        return 0
    tb_orient(e, e.wdl_key, key, pos.side, &cflip, &sqflip, &side)
    if not e.has_pawns:
        c = &e.wdl[0][side]
        if not c.present or not tb_gather(pos, c.pieces, 0, e.num, cflip, 0, p):
            return 0
        idx = tb_encode_pieces(e, c, p)
    else:
        lead = e.wdl[0][0].pieces[0] ^ cflip
        b = pos.by_color[lead >> 3] & pos.by_type[lead & 7]
        i = 0
        while b and i < TB_PIECES:
            p[i] = pop_lsb(&b) ^ sqflip
            i += 1
        f = tb_pawn_file(e, p)
        c = &e.wdl[f][side]
        if not c.present or not tb_gather(pos, c.pieces, i, e.num, cflip, sqflip, p):
            return 0
        idx = tb_encode_pawns(e, c, p)
    if idx >= c.size:
        return 0
    ok[0] = 1
    return tb_decode(&c.pairs, idx, False) - 2

cdef int tb_read_dtz(const Position* pos, int wdl, int* ok) noexcept nogil:
    """The DTZ table's value for pos with WDL class wdl. *ok: 1 read, -1 the table
    stores the other side to move, 0 absent."""
    cdef uint64_t key, idx
    cdef TBEntry* e
    cdef const TBCoding* c
    cdef int cflip, sqflip, side, i, f, lead, flags, res, start
    cdef Bitboard b
    cdef int p[TB_PIECES + 1]
    ok[0] = 0
    key = tb_position_key(pos, 0)
    e = tb_find(key)
    if e == NULL or e.dtz_base == NULL:
        return 0
    tb_orient(e, e.dtz_key, key, pos.side, &cflip, &sqflip, &side)
    if not e.has_pawns:
        f = 0
        if (e.dtz_flags[0] & TB_DTZ_STM_BLACK) != side and not e.symmetric:
            ok[0] = -1
            return 0
        c = &e.dtz[0]
        if not tb_gather(pos, c.pieces, 0, e.num, cflip, 0, p):
            return 0
        idx = tb_encode_pieces(e, c, p)
    else:
        lead = e.dtz[0].pieces[0] ^ cflip
        b = pos.by_color[lead >> 3] & pos.by_type[lead & 7]
        i = 0
        while b and i < TB_PIECES:
            p[i] = pop_lsb(&b) ^ sqflip
            i += 1
        f = tb_pawn_file(e, p)
        c = &e.dtz[f]
        if not c.present:
            return 0
        if (e.dtz_flags[f] & TB_DTZ_STM_BLACK) != side:
            ok[0] = -1
            return 0
        if not tb_gather(pos, c.pieces, i, e.num, cflip, sqflip, p):
            return 0
        idx = tb_encode_pawns(e, c, p)
    if idx >= c.size:
        return 0
    res = tb_decode(&c.pairs, idx, True)
    flags = e.dtz_flags[f]
    if flags & TB_DTZ_MAPPED:
        start = e.dtz_map_start[f][TB_WDL_TO_MAP[wdl + 2]]
        if flags & TB_DTZ_WIDE_MAP:
            res = tbf_le16(e.dtz_map + 2 * (start + res))
        else:
            res = e.dtz_map[start + res]
    if not (flags & TB_PLIES_FLAG[wdl + 2]) or (wdl & 1):
        res *= 2
    ok[0] = 1
    return res


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
    return TB_LARGEST > 0 and pos.st.castling == 0 and fc_popcount(pos.by_type[0]) <= TB_PIECES + 1

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
