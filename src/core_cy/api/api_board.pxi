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


# Every UCI text is built once and kept: index from | to << 6 | promotion slot << 12
# (0 none, 1-4 knight..queen). Moves cross into Python as these shared strings.
cdef PyObject* UCI_TEXTS[5 * 4096]


cdef str move_text(Move m, Color mover, bint chess960):
    """UCI text of a move by `mover`. Castling is written king-to-destination only for
    a standard set-up outside Chess960 mode, king-takes-rook otherwise."""
    cdef Square f = move_from(m), t = move_to(m)
    cdef int slot = 0, index
    if move_kind(m) == MK_CASTLING and not chess960 and file_of(f) == STANDARD_KING_FILE \
            and (file_of(t) == 0 or file_of(t) == 7):
        t = castling_king_to(mover, t > f)
    elif move_kind(m) == MK_PROMOTION:
        slot = promotion_type(m) - KNIGHT + 1
    index = f | t << 6 | slot << 12
    if UCI_TEXTS[index] == NULL:
        text = square_name(f) + square_name(t) + ("" if slot == 0 else PROMOTION_LETTERS[slot - 1])
        Py_INCREF(text)
        UCI_TEXTS[index] = <PyObject*>text
    return <str>UCI_TEXTS[index]


cdef inline int text_square(str text, Py_ssize_t at) noexcept:
    """The square written at text[at:at + 2] (the caller checks the length), or -1."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef int file = <int>PyUnicode_READ(kind, data, at) - 97
    cdef int rank = <int>PyUnicode_READ(kind, data, at + 1) - 49
    if file < 0 or file > 7 or rank < 0 or rank > 7:       # 'a'..'h', '1'..'8'
        return -1
    return file + 8 * rank


cdef Move read_plain_move(const Position* pos, str text):
    """The legal non-castling, non-en-passant move written `text`, or 0: the common
    case, read without generating the moves."""
    cdef Py_ssize_t n = len(text)
    cdef int f, t, letter
    cdef Move m
    if n != 4 and n != 5:
        return MOVE_NONE
    f = text_square(text, 0)
    t = text_square(text, 2)
    if f < 0 or t < 0:
        return MOVE_NONE
    if n == 5:
        letter = PROMOTION_LETTERS.find(text[4])
        if letter < 0:
            return MOVE_NONE
        m = make_promotion(f, t, KNIGHT + letter)
    else:
        m = make_move(f, t)
    return m if is_legal_move(pos, m) else MOVE_NONE


cdef Move parse_uci_move(const Position* pos, str text, bint chess960) except? 0:
    """The legal move written `text`, or 0. Castling is accepted in both spellings."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    cdef Move alternative = read_plain_move(pos, text)
    if alternative != MOVE_NONE:
        return alternative
    n = generate_legal(pos, moves, GEN_ALL)
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


# The plain moves (not castling, en passant or promotion) that legal_moves() listed
# at recent plies, by from-square: push() plays a listed move without checking its
# legality again. A slot belongs to the position with its key at its ply.
cdef enum:
    LISTED_PLIES = 64

ctypedef struct ListedMoves:
    uint64_t key
    int st_index            # -1: empty
    Bitboard targets[64]


cdef inline Move listed_move(const ListedMoves* listed, const Position* pos, str text) noexcept:
    """The plain move written `text` if legal_moves() listed it at this ply, else 0."""
    cdef const ListedMoves* slot
    cdef int f, t
    if listed == NULL or len(text) != 4:
        return MOVE_NONE
    slot = &listed[pos.st_index & (LISTED_PLIES - 1)]
    if slot.st_index != pos.st_index or slot.key != pos.st.key:
        return MOVE_NONE
    f = text_square(text, 0)
    t = text_square(text, 2)
    if f < 0 or t < 0 or not (slot.targets[f] & sq_bb(t)):
        return MOVE_NONE
    return make_move(f, t)


cdef class PerftHash:
    """A table of perft subtree counts, (key, depth) -> leaves, of its own: never
    the search's transposition table. PerftHash(megabytes); 0 keeps no counts
    (stop() still works). Boards counting in several threads may share one."""
    cdef PerftTable table
    cdef volatile int stopped
    cdef readonly size_t megabytes

    def __cinit__(self, size_t megabytes):
        if not perft_table_allocate(&self.table, megabytes):
            raise MemoryError(f"no memory for a perft table of {megabytes} MB")
        self.megabytes = megabytes
        self.stopped = 0

    def __dealloc__(self):
        perft_table_free(&self.table)

    def stop(self):
        """End every count that uses this table, now."""
        fc_store_flag(&self.stopped, 1)

    @property
    def is_stopped(self):
        return bool(fc_load_flag(&self.stopped))


