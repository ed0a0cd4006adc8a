# The Board face of the core: a position with its move history, FEN in and out,
# moves as UCI text, perft, the static evaluation and tablebase probes. With
# api_search.pxi (the Search face) and api_tables.pxi (weights, tablebase folders)
# it is everything Python touches; Python exceptions are raised only in these files.

PROMOTION_LETTERS = "nbrq"
DEFAULT_STATE_CAPACITY = 1024
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#: True in the checked build (FIANCHETTO_DEBUG=1): bounds checks and invariant checks on.
CHECKED_BUILD = bool(FC_DEBUG)


cdef str move_to_uci(const Position* pos, Move m, bint chess960):
    """UCI text of a move of the side to move in pos."""
    if m == MOVE_NONE:
        return "0000"
    return move_text(m, pos.side, chess960)


cdef str move_text(Move m, Color mover, bint chess960):
    """UCI text of a move by `mover`. Castling is written king-to-destination only for
    a standard set-up outside Chess960 mode, king-takes-rook otherwise."""
    cdef Square f = move_from(m), t = move_to(m)
    if move_kind(m) == MK_CASTLING and not chess960 and file_of(f) == STANDARD_KING_FILE \
            and (file_of(t) == 0 or file_of(t) == 7):
        t = castling_king_to(mover, t > f)
    text = square_name(f) + square_name(t)
    if move_kind(m) == MK_PROMOTION:
        text += PROMOTION_LETTERS[promotion_type(m) - KNIGHT]
    return text


cdef Move parse_uci_move(const Position* pos, str text, bint chess960) except? 0:
    """The legal move written `text`, or 0. Castling is accepted in both spellings."""
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_legal(pos, moves, GEN_ALL), i
    cdef Move alternative = MOVE_NONE
    for i in range(n):
        if move_to_uci(pos, moves[i], chess960) == text:
            return moves[i]
        if move_kind(moves[i]) == MK_CASTLING and castling_spellings(pos, moves[i], text):
            alternative = moves[i]
    return alternative


cdef bint castling_spellings(const Position* pos, Move m, str text):
    """Is `text` the castling move m written king-to-destination or king-takes-rook?"""
    cdef Square f = move_from(m), t = move_to(m)
    return text in (square_name(f) + square_name(t),
                    square_name(f) + square_name(castling_king_to(pos.side, t > f)))


