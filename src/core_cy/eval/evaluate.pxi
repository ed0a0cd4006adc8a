# Static evaluation: tapered middlegame/endgame score from the side to move's view.
# Material and piece-square values come incrementally from pos.st.psq; the rest is
# computed here term by term, each term a small function.

cdef Bitboard ADJACENT_FILES[8]
cdef Bitboard FORWARD_FILE[2][64]      # squares ahead of s on its file
cdef Bitboard PASSED_SPAN[2][64]       # squares ahead of s on its file and the adjacent ones
cdef int DISTANCE[64][64]

cdef void init_eval_masks() noexcept nogil:
    cdef int f
    cdef Square s, s2
    cdef Bitboard ahead
    for f in range(8):
        ADJACENT_FILES[f] = (FILE_BB[f - 1] if f > 0 else 0) | (FILE_BB[f + 1] if f < 7 else 0)
    for s in range(64):
        for s2 in range(64):
            DISTANCE[s][s2] = max(iabs(file_of(s) - file_of(s2)), iabs(rank_of(s) - rank_of(s2)))
        ahead = 0
        for s2 in range(s + 8, 64, 8):
            ahead |= sq_bb(s2)
        FORWARD_FILE[WHITE][s] = ahead
        ahead = 0
        for s2 in range(s - 8, -1, -8):
            ahead |= sq_bb(s2)
        FORWARD_FILE[BLACK][s] = ahead
    for s in range(64):
        for f in range(2):
            PASSED_SPAN[f][s] = (FORWARD_FILE[f][s] | shift_west(FORWARD_FILE[f][s])
                                 | shift_east(FORWARD_FILE[f][s]))


# --- tracing, for the tuner ---------------------------------------------------------
# The term functions take `trace`: NULL in the search (the C compiler folds the
# tests away in the inlined code), or an int[2][N_WEIGHTS] that counts how often
# each weight's middlegame and endgame parts were added, white minus black. The
# evaluation is then taper(counts . weights) plus the king-danger term, which is
# not linear in the weights and is reported apart.

cdef inline void count_weight(int* trace, Color c, int index, int n) noexcept nogil:
    if trace != NULL:
        trace[index] += n if c == WHITE else -n
        trace[N_WEIGHTS + index] += n if c == WHITE else -n

cdef inline void count_endgame_weight(int* trace, Color c, int index, int n) noexcept nogil:
    if trace != NULL:
        trace[N_WEIGHTS + index] += n if c == WHITE else -n


ctypedef struct EvalInfo:
    Bitboard pawn_attacks[2]
    Bitboard mobility_area[2]
    Bitboard king_zone[2]
    int attack_units[2]        # units against the enemy king zone, by attacker colour
    int attackers[2]


cdef inline PackedScore pawn_structure(const Position* pos, Color c, int* trace) noexcept nogil:
    cdef Bitboard ours = pieces(pos, c, PAWN), theirs = pieces(pos, c ^ 1, PAWN)
    cdef Bitboard b = ours, neighbours, support
    cdef PackedScore score = 0
    cdef Square s
    cdef int r
    while b:
        s = pop_lsb(&b)
        r = relative_rank(c, s)
        neighbours = ours & ADJACENT_FILES[file_of(s)]
        if FORWARD_FILE[c][s] & ours:
            score += WEIGHTS[W_DOUBLED]
            count_weight(trace, c, W_DOUBLED, 1)
        if not neighbours:
            score += WEIGHTS[W_ISOLATED]
            count_weight(trace, c, W_ISOLATED, 1)
        support = neighbours & (RANK_BB[rank_of(s)] | PAWN_ATTACKS[c ^ 1][s])
        if support:
            score += WEIGHTS[W_CONNECTED + r]
            count_weight(trace, c, W_CONNECTED + r, 1)
        elif neighbours and not (neighbours & ~PASSED_SPAN[c][s] & ~RANK_BB[rank_of(s)]) \
                and (PAWN_ATTACKS[c][s + (8 if c == WHITE else -8)] & theirs):
            # All neighbours are ahead and the stop square is guarded by an enemy pawn.
            score += WEIGHTS[W_BACKWARD]
            count_weight(trace, c, W_BACKWARD, 1)
        if not (PASSED_SPAN[c][s] & theirs) and not (FORWARD_FILE[c][s] & ours):
            score += WEIGHTS[W_PASSED + r]
            count_weight(trace, c, W_PASSED + r, 1)
            score += passed_king_proximity(pos, c, s, r, trace)
    return score

cdef inline PackedScore passed_king_proximity(const Position* pos, Color c, Square s, int r,
                                              int* trace) noexcept nogil:
    """Endgame: a passer is stronger when the enemy king is far from its stop square."""
    cdef Square stop = s + (8 if c == WHITE else -8)
    cdef int gap = DISTANCE[king_square(pos, c ^ 1)][stop] - DISTANCE[king_square(pos, c)][stop]
    if r < 3:
        return 0
    count_endgame_weight(trace, c, W_PASSED_KING_DIST, gap * (r - 2))
    return S(0, eg_of(WEIGHTS[W_PASSED_KING_DIST]) * gap * (r - 2))


