# The learned evaluation: an efficiently updatable network (768 -> H) x 2 -> 1, with
# one output layer (architecture 1) or eight chosen by the number of pieces
# (architecture 2, output buckets); architecture 3 adds king buckets to 2.
#
# Each side's view of the board is a set of active features (piece, square),
# mirrored for black. In architecture 3 a view also sees its own king on files
# a-d (the board mirrored left to right when it stands on e-h), and the king's
# square so seen picks one of K sets of 768 inputs (its "king view").
#
# The first layer's output for each view, the accumulator, is the bias plus the
# weight rows of the active features; a move changes at most four features, so
# the accumulator of a child is its parent's plus and minus a few rows (do_move
# records which in StateInfo.dirty_*). Accumulators are brought up to date
# lazily, when a node is evaluated; a king move that changes its side's king
# view cannot be replayed, and the accumulator is refreshed instead
# (current_accumulator). The output layer squares the clipped accumulators
# (SCReLU) and takes a dot product, on C integer arrays, with the vector
# kernels of simd.h. The file format is described in docs/training.md.

# The architectures (NNUE_ARCH_*), sizes and quantisation (NNUE_QA, NNUE_QB,
# NNUE_SCALE: a file may use others, which evaluate the same way with run-time
# divisors) come from the format table, network_format.py, through types.pxd.
cdef enum:
    NNUE_MAX_CHAIN = 12        # refresh instead of replaying longer chains of moves

# The Network struct is declared in types.pxd (positions point at one). Loaded
# networks are counted here, for `network_stats()` (api_learn.pxi): they change
# only with the GIL held, when a network is loaded or its last holder lets go.
cdef int NETWORKS_LOADED = 0
cdef size_t NETWORK_BYTES_LOADED = 0


cdef inline int feature_index(Color view, Piece pc, Square s) noexcept nogil:
    """Input number of piece pc on s as seen by `view` (black sees the board mirrored)."""
    return (384 * (color_of(pc) != view) + 64 * (type_of(pc) - 1)
            + (s ^ 56 if view == BLACK else s))

cdef extern from "platform/simd.h":
    # The vector kernels (simd.h): AVX-512, AVX2, SSE2 or plain C, as the build allows;
    # n is a row's length in memory (Network.lanes), a multiple of FC_SIMD_LANES.
    enum: FC_SIMD_LANES
    void fc_acc_add(int16_t* acc, const int16_t* row, int n) noexcept nogil
    void fc_acc_sub(int16_t* acc, const int16_t* row, int n) noexcept nogil
    void fc_acc_copy_add_sub(int16_t* acc, const int16_t* parent, const int16_t* a0,
                             const int16_t* s0, int n) noexcept nogil
    void fc_acc_copy_add_sub_sub(int16_t* acc, const int16_t* parent, const int16_t* a0,
                                 const int16_t* s0, const int16_t* s1, int n) noexcept nogil
    void fc_acc_refresh(int16_t* acc, const int16_t* bias, const int16_t* const* rows,
                        int count, int n) noexcept nogil
    int64_t fc_screlu_dot(const int16_t* acc, const int16_t* w, int n, int16_t qa) noexcept nogil
    const char* fc_simd_kind() noexcept nogil

ctypedef struct KingView:
    const int16_t* rows        # the first weight row of the view's king bucket
    int flip                   # 7: the view sees the board mirrored left to right
    int lanes                  # the network's row length

cdef inline int oriented(Color view, Square s) noexcept nogil:
    return s ^ 56 if view == BLACK else s

cdef inline int king_file_flip(int k) noexcept nogil:
    """7 (mirror the files) when a view's own king, seen from its side, is on e-h."""
    return 7 if k % 8 >= 4 else 0

