# The Python face of learning: the hand-crafted evaluation of a Board, the
# self-play worker behind `fianchetto datagen`, stored games replayed into records,
# evaluation traces for Texel tuning and the trainer's kernels. Networks are
# loaded in api_network.pxi.

import struct as _struct
from array import array

DATA_MAGIC = b"FIANDATA"
DATA_HEADER = _struct.Struct("<8sII")
DATA_RECORD_BYTES = RECORD_BYTES
DATA_VERSION = 1


def evaluate_hand_crafted(Board board):
    """The hand-crafted static evaluation of board (side to move's view)."""
    refresh_incremental_eval(&board.pos)
    return evaluate_hce(&board.pos)


cdef class SelfPlayWorker:
    """Plays self-play games in the core for `fianchetto datagen`: one search thread
    with its own hash table, never shared, so a seed always gives the same game."""
    cdef SearchThread* t
    cdef TranspositionTable tt
    cdef SharedState shared
    cdef PackedRecord* records
    cdef int record_capacity
    cdef PlyRecord* plies          # every ply of the last game (random opening included)
    cdef int ply_capacity
    cdef int ply_count
    cdef LoadedNetwork network     # the evaluation the games are played with (None: hand-crafted)
    cdef SyzygyTables tables       # the tables that end games early (None: none)

    def __cinit__(self, hash_mb=16, max_plies=400, LoadedNetwork network=None, SyzygyTables tables=None):
        self.network = network
        self.tables = tables
        self.t = thread_new(0)
        self.record_capacity = int(max_plies) + 8
        self.records = <PackedRecord*>malloc(sizeof(PackedRecord) * self.record_capacity)
        if self.t == NULL or self.records == NULL or not tt_allocate(&self.tt, max(1, int(hash_mb))):
            raise MemoryError()

    def __dealloc__(self):
        thread_free(self.t)
        free(self.records)
        free(self.plies)
        free(self.tt.buckets)

    cdef void _reset(self, Board start) except *:
        """A fresh thread (no history, no killers) on a copy of start, with an empty table."""
        cdef SearchThread* t = self.t
        thread_forget(t)
        if not thread_set_position(t, &start.pos, self.record_capacity + 64):
            raise MemoryError()
        t.pos.net = &self.network.net if self.network is not None else NULL
        t.tt = &self.tt
        t.shared = &self.shared
        t.pos.tables = tables_pointer(self.tables)
        t.tb_pieces = min(tables_largest(self.tables), 7)
        t.tb_50_move_rule = True
        t.tb_probe_depth = 1
        tt_clear(&self.tt)

    def play(self, Board start, uint64_t seed, *, uint64_t nodes=5000, int random_plies=8,
             int max_opening_score=400, int max_plies=400, int win_score=1500, int win_plies=8,
             int draw_score=8, int draw_plies=16, int draw_min_ply=80, bint tablebases=True):
        """Play one game from `start`. Returns (records, white's result 0/1/2 or None when
        the game was discarded, plies played): records are the kept positions, packed."""
        cdef SelfPlayConfig cfg
        cdef int count = 0, result
        cfg.nodes = max(1, nodes)
        cfg.random_plies = max(0, random_plies)
        cfg.max_opening_score = max_opening_score
        cfg.max_plies = max(1, min(max_plies, self.record_capacity - 8))
        cfg.win_score, cfg.win_plies = win_score, max(1, win_plies)
        cfg.draw_score, cfg.draw_plies, cfg.draw_min_ply = draw_score, max(1, draw_plies), draw_min_ply
        self._reset(start)
        self._reserve_plies(self.record_capacity + cfg.random_plies)
        cfg.tb_pieces = self.t.tb_pieces if tablebases else 0
        with nogil:
            result = play_selfplay_game(self.t, &cfg, seed, self.records, self.record_capacity, &count,
                                        self.plies, &self.ply_count)
        plies = self.t.pos.st_index - start.pos.st_index
        if result == GAME_DISCARDED:
            return b"", None, plies
        return (<char*>self.records)[:count * RECORD_BYTES], result, plies

    cdef void _reserve_plies(self, int capacity) except *:
        if capacity > self.ply_capacity:
            free(self.plies)
            self.plies = <PlyRecord*>malloc(sizeof(PlyRecord) * capacity)
            self.ply_capacity = capacity if self.plies != NULL else 0
            if self.plies == NULL:
                raise MemoryError()
        self.ply_count = 0

    def last_game_plies(self):
        """Every ply of the last game played, random opening included: PLY_BYTES bytes
        each, the move (uint16, the core's encoding) and its search score (int16, side
        to move's view; PLY_UNSCORED for the random plies). Empty before any game."""
        return (<char*>self.plies)[:self.ply_count * sizeof(PlyRecord)] if self.ply_count else b""


