# Transposition table: buckets of four 16-byte entries (one cache line).
#
# An entry stores key ^ data beside data, so a torn write between two search
# threads reads as a miss instead of as a wrong position ("lockless hashing").
# data = move | score << 16 | eval << 32 | depth << 48 | bound/generation << 56.

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1
    BOUND_LOWER = 2
    BOUND_EXACT = 3
    BUCKET_SIZE = 4
    DEPTH_OFFSET = 8          # stored depth = depth + DEPTH_OFFSET (qsearch uses 0 and below)
    GENERATION_STEP = 4       # the low two bits of the generation byte hold the bound
    GENERATION_MASK = 0xFC    # the generation byte without its bound bits
    KEEP_DEEPER_BY = 3        # a same-search entry this much deeper survives a non-exact store
    AGE_PENALTY = 8           # replacement: one search of age costs as much as this many plies
    EMPTY_WORTH = -(1 << 20)  # replacement: an empty slot is taken before any entry

ctypedef struct TTEntry:
    uint64_t check            # key ^ data
    uint64_t data

ctypedef struct TTBucket:
    TTEntry entries[BUCKET_SIZE]

ctypedef struct TTHit:
    Move move
    int score                 # the entry also stores the static evaluation, which no reader needs
    int depth
    int bound

ctypedef struct TranspositionTable:
    TTBucket* buckets
    uint64_t mask             # bucket count - 1 (a power of two)
    uint8_t generation


cdef inline uint64_t tt_pack(Move m, int score, int eval, int depth, int genbound) noexcept nogil:
    return (<uint64_t>m | (<uint64_t><uint16_t>score << 16) | (<uint64_t><uint16_t>eval << 32)
            | (<uint64_t><uint8_t>(depth + DEPTH_OFFSET) << 48) | (<uint64_t><uint8_t>genbound << 56))

cdef inline int entry_depth(uint64_t data) noexcept nogil:
    return <int>((data >> 48) & 0xFF) - DEPTH_OFFSET

cdef inline int entry_age(const TranspositionTable* tt, uint64_t data) noexcept nogil:
    """How many searches ago the entry was written (0: this search), from the
    generation byte without its bound bits."""
    return ((tt.generation - (<uint8_t>(data >> 56) & GENERATION_MASK)) & 0xFF) // GENERATION_STEP

cdef inline bint written_this_search(const TranspositionTable* tt, uint64_t data) noexcept nogil:
    return data != 0 and entry_age(tt, data) == 0

cdef int tt_allocate(TranspositionTable* tt, size_t megabytes) noexcept nogil:
    """Size the table to the largest power of two of buckets that fits; 0 on failure.

    Every page is touched at once, so the memory a user asks for with ``Hash`` is
    resident from the start: the process does not grow during a tournament, and
    a machine short of memory shows it here rather than mid-game."""
    cdef uint64_t count = 1
    cdef TTBucket* buckets
    while count * 2 * sizeof(TTBucket) <= megabytes * 1024 * 1024:
        count *= 2
    buckets = <TTBucket*>fc_alloc_table(count * sizeof(TTBucket))
    if buckets == NULL:
        return 0
    free(tt.buckets)
    tt.buckets = buckets
    tt.mask = count - 1
    tt.generation = 0
    return 1

cdef void tt_clear(TranspositionTable* tt) noexcept nogil:
    memset(tt.buckets, 0, (tt.mask + 1) * sizeof(TTBucket))
    tt.generation = 0

cdef inline void tt_new_search(TranspositionTable* tt) noexcept nogil:
    tt.generation = <uint8_t>(tt.generation + GENERATION_STEP)

cdef inline TTBucket* tt_bucket(const TranspositionTable* tt, uint64_t key) noexcept nogil:
    if FC_DEBUG and (tt.buckets == NULL or (key & tt.mask) > tt.mask):
        fc_fail("transposition table index out of range")
    return &tt.buckets[key & tt.mask]

cdef inline void tt_prefetch(const TranspositionTable* tt, uint64_t key) noexcept nogil:
    """Start loading key's bucket into the cache; the probe that follows finds it there
    (the bucket load was the search's costliest instruction)."""
    fc_prefetch(&tt.buckets[key & tt.mask])

cdef inline bint tt_probe(const TranspositionTable* tt, uint64_t key, TTHit* hit) noexcept nogil:
    cdef TTBucket* bucket = tt_bucket(tt, key)
    cdef uint64_t data
    cdef int i
    for i in range(BUCKET_SIZE):
        data = bucket.entries[i].data
        if (bucket.entries[i].check ^ data) == key and data != 0:
            hit.move = <Move>(data & 0xFFFF)
            hit.score = <int16_t>((data >> 16) & 0xFFFF)
            hit.depth = entry_depth(data)
            hit.bound = (data >> 56) & 3
            return True
    return False

cdef inline void tt_store(TranspositionTable* tt, uint64_t key, Move m, int score, int eval,
                          int depth, int bound) noexcept nogil:
    """Write into the slot of the same key, else replace the shallowest, oldest entry."""
    cdef TTBucket* bucket = tt_bucket(tt, key)
    cdef TTEntry* slot = &bucket.entries[0]
    cdef TTEntry* e
    cdef uint64_t old
    cdef int i, worth, best_worth = 1 << 30
    for i in range(BUCKET_SIZE):
        e = &bucket.entries[i]
        old = e.data
        if (e.check ^ old) == key:
            if m == MOVE_NONE:
                m = <Move>(old & 0xFFFF)
            # Keep a deeper result of this search unless the new one is exact.
            if bound != BOUND_EXACT and written_this_search(tt, old) and entry_depth(old) > depth + KEEP_DEEPER_BY:
                return
            slot = e
            break
        worth = entry_depth(old) - AGE_PENALTY * entry_age(tt, old) if old != 0 else EMPTY_WORTH
        if worth < best_worth:
            best_worth = worth
            slot = e
    old = tt_pack(m, score, eval, depth, tt.generation | bound)
    slot.data = old
    slot.check = key ^ old

cdef int tt_hashfull(const TranspositionTable* tt) noexcept nogil:
    """Permille of sampled entries written in the current search."""
    cdef uint64_t samples = min(<uint64_t>250, tt.mask + 1), b
    cdef int i, used = 0
    for b in range(samples):
        for i in range(BUCKET_SIZE):
            if written_this_search(tt, tt.buckets[b].entries[i].data):
                used += 1
    return <int>(used * 1000 // (samples * BUCKET_SIZE))