cdef class Board:
    """A chess position with its move history.

    Board(fen=None, chess960=False) starts from the standard position or from `fen`
    (X-FEN or Shredder-FEN castling). Moves are UCI strings; castling is written
    e1g1 in standard chess and king-takes-rook (e1h1) in Chess960 mode; both are
    accepted on input.
    """
    cdef Position pos
    cdef list _moves          # Move values pushed since the FEN

    def __cinit__(self, *args, **kwargs):
        self.pos.states = <StateInfo*>malloc(sizeof(StateInfo) * DEFAULT_STATE_CAPACITY)
        if self.pos.states == NULL:
            raise MemoryError()
        self.pos.st_capacity = DEFAULT_STATE_CAPACITY
        clear_position(&self.pos)
        self._moves = []

    def __dealloc__(self):
        free(self.pos.states)

    def __init__(self, fen=None, chess960=False):
        self.set_fen(START_FEN if fen is None else fen, chess960)

    cdef void _reserve(self, int extra) except *:
        """Make room for `extra` more states beyond the current one."""
        cdef int needed = self.pos.st_index + extra + 1
        cdef int capacity = self.pos.st_capacity
        cdef StateInfo* grown
        if needed <= capacity:
            return
        while capacity < needed:
            capacity *= 2
        grown = <StateInfo*>realloc(self.pos.states, sizeof(StateInfo) * capacity)
        if grown == NULL:
            raise MemoryError()
        self.pos.states = grown
        self.pos.st_capacity = capacity
        self.pos.st = grown + self.pos.st_index

    # --- set-up and text ------------------------------------------------------
    def set_fen(self, fen, chess960=None):
        """Replace the position (and clear the history). On ValueError nothing changes."""
        if not isinstance(fen, str):
            raise ValueError("FEN must be a string")
        cdef bint c960 = self.pos.chess960 if chess960 is None else bool(chess960)
        cdef Board trial = Board.__new__(Board)
        set_position_from_fen(&trial.pos, fen, c960)
        self._copy_from(trial)
        self._moves = []

    cdef void _copy_from(self, Board other) except *:
        cdef StateInfo* states = self.pos.states
        cdef int capacity = self.pos.st_capacity
        if capacity < other.pos.st_index + 1:
            states = <StateInfo*>malloc(sizeof(StateInfo) * other.pos.st_capacity)
            if states == NULL:
                raise MemoryError()
            free(self.pos.states)
            capacity = other.pos.st_capacity
        copy_position_into(&self.pos, &other.pos, states, capacity)
        self._moves = list(other._moves)

    def fen(self, shredder=False):
        """FEN text; en passant shown only when a legal capture exists."""
        return position_fen(&self.pos, shredder)

    def copy(self):
        cdef Board b = type(self).__new__(type(self))
        b._copy_from(self)
        return b

    def __copy__(self):
        return self.copy()

    def __repr__(self):
        return f"{type(self).__name__}({self.fen()!r}, chess960={self.chess960})"

    def __str__(self):
        rows = []
        for rank in range(7, -1, -1):
            rows.append(" ".join(PIECE_LETTERS[self.pos.board[make_square(f, rank)]] for f in range(8)))
        return "\n".join(rows)

    # --- properties -------------------------------------------------------------
    @property
    def turn(self):
        """True when white is to move (the python-chess convention)."""
        return self.pos.side == WHITE

    @property
    def chess960(self):
        return bool(self.pos.chess960)

    @chess960.setter
    def chess960(self, value):
        self.pos.chess960 = bool(value)

    @property
    def key(self):
        """64-bit Zobrist key, equal to the Polyglot key of the position."""
        return self.pos.st.key

    @property
    def move_stack(self):
        """Moves pushed since the FEN, as UCI text."""
        return [self._history_uci(i) for i in range(len(self._moves))]

    @property
    def halfmove_clock(self):
        return self.pos.st.rule50

    @property
    def fullmove_number(self):
        return 1 + self.pos.game_ply // 2

    def _history_uci(self, int i):
        cdef Move m = self._moves[i]
        cdef int back = len(self._moves) - i
        return move_text(m, self.pos.side ^ (back & 1), self.pos.chess960)

    # --- moves ------------------------------------------------------------------
    def legal_moves(self):
        """Legal moves as UCI strings."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_legal(&self.pos, moves, GEN_ALL)
        return [move_to_uci(&self.pos, moves[i], self.pos.chess960) for i in range(n)]

    def checking_moves(self):
        """The legal moves that give check, as UCI strings, by the test the search uses."""
        cdef Move moves[MAX_MOVES]
        cdef CheckInfo ci
        cdef int n = generate_legal(&self.pos, moves, GEN_ALL)
        check_info_init(&ci, &self.pos)
        return [move_to_uci(&self.pos, moves[i], self.pos.chess960) for i in range(n)
                if gives_check_with(&self.pos, &ci, moves[i])]

    def is_legal(self, uci):
        return isinstance(uci, str) and parse_uci_move(&self.pos, uci, self.pos.chess960) != MOVE_NONE

    def push(self, uci):
        """Play a move given in UCI text; ValueError if it is malformed or illegal."""
        if not isinstance(uci, str):
            raise ValueError("a move must be a string")
        cdef Move m = parse_uci_move(&self.pos, uci, self.pos.chess960)
        if m == MOVE_NONE:
            if len(uci) not in (4, 5) or parse_square(uci[:2]) < 0 or parse_square(uci[2:4]) < 0 \
                    or (len(uci) == 5 and uci[4] not in PROMOTION_LETTERS):
                raise ValueError(f"malformed move {uci[:20]!r}")
            raise ValueError(f"illegal move {uci!r} in {self.fen()}")
        self._reserve(1)
        do_move(&self.pos, m)
        self._moves.append(m)

    def pop(self):
        """Undo the last move and return it as UCI text."""
        if not self._moves:
            raise IndexError("pop from a board without moves")
        cdef Move m = self._moves.pop()
        undo_move(&self.pos, m)
        return move_to_uci(&self.pos, m, self.pos.chess960)

    def is_check(self):
        return self.pos.st.checkers != 0

    def is_checkmate(self):
        cdef Move moves[MAX_MOVES]
        return self.pos.st.checkers != 0 and generate_legal(&self.pos, moves, GEN_ALL) == 0

    def is_stalemate(self):
        cdef Move moves[MAX_MOVES]
        return self.pos.st.checkers == 0 and generate_legal(&self.pos, moves, GEN_ALL) == 0

    def is_insufficient_material(self):
        return has_insufficient_material(&self.pos)

    def is_repetition(self):
        """Has this position occurred three times in the game?"""
        return is_repetition(&self.pos, 0)

    # --- counting ---------------------------------------------------------------
    def perft(self, int depth):
        """Leaf nodes `depth` plies ahead (bulk-counted at the last ply); perft(0) is 1."""
        cdef uint64_t nodes
        if depth < 0:
            raise ValueError("perft depth must be at least 0")
        self._reserve(depth + 1)
        with nogil:
            nodes = perft(&self.pos, depth)
        return nodes

    def divide(self, int depth):
        """(move, leaf count) for every legal move: perft split at the root (depth >= 1)."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_legal(&self.pos, moves, GEN_ALL), i
        cdef uint64_t nodes
        if depth < 1:
            raise ValueError("divide needs a depth of at least 1")
        result = []
        self._reserve(depth + 1)
        for i in range(n):
            do_move(&self.pos, moves[i])
            with nogil:
                nodes = perft(&self.pos, depth - 1)
            undo_move(&self.pos, moves[i])
            result.append((move_to_uci(&self.pos, moves[i], self.pos.chess960), nodes))
        return result

    def checkers(self):
        """Squares of the pieces giving check, as names."""
        cdef Bitboard b = self.pos.st.checkers
        names = []
        while b:
            names.append(square_name(pop_lsb(&b)))
        return names

    def evaluate(self):
        """Static evaluation in centipawns from the side to move's point of view."""
        refresh_incremental_eval(&self.pos)
        return evaluate(&self.pos)

    def eval_trace(self):
        """The evaluation term by term (white's view), as text for the `eval` command."""
        return eval_trace_text(&self.pos)

    def _check_invariants(self):
        """Recompute the key and the occupancy from scratch and compare (for tests)."""
        return position_is_consistent(&self.pos)

    # --- Syzygy tablebases (syzygy.pxi) -----------------------------------------
    def probe_wdl(self):
        """Tablebase win/draw/loss for the side to move (2, 1, 0, -1, -2 as in
        python-chess's probe_wdl), or None when the tables cannot tell."""
        cdef int ok = 0, v
        with nogil:
            v = tb_probe_wdl(&self.pos, &ok)
        return v if ok else None

    def probe_dtz(self):
        """Tablebase distance to zeroing (python-chess's probe_dtz), or None."""
        cdef int ok = 0, v
        with nogil:
            v = tb_probe_dtz(&self.pos, &ok)
        return v if ok else None
    # --- benchmark probes: speed measurements for bench/, not part of playing ----
    def make_unmake(self, int rounds):
        """Benchmark probe (bench/, not for play): play and take back every legal
        move `rounds` times in compiled code; return the number of moves made."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_legal(&self.pos, moves, GEN_ALL), i, r
        if rounds < 0:
            raise ValueError("rounds must be at least 0")
        self._reserve(1)
        with nogil:
            for r in range(rounds):
                for i in range(n):
                    do_move(&self.pos, moves[i])
                    undo_move(&self.pos, moves[i])
        return <long long>rounds * n

    def evaluate_rounds(self, int rounds):
        """Benchmark probe (bench/, not for play): evaluate the position `rounds`
        times in compiled code and return the score (there is no evaluation cache,
        so every round does the whole work)."""
        cdef int r
        if rounds < 1:
            raise ValueError("rounds must be at least 1")
        cdef int first = self.evaluate(), score = first
        with nogil:
            for r in range(rounds - 1):
                score = evaluate(<const Position*>fc_opaque(&self.pos))
                if score != first:
                    break
        if score != first:
            raise RuntimeError("the evaluation changed between rounds")
        return first