PLY_BYTES = sizeof(PlyRecord)
PLY_NO_SCORE = PLY_UNSCORED


def encode_game_plies(Board start, moves, scores):
    """The plies of a stored game (the inverse of a game's replay): each UCI move of
    `moves`, played from `start`, with its score (side to move's view, search
    units; None for an unscored ply). ValueError naming the first ply whose move
    is malformed or illegal, or whose score is out of range."""
    cdef Board replay = start.copy()
    cdef int count = len(moves), i
    cdef Move move
    cdef PlyRecord* out
    if len(scores) != count:
        raise ValueError(f"{count} moves but {len(scores)} scores")
    replay._reserve(count + 1)
    out = <PlyRecord*>malloc(sizeof(PlyRecord) * max(1, count))
    if out == NULL:
        raise MemoryError()
    try:
        for i in range(count):
            text = moves[i]
            move = parse_uci_move(&replay.pos, text, replay.pos.chess960) if isinstance(text, str) else MOVE_NONE
            if move == MOVE_NONE or not is_legal_move(&replay.pos, move):
                raise ValueError(f"ply {i + 1}: {moves[i]!r} is not a legal move in {replay.fen()}")
            score = scores[i]
            if score is not None and not -VALUE_INFINITE < score < VALUE_INFINITE:
                raise ValueError(f"ply {i + 1}: score {score} is out of range")
            out[i].move = move
            out[i].score = PLY_UNSCORED if score is None else score
            do_move(&replay.pos, move)
        return (<char*>out)[:count * sizeof(PlyRecord)]
    finally:
        free(out)


def replay_game_records(Board start, bytes plies, int result, *, int skip_plies=0,
                        int max_score=VALUE_TB_WIN_IN_MAX_PLY):
    """The FIANDATA records (32 bytes each) of a stored game: replay its plies from
    `start` and keep each scored position that is not in check, whose move (the best
    move found) neither captures nor promotes, whose |score| is below `max_score`,
    and that comes after the first `skip_plies` scored plies. `result` is white's
    (0, 1, 2). ValueError when a ply is not a legal move of its position."""
    cdef Board replay = start.copy()
    cdef const PlyRecord* rec = <const PlyRecord*><const char*>plies
    cdef int count = len(plies) // sizeof(PlyRecord), i, kept = 0, scored = 0
    cdef PackedRecord* out
    if len(plies) % sizeof(PlyRecord):
        raise ValueError(f"{len(plies)} bytes of plies is not a whole number of {sizeof(PlyRecord)}-byte plies")
    if not 0 <= result <= 2:
        raise ValueError(f"result {result} is not 0, 1 or 2")
    replay._reserve(count + 1)
    out = <PackedRecord*>malloc(sizeof(PackedRecord) * max(1, count))
    if out == NULL:
        raise MemoryError()
    try:
        for i in range(count):
            if not is_legal_move(&replay.pos, rec[i].move):
                raise ValueError(f"ply {i + 1} of the game is not a legal move")
            if rec[i].score != PLY_UNSCORED:
                scored += 1
                if scored > skip_plies and iabs(rec[i].score) < max_score \
                        and keep_position(&replay.pos, rec[i].move, rec[i].score):
                    pack_record(&replay.pos, rec[i].score, &out[kept])
                    out[kept].result = result if out[kept].stm == WHITE else 2 - result
                    kept += 1
            do_move(&replay.pos, rec[i].move)
        return (<char*>out)[:kept * RECORD_BYTES]
    finally:
        free(out)


# --- tracing the hand-crafted evaluation, for Texel tuning ------------------------------

HCE_WEIGHT_COUNT = N_WEIGHTS


