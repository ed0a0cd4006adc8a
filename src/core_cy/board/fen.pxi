# FEN in and out, with strict validation. Runs at the edge (Python objects are fine).

PIECE_LETTERS = ".PNBRQK..pnbrqk"
FILE_LETTERS = "abcdefgh"
STANDARD_KING_FILE = 4


def square_name(int s):
    return FILE_LETTERS[s & 7] + str((s >> 3) + 1)


def parse_square(str name):
    """Square index from 'e4'; -1 when the text is not a square."""
    if len(name) != 2 or name[0] not in FILE_LETTERS or name[1] not in "12345678":
        return -1
    return FILE_LETTERS.index(name[0]) + 8 * (int(name[1]) - 1)


cdef void clear_position(Position* pos) noexcept nogil:
    cdef StateInfo* states = pos.states
    cdef int capacity = pos.st_capacity
    memset(pos, 0, sizeof(Position))
    memset(states, 0, sizeof(StateInfo) * capacity)
    pos.states = states
    pos.st_capacity = capacity
    pos.st = states
    pos.st.ep_square = NO_SQUARE


cdef parse_placement(Position* pos, str text):
    ranks = text.split("/")
    if len(ranks) != 8:
        raise ValueError(f"expected 8 ranks in the piece placement, got {len(ranks)}")
    for i, rank_text in enumerate(ranks):
        rank = 7 - i
        f = 0
        previous_digit = False
        for ch in rank_text:
            if ch in "12345678":
                if previous_digit:
                    raise ValueError(f"two consecutive digits in rank {rank + 1}")
                f += int(ch)
                previous_digit = True
            elif ch in "PNBRQKpnbrqk":
                if f >= 8:
                    raise ValueError(f"rank {rank + 1} has more than 8 squares")
                put_piece(pos, PIECE_LETTERS.index(ch), make_square(f, rank))
                f += 1
                previous_digit = False
            else:
                raise ValueError(f"invalid character {ch!r} in the piece placement")
            if f > 8:
                raise ValueError(f"rank {rank + 1} has more than 8 squares")
        if f != 8:
            raise ValueError(f"rank {rank + 1} has {f} squares instead of 8")


cdef validate_material(Position* pos):
    for c, name in ((WHITE, "white"), (BLACK, "black")):
        kings = fc_popcount(pieces(pos, c, KING))
        if kings != 1:
            raise ValueError(f"{name} must have exactly one king, found {kings}")
        if fc_popcount(pieces(pos, c, PAWN)) > 8:
            raise ValueError(f"{name} has more than 8 pawns")
        if fc_popcount(pos.by_color[c]) > 16:
            raise ValueError(f"{name} has more than 16 pieces")
    if pos.by_type[PAWN] & (RANK_BB[0] | RANK_BB[7]):
        raise ValueError("pawns on the first or last rank")


cdef add_castling_right(Position* pos, Color c, Square rsq, bint chess960):
    cdef Square ksq = king_square(pos, c)
    cdef int right
    cdef bint kingside
    if relative_rank(c, ksq) != 0:
        raise ValueError("castling right without the king on its first rank")
    if pos.board[rsq] != make_piece(c, ROOK):
        raise ValueError(f"castling right without a rook on {square_name(rsq)}")
    kingside = rsq > ksq
    if not chess960 and (file_of(ksq) != STANDARD_KING_FILE or file_of(rsq) != (7 if kingside else 0)):
        raise ValueError("castling right needs the king on the e-file and the rook in the corner "
                         "(use Chess960 mode for other set-ups)")
    right = (WHITE_OO if kingside else WHITE_OOO) << (2 * c)
    if pos.st.castling & right:
        raise ValueError("two castling rights for the same side")
    pos.st.castling |= right
    pos.castling_mask[ksq] |= right
    pos.castling_mask[rsq] |= right
    pos.castling_rook[right] = rsq
    if file_of(rsq) != 0 and file_of(rsq) != 7:
        pos.castling_off_corner |= right
    kto = castling_king_to(c, kingside)
    rto = castling_rook_to(c, kingside)
    pos.castling_path[right] = ((BETWEEN_BB[ksq][kto] | sq_bb(kto) | BETWEEN_BB[rsq][rto] | sq_bb(rto))
                                & ~(sq_bb(ksq) | sq_bb(rsq)))
    pos.castling_king_path[right] = BETWEEN_BB[ksq][kto] | sq_bb(kto) | sq_bb(ksq)


cdef Square outermost_rook(Position* pos, Color c, bint kingside):
    cdef Bitboard rooks = pieces(pos, c, ROOK) & RANK_BB[0 if c == WHITE else 7]
    cdef Square ksq = king_square(pos, c)
    rooks &= ~(sq_bb(ksq) - 1) if kingside else (sq_bb(ksq) - 1)
    if not rooks:
        return NO_SQUARE
    return fc_msb(rooks) if kingside else fc_lsb(rooks)


