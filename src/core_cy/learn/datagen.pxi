# Self-play data generation: whole games played inside the core, a fixed node
# budget per move, each kept position packed into a 32-byte record with the
# search score and, once the game ends, its result. No Python between moves.
#
# A game: `random_plies` uniformly random legal moves from the start position
# (seeded, so a seed names a game), a check that the opening is not already
# lopsided, then moves chosen by a node-limited search until mate, a draw by
# rule, a tablebase verdict or an adjudication. Records skip positions in check,
# positions whose best move captures or promotes, and proven (mate or tablebase)
# scores: what is left is what a static evaluation should learn.
#
# Every ply of the game is also kept whole, as its move and score (PlyRecord; the
# random opening's plies carry PLY_UNSCORED): `fianchetto datagen` stores games in
# this form and filters positions only when the data is read (replay_game_records).

cdef enum:
    RECORD_BYTES = 32
    RESULT_NONE = -1           # game still running; results are white's: 0, 1, 2
    GAME_DISCARDED = -2        # the opening was lopsided or had no moves left

ctypedef packed struct PackedRecord:
    uint64_t occupancy         # bit s set: square s holds a piece
    uint8_t pieces[16]         # piece codes in square order, low nibble first
    int16_t score              # side to move's view, centipawns
    uint8_t result             # side to move's view: 0 loss, 1 draw, 2 win
    uint8_t stm                # 0 white, 1 black
    uint16_t fullmove
    uint8_t rule50
    uint8_t reserved

cdef enum:
    PLY_UNSCORED = -32768      # a ply of the random opening: no search, no score

ctypedef packed struct PlyRecord:
    uint16_t move              # the move played (the core's 16-bit encoding)
    int16_t score              # its search score, side to move's view, or PLY_UNSCORED

ctypedef struct SelfPlayConfig:
    uint64_t nodes             # node budget of every search
    int random_plies           # random moves before the engine plays
    int max_opening_score      # discard games whose first search is beyond this
    int max_plies              # a game this long is a draw
    int win_score              # adjudicate a win after win_plies plies beyond this...
    int win_plies
    int draw_score             # ...a draw after draw_plies plies within this, past draw_min_ply
    int draw_plies
    int draw_min_ply
    int tb_pieces              # ask the tablebases with at most this many pieces (0: no)


cdef inline uint64_t splitmix64(uint64_t* state) noexcept nogil:
    cdef uint64_t z
    state[0] += 0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)

cdef void pack_record(const Position* pos, int score, PackedRecord* rec) noexcept nogil:
    cdef Bitboard b = pos.by_type[0]
    cdef int i = 0
    memset(rec, 0, sizeof(PackedRecord))
    rec.occupancy = b
    while b:
        rec.pieces[i >> 1] |= pos.board[pop_lsb(&b)] << (4 * (i & 1))
        i += 1
    rec.score = <int16_t>max(-32000, min(32000, score))
    rec.stm = pos.side
    rec.fullmove = 1 + pos.game_ply // 2
    rec.rule50 = min(pos.st.rule50, 255)


cdef void search_fixed_nodes(SearchThread* t, uint64_t nodes) noexcept nogil:
    """One single-threaded search of t.pos with a node budget and no reports."""
    cdef Move moves[MAX_MOVES]
    cdef SearchLimits limits
    limits.depth, limits.nodes, limits.mate, limits.multipv = 0, nodes, 0, 1
    limits.adaptive_time, limits.multipv_set_ms = False, MULTIPV_SET_AFTER_MS
    thread_set_roots(t, moves, generate_legal(&t.pos, moves, GEN_ALL))
    fc_store_flag(&t.shared.stop, 0)
    fc_store_flag(&t.shared.soft_ms, 0)
    fc_store_flag(&t.shared.hard_ms, 0)
    fc_store_flag(&t.shared.clock_offset_ms, 0)
    thread_start(t, limits, fc_now_ms())
    tt_new_search(t.tt)
    if t.root_count > 0:
        iterative_deepening(t)


cdef inline void record_ply(PlyRecord* plies, int* ply_count, int capacity, Move m, int score) noexcept nogil:
    if ply_count[0] < capacity:
        plies[ply_count[0]].move = m
        plies[ply_count[0]].score = <int16_t>max(-32000, min(32000, score)) if score != PLY_UNSCORED \
            else <int16_t>PLY_UNSCORED
        ply_count[0] += 1

cdef int play_random_opening(Position* pos, int plies, uint64_t* rng, PlyRecord* played,
                             int* played_count, int capacity) noexcept nogil:
    """Random legal moves; 0 when the game ended on the way (then it is discarded)."""
    cdef Move moves[MAX_MOVES]
    cdef Move m
    cdef int i, n
    for i in range(plies):
        n = generate_legal(pos, moves, GEN_ALL)
        if n == 0:
            return 0
        m = moves[splitmix64(rng) % <uint64_t>n]
        record_ply(played, played_count, capacity, m, PLY_UNSCORED)
        do_move(pos, m)
    return generate_legal(pos, moves, GEN_ALL) > 0 and not is_draw(pos, 0)

