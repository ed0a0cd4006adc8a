# The evaluation terms each state keeps up to date in make/unmake: the sum of
# material and piece-square values (packed middlegame and endgame halves) and the
# game phase (do_move adds the move's change to its state; undo_move pops the
# state, so it has nothing to subtract). The board layer only adds and subtracts
# table entries; the evaluation's weights (eval/weights.pxi) fill PSQ, so the
# values are the evaluation's while the bookkeeping stays below it.

ctypedef int32_t PackedScore       # mg in the high 16 bits, eg in the low 16 bits

cdef inline PackedScore S(int mg, int eg) noexcept nogil:
    return <PackedScore>((<uint32_t>mg << 16) + eg)

cdef inline int mg_of(PackedScore s) noexcept nogil:
    return <int16_t>(<uint16_t>(<uint32_t>(s + 0x8000) >> 16))

cdef inline int eg_of(PackedScore s) noexcept nogil:
    return <int16_t>(<uint16_t>(<uint32_t>s))

cdef PackedScore PSQ[16][64]      # material + PSQT by piece code, colour-mirrored
cdef uint32_t PSQ_EPOCH = 0       # how often PSQ has been filled: a state's sum made
                                  #   under an older PSQ is stale (its psq_epoch differs)

cdef int PHASE_WEIGHT[7]
PHASE_WEIGHT[:] = [0, 0, 1, 1, 2, 4, 0]
cdef enum:
    PHASE_MAX = 24