def hce_traces(records):
    """For each 32-byte FIANDATA record: which weights the hand-crafted evaluation
    adds, and how often (white minus black). Returns a dict of bytes, to be read
    with numpy: `offsets` (int32, n + 1) into `index` (int16: weight number, plus
    N_WEIGHTS for an endgame part) and `count` (int16); per record `phase` (int16),
    `king_danger` (int16, middlegame centipawns, white's view), `drawish` (int8,
    the 1/8 scaling applied) and `eval` (int16, evaluate_hce, side to move's view)."""
    cdef bytes raw = bytes(records)
    cdef int n = len(raw) // RECORD_BYTES, i, w, kd = 0
    cdef bint drawish = False
    cdef const PackedRecord* recs = <const PackedRecord*><const char*>raw
    cdef int trace[2 * N_WEIGHTS]
    cdef StateInfo states[4]
    cdef Position pos
    offsets, index, count = array("i", [0]), array("h"), array("h")
    phase, danger, scaled, evals = array("h"), array("h"), array("b"), array("h")
    pos.states = states
    pos.st_capacity = 4
    for i in range(n):
        memset(trace, 0, sizeof(trace))
        position_from_record(&pos, &recs[i])
        evals.append(trace_hce(&pos, trace, &kd, &drawish))
        for w in range(2 * N_WEIGHTS):
            if trace[w] != 0:
                index.append(w)
                count.append(trace[w])
        offsets.append(len(index))
        phase.append(min(pos.st.phase, PHASE_MAX))
        danger.append(kd)
        scaled.append(drawish)
    return {"offsets": offsets.tobytes(), "index": index.tobytes(), "count": count.tobytes(),
            "phase": phase.tobytes(), "king_danger": danger.tobytes(), "drawish": scaled.tobytes(),
            "eval": evals.tobytes()}


# --- the trainer's first layer, on padded feature lists ----------------------------------
# A position has at most 32 of the 768 inputs set, so the first layer's forward
# pass is a sum of a few weight rows and its weight gradient a scatter of a few
# gradient rows: about 25 times less work than a product with the one-hot
# matrix. The trainer (learn/train.py) passes numpy arrays; features are int16,
# and entries outside [0, rows) are padding.

ctypedef fused learn_real:
    float
    double


# The trainer's decoding of FIANDATA records (PackedRecord, datagen.pxi) into both
# views' padded feature lists, one pass per record, by the search's own feature
# numbering (feature_index and the king views of nnue.pxi; fianchetto.learn.data's
# feature_index is the same rule in numpy).

cdef enum:
    RECORD_PIECES = 32          # piece codes a record holds, two to a byte
    FEATURE_PAD = 32767         # pads a feature list (learn.data.PAD_FEATURE)

cdef enum DecodeProblem:        # what decode_features found wrong in a batch, as bits
    RECORD_TOO_MANY_PIECES = 1
    RECORD_BAD_PIECE_CODE = 2
    RECORD_BAD_SIDE_TO_MOVE = 4
    RECORD_BAD_RESULT = 8

DECODE_TOO_MANY_PIECES = RECORD_TOO_MANY_PIECES
DECODE_BAD_PIECE_CODE = RECORD_BAD_PIECE_CODE
DECODE_BAD_SIDE_TO_MOVE = RECORD_BAD_SIDE_TO_MOVE
DECODE_BAD_RESULT = RECORD_BAD_RESULT


cdef int view_features(const PackedRecord* rec, Color view, Square king, const int16_t* layout,
                       int16_t* out) noexcept nogil:
    """One view's padded feature list; returns RECORD_BAD_PIECE_CODE or 0. With a
    layout (king buckets) the view mirrors left to right when its own king, seen
    from its side, stands on files e-h, and its bucket offsets every index."""
    cdef int flip = 0, base = 0, slot = 0, problem = 0
    cdef Bitboard b = rec.occupancy
    cdef Piece pc
    if layout != NULL:
        flip = king_file_flip(oriented(view, king))
        base = NNUE_INPUTS * layout[king_layout_slot(oriented(view, king))]
    while b:
        pc = record_piece(rec, slot)
        if type_of(pc) == 0 or type_of(pc) > KING:
            problem = RECORD_BAD_PIECE_CODE
        out[slot] = <int16_t>(base + feature_index(view, pc, pop_lsb(&b) ^ flip))
        slot += 1
    while slot < RECORD_PIECES:
        out[slot] = FEATURE_PAD
        slot += 1
    return problem


cdef void record_kings(const PackedRecord* rec, Square* kings) noexcept nogil:
    """Each colour's king square (the last one listed; a1 when it has none)."""
    cdef Bitboard b = rec.occupancy
    cdef int slot = 0
    cdef Piece pc
    kings[WHITE] = kings[BLACK] = 0
    while b:
        pc = record_piece(rec, slot)
        if type_of(pc) == KING:
            kings[color_of(pc)] = fc_lsb(b)
        b &= b - 1
        slot += 1


