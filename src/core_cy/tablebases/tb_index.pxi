# Syzygy reader, part three: a position to its index, an index to its value.

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
    e = tb_find(tables_of(pos), key)
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
    e = tb_find(tables_of(pos), key)
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
