# The Python face of the evaluation network: a network file checked whole and
# loaded as a value. A LoadedNetwork is immutable; every search that evaluates
# with it (a Search, a SelfPlayWorker) holds a reference, and its weights are
# freed when the last holder lets go. Loading the same bytes again gives the
# same object while it lives, so many engines share one copy of the weights.

import hashlib as _hashlib
import struct as _struct
import weakref as _weakref

from core_cy import network_format as _format

# The format as Python reads it, from the one table (network_format.py) whose
# numbers the C constants above were generated from.
NETWORK_MAGIC = _format.MAGIC
NETWORK_HEADER = _struct.Struct(_format.header_struct_format())
NETWORK_HEADER_BYTES = NNUE_HEADER_BYTES
NETWORK_INPUTS = NNUE_INPUTS
NETWORK_MAX_HIDDEN = NNUE_MAX_HIDDEN
#: Architecture -> output buckets.
NETWORK_OUTPUT_BUCKETS = _format.output_buckets()
#: King buckets -> the bucket of each square of files a-d (index rank * 4 + file) where
#: a view's own king stands, seen from its side (architecture 3).
NETWORK_KING_BUCKET_LAYOUTS = dict(_format.KING_BUCKET_LAYOUTS)
#: (QA, QB, scale) evaluated with constant divisors.
NETWORK_QUANTISATION = (NNUE_QA, NNUE_QB, NNUE_SCALE)


def _network_header(data):
    """The header fields of a network file as a dict; ValueError naming what is wrong."""
    if len(data) < NNUE_HEADER_BYTES:
        raise ValueError(f"truncated network file ({len(data)} bytes, the header alone is {NNUE_HEADER_BYTES})")
    (magic, version, arch, inputs, hidden, qa, qb, scale, payload, checksum,
     king_buckets) = NETWORK_HEADER.unpack_from(data, 0)
    if magic != NETWORK_MAGIC:
        raise ValueError("not a Fianchetto network file (bad magic)")
    if version != NNUE_VERSION:
        raise ValueError(f"network file version {version}, this engine reads version {NNUE_VERSION}")
    if arch == NNUE_ARCH_KING_BUCKETS and king_buckets not in NETWORK_KING_BUCKET_LAYOUTS:
        raise ValueError(f"network with {king_buckets} king buckets; this engine reads "
                         f"{', '.join(map(str, NETWORK_KING_BUCKET_LAYOUTS))}")
    if arch != NNUE_ARCH_KING_BUCKETS and king_buckets != 0:
        raise ValueError(f"network architecture {arch} with {king_buckets} king buckets")
    if arch not in NETWORK_OUTPUT_BUCKETS or inputs != NNUE_INPUTS * max(1, king_buckets):
        raise ValueError(f"unknown network architecture {arch} with {inputs} inputs")
    buckets = NETWORK_OUTPUT_BUCKETS[arch]
    if not (NNUE_MIN_HIDDEN <= hidden <= NNUE_MAX_HIDDEN and hidden % NNUE_HIDDEN_STEP == 0):
        raise ValueError(f"hidden layer of {hidden} not supported ({NNUE_MIN_HIDDEN}..{NNUE_MAX_HIDDEN}, "
                         f"a multiple of {NNUE_HIDDEN_STEP})")
    if not (1 <= qa <= 255 and 1 <= qb <= 1024 and 1 <= scale <= 10000):
        raise ValueError(f"quantisation out of range (QA {qa}, QB {qb}, scale {scale})")
    expected = 2 * (inputs * hidden + hidden + 2 * hidden * buckets) + 4 * buckets
    if payload != expected:
        raise ValueError(f"payload of {payload} bytes, the architecture needs {expected}")
    if len(data) != NNUE_HEADER_BYTES + payload:
        raise ValueError(f"network file is {len(data)} bytes, expected {NNUE_HEADER_BYTES + payload} (truncated or padded)")
    return dict(hidden=hidden, buckets=buckets, king_buckets=king_buckets, inputs=inputs, qa=qa, qb=qb,
                scale=scale, checksum=checksum)


cdef bint network_in_range(const Network* net, int inputs) noexcept nogil:
    """Accumulators cannot overflow int16 (32 pieces) and v * w fits 16 bits."""
    cdef int i, f, lanes = net.lanes, worst
    for i in range(2 * lanes * net.buckets):
        if iabs(net.out_weights[i]) > NNUE_MAX_OUT_WEIGHT:
            return False
    for i in range(net.hidden):
        worst = iabs(net.ft_bias[i])
        for f in range(inputs):
            worst = max(worst, iabs(net.ft_bias[i]) + 32 * iabs(net.ft_weights[f * lanes + i]))
        if worst > 32767:
            return False
    return True


cdef void copy_padded_rows(Network* net, const int16_t* rows, size_t count) noexcept nogil:
    """The file's `count` rows of `hidden` int16 (first-layer weights, bias, then
    each output layer's two halves), in order, into the network's rows of `lanes`.
    The file's bytes are little-endian int16, as every supported CPU reads them."""
    cdef size_t r
    for r in range(count):
        memcpy(net.ft_weights + r * net.lanes, rows + r * net.hidden, net.hidden * sizeof(int16_t))