cdef inline void init_eval_info(const Position* pos, EvalInfo* ei) noexcept nogil:
    cdef Color c
    cdef Square ksq
    for c in range(2):
        ei.pawn_attacks[c] = pawn_attacks_bb(pieces(pos, c, PAWN), c)
        ei.attack_units[c] = 0
        ei.attackers[c] = 0
    for c in range(2):
        ksq = king_square(pos, c)
        ei.king_zone[c] = KING_ATTACKS[ksq] | sq_bb(ksq)
        ei.king_zone[c] |= shift_up(ei.king_zone[c], c)
        # Squares not blocked by own pawns or king, and not covered by enemy pawns.
        ei.mobility_area[c] = ~(pieces(pos, c, PAWN) | pieces(pos, c, KING) | ei.pawn_attacks[c ^ 1])

cdef inline PackedScore piece_activity(const Position* pos, EvalInfo* ei, Color c, int* trace) noexcept nogil:
    """Mobility, king-zone attacks, and rook files for the pieces of colour c."""
    cdef Bitboard occ = pos.by_type[0]
    cdef Bitboard our_pawns = pieces(pos, c, PAWN), their_pawns = pieces(pos, c ^ 1, PAWN)
    cdef Bitboard b, att, zone_hits
    cdef PackedScore score = 0
    cdef int pt, mobility, file_weight
    cdef Square s
    cdef int mob_offset[7]
    mob_offset[KNIGHT] = W_MOB_KNIGHT
    mob_offset[BISHOP] = W_MOB_BISHOP
    mob_offset[ROOK] = W_MOB_ROOK
    mob_offset[QUEEN] = W_MOB_QUEEN
    for pt in range(KNIGHT, KING):
        b = pieces(pos, c, pt)
        while b:
            s = pop_lsb(&b)
            att = piece_attacks(pt, s, occ)
            mobility = fc_popcount(att & ei.mobility_area[c])
            score += WEIGHTS[mob_offset[pt] + mobility]
            count_weight(trace, c, mob_offset[pt] + mobility, 1)
            zone_hits = att & ei.king_zone[c ^ 1]
            if zone_hits:
                ei.attackers[c] += 1
                ei.attack_units[c] += mg_of(WEIGHTS[W_KING_ATTACK + pt]) * fc_popcount(zone_hits)
            if pt == ROOK and not (FILE_BB[file_of(s)] & our_pawns):
                file_weight = W_ROOK_OPEN if not (FILE_BB[file_of(s)] & their_pawns) else W_ROOK_SEMI_OPEN
                score += WEIGHTS[file_weight]
                count_weight(trace, c, file_weight, 1)
    if fc_popcount(pieces(pos, c, BISHOP)) >= 2:
        score += WEIGHTS[W_BISHOP_PAIR]
        count_weight(trace, c, W_BISHOP_PAIR, 1)
    return score

cdef inline PackedScore king_shelter(const Position* pos, Color c, int* trace) noexcept nogil:
    """Own pawns in front of a king that stands on its first two ranks."""
    cdef Square ksq = king_square(pos, c)
    cdef Bitboard files, near, far
    cdef int f = file_of(ksq)
    if relative_rank(c, ksq) > 1:
        return 0
    files = FILE_BB[f] | ADJACENT_FILES[f]
    near = shift_up(KING_ATTACKS[ksq] | sq_bb(ksq), c) & files & ~RANK_BB[rank_of(ksq)]
    far = shift_up(near, c)
    count_weight(trace, c, W_SHIELD_NEAR, fc_popcount(near & pieces(pos, c, PAWN)))
    count_weight(trace, c, W_SHIELD_FAR, fc_popcount(far & pieces(pos, c, PAWN)))
    return (WEIGHTS[W_SHIELD_NEAR] * fc_popcount(near & pieces(pos, c, PAWN))
            + WEIGHTS[W_SHIELD_FAR] * fc_popcount(far & pieces(pos, c, PAWN)))