cdef int result_by_rule(Position* pos, int tb_pieces) noexcept nogil:
    """White's result when the rules (or the tablebases) end the game, else RESULT_NONE."""
    cdef Move moves[MAX_MOVES]
    cdef int ok = 0, wdl
    cdef int stm_score = 1
    if generate_legal(pos, moves, GEN_ALL) == 0:
        stm_score = 0 if pos.st.checkers else 1
    elif is_draw(pos, 0):
        stm_score = 1
    elif tb_pieces and pos.st.rule50 == 0 and fc_popcount(pos.by_type[0]) <= tb_pieces:
        wdl = tb_probe_wdl(pos, &ok)
        if not ok:
            return RESULT_NONE
        stm_score = 2 if wdl == 2 else (0 if wdl == -2 else 1)
    else:
        return RESULT_NONE
    return stm_score if pos.side == WHITE else 2 - stm_score

cdef inline bint keep_position(const Position* pos, Move best, int score) noexcept nogil:
    return (not pos.st.checkers and is_quiet(pos, best)
            and iabs(score) < VALUE_TB_WIN_IN_MAX_PLY)

cdef int adjudicate(const SelfPlayConfig* cfg, int white_score, int ply, int* win_run,
                    int* loss_run, int* draw_run) noexcept nogil:
    """White's result once the scores have been decisive or level for long enough."""
    win_run[0] = win_run[0] + 1 if white_score >= cfg.win_score else 0
    loss_run[0] = loss_run[0] + 1 if white_score <= -cfg.win_score else 0
    draw_run[0] = draw_run[0] + 1 if iabs(white_score) <= cfg.draw_score else 0
    if win_run[0] >= cfg.win_plies:
        return 2
    if loss_run[0] >= cfg.win_plies:
        return 0
    if ply >= cfg.draw_min_ply and draw_run[0] >= cfg.draw_plies:
        return 1
    if ply >= cfg.max_plies:
        return 1
    return RESULT_NONE

cdef int play_selfplay_game(SearchThread* t, const SelfPlayConfig* cfg, uint64_t seed,
                            PackedRecord* out, int capacity, int* count,
                            PlyRecord* played, int* played_count) noexcept nogil:
    """Play one game from t.pos; write its kept positions to `out`, every ply to
    `played` (both `capacity` long), and return white's result (0, 1, 2), or
    GAME_DISCARDED. The caller has reset t.pos, the TT and history."""
    cdef Position* pos = &t.pos
    cdef uint64_t rng = seed
    cdef int result = RESULT_NONE, ply = 0, score, white_score, i
    cdef int win_run = 0, loss_run = 0, draw_run = 0
    cdef Move best
    count[0] = 0
    played_count[0] = 0
    if not play_random_opening(pos, cfg.random_plies, &rng, played, played_count, capacity):
        return GAME_DISCARDED
    while result == RESULT_NONE:
        result = result_by_rule(pos, cfg.tb_pieces)
        if result != RESULT_NONE:
            break
        search_fixed_nodes(t, cfg.nodes)
        best = t.root_moves[0].move
        score = t.root_moves[0].score
        if ply == 0 and iabs(score) > cfg.max_opening_score:
            return GAME_DISCARDED
        if keep_position(pos, best, score) and count[0] < capacity:
            pack_record(pos, score, &out[count[0]])
            count[0] += 1
        white_score = score if pos.side == WHITE else -score
        if pos.st_index + 1 >= pos.st_capacity - MAX_PLY - 8:
            result = 1
            break
        record_ply(played, played_count, capacity, best, score)
        do_move(pos, best)
        ply += 1
        result = adjudicate(cfg, white_score, ply, &win_run, &loss_run, &draw_run)
    for i in range(count[0]):
        out[i].result = result if out[i].stm == WHITE else 2 - result
    return result


cdef inline Piece record_piece(const PackedRecord* rec, int i) noexcept nogil:
    """The piece code of the record's i-th occupied square (low nibble first)."""
    return (rec.pieces[i >> 1] >> (4 * (i & 1))) & 15


cdef void position_from_record(Position* pos, const PackedRecord* rec) noexcept nogil:
    """The board of a record (no castling rights, no en passant); pos.states must exist."""
    cdef Bitboard b = rec.occupancy
    cdef int i = 0
    clear_position(pos)
    while b:
        put_piece(pos, record_piece(rec, i), pop_lsb(&b))
        i += 1
    pos.side = rec.stm
    pos.game_ply = 2 * (rec.fullmove - 1) + rec.stm
    pos.st.rule50 = rec.rule50
    pos.st.key = compute_key(pos)
    pos.st.checkers = compute_checkers(pos)
    refresh_incremental_eval(pos)