cdef parse_castling(Position* pos, str text, bint chess960):
    if text == "-":
        return
    if len(text) > 4 or len(set(text)) != len(text):
        raise ValueError(f"invalid castling field {text!r}")
    for ch in text:
        c = WHITE if ch.isupper() else BLACK
        low = ch.lower()
        if low in "kq":
            rsq = outermost_rook(pos, c, low == "k")
            if rsq == NO_SQUARE:
                raise ValueError(f"castling right {ch!r} without a rook on that side of the king")
        elif low in FILE_LETTERS:
            rsq = make_square(FILE_LETTERS.index(low), 0 if c == WHITE else 7)
        else:
            raise ValueError(f"invalid character {ch!r} in the castling field")
        add_castling_right(pos, c, rsq, chess960)


cdef parse_en_passant(Position* pos, str text):
    if text == "-":
        return
    ep = parse_square(text)
    if ep < 0:
        raise ValueError(f"invalid en-passant square {text!r}")
    us = pos.side
    if relative_rank(us, ep) != 5:
        raise ValueError(f"en-passant square {text} is not on the right rank for the side to move")
    pawn_sq = ep - 8 if us == WHITE else ep + 8
    origin = ep + 8 if us == WHITE else ep - 8
    if pos.board[pawn_sq] != make_piece(us ^ 1, PAWN):
        raise ValueError(f"en-passant square {text} without a pawn that just advanced two squares")
    if pos.board[ep] != NO_PIECE or pos.board[origin] != NO_PIECE:
        raise ValueError(f"en-passant square {text} is impossible: squares behind the pawn are occupied")
    if can_capture_en_passant(pos, pawn_sq, us):
        pos.st.ep_square = ep


cdef parse_counter(str text, str name, int minimum):
    if not text.isdigit() or len(text) > 6:
        raise ValueError(f"invalid {name} {text!r}")
    value = int(text)
    if value < minimum:
        raise ValueError(f"invalid {name} {text!r}")
    return value


cdef set_position_from_fen(Position* pos, str fen, bint chess960):
    """Fill pos from fen or raise ValueError; pos is garbage after a failure."""
    fields = fen.split()
    if not 4 <= len(fields) <= 6:
        raise ValueError(f"a FEN has 4 to 6 fields, got {len(fields)}")
    clear_position(pos)
    pos.chess960 = chess960
    parse_placement(pos, fields[0])
    validate_material(pos)
    if fields[1] not in ("w", "b"):
        raise ValueError(f"side to move must be 'w' or 'b', got {fields[1]!r}")
    pos.side = WHITE if fields[1] == "w" else BLACK
    parse_castling(pos, fields[2], chess960)
    parse_en_passant(pos, fields[3])
    rule50 = parse_counter(fields[4], "half-move clock", 0) if len(fields) > 4 else 0
    fullmove = parse_counter(fields[5], "full-move number", 0) if len(fields) > 5 else 1
    pos.st.rule50 = rule50
    pos.game_ply = 2 * (max(fullmove, 1) - 1) + pos.side
    if attackers_to(pos, king_square(pos, pos.side ^ 1), pos.by_type[0]) & pos.by_color[pos.side]:
        raise ValueError("the side not to move is in check")
    pos.st.checkers = compute_checkers(pos)
    if fc_popcount(pos.st.checkers) > 2:
        raise ValueError("more than two pieces give check")
    pos.st.key = compute_key(pos)
    refresh_incremental_eval(pos)


cdef str castling_text(const Position* pos, bint shredder):
    out = []
    for c in (WHITE, BLACK):
        for right in (WHITE_OO << (2 * c), WHITE_OOO << (2 * c)):
            if not pos.st.castling & right:
                continue
            rsq = pos.castling_rook[right]
            ch = FILE_LETTERS[file_of(rsq)]
            if not shredder and rsq == outermost_rook(<Position*>pos, c, right == (WHITE_OO << (2 * c))):
                ch = "k" if right == (WHITE_OO << (2 * c)) else "q"
            out.append(ch.upper() if c == WHITE else ch)
    return "".join(out) or "-"


cdef str position_fen(Position* pos, bint shredder):
    rows = []
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for f in range(8):
            pc = pos.board[make_square(f, rank)]
            if pc == NO_PIECE:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += PIECE_LETTERS[pc]
        if empty:
            row += str(empty)
        rows.append(row)
    ep = "-"
    if pos.st.ep_square != NO_SQUARE and has_legal_en_passant(pos):
        ep = square_name(pos.st.ep_square)
    return " ".join(["/".join(rows), "w" if pos.side == WHITE else "b", castling_text(pos, shredder),
                     ep, str(pos.st.rule50), str(1 + pos.game_ply // 2)])


cdef bint has_legal_en_passant(const Position* pos) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_legal(pos, moves, GEN_CAPTURES), i
    for i in range(n):
        if move_kind(moves[i]) == MK_EN_PASSANT:
            return True
    return False