cdef inline int king_danger(const EvalInfo* ei, Color attacker) noexcept nogil:
    """Middlegame penalty for the king facing `attacker`: grows with the square of attack units."""
    cdef int units = ei.attack_units[attacker]
    if ei.attackers[attacker] < 2:
        return 0
    return min(units * units // max(mg_of(WEIGHTS[W_KING_DANGER]), 1), eg_of(WEIGHTS[W_KING_DANGER]))

cdef inline int taper(PackedScore s, int phase) noexcept nogil:
    if phase > PHASE_MAX:
        phase = PHASE_MAX
    return (mg_of(s) * phase + eg_of(s) * (PHASE_MAX - phase)) // PHASE_MAX

cdef inline int scale_drawish(const Position* pos, int value) noexcept nogil:
    """A side without pawns needs more than a minor piece of extra material to win."""
    cdef Color strong = WHITE if value > 0 else BLACK
    cdef int diff
    if pieces(pos, strong, PAWN):
        return value
    diff = (non_pawn_material(pos, strong) - non_pawn_material(pos, strong ^ 1))
    if diff <= mg_of(WEIGHTS[W_MATERIAL + BISHOP]):
        return value // 8
    return value

cdef inline int non_pawn_material(const Position* pos, Color c) noexcept nogil:
    cdef int pt, total = 0
    for pt in range(KNIGHT, KING):
        total += fc_popcount(pieces(pos, c, pt)) * mg_of(WEIGHTS[W_MATERIAL + pt])
    return total

cdef inline PackedScore hce_terms(const Position* pos, int* trace, int* king_danger_mg) noexcept nogil:
    """Every term but material and squares (pos.st.psq) and tempo, white's view."""
    cdef EvalInfo ei
    cdef PackedScore score = 0
    init_eval_info(pos, &ei)
    score += pawn_structure(pos, WHITE, trace) - pawn_structure(pos, BLACK, trace)
    score += piece_activity(pos, &ei, WHITE, trace) - piece_activity(pos, &ei, BLACK, trace)
    score += king_shelter(pos, WHITE, trace) - king_shelter(pos, BLACK, trace)
    king_danger_mg[0] = king_danger(&ei, WHITE) - king_danger(&ei, BLACK)
    return score + S(king_danger_mg[0], 0)

cdef int evaluate_hce(const Position* pos) noexcept nogil:
    """The hand-crafted evaluation: centipawns from the side to move's point of view."""
    cdef int king_danger_mg, value
    cdef PackedScore score = pos.st.psq + hce_terms(pos, NULL, &king_danger_mg)
    value = scale_drawish(pos, taper(score, pos.st.phase))
    if pos.side == BLACK:
        value = -value
    return value + taper(WEIGHTS[W_TEMPO], pos.st.phase)

cdef int trace_hce(const Position* pos, int* trace, int* king_danger_mg, bint* drawish) noexcept nogil:
    """evaluate_hce with the weight counts in trace (int[2][N_WEIGHTS], zeroed by the
    caller): material and squares, every linear term, tempo for the side to move.
    Reports the king-danger middlegame term and whether the drawish scaling (1/8)
    applied. Returns evaluate_hce(pos)."""
    cdef Bitboard b = pos.by_type[0]
    cdef Square s
    cdef Piece pc
    cdef int value
    cdef PackedScore score
    while b:
        s = pop_lsb(&b)
        pc = pos.board[s]
        count_weight(trace, color_of(pc), W_MATERIAL + type_of(pc), 1)
        count_weight(trace, color_of(pc), W_PSQT + 64 * type_of(pc) + (s if color_of(pc) == WHITE else s ^ 56), 1)
    score = pos.st.psq + hce_terms(pos, trace, king_danger_mg)
    value = taper(score, pos.st.phase)
    drawish[0] = scale_drawish(pos, value) != value
    count_weight(trace, pos.side, W_TEMPO, 1)
    return evaluate_hce(pos)


cdef str eval_trace_text(Position* pos):
    """Each term as middlegame, endgame and tapered centipawns from white's view."""
    cdef EvalInfo ei
    cdef PackedScore activity_w, activity_b
    refresh_incremental_eval(pos)
    init_eval_info(pos, &ei)
    activity_w = piece_activity(pos, &ei, WHITE, NULL)
    activity_b = piece_activity(pos, &ei, BLACK, NULL)
    terms = [
        ("Material and squares", pos.st.psq),
        ("Pawn structure", pawn_structure(pos, WHITE, NULL) - pawn_structure(pos, BLACK, NULL)),
        ("Pieces and mobility", activity_w - activity_b),
        ("King shelter", king_shelter(pos, WHITE, NULL) - king_shelter(pos, BLACK, NULL)),
        ("King attack", S(king_danger(&ei, WHITE) - king_danger(&ei, BLACK), 0)),
    ]
    lines = [f"{'Term':<22}{'MG':>8}{'EG':>8}{'Total':>8}", "-" * 46]
    for name, packed in terms:
        lines.append(f"{name:<22}{mg_of(packed):>8}{eg_of(packed):>8}{taper(packed, pos.st.phase):>8}")
    lines.append("-" * 46)
    lines.append(f"Phase {min(pos.st.phase, PHASE_MAX)}/{PHASE_MAX}; tempo {taper(WEIGHTS[W_TEMPO], pos.st.phase)} for the side to move")
    value = evaluate_hce(pos)
    lines.append(f"Hand-crafted evaluation: {value if pos.side == WHITE else -value} cp (white side)")
    return "\n".join(lines)
