# Perft: the leaf nodes of the legal move tree, the move generator's proof.
#
# perft() is the plain count (bulk-counted at the last ply by count_legal).
# perft_deep() is the same count for long runs: it remembers the counts of
# subtrees in a table of its own (key and depth -> count; never the search's
# transposition table, whose entries are scores) and stops when a flag is set.
# Several threads may share one table: an entry is two words written apart, the
# first stored as key ^ data, so a torn entry fails its check and reads as a
# miss (lockless hashing, as the transposition table does it).

cdef uint64_t perft(Position* pos, int depth) noexcept nogil:
    """Leaf nodes at depth, counting the last ply in bulk from the move list."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    cdef uint64_t nodes = 0
    if depth <= 0:
        return 1
    if depth == 1:
        return count_legal(pos)
    n = generate_legal(pos, moves, GEN_ALL)
    for i in range(n):
        do_move(pos, moves[i])
        nodes += perft(pos, depth - 1)
        undo_move(pos, moves[i])
    return nodes

# --- the perft table ------------------------------------------------------------------

cdef enum:
    PERFT_DEPTH_BITS = 8           # data = count << 8 | depth
    PERFT_BUCKET_ENTRIES = 2       # slot 0 keeps the deeper subtree, slot 1 the latest
    PERFT_MAX_MEGABYTES = 1 << 24  # 16 TB: beyond it the size would not fit the arithmetic

ctypedef struct PerftEntry:
    uint64_t check                 # key ^ data: a torn or foreign entry fails it
    uint64_t data

ctypedef struct PerftBucket:
    PerftEntry slot[PERFT_BUCKET_ENTRIES]

ctypedef struct PerftTable:
    PerftBucket* buckets           # NULL: no table (every probe misses)
    uint64_t mask                  # bucket count - 1 (a power of two)

cdef int perft_table_allocate(PerftTable* table, size_t megabytes) noexcept nogil:
    """A zeroed table of the largest power-of-two bucket count within `megabytes`;
    0 when the memory is refused (the table is then empty). 0 MB: no table."""
    cdef uint64_t count = 1
    table.buckets = NULL
    table.mask = 0
    if megabytes == 0:
        return 1
    if megabytes > PERFT_MAX_MEGABYTES:
        return 0
    while count * 2 * sizeof(PerftBucket) <= <uint64_t>megabytes * 1024 * 1024:
        count *= 2
    table.buckets = <PerftBucket*>fc_alloc_table(count * sizeof(PerftBucket))
    if table.buckets == NULL:
        return 0
    table.mask = count - 1
    return 1

cdef void perft_table_free(PerftTable* table) noexcept nogil:
    free(table.buckets)
    table.buckets = NULL
    table.mask = 0

cdef inline PerftBucket* perft_bucket(const PerftTable* table, uint64_t key, int depth) noexcept nogil:
    """Each depth of a position has a bucket of its own."""
    return &table.buckets[(key ^ (<uint64_t>depth * <uint64_t>0x9E3779B97F4A7C15)) & table.mask]

cdef inline bint perft_probe(const PerftTable* table, uint64_t key, int depth, uint64_t* nodes) noexcept nogil:
    cdef PerftBucket* bucket = perft_bucket(table, key, depth)
    cdef uint64_t data
    cdef int i
    for i in range(PERFT_BUCKET_ENTRIES):
        data = bucket.slot[i].data
        if bucket.slot[i].check ^ data == key and <int>(data & 0xFF) == depth:
            nodes[0] = data >> PERFT_DEPTH_BITS
            return True
    return False

cdef inline void perft_store(PerftTable* table, uint64_t key, int depth, uint64_t nodes) noexcept nogil:
    """Slot 0 when the subtree is at least as deep as what it holds, else slot 1."""
    cdef PerftBucket* bucket = perft_bucket(table, key, depth)
    cdef uint64_t data = (nodes << PERFT_DEPTH_BITS) | <uint64_t>depth
    cdef int i = 0 if <int>(bucket.slot[0].data & 0xFF) <= depth else 1
    bucket.slot[i].data = data
    bucket.slot[i].check = key ^ data

# --- the deep count -------------------------------------------------------------------

cdef uint64_t perft_deep(Position* pos, int depth, PerftTable* table, volatile int* stop) noexcept nogil:
    """perft(pos, depth) with the table's counts reused and stored; when *stop is
    set the count is abandoned (the value returned is then meaningless)."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    cdef uint64_t nodes = 0
    cdef uint64_t key = pos.st.key
    if depth <= 1:
        return 1 if depth <= 0 else <uint64_t>count_legal(pos)
    if table.buckets != NULL and perft_probe(table, key, depth, &nodes):
        return nodes
    if fc_load_flag(stop):
        return 0
    n = generate_legal(pos, moves, GEN_ALL)
    for i in range(n):
        do_move(pos, moves[i])
        nodes += perft_deep(pos, depth - 1, table, stop)
        undo_move(pos, moves[i])
    if table.buckets != NULL and not fc_load_flag(stop):
        perft_store(table, key, depth, nodes)
    return nodes
