# Basic types and constants shared by every part of the core.
from libc.stdint cimport uint64_t, uint32_t, uint16_t, uint8_t, int16_t, int32_t, int64_t

cdef extern from "platform/bitops.h":
    const bint FC_DEBUG
    void fc_fail(const char* what) noexcept nogil
    int fc_popcount(uint64_t b) noexcept nogil
    int fc_lsb(uint64_t b) noexcept nogil
    int fc_msb(uint64_t b) noexcept nogil
    int64_t fc_now_ms() noexcept nogil
    int fc_load_flag(volatile int* p) noexcept nogil
    void fc_store_flag(volatile int* p, int v) noexcept nogil
    void fc_prefetch(const void* p) noexcept nogil
    void* fc_alloc_table(size_t size) noexcept nogil
    void* fc_alloc_aligned(size_t size) noexcept nogil
    void fc_free_aligned(void* block) noexcept nogil
    const void* fc_opaque(const void* p) noexcept nogil

ctypedef uint64_t Bitboard
ctypedef uint16_t Move       # from | to << 6 | promo << 12 | kind << 14
ctypedef int Square          # 0 = a1 .. 63 = h8
ctypedef int Piece           # color * 8 + piece type; 0 = empty
ctypedef int Color
ctypedef int Score

cdef enum:
    WHITE = 0
    BLACK = 1

cdef enum:
    NO_PIECE_TYPE = 0
    PAWN = 1
    KNIGHT = 2
    BISHOP = 3
    ROOK = 4
    QUEEN = 5
    KING = 6

cdef enum:
    NO_PIECE = 0
    NO_SQUARE = 64

# Move kinds (bits 14-15) and promotion pieces (bits 12-13: knight..queen).
cdef enum:
    MK_NORMAL = 0
    MK_PROMOTION = 1
    MK_EN_PASSANT = 2
    MK_CASTLING = 3
    MOVE_NONE = 0
    MOVE_NULL = 65      # from b1 to b1: never a real move

# Castling rights bits.
cdef enum:
    WHITE_OO = 1
    WHITE_OOO = 2
    BLACK_OO = 4
    BLACK_OOO = 8
    ALL_CASTLING = 15

cdef enum:
    MAX_MOVES = 256      # legal moves in a position never exceed 218
    MAX_PLY = 246        # deepest search ply
    MAX_THREADS = 256

# The evaluation network's format (NNUE_INPUTS, NNUE_MAX_HIDDEN, NNUE_MAX_BUCKETS,
# the architectures, the quantisation), generated from network_format.py.
include "network_format.pxi"

# The network's first layer, kept per state by make/unmake (nnue.pxi).

ctypedef struct Accumulator:
    int16_t v[2][NNUE_MAX_HIDDEN]   # by perspective: white's view, black's view

# A loaded network's weights (nnue.pxi). Immutable once loaded; the Python object
# that owns it (LoadedNetwork, api_learn.pxi) frees it when the last holder lets
# go, and each searching position points at the one it evaluates with
# (Position.net; NULL: the hand-crafted evaluation).
ctypedef struct Network:
    int hidden
    int lanes                  # hidden rounded up to FC_SIMD_LANES: the length of every
                               #   row in memory, whose lanes past `hidden` hold zeros
    int buckets                # output layers: 1, or NNUE_MAX_BUCKETS by piece count
    int king_buckets           # sets of NNUE_INPUTS inputs by king square; 0: one, unmirrored
    uint8_t king_flip[64]      # by the view's own king square, seen from its side: 7 to
    uint16_t king_base[64]     #   mirror files, and the first input of the king's bucket
    int qa                     # activation quantisation (clip value)
    int qb                     # output weight quantisation
    int scale                  # network units to centipawns
    int16_t* ft_weights        # [NNUE_INPUTS][lanes]
    int16_t* ft_bias           # [lanes]
    int16_t* out_weights       # [buckets][2][lanes]: side to move's half, then the other side's
    int32_t out_bias[NNUE_MAX_BUCKETS]
    size_t bytes               # the allocated block's size