cdef set_king_views(Network* net, layout):
    """Each square a view's own king may stand on (seen from its side): mirror the
    files when it is on e-h, and the first input of its bucket in `layout` (None:
    no king buckets, every square the plain view)."""
    cdef int k
    if layout is None:
        return
    for k in range(64):
        net.king_flip[k] = king_file_flip(k)
        net.king_base[k] = layout[king_layout_slot(k)] * NNUE_INPUTS


cdef class LoadedNetwork:
    """A network's weights in the core: immutable, shared by every search that holds
    it, freed with the last reference. Made by :func:`load_network`."""
    cdef Network net
    cdef readonly int hidden, buckets, king_buckets
    cdef readonly unsigned int checksum
    cdef readonly str sha256
    cdef object __weakref__

    def __cinit__(self):
        memset(&self.net, 0, sizeof(Network))

    def __dealloc__(self):
        network_free(&self.net)

    @property
    def bytes(self):
        """The size of the weights in memory (rows padded to the vector width)."""
        return self.net.bytes

    def __repr__(self):
        kings = f", {self.king_buckets} king buckets" if self.king_buckets else ""
        return f"<LoadedNetwork {self.sha256[:12]}: {self.hidden} hidden{kings}>"

    def info(self):
        return {"hidden": self.hidden, "buckets": self.buckets, "king_buckets": self.king_buckets,
                "checksum": self.checksum}

    def evaluate(self, Board board):
        """This network's static evaluation of board (side to move's view)."""
        return board.evaluate(self)

    def accumulator_mismatch(self, Board board, int stride=1):
        """Replay board's moves from its first position with incremental accumulator
        updates, comparing with a full refresh after every `stride` moves (and the
        last): a stride above 1 leaves chains of moves for one lazy update. Returns
        the number of the first move whose accumulator differs, or -1 when all agree
        (for tests)."""
        cdef Board replay = board.copy()
        cdef Accumulator* accs = NULL
        cdef Accumulator fresh
        cdef int capacity = 0, i, bad = -1
        cdef int count = board.pos.st_index
        if stride < 1:
            raise ValueError("stride must be at least 1")
        for i in range(count, 0, -1):
            undo_move(&replay.pos, board.pos.states[i].move)
        if not attach_accumulators(&replay.pos, &accs, &capacity):
            raise MemoryError()
        replay.pos.net = &self.net
        try:
            current_accumulator(&replay.pos)
            for i in range(count):
                do_move(&replay.pos, board.pos.states[i + 1].move)
                if (i + 1) % stride and i + 1 < count:
                    continue
                accumulator_refresh(&replay.pos, &fresh)
                if not accumulators_equal(current_accumulator(&replay.pos), &fresh, self.net.lanes):
                    bad = i
                    break
        finally:
            replay.pos.accs = NULL
            replay.pos.net = NULL
            fc_free_aligned(accs)
        return bad


_LOADED = _weakref.WeakValueDictionary()     # SHA-256 of a file's bytes -> its LoadedNetwork
_LOADING = threading.Lock()


def load_network(data):
    """The network in a file's bytes, checked whole: a :class:`LoadedNetwork`,
    the one already loaded when the same bytes are (and while it lives).

    Raises ValueError naming the problem when the file is truncated, of another
    architecture, corrupt or out of range; nothing else changes then."""
    cdef bytes raw = bytes(data)
    digest = _hashlib.sha256(raw).hexdigest()
    with _LOADING:
        found = _LOADED.get(digest)
        if found is None:
            found = _network_from_bytes(raw, digest)
            _LOADED[digest] = found
    return found


cdef LoadedNetwork _network_from_bytes(bytes raw, str digest):
    cdef const uint8_t* p = raw
    cdef LoadedNetwork loaded = LoadedNetwork.__new__(LoadedNetwork)
    cdef Network* net = &loaded.net
    header = _network_header(raw)
    if fnv1a32(p + NNUE_HEADER_BYTES, len(raw) - NNUE_HEADER_BYTES) != header["checksum"]:
        raise ValueError("network file checksum mismatch (corrupt file)")
    buckets = header["buckets"]
    if not network_alloc(net, header["hidden"], buckets, header["king_buckets"]):
        raise MemoryError("cannot allocate the network")
    set_king_views(net, NETWORK_KING_BUCKET_LAYOUTS.get(header["king_buckets"]))
    copy_padded_rows(net, <const int16_t*>(p + NNUE_HEADER_BYTES), header["inputs"] + 1 + 2 * buckets)
    for i, bias in enumerate(_struct.unpack_from(f"<{buckets}i", raw, len(raw) - 4 * buckets)):
        net.out_bias[i] = bias
    net.qa, net.qb, net.scale = header["qa"], header["qb"], header["scale"]
    if not network_in_range(net, header["inputs"]):
        raise ValueError("network weights out of range (accumulators could overflow)")
    loaded.hidden, loaded.buckets, loaded.king_buckets = header["hidden"], buckets, header["king_buckets"]
    loaded.checksum, loaded.sha256 = header["checksum"], digest
    return loaded


def network_stats():
    """How many networks the process holds and their weights' bytes: one copy per
    distinct file, however many searches use it."""
    return {"networks": NETWORKS_LOADED, "bytes": NETWORK_BYTES_LOADED}