def decode_features(const uint8_t[:, ::1] records, const int16_t[::1] layout, int16_t[:, ::1] out):
    """Both views' padded feature lists of n 32-byte records: out[i] the side to
    move's of record i, out[n + i] the other side's, each piece in increasing
    square order, then padding. An empty layout is the plain 768 inputs; else the
    king-bucket table of 32 entries. Returns (problems, most pieces): problems
    are DECODE_* bits, the records are not usable when any is set."""
    cdef Py_ssize_t n = records.shape[0], i
    cdef int problems = 0, most = 0, count
    cdef Color stm
    cdef Square kings[2]
    cdef const PackedRecord* rec
    cdef const int16_t* table = &layout[0] if layout.shape[0] else NULL
    if records.shape[1] != RECORD_BYTES or out.shape[0] != 2 * n or out.shape[1] != RECORD_PIECES:
        raise ValueError(f"shapes do not fit: records {n}x{records.shape[1]}, out {out.shape[0]}x{out.shape[1]}")
    if layout.shape[0] not in (0, 32):
        raise ValueError(f"a king-bucket layout has 32 entries, not {layout.shape[0]}")
    with nogil:
        for i in range(n):
            rec = <const PackedRecord*>&records[i, 0]
            count = fc_popcount(rec.occupancy)
            if count > most:
                most = count
            if rec.result > 2:
                problems |= RECORD_BAD_RESULT
            if rec.stm > 1:
                problems |= RECORD_BAD_SIDE_TO_MOVE
            if count > RECORD_PIECES:
                problems |= RECORD_TOO_MANY_PIECES
                continue
            stm = rec.stm & 1
            record_kings(rec, kings)
            problems |= view_features(rec, stm, kings[stm], table, &out[i, 0])
            problems |= view_features(rec, stm ^ 1, kings[stm ^ 1], table, &out[n + i, 0])
    return problems, most


cdef enum:
    MAX_FEATURE_SLOTS = 64      # the longest feature list sparse_accumulate takes whole


cdef void sum_rows(learn_real* dst, const learn_real* bias, const learn_real** rows, int count,
                   Py_ssize_t h) noexcept nogil:
    """dst = bias + rows[0] + ... + rows[count - 1], each column summed in that order."""
    cdef Py_ssize_t j
    cdef int r
    cdef learn_real total
    if learn_real is float:
        fc_f32_sum_rows(dst, bias, rows, count, <int>h)
        return
    for j in range(h):
        total = bias[j]
        for r in range(count):
            total += rows[r][j]
        dst[j] = total


def sparse_accumulate(const learn_real[:, ::1] rows, const learn_real[::1] bias,
                      const int16_t[:, ::1] features, learn_real[:, ::1] out):
    """out[i] = bias + the sum of rows[f] over the features f of position i (summed
    in the features' order, in registers a slice of columns at a time)."""
    cdef Py_ssize_t n = features.shape[0], slots = features.shape[1], h = rows.shape[1]
    cdef Py_ssize_t i, k
    cdef int f, count, inputs = <int>rows.shape[0]
    cdef const learn_real* chosen[MAX_FEATURE_SLOTS]
    if bias.shape[0] != h or out.shape[0] != n or out.shape[1] != h:
        raise ValueError(f"shapes do not fit: rows {rows.shape[0]}x{h}, bias {bias.shape[0]}, "
                         f"features {n}x{slots}, out {out.shape[0]}x{out.shape[1]}")
    if slots > MAX_FEATURE_SLOTS:
        raise ValueError(f"feature lists of {slots}: at most {MAX_FEATURE_SLOTS}")
    if h == 0:
        return
    with nogil:
        for i in range(n):
            count = 0
            for k in range(slots):
                f = features[i, k]
                if 0 <= f < inputs:
                    chosen[count] = &rows[f, 0]
                    count += 1
            sum_rows(&out[i, 0], &bias[0], chosen, count, h)


cdef enum:
    GRADIENT_BLOCK = 256        # positions whose gradient rows (512 KB at H = 512) stay in L2 together


