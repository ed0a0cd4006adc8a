# Syzygy reader, part two: the set of loaded tables and the parsing of a file.

# --- a set of loaded tables ---------------------------------------------------------
# Each user of the tables (a UCI session, each fianchetto.Engine, a self-play run)
# loads its own set (SyzygyTables, api_tables.pxi); a set is read-only once loaded,
# and a searching position probes the set it points at (Position.tables).

ctypedef struct TBSet:
    TBEntry* entries
    int count
    int capacity
    int largest                 # most pieces of any WDL table loaded (0: none)
    int files                   # WDL + DTZ files loaded
    uint64_t slot_key[TB_HASH_SIZE]
    int slot_entry[TB_HASH_SIZE]  # index in `entries`; -1: an empty slot

cdef inline const TBSet* tables_of(const Position* pos) noexcept nogil:
    return <const TBSet*>pos.tables

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

cdef inline TBEntry* tb_find(const TBSet* tables, uint64_t key) noexcept nogil:
    cdef uint32_t s = tb_slot(key)
    while tables.slot_entry[s] >= 0:
        if tables.slot_key[s] == key:
            return &tables.entries[tables.slot_entry[s]]
        s = (s + 1) & (TB_HASH_SIZE - 1)
    return NULL

cdef int tb_slot_insert(TBSet* tables, uint64_t key, int index) noexcept nogil:
    cdef uint32_t s = tb_slot(key)
    cdef int probes = 0
    while tables.slot_entry[s] >= 0:
        if tables.slot_key[s] == key:
            return 1
        s = (s + 1) & (TB_HASH_SIZE - 1)
        probes += 1
        if probes >= TB_HASH_SIZE // 2:
            return 0               # over half full: refuse (some 8000 tables)
    tables.slot_key[s] = key
    tables.slot_entry[s] = index
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

cdef TBEntry* tb_entry_for(TBSet* tables, uint64_t key, int num, int pawns_first, int pawns_second,
                          int lone) noexcept nogil:
    """The entry of this material, created if new."""
    cdef TBEntry* e = tb_find(tables, key)
    cdef TBEntry* grown
    cdef int index
    if e != NULL:
        return e
    if tables.count == tables.capacity:
        grown = <TBEntry*>realloc(tables.entries, sizeof(TBEntry) * (tables.capacity * 2 + 64))
        if grown == NULL:
            return NULL
        tables.entries = grown
        tables.capacity = tables.capacity * 2 + 64
    index = tables.count
    e = &tables.entries[index]
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
    if not tb_slot_insert(tables, key, index) or not tb_slot_insert(tables, tb_mirror_key(key), index):
        return NULL
    tables.count += 1
    return e

cdef void tb_add_file(TBSet* tables, const char* folder, const char* name) noexcept nogil:
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
    e = tb_entry_for(tables, key, num, pf, ps, lone)
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

cdef void tb_set_clear(TBSet* tables) noexcept nogil:
    """Let go of every table of the set: it is empty again."""
    cdef int i
    for i in range(tables.count):
        tb_release_wdl(&tables.entries[i])
        tb_release_dtz(&tables.entries[i])
    free(tables.entries)
    tables.entries = NULL
    tables.count = 0
    tables.capacity = 0
    for i in range(TB_HASH_SIZE):
        tables.slot_entry[i] = -1
        tables.slot_key[i] = 0
    tables.largest = 0
    tables.files = 0

cdef TBSet* tb_set_new() noexcept nogil:
    """An empty set; NULL when out of memory."""
    cdef TBSet* tables = <TBSet*>calloc(1, sizeof(TBSet))
    if tables != NULL:
        tb_set_clear(tables)
    return tables

cdef void tb_set_free(TBSet* tables) noexcept nogil:
    if tables != NULL:
        tb_set_clear(tables)
        free(tables)

cdef int tb_set_load(TBSet* tables, const char* paths) noexcept nogil:
    """Load every table in the folders of `paths` (':'-separated, ';' on Windows)
    into the set, replacing its tables (no probe of the set may run meanwhile).
    Returns the most pieces of any WDL table found, 0 when none."""
    cdef int start = 0, end, i
    cdef char* folder
    cdef tbf_dir* d
    cdef const char* name
    tb_build_tables()
    tb_set_clear(tables)
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
                        tb_add_file(tables, folder, name)
                        name = tbf_dir_next(d)
                    tbf_dir_close(d)
                free(folder)
        start = end + 1 if paths[end] != 0 else end
    for i in range(tables.count):
        if tables.entries[i].wdl_base != NULL:
            tables.files += 1
            if tables.entries[i].num > tables.largest:
                tables.largest = tables.entries[i].num
        if tables.entries[i].dtz_base != NULL:
            tables.files += 1
    return tables.largest