cdef inline int king_layout_slot(int k) noexcept nogil:
    """The entry of a king-bucket layout (32 squares: files a-d) for a view's own
    king on k, seen from its side, once the files are mirrored."""
    cdef int mirrored = k ^ king_file_flip(k)
    return (mirrored // 8) * 4 + mirrored % 8

cdef inline KingView king_view(const Position* pos, Color view) noexcept nogil:
    """How `view` sees the board, from its own king's square (architecture 3; in
    the others every square gives no flip and the first rows)."""
    cdef const Network* net = pos.net
    cdef KingView kv
    cdef int k
    kv.lanes = net.lanes
    if net.king_buckets == 0:
        kv.flip = 0
        kv.rows = net.ft_weights
        return kv
    k = oriented(view, king_square(pos, view))
    kv.flip = net.king_flip[k]
    kv.rows = net.ft_weights + <size_t>net.king_base[k] * net.lanes
    return kv

cdef inline bint same_king_view(const Network* net, Color c, Square a, Square b) noexcept nogil:
    """c's view is the same with its king on a and on b."""
    cdef int x = oriented(c, a), y = oriented(c, b)
    return net.king_flip[x] == net.king_flip[y] and net.king_base[x] == net.king_base[y]

cdef inline bint changes_king_view(const Network* net, const StateInfo* st) noexcept nogil:
    """The move into st took a king to a square its side sees with another king view
    (architecture 3; the caller skips the test for the others)."""
    cdef int i
    for i in range(st.dirty_count):
        if type_of(st.dirty_piece[i]) == KING and st.dirty_from[i] != NO_SQUARE and st.dirty_to[i] != NO_SQUARE:
            return not same_king_view(net, color_of(st.dirty_piece[i]), st.dirty_from[i], st.dirty_to[i])
    return False

cdef inline const int16_t* weight_row(const KingView* kv, Color view, Piece pc, Square s) noexcept nogil:
    return kv.rows + feature_index(view, pc, s ^ kv.flip) * kv.lanes

cdef void accumulator_refresh(const Position* pos, Accumulator* acc) noexcept nogil:
    """Bias plus the rows of every piece on the board, for both views."""
    cdef const int16_t* rows[32]
    cdef int count
    cdef Color view
    cdef Bitboard b
    cdef Square s
    cdef KingView kv
    for view in range(2):
        kv = king_view(pos, view)
        count = 0
        b = pos.by_type[0]
        while b:
            s = pop_lsb(&b)
            rows[count] = weight_row(&kv, view, pos.board[s], s)
            count += 1
        fc_acc_refresh(acc.v[view], pos.net.ft_bias, rows, count, kv.lanes)

cdef void accumulator_update(const Accumulator* parent, Accumulator* acc,
                             const StateInfo* st, const KingView* views) noexcept nogil:
    """The parent's accumulator changed by the pieces the move moved, took or promoted.
    The rows to add and to subtract are gathered first; the two common shapes (a
    quiet move, a capture) are then applied in one pass, the others row by row.
    int16 sums wrap, so the order of the additions cannot change the result.
    `views` are both sides' king views, the same in parent and child."""
    cdef int h = views[0].lanes, i, adds, subs
    cdef const int16_t* add_rows[3]
    cdef const int16_t* sub_rows[3]
    cdef Color view
    for view in range(2):
        adds = 0
        subs = 0
        for i in range(st.dirty_count):
            if st.dirty_from[i] != NO_SQUARE:
                sub_rows[subs] = weight_row(&views[view], view, st.dirty_piece[i], st.dirty_from[i])
                subs += 1
            if st.dirty_to[i] != NO_SQUARE:
                add_rows[adds] = weight_row(&views[view], view, st.dirty_piece[i], st.dirty_to[i])
                adds += 1
        if adds == 1 and subs == 1:
            fc_acc_copy_add_sub(acc.v[view], parent.v[view], add_rows[0], sub_rows[0], h)
        elif adds == 1 and subs == 2:
            fc_acc_copy_add_sub_sub(acc.v[view], parent.v[view], add_rows[0], sub_rows[0],
                                    sub_rows[1], h)
        else:
            memcpy(acc.v[view], parent.v[view], h * sizeof(int16_t))
            for i in range(subs):
                fc_acc_sub(acc.v[view], sub_rows[i], h)
            for i in range(adds):
                fc_acc_add(acc.v[view], add_rows[i], h)

cdef Accumulator* current_accumulator(Position* pos) noexcept nogil:
    """The up-to-date accumulator of the current state: replay the moves since the
    nearest computed ancestor, or refresh when there is none close enough or a
    king changed its king view on the way (then the views of the states between
    are not those of the current one)."""
    cdef int top = pos.st_index, j = top
    cdef bint crossed = False, kings = pos.net.king_buckets != 0
    cdef KingView views[2]
    while j > 0 and not pos.states[j].acc_computed and top - j < NNUE_MAX_CHAIN:
        if kings and not crossed:
            crossed = changes_king_view(pos.net, &pos.states[j])
        j -= 1
    if pos.states[j].acc_computed and not crossed:
        views[0] = king_view(pos, WHITE)
        views[1] = king_view(pos, BLACK)
        while j < top:
            j += 1
            accumulator_update(&pos.accs[j - 1], &pos.accs[j], &pos.states[j], views)
            pos.states[j].acc_computed = True
    else:
        accumulator_refresh(pos, &pos.accs[top])
        pos.st.acc_computed = True
    if FC_DEBUG:
        verify_accumulator(pos, &pos.accs[top])
    return &pos.accs[top]

cdef bint accumulators_equal(const Accumulator* a, const Accumulator* b, int h) noexcept nogil:
    return (memcmp(a.v[0], b.v[0], h * sizeof(int16_t)) == 0
            and memcmp(a.v[1], b.v[1], h * sizeof(int16_t)) == 0)

cdef void verify_accumulator(const Position* pos, const Accumulator* acc) noexcept nogil:
    """Checked build: the incremental accumulator equals one built from scratch."""
    cdef Accumulator fresh
    accumulator_refresh(pos, &fresh)
    if not accumulators_equal(acc, &fresh, pos.net.lanes):
        fc_fail("incremental accumulator differs from a refresh")

cdef inline int output_bucket(const Position* pos) noexcept nogil:
    """The output layer that reads pos: (pieces - 2) * buckets / 32, i.e. (pieces - 2) / 4
    with eight (learn/network.py's output_buckets)."""
    cdef int b = (fc_popcount(pos.by_type[0]) - 2) * pos.net.buckets // 32
    return max(0, min(pos.net.buckets - 1, b))

cdef inline int64_t scale_output(const Network* net, int64_t total, int64_t bias) noexcept nogil:
    """The output sum in centipawns: (total / QA + bias) * scale / (QA * QB), each
    division rounding toward zero. With the trainer's quantisation the divisors are
    constants, which the compiler turns into multiplications: two 64-bit divisions
    were the slowest instructions of the evaluation. Same results either way."""
    if net.qa == NNUE_QA and net.qb == NNUE_QB and net.scale == NNUE_SCALE:
        return (total // NNUE_QA + bias) * NNUE_SCALE // (NNUE_QA * NNUE_QB)
    return (total // net.qa + bias) * net.scale // (net.qa * net.qb)

cdef inline int network_output(const Network* net, const Accumulator* acc, Color side,
                               int bucket) noexcept nogil:
    """Centipawns for the side to move from the two views of an accumulator."""
    cdef int h = net.lanes
    cdef const int16_t* weights = net.out_weights + bucket * 2 * h
    cdef int64_t total = (fc_screlu_dot(acc.v[side], weights, h, net.qa)
                          + fc_screlu_dot(acc.v[side ^ 1], weights + h, h, net.qa))
    cdef int64_t cp = scale_output(net, total, net.out_bias[bucket])
    return <int>max(-VALUE_NETWORK_MAX, min(VALUE_NETWORK_MAX, cp))

cdef inline void warm_accumulator(Position* pos) noexcept nogil:
    """Bring the accumulator up to date now rather than at the first evaluation.
    At the root, before a search: the root is never evaluated itself, so without
    this the first node of many lines would find no computed ancestor and rebuild
    its accumulator from scratch. Right after a move, while the child's hash
    bucket (prefetched just before) is on its way from memory: the child's first
    act is the table probe, which waits on that load, and the update's vector work
    now fills the wait instead of following it. Same evaluations, same tree; a
    node that returns before evaluating has paid for an update it did not need,
    which costs less than the wait saves (bench 1.05x, median of 18 alternating
    runs)."""
    if pos.net != NULL and pos.accs != NULL:
        current_accumulator(pos)

cdef int nnue_evaluate(const Position* pos) noexcept nogil:
    """The network's score of pos in centipawns, side to move's view. Positions that
    keep accumulators use them; others build one on the stack."""
    cdef Accumulator scratch
    if pos.accs != NULL:
        return network_output(pos.net, current_accumulator(<Position*>pos), pos.side, output_bucket(pos))
    accumulator_refresh(pos, &scratch)
    return network_output(pos.net, &scratch, pos.side, output_bucket(pos))

cdef inline int evaluate(const Position* pos) noexcept nogil:
    """The static evaluation the search uses: the position's network when it has
    one, else the hand-crafted evaluation. Centipawns, side to move's view."""
    if pos.net != NULL:
        return nnue_evaluate(pos)
    return evaluate_hce(pos)


# --- network files -------------------------------------------------------------------

cdef uint32_t fnv1a32(const uint8_t* data, size_t n) noexcept nogil:
    cdef uint32_t h = 2166136261U
    cdef size_t i
    for i in range(n):
        h = (h ^ data[i]) * 16777619U
    return h

cdef void network_free(Network* net) noexcept nogil:
    """Free the weights of a network that no position points at any more."""
    global NETWORKS_LOADED, NETWORK_BYTES_LOADED
    if net.ft_weights != NULL:
        NETWORKS_LOADED -= 1
        NETWORK_BYTES_LOADED -= net.bytes
    free(net.ft_weights)
    net.ft_weights = NULL
    net.ft_bias = NULL
    net.out_weights = NULL
    net.hidden = 0
    net.lanes = 0
    net.bytes = 0

cdef bint network_alloc(Network* net, int hidden, int buckets, int king_buckets) noexcept nogil:
    """One zeroed block for all the int16 parameters, rows of `lanes` (on huge pages
    where there are: rows are read at random); False when memory is short. The
    king views are set by the loader (set_king_views); until then every square
    has the first rows."""
    cdef size_t inputs = <size_t>NNUE_INPUTS * max(1, king_buckets)
    cdef int lanes = (hidden + FC_SIMD_LANES - 1) // FC_SIMD_LANES * FC_SIMD_LANES
    cdef size_t count = (inputs + 1 + 2 * buckets) * lanes
    global NETWORKS_LOADED, NETWORK_BYTES_LOADED
    net.ft_weights = <int16_t*>fc_alloc_table(count * sizeof(int16_t))
    if net.ft_weights == NULL:
        return False
    net.bytes = count * sizeof(int16_t)
    NETWORKS_LOADED += 1
    NETWORK_BYTES_LOADED += net.bytes
    net.ft_bias = net.ft_weights + inputs * lanes
    net.out_weights = net.ft_bias + lanes
    net.hidden = hidden
    net.lanes = lanes
    net.buckets = buckets
    net.king_buckets = king_buckets
    memset(net.king_flip, 0, sizeof(net.king_flip))
    memset(net.king_base, 0, sizeof(net.king_base))
    return True


# --- accumulator storage for positions that search --------------------------------------

cdef bint attach_accumulators(Position* pos, Accumulator** storage, int* capacity) noexcept nogil:
    """Give pos one accumulator per state slot, growing `storage` when needed (on
    cache-line boundaries: free it with fc_free_aligned)."""
    if capacity[0] < pos.st_capacity:
        fc_free_aligned(storage[0])
        storage[0] = <Accumulator*>fc_alloc_aligned(sizeof(Accumulator) * pos.st_capacity)
        if storage[0] == NULL:
            capacity[0] = 0
            pos.accs = NULL
            return False
        capacity[0] = pos.st_capacity
    pos.accs = storage[0]
    return True