def sparse_gradient(const int16_t[:, ::1] features, const learn_real[:, ::1] grad,
                    learn_real[:, ::1] out):
    """out[f] += grad[i] for every feature f of position i (out holds the rows'
    gradient; the caller zeroes it). GRADIENT_BLOCK positions at a time: their
    rows are listed under each feature they have (a counting sort), and each
    feature's gradient row then takes its list in one pass, in registers
    (sum_rows), instead of being read and written once per position. The
    positions keep their order in every list, so each sum is the one the plain
    loop makes, to the bit."""
    cdef Py_ssize_t n = features.shape[0], slots = features.shape[1], h = grad.shape[1]
    cdef Py_ssize_t i, k, first, last
    cdef int f, begin, end, inputs = <int>out.shape[0]
    cdef int* ends
    cdef const learn_real** listed
    if grad.shape[0] != n or out.shape[1] != h:
        raise ValueError(f"shapes do not fit: features {n}x{slots}, grad {grad.shape[0]}x{h}, "
                         f"out {out.shape[0]}x{out.shape[1]}")
    if n == 0 or h == 0 or slots == 0:
        return
    ends = <int*>malloc(inputs * sizeof(int))
    listed = <const learn_real**>malloc(GRADIENT_BLOCK * slots * sizeof(learn_real*))
    if ends == NULL or listed == NULL:
        free(ends)
        free(<void*>listed)
        raise MemoryError()
    first = 0
    with nogil:
        while first < n:
            last = min(first + <Py_ssize_t>GRADIENT_BLOCK, n)
            memset(ends, 0, inputs * sizeof(int))
            for i in range(first, last):        # how many rows each feature takes
                for k in range(slots):
                    f = features[i, k]
                    if 0 <= f < inputs:
                        ends[f] += 1
            end = 0
            for f in range(inputs):             # where each feature's list starts
                end += ends[f]
                ends[f] = end - ends[f]
            for i in range(first, last):        # the lists, positions in order
                for k in range(slots):
                    f = features[i, k]
                    if 0 <= f < inputs:
                        listed[ends[f]] = &grad[i, 0]
                        ends[f] += 1            # now where the list ends
            begin = 0
            for f in range(inputs):
                if ends[f] > begin:
                    sum_rows(&out[f, 0], &out[f, 0], listed + begin, ends[f] - begin, h)
                begin = ends[f]
            first = last
    free(ends)
    free(<void*>listed)


# The output layer of training, forward and backward, each one pass over the
# accumulators (numpy took seven: clip, square, gather, products, masks). On
# float32 the vector kernels of learn_simd.h; on float64 (the gradient checks of
# the tests) the same arithmetic in plain loops.

cdef extern from "learn/learn_simd.h":
    void fc_f32_sum_rows(float* dst, const float* bias, const float* const* rows, int count, int n) noexcept nogil
    float fc_f32_screlu_dot(const float* acc, const float* w, int n) noexcept nogil
    void fc_f32_screlu_backward(float* acc, const float* w, float* dw, float* db, float g, int n) noexcept nogil
    void fc_f32_adam(float* p, const float* g, float* m, float* v, long n, float b1, float c1, float b2,
                     float c2, float step, float eps, float clip) noexcept nogil


cdef inline double clamp01(double a) noexcept nogil:
    return 0.0 if a < 0.0 else (1.0 if a > 1.0 else a)


cdef learn_real screlu_dot(const learn_real* acc, const learn_real* w, Py_ssize_t h) noexcept nogil:
    """sum of clamp(acc[j], 0, 1)^2 * w[j]."""
    cdef double total = 0.0, c
    cdef Py_ssize_t j
    if learn_real is float:
        return fc_f32_screlu_dot(acc, w, <int>h)
    for j in range(h):
        c = clamp01(acc[j])
        total += c * c * w[j]
    return <learn_real>total


cdef void screlu_backward(learn_real* acc, const learn_real* w, learn_real* d_w, learn_real* d_b, learn_real g,
                          Py_ssize_t h) noexcept nogil:
    """One view's row: d_w += g c^2, and acc = 2 g w c where c = clamp(acc, 0, 1) < 1,
    else 0, which d_b (the first layer's bias gradient) adds."""
    cdef learn_real c
    cdef Py_ssize_t j
    if learn_real is float:
        fc_f32_screlu_backward(acc, w, d_w, d_b, g, <int>h)
        return
    for j in range(h):
        c = <learn_real>clamp01(acc[j])
        d_w[j] += g * c * c
        acc[j] = 2 * g * w[j] * c if c < 1 else 0
        d_b[j] += acc[j]


