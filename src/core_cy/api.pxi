# The Python face of the core: Board. Everything Python touches goes through here.

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

    def make_unmake(self, int rounds):
        """Play and take back every legal move `rounds` times; return the moves made.

        A measure of make/unmake speed for the benchmarks."""
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
        """Evaluate the position `rounds` times in compiled code; return the score.

        A measure of evaluation speed for the benchmarks (there is no evaluation
        cache, so every round does the whole work)."""
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
    # --- end Syzygy -----------------------------------------------------------------



cdef tuple uci_score(int score):
    """('cp', centipawns) or ('mate', moves), positive when the side to move mates."""
    if score >= VALUE_MATE_IN_MAX_PLY:
        return ("mate", (VALUE_MATE - score + 1) // 2)
    if score <= -VALUE_MATE_IN_MAX_PLY:
        return ("mate", -((VALUE_MATE + score) // 2))
    return ("cp", score)


cdef void refresh_incremental_eval(Position* pos) noexcept nogil:
    """Recompute pos.psq and pos.phase from scratch (after the weights changed)."""
    cdef Bitboard b = pos.by_type[0]
    cdef Square s
    pos.psq = 0
    pos.phase = 0
    while b:
        s = pop_lsb(&b)
        pos.psq += PSQ[pos.board[s]][s]
        pos.phase += PHASE_WEIGHT[type_of(pos.board[s])]


cdef class Search:
    """A search with its own transposition table, history tables and threads.

    ``start(board, ...)`` prepares a search synchronously (a ``stop()`` from then on
    ends it); ``run()`` performs it with the GIL released and returns
    ``(best, ponder)`` as UCI strings; ``go(board, ...)`` does both. With several
    threads (Lazy SMP) the helpers search the same root and share the table; the
    main thread decides and reports.
    """
    cdef TranspositionTable tt
    cdef SearchThread** threads
    cdef SearchThread* thread          # the main thread, threads[0]
    cdef int thread_count
    cdef SharedState shared
    cdef object info
    cdef bint chess960
    cdef bint prepared

    def __cinit__(self, hash_mb=16, threads=1):
        self.tt.buckets = NULL
        self.threads = NULL
        self.thread_count = 0
        self.set_threads(threads)
        self.set_hash(hash_mb)

    def __dealloc__(self):
        self._free_threads()
        free(self.tt.buckets)

    cdef void _free_threads(self):
        cdef int i
        if self.threads != NULL:
            for i in range(self.thread_count):
                if self.threads[i] != NULL:
                    free(self.threads[i].own_states)
                    free(self.threads[i].own_accs)
                    free(self.threads[i])
            free(self.threads)
        self.threads = NULL
        self.thread = NULL
        self.thread_count = 0

    def set_threads(self, count):
        """Number of search threads (1 = a single deterministic thread)."""
        cdef int n = max(1, min(int(count), MAX_THREADS)), i
        self._free_threads()
        self.threads = <SearchThread**>calloc(n, sizeof(SearchThread*))
        if self.threads == NULL:
            raise MemoryError()
        self.thread_count = n
        for i in range(n):
            self.threads[i] = <SearchThread*>calloc(1, sizeof(SearchThread))
            if self.threads[i] == NULL:
                self._free_threads()
                raise MemoryError()
            self.threads[i].thread_id = i
        self.thread = self.threads[0]

    @property
    def threads(self):
        return self.thread_count

    def set_hash(self, megabytes):
        """Resize the transposition table (clearing it)."""
        if not tt_allocate(&self.tt, max(1, int(megabytes))):
            raise MemoryError(f"cannot allocate a {megabytes} MB hash table")

    def clear(self):
        """Forget everything learnt: transposition table, killers, history."""
        cdef int i
        cdef StateInfo* states
        cdef Accumulator* accs
        cdef int capacity, accs_capacity
        tt_clear(&self.tt)
        for i in range(self.thread_count):
            states = self.threads[i].own_states
            capacity = self.threads[i].own_capacity
            accs = self.threads[i].own_accs
            accs_capacity = self.threads[i].own_accs_capacity
            memset(self.threads[i], 0, sizeof(SearchThread))
            self.threads[i].own_states = states
            self.threads[i].own_capacity = capacity
            self.threads[i].own_accs = accs
            self.threads[i].own_accs_capacity = accs_capacity
            self.threads[i].thread_id = i

    def hashfull(self):
        return tt_hashfull(&self.tt)

    def stop(self):
        fc_store_flag(&self.shared.stop, 1)

    def set_time_limits(self, soft_ms, hard_ms):
        """Soft (no new iteration) and hard (abort) limits in ms from the start of the search."""
        fc_store_flag(&self.shared.soft_ms, max(0, int(soft_ms)))
        fc_store_flag(&self.shared.hard_ms, max(0, int(hard_ms)))

    cdef void _copy_position(self, SearchThread* t, Board board) except *:
        """Give thread t its own copy of the board, with the game history for repetitions."""
        cdef int needed = board.pos.st_index + MAX_PLY + 16
        if needed > t.own_capacity:
            free(t.own_states)
            t.own_states = <StateInfo*>malloc(sizeof(StateInfo) * needed)
            if t.own_states == NULL:
                t.own_capacity = 0
                raise MemoryError()
            t.own_capacity = needed
        copy_position_into(&t.pos, &board.pos, t.own_states, t.own_capacity)
        if not attach_accumulators(&t.pos, &t.own_accs, &t.own_accs_capacity):
            raise MemoryError()
        refresh_incremental_eval(&t.pos)

    def start(self, Board board, *, depth=0, nodes=0, movetime_soft=0, movetime_hard=0, mate=0,
              multipv=1, searchmoves=None, info=None, tb_probe_limit=7, tb_50_move_rule=True):
        """Prepare a search of `board`; 0 means no limit. Raises ValueError on bad limits.

        Tablebases loaded with syzygy_init() are probed inside the search for
        positions of at most `tb_probe_limit` pieces."""
        cdef SearchThread* t = self.thread
        cdef SearchThread* helper
        cdef Move moves[MAX_MOVES]
        cdef int n, i
        for i in range(self.thread_count):
            self._copy_position(self.threads[i], board)
        self.chess960 = board.pos.chess960
        self.info = info
        t.tt = &self.tt
        t.shared = &self.shared
        t.reporter = <void*>self
        t.limits.depth = max(0, min(int(depth), MAX_PLY - 10))
        t.limits.nodes = max(0, int(nodes))
        t.limits.mate = max(0, min(int(mate), 100))
        t.limits.multipv = max(1, int(multipv))
        t.tb_pieces = min(TB_LARGEST, max(0, int(tb_probe_limit)))
        t.tb_50_move_rule = bool(tb_50_move_rule)
        t.tb_hits = 0
        n = generate_legal(&t.pos, moves, GEN_ALL)
        allowed = None
        if searchmoves:
            allowed = {parse_uci_move(&t.pos, text, self.chess960) for text in searchmoves}
        t.root_count = 0
        for i in range(n):
            if allowed is None or moves[i] in allowed:
                t.root_moves[t.root_count].move = moves[i]
                t.root_moves[t.root_count].score = -VALUE_INFINITE
                t.root_moves[t.root_count].previous_score = -VALUE_INFINITE
                t.root_moves[t.root_count].pv[0] = moves[i]
                t.root_moves[t.root_count].pv_length = 1
                t.root_moves[t.root_count].seldepth = 0
                t.root_count += 1
        if t.root_count == 0 and allowed is not None:
            raise ValueError("none of the searchmoves is legal")
        self._order_root_moves()
        t.nodes = 0
        t.seldepth = 0
        t.completed_depth = 0
        t.pv_index = 0
        for i in range(1, self.thread_count):
            self._prepare_helper(self.threads[i])
        fc_store_flag(&self.shared.stop, 0)
        self.set_time_limits(movetime_soft, movetime_hard)
        t.start_ms = fc_now_ms()
        for i in range(1, self.thread_count):
            self.threads[i].start_ms = t.start_ms
        self.prepared = True

    cdef void _prepare_helper(self, SearchThread* helper):
        """A helper searches the main thread's root moves with no node limit and no reports."""
        cdef SearchThread* t = self.thread
        helper.tt = &self.tt
        helper.shared = &self.shared
        helper.reporter = NULL
        helper.limits = t.limits
        helper.limits.nodes = 0
        helper.root_count = t.root_count
        memcpy(helper.root_moves, t.root_moves, sizeof(RootMove) * t.root_count)
        helper.nodes = 0
        helper.tb_pieces = t.tb_pieces
        helper.tb_50_move_rule = t.tb_50_move_rule
        helper.tb_hits = 0
        helper.seldepth = 0
        helper.completed_depth = 0
        helper.pv_index = 0

    cdef void _order_root_moves(self):
        """Initial root order: the staged picker's order (TT move, captures, quiets)."""
        cdef SearchThread* t = self.thread
        cdef MovePicker mp
        cdef TTHit hit
        cdef Move m, tt_move = MOVE_NONE
        cdef Move no_killers[2]
        cdef RootMove tmp
        cdef int placed = 0, i
        no_killers[0] = MOVE_NONE
        no_killers[1] = MOVE_NONE
        if tt_probe(&self.tt, t.pos.st.key, &hit):
            tt_move = hit.move
        picker_init(&mp, &t.pos, tt_move, no_killers, MOVE_NONE, <const int (*)[64][64]>t.history)
        while placed < t.root_count:
            m = next_move(&mp, &t.pos, False)
            if m == MOVE_NONE:
                break
            for i in range(placed, t.root_count):
                if t.root_moves[i].move == m:
                    tmp = t.root_moves[placed]
                    t.root_moves[placed] = t.root_moves[i]
                    t.root_moves[i] = tmp
                    placed += 1
                    break

    def run(self):
        """Search what start() prepared; returns (best, ponder) UCI strings (None if absent)."""
        cdef SearchThread* t = self.thread
        if not self.prepared:
            raise RuntimeError("run() without start()")
        self.prepared = False
        if t.root_count == 0:
            return None, None
        tt_new_search(&self.tt)
        helpers = [threading.Thread(target=self._run_helper, args=(i,), daemon=True)
                   for i in range(1, self.thread_count)]
        for helper in helpers:
            helper.start()
        with nogil:
            iterative_deepening(t)
        fc_store_flag(&self.shared.stop, 1)
        for helper in helpers:
            helper.join()
        if t.completed_depth == 0 and t.root_moves[0].score == -VALUE_INFINITE:
            t.root_moves[0].score = 0
        self._report_line(max(t.completed_depth, 1), 0, BOUND_EXACT, True)
        return self._best_and_ponder()

    def _run_helper(self, int index):
        cdef SearchThread* t = self.threads[index]
        with nogil:
            iterative_deepening(t)

    @property
    def nodes(self):
        """Nodes searched by all threads in the last search."""
        return self._total_nodes()

    cdef uint64_t _total_tb_hits(self):
        cdef uint64_t total = 0
        cdef int i
        for i in range(self.thread_count):
            total += self.threads[i].tb_hits
        return total

    cdef uint64_t _total_nodes(self):
        cdef uint64_t total = 0
        cdef int i
        for i in range(self.thread_count):
            total += self.threads[i].nodes
        return total

    def go(self, Board board, **limits):
        self.start(board, **limits)
        return self.run()

    cdef tuple _best_and_ponder(self):
        cdef SearchThread* t = self.thread
        cdef RootMove* rm = &t.root_moves[0]
        cdef Move ponder = MOVE_NONE
        cdef TTHit hit
        best = move_to_uci(&t.pos, rm.move, self.chess960)
        do_move(&t.pos, rm.move)
        if rm.pv_length >= 2 and is_legal_move(&t.pos, rm.pv[1]):
            ponder = rm.pv[1]
        elif tt_probe(&self.tt, t.pos.st.key, &hit) and is_legal_move(&t.pos, hit.move):
            ponder = hit.move
        ponder_text = move_to_uci(&t.pos, ponder, self.chess960) if ponder != MOVE_NONE else None
        undo_move(&t.pos, rm.move)
        return best, ponder_text

    cdef list _pv_text(self, RootMove* rm):
        """The PV as UCI text, cut at the first move that is not legal (never expected)."""
        cdef SearchThread* t = self.thread
        cdef int i, played = 0
        out = []
        for i in range(rm.pv_length):
            if not is_legal_move(&t.pos, rm.pv[i]):
                break
            out.append(move_to_uci(&t.pos, rm.pv[i], self.chess960))
            do_move(&t.pos, rm.pv[i])
            played += 1
        for i in range(played - 1, -1, -1):
            undo_move(&t.pos, rm.pv[i])
        return out

    cdef void _report_line(self, int depth, int pv_index, int bound, bint final=False):
        cdef SearchThread* t = self.thread
        cdef RootMove* rm = &t.root_moves[pv_index]
        cdef int64_t elapsed = max(elapsed_ms(t), 0)
        cdef int score = rm.score if rm.score != -VALUE_INFINITE else rm.previous_score
        if self.info is None:
            return
        if score == -VALUE_INFINITE:
            score = 0
        bound_text = None
        if bound == BOUND_UPPER:
            bound_text = "upperbound"
        elif bound == BOUND_LOWER:
            bound_text = "lowerbound"
        data = {
            "depth": depth, "seldepth": max(rm.seldepth, 1), "multipv": pv_index + 1,
            "score": uci_score(score), "bound": bound_text, "nodes": self._total_nodes(),
            "nps": self._total_nodes() * 1000 // max(elapsed, 1), "time": elapsed,
            "hashfull": tt_hashfull(&self.tt), "tbhits": self._total_tb_hits(),
            "pv": self._pv_text(rm), "final": final,
        }
        try:
            self.info(data)
        except Exception:
            pass

    cdef void _report_currmove(self, Move m, int number, int depth):
        if self.info is None:
            return
        try:
            self.info({"currmove": move_to_uci(&self.thread.pos, m, self.chess960),
                       "currmovenumber": number, "depth": depth})
        except Exception:
            pass


# --- evaluation weights (for tuners) -------------------------------------------------

def magic_numbers():
    """The rook and bishop magic multipliers in use, square by square (for
    tools/gen_magics.py, which stores them in magic_numbers.pxi)."""
    return [ROOK_MAGICS[s].magic for s in range(64)], [BISHOP_MAGICS[s].magic for s in range(64)]


def weight_table():
    """The evaluation weights as {group name: [(mg, eg), ...]} in table order."""
    return {name: [(mg_of(WEIGHTS[offset + i]), eg_of(WEIGHTS[offset + i])) for i in range(size)]
            for name, offset, size in WEIGHT_GROUPS}


def set_weight_table(table):
    """Replace weights by group name (any subset); ValueError on unknown names or sizes.

    Searches started afterwards use the new values (positions refresh their
    incremental material and square sums at the start of each search)."""
    groups = {name: (offset, size) for name, offset, size in WEIGHT_GROUPS}
    checked = []
    for name, values in table.items():
        if name not in groups:
            raise ValueError(f"unknown weight group {name!r}")
        offset, size = groups[name]
        if len(values) != size:
            raise ValueError(f"weight group {name!r} needs {size} pairs, got {len(values)}")
        pairs = [(int(mg), int(eg)) for mg, eg in values]
        if any(not -30000 <= v <= 30000 for pair in pairs for v in pair):
            raise ValueError(f"weight group {name!r} has a value outside -30000..30000")
        checked.append((offset, pairs))
    for offset, pairs in checked:
        for i, (mg, eg) in enumerate(pairs):
            WEIGHTS[offset + i] = S(mg, eg)
    build_psq()


def reset_weight_table():
    """Back to the built-in default weights."""
    init_default_weights()


# --- Syzygy tablebases (syzygy.pxi) -------------------------------------------------
def syzygy_init(paths):
    """Load the Syzygy tables (.rtbw, .rtbz) of the folders in `paths`, separated by
    ':' (';' on Windows), replacing any loaded before. Returns the most pieces of
    any WDL table found (0 when none). No probe may run during the call."""
    import os
    cdef bytes raw = os.fsencode(paths or "")
    cdef const char* text = raw
    cdef int largest
    with nogil:
        largest = tb_init(text)
    return largest
# --- end Syzygy -----------------------------------------------------------------------