cdef class Board:
    """A chess position with its move history.

    Board(fen=None, chess960=False) starts from the standard position or from `fen`
    (X-FEN or Shredder-FEN castling). Moves are UCI strings; castling is written
    e1g1 in standard chess and king-takes-rook (e1h1) in Chess960 mode; both are
    accepted on input.
    """
    cdef Position pos         # the moves pushed since the FEN are states[1..st_index].move
    cdef ListedMoves* listed  # LISTED_PLIES slots, allocated by the first legal_moves()

    def __cinit__(self, *args, **kwargs):
        self.pos.states = <StateInfo*>malloc(sizeof(StateInfo) * DEFAULT_STATE_CAPACITY)
        if self.pos.states == NULL:
            raise MemoryError()
        self.pos.st_capacity = DEFAULT_STATE_CAPACITY
        clear_position(&self.pos)

    def __dealloc__(self):
        free(self.pos.states)
        free(self.listed)

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
        return [self._history_uci(i) for i in range(self.pos.st_index)]

    @property
    def halfmove_clock(self):
        return self.pos.st.rule50

    @property
    def fullmove_number(self):
        return 1 + self.pos.game_ply // 2

    cdef str _history_uci(self, int i):
        """UCI text of the i-th move pushed (0-based)."""
        cdef int back = self.pos.st_index - i
        return move_text(self.pos.states[i + 1].move, self.pos.side ^ (back & 1), self.pos.chess960)

    # --- moves ------------------------------------------------------------------
    @cython.always_allow_keywords(False)
    def legal_moves(self):
        """Legal moves as UCI strings."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_legal(&self.pos, moves, GEN_ALL), i
        cdef list texts = PyList_New(n)
        cdef str text
        self._remember_listed(moves, n)
        for i in range(n):
            text = move_text(moves[i], self.pos.side, self.pos.chess960)
            Py_INCREF(text)
            PyList_SET_ITEM(texts, i, text)
        return texts

    cdef void _remember_listed(self, const Move* moves, int n) except *:
        cdef ListedMoves* slot
        cdef int i
        if self.listed == NULL:
            self.listed = <ListedMoves*>malloc(sizeof(ListedMoves) * LISTED_PLIES)
            if self.listed == NULL:
                raise MemoryError()
            for i in range(LISTED_PLIES):
                self.listed[i].st_index = -1
        slot = &self.listed[self.pos.st_index & (LISTED_PLIES - 1)]
        memset(slot.targets, 0, sizeof(slot.targets))
        for i in range(n):
            if move_kind(moves[i]) == MK_NORMAL:
                slot.targets[move_from(moves[i])] |= sq_bb(move_to(moves[i]))
        slot.key = self.pos.st.key
        slot.st_index = self.pos.st_index

    def checking_moves(self):
        """The legal moves that give check, as UCI strings, by the test the search uses."""
        cdef Move moves[MAX_MOVES]
        cdef CheckInfo ci
        cdef int n = generate_legal(&self.pos, moves, GEN_ALL)
        check_info_init(&ci, &self.pos)
        return [move_to_uci(&self.pos, moves[i], self.pos.chess960) for i in range(n)
                if gives_check_with(&self.pos, &ci, moves[i])]

    def _validator_disagreements(self):
        """16-bit move values on which is_legal_move and the generator disagree (tests)."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_legal(&self.pos, moves, GEN_ALL), v
        generated = {moves[i] for i in range(n)}
        return [v for v in range(65536) if bool(is_legal_move(&self.pos, <Move>v)) != (v in generated)]

    def is_legal(self, uci):
        return isinstance(uci, str) and parse_uci_move(&self.pos, uci, self.pos.chess960) != MOVE_NONE

    @cython.always_allow_keywords(False)        # one positional argument: the fastest call
    def push(self, uci):
        """Play a move given in UCI text; ValueError if it is malformed or illegal."""
        if not isinstance(uci, str):
            raise ValueError("a move must be a string")
        cdef str text = uci if type(uci) is str else str(uci)
        cdef Move m = listed_move(self.listed, &self.pos, text)
        if m == MOVE_NONE:
            m = parse_uci_move(&self.pos, text, self.pos.chess960)
        if m == MOVE_NONE:
            if len(uci) not in (4, 5) or parse_square(uci[:2]) < 0 or parse_square(uci[2:4]) < 0 \
                    or (len(uci) == 5 and uci[4] not in PROMOTION_LETTERS):
                raise ValueError(f"malformed move {uci[:20]!r}")
            raise ValueError(f"illegal move {uci!r} in {self.fen()}")
        if self.pos.st_index + 1 >= self.pos.st_capacity:
            self._reserve(1)
        do_move(&self.pos, m)

    @cython.always_allow_keywords(False)
    def pop(self):
        """Undo the last move and return it as UCI text."""
        if self.pos.st_index == 0:
            raise IndexError("pop from a board without moves")
        cdef Move m = self.pos.st.move
        undo_move(&self.pos, m)
        return move_text(m, self.pos.side, self.pos.chess960)

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

    def perft_deep(self, int depth, PerftHash shared=None):
        """perft(depth) for long counts: subtree counts are kept in `shared` (a
        PerftHash, which several threads may use at once, each with a Board of its
        own), and shared.stop() ends the count: None is then returned."""
        cdef uint64_t nodes
        cdef PerftHash table = shared if shared is not None else PerftHash(0)
        if depth < 0:
            raise ValueError("perft depth must be at least 0")
        self._reserve(depth + 1)
        with nogil:
            nodes = perft_deep(&self.pos, depth, &table.table, &table.stopped)
        return None if table.stopped else nodes

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

    def evaluate(self, LoadedNetwork network=None):
        """Static evaluation in centipawns from the side to move's point of view:
        the network's when one is given, else the hand-crafted evaluation."""
        cdef Position view
        refresh_incremental_eval(&self.pos)
        view = self.pos                 # the same state stack, read only
        view.accs = NULL                # the network's accumulator is built on the stack
        view.net = &network.net if network is not None else NULL
        return evaluate(&view)

    def eval_trace(self):
        """The evaluation term by term (white's view), as text for the `eval` command."""
        return eval_trace_text(&self.pos)

    def _check_invariants(self):
        """Recompute the occupancy, key, checkers and material-and-square sum from scratch and compare (for tests)."""
        return position_is_consistent(&self.pos)

    # --- Syzygy tablebases (syzygy.pxi) -----------------------------------------
    def probe_wdl(self, SyzygyTables tables not None):
        """Win/draw/loss for the side to move by `tables` (2, 1, 0, -1, -2 as in
        python-chess's probe_wdl), or None when the tables cannot tell."""
        cdef int ok = 0, v
        cdef Position view = self.tables_view(tables)
        with nogil:
            v = tb_probe_wdl(&view, &ok)
        return v if ok else None

    def probe_dtz(self, SyzygyTables tables not None):
        """Distance to zeroing by `tables` (python-chess's probe_dtz), or None."""
        cdef int ok = 0, v
        cdef Position view = self.tables_view(tables)
        with nogil:
            v = tb_probe_dtz(&view, &ok)
        return v if ok else None

    cdef Position tables_view(self, SyzygyTables tables):
        """The position, on the same state stack (the probes only read it), pointing
        at `tables`."""
        cdef Position view = self.pos
        view.accs = NULL
        view.tables = tables_pointer(tables)
        return view
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

    def evaluate_rounds(self, int rounds, LoadedNetwork network=None):
        """Benchmark probe (bench/, not for play): evaluate the position `rounds`
        times in compiled code, with `network` or the hand-crafted evaluation, and
        return the score (there is no evaluation cache, so every round does the
        whole work)."""
        cdef int r
        cdef Position view
        if rounds < 1:
            raise ValueError("rounds must be at least 1")
        cdef int first = self.evaluate(network), score = first
        view = self.pos
        view.accs = NULL
        view.net = &network.net if network is not None else NULL
        with nogil:
            for r in range(rounds - 1):
                score = evaluate(<const Position*>fc_opaque(&view))
                if score != first:
                    break
        if score != first:
            raise RuntimeError("the evaluation changed between rounds")
        return first