cdef check_output_shapes(Py_ssize_t rows, Py_ssize_t h, Py_ssize_t n, Py_ssize_t weight_rows,
                         Py_ssize_t weight_cols, Py_ssize_t biases, const int64_t[::1] bucket):
    """ValueError unless the arrays of output_forward or output_backward fit together."""
    cdef Py_ssize_t i
    if rows != 2 * n or weight_cols != 2 * h or h % 16 or biases != weight_rows or bucket.shape[0] != n:
        raise ValueError(f"shapes do not fit: accumulators {rows}x{h}, {n} positions, "
                         f"output weights {weight_rows}x{weight_cols}, {biases} biases, {bucket.shape[0]} buckets")
    for i in range(n):
        if not 0 <= bucket[i] < weight_rows:
            raise ValueError(f"output bucket {bucket[i]} of position {i} is not one of 0..{weight_rows - 1}")


def output_forward(const learn_real[:, ::1] acc, const learn_real[:, ::1] out_w,
                   const learn_real[::1] out_b, const int64_t[::1] bucket, learn_real[::1] y):
    """y[i] = screlu(acc[i]) . out_w[b, :H] + screlu(acc[n + i]) . out_w[b, H:] + out_b[b]
    with b = bucket[i], for the n positions whose side to move's accumulator is row
    i of acc and the other side's row n + i (acc before the activation, H a
    multiple of 16)."""
    cdef Py_ssize_t n = y.shape[0], h = acc.shape[1], i
    cdef int64_t b
    check_output_shapes(acc.shape[0], h, n, out_w.shape[0], out_w.shape[1], out_b.shape[0], bucket)
    with nogil:
        for i in range(n):
            b = bucket[i]
            y[i] = (screlu_dot(&acc[i, 0], &out_w[b, 0], h) + screlu_dot(&acc[n + i, 0], &out_w[b, h], h)
                    + out_b[b])


def output_backward(learn_real[:, ::1] acc, const learn_real[:, ::1] out_w, const int64_t[::1] bucket,
                    const learn_real[::1] dy, learn_real[:, ::1] d_out_w, learn_real[::1] d_out_b,
                    learn_real[::1] d_ft_b):
    """From dL/dy of each position, add the output layer's gradients to d_out_w and
    d_out_b, turn acc (the accumulators of output_forward) into dL/d acc, in
    place: 2 c w dy where c = clamp(acc, 0, 1) is below 1, else 0, and add
    every row of it to d_ft_b (the first layer's bias gradient)."""
    cdef Py_ssize_t n = dy.shape[0], h = acc.shape[1], i, view
    cdef int64_t b
    check_output_shapes(acc.shape[0], h, n, out_w.shape[0], out_w.shape[1], d_out_b.shape[0], bucket)
    if d_out_w.shape[0] != out_w.shape[0] or d_out_w.shape[1] != out_w.shape[1] or d_ft_b.shape[0] != h:
        raise ValueError(f"shapes do not fit: output weights {out_w.shape[0]}x{out_w.shape[1]}, "
                         f"their gradient {d_out_w.shape[0]}x{d_out_w.shape[1]}, bias gradient {d_ft_b.shape[0]}")
    with nogil:
        for i in range(n):
            b = bucket[i]
            d_out_b[b] += dy[i]
            for view in range(2):
                screlu_backward(&acc[i + view * n, 0], &out_w[b, view * h], &d_out_w[b, view * h], &d_ft_b[0],
                                dy[i], h)


def adam_update(float[::1] param, const float[::1] grad, float[::1] m, float[::1] v, double beta1,
                double beta2, double step, double eps, double clip):
    """One Adam step of a parameter array, flattened, in one pass (in float32, as
    numpy's Adam): m = beta1 m + (1 - beta1) grad, v = beta2 v + (1 - beta2) grad^2,
    param -= step m / (sqrt(v) + eps), then param clipped to [-clip, clip] (clip
    may be infinite). step is the learning rate with the bias correction."""
    cdef Py_ssize_t n = param.shape[0]
    if grad.shape[0] != n or m.shape[0] != n or v.shape[0] != n:
        raise ValueError(f"shapes do not fit: {n} parameters, {grad.shape[0]} gradients, "
                         f"{m.shape[0]} and {v.shape[0]} moments")
    if n == 0:
        return
    with nogil:
        fc_f32_adam(&param[0], &grad[0], &m[0], &v[0], <long>n, <float>beta1, <float>(1.0 - beta1),
                    <float>beta2, <float>(1.0 - beta2), <float>step, <float>eps, <float>clip)
