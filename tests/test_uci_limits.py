"""Search limits at their edges, through the real engine process.

Every case drives the installed ``fianchetto`` executable over raw pipes
(``uci_pipe.UciPipe``; one test goes through python-chess's ``chess.engine``)
and checks the same contract each time:

* exactly one ``bestmove`` per ``go`` (counted over the whole session, so a late
  second ``bestmove`` is caught by the next case);
* the ``bestmove`` (and its ``ponder`` move) is legal in the position given,
  with python-chess as the oracle;
* every ``pv`` in the ``info`` lines is a legal continuation, every
  ``currmove`` a legal root move;
* the line right before ``bestmove`` is an exact-score search ``info`` whose PV
  starts with the best move;
* the process stays alive and answers ``isready`` afterwards;
* no stdout line falls outside the UCI grammar, and ``depth``/``seldepth``
  never exceed the core's ``MAX_PLY`` (read from ``src/core_cy/types.pxd``).

Positions whose claims matter (mate in one, a single legal move, the fifty-move
rule, a perpetual check) are checked with python-chess first. No test asserts
speed, except that a position with one legal move is answered well inside a long
time budget (not using the budget is behaviour, not a speed claim).
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Set, Tuple

import chess
import chess.engine
import pytest

from fianchetto.cli import engine_command
from support.uci_pipe import BESTMOVE_RE, MAX_PLY, UciPipe, assert_pv_legal, assert_uci_line, parse_info


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q2/PPPBBPPP/R3K2R w KQkq - 0 1"
ENDGAME = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
IN_CHECK = "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3"  # Bb5+

POSITIONS = {
    "startpos": chess.STARTING_FEN,
    "kiwipete": KIWIPETE,
    "endgame": ENDGAME,
    "in-check": IN_CHECK,
}

#: Positions with a mate in one for the side to move (checked by the oracle below).
MATE_IN_ONE = [
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",  # back rank, Ra8#
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",  # Qxf7#
    "8/8/8/K1k5/8/8/4r3/8 b - - 0 1",  # black mates, Ra2#
    "7k/8/6K1/8/8/8/8/R7 w - - 0 1",  # Ra8#
]

#: In check, exactly one legal move (a king move: capture or flight square).
SINGLE_MOVE = [
    "rnb1kb1r/pp2n3/2ppp2N/3B3p/4P1p1/P7/RPPP1qPP/1NBQK2R w Kkq - 0 12",  # Kxf2
    "1rb1kbnr/pp1pp3/n4p1p/2p3pQ/P4P2/R2P3P/1PP2PPR/1NB1KBN1 b k - 1 9",  # Kd8
    "rnb2bnr/p1p2ppp/3pp3/6q1/1p1P2k1/2NQ2BP/PPP1PPP1/1R1K1BR1 b - - 0 13",  # Kh5
]

#: White is two rooks down but checks for ever: Qh5+ Kg8 Qe8+ Kh7 ...
PERPETUAL = "4Q3/6pk/8/8/8/1q6/2rr1PPP/7K w - - 0 1"
PERPETUAL_CYCLE = ["e8h5", "h7g8", "h5e8", "g8h7"]
PERPETUAL_SQUARES = {chess.E8, chess.H5}

#: Fifty-move-rule positions, ``{clock}`` filled in by the tests. White is a rook up.
#: Pawns e4/e5 are blocked and nothing can be captured, except where noted.
FIFTY_PAWN_MOVE = "8/3k4/8/4p3/4P3/8/7P/R5K1 w - - {clock} 150"  # only h2 can zero the clock
FIFTY_CAPTURE = "8/3k4/8/4p3/4P3/8/8/Rn4K1 w - - {clock} 150"  # only Rxb1 zeroes it
FIFTY_NO_ZEROING = "8/3k4/8/4p3/4P3/8/8/R5K1 w - - {clock} 150"  # no move can zero it
FIFTY_MATE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 150"  # Ra8# is the 100th half-move

def test_grammar_check_accepts_uci_and_rejects_the_rest():
    for line in ("readyok", "bestmove e2e4 ponder e7e5", "bestmove (none)", "info string anything at all",
                 "info depth 3 seldepth 5 multipv 1 score cp -12 upperbound nodes 9 nps 9 hashfull 0 "
                 "tbhits 0 time 1 pv e2e4 e7e5", "info depth 0 score mate 0 nodes 0 tbhits 0 time 0",
                 "info depth 9 currmove a7a8q currmovenumber 3", "id name Fianchetto 1"):
        assert_uci_line(line)
    for line in ("", "Traceback (most recent call last):", "bestmove e2e4 ponder", "bestmove e9e4", "bestmove 0000",
                 "info depth x", "info depth 3 score cp", "info depth 3 pv", "info depth 3 frob 2",
                 f"info depth {MAX_PLY + 1} score cp 0", f"info depth 1 seldepth {MAX_PLY + 1} score cp 0",
                 "info depth 3 depth 4", "readyok now", "Nodes searched: 20"):
        with pytest.raises(AssertionError):
            assert_uci_line(line)


# ---------------------------------------------------------------------------
# One engine process for the module, checked at every step
# ---------------------------------------------------------------------------
@dataclass
class Outcome:
    lines: List[str]          # every line from the go to its bestmove, inclusive
    best: chess.Move
    ponder: Optional[chess.Move]
    final: Dict[str, object]  # the info line right before bestmove
    seconds: float            # from writing go to reading bestmove

    @property
    def score(self) -> Tuple[str, int]:
        return self.final["score"]  # type: ignore[return-value]

    def infos(self) -> List[Dict[str, object]]:
        return [parse_info(l) for l in self.lines if l.startswith("info")]


class Session:
    """A long-lived engine process plus the bookkeeping every case checks."""

    def __init__(self) -> None:
        self.pipe = UciPipe()
        self.gos = 0
        self.bestmoves = 0
        self.checked = 0
        assert self.pipe.handshake()[-1] == "uciok"
        self.ready()

    @property
    def alive(self) -> bool:
        return self.pipe.proc.poll() is None

    def check_output(self) -> None:
        """Grammar-check every stdout line read since the last call; count bestmoves."""
        entries = self.pipe.transcript[self.checked:]
        self.checked = len(self.pipe.transcript)
        for entry in entries:
            if entry.startswith("<< "):
                line = entry[3:]
                assert_uci_line(line)
                if line.startswith("bestmove"):
                    self.bestmoves += 1

    def ready(self) -> List[str]:
        """``isready`` round trip; the process must be alive and every line must be UCI."""
        assert self.alive, f"engine exited with {self.pipe.proc.returncode}; stderr: {self.pipe.stderr[-5:]}"
        lines = self.pipe.sync()
        self.check_output()
        assert self.alive
        assert not any("Traceback" in l for l in self.pipe.stderr), self.pipe.stderr[-20:]
        return lines

    def send(self, line: str) -> float:
        if line.split()[:1] == ["go"]:
            self.gos += 1
        return self.pipe.send(line)

    def search(self, position: str, go: str, board: chess.Board, timeout: float = 60.0) -> Outcome:
        """``position`` + ``go``; the common contract checked; the outcome returned."""
        self.send(position)
        sent = self.send(go)
        stamped = self.pipe.read_until_stamped(lambda l: l.startswith("bestmove"), timeout)
        lines = [l for _, l in stamped]
        seconds = stamped[-1][0] - sent
        after = self.ready()
        assert not any(l.startswith("bestmove") for l in after), f"second bestmove after {go!r}: {after}"
        assert self.bestmoves == self.gos, f"{self.gos} go commands but {self.bestmoves} bestmoves"
        return check_outcome(board, go, lines, seconds)


def check_outcome(board: chess.Board, go: str, lines: List[str], seconds: float) -> Outcome:
    match = BESTMOVE_RE.match(lines[-1])
    assert match, lines[-1]
    assert match.group(1) != "(none)", f"{go}: bestmove (none) in {board.fen()}, which has legal moves"
    best = chess.Move.from_uci(match.group(1))
    assert best in board.legal_moves, f"{go}: illegal bestmove {best} in {board.fen()}"
    ponder = chess.Move.from_uci(match.group(2)) if match.group(2) else None
    if ponder is not None:
        after = board.copy()
        after.push(best)
        assert ponder in after.legal_moves, f"{go}: illegal ponder move {ponder} after {best} in {board.fen()}"
    assert_pv_legal(board, lines[:-1])
    assert len(lines) >= 2 and lines[-2].startswith("info"), f"{go}: no info line before bestmove: {lines[-3:]}"
    final = parse_info(lines[-2])
    assert "score" in final and "bound" not in final, f"{go}: final info is not an exact score: {lines[-2]!r}"
    assert final.get("pv", [None])[0] == best.uci(), f"{go}: final PV does not start with {best}: {lines[-2]!r}"
    if ponder is not None and len(final["pv"]) > 1:
        assert final["pv"][1] == ponder.uci(), f"{go}: ponder {ponder} is not the PV's second move: {lines[-2]!r}"
    return Outcome(lines, best, ponder, final, seconds)


_SESSION: List[Session] = []


@pytest.fixture
def engine():
    """The module's engine process, restarted if an earlier test killed it."""
    if not _SESSION or not _SESSION[0].alive:
        if _SESSION:
            _SESSION.pop().pipe.close()
        _SESSION.append(Session())
    session = _SESSION[0]
    yield session
    assert session.alive, "the engine process died"


@pytest.fixture(scope="module", autouse=True)
def _close_session():
    yield
    while _SESSION:
        session = _SESSION.pop()
        try:
            if session.alive:
                session.ready()
                late = session.pipe.drain(0.3)
                session.check_output()
                assert not any(l.startswith("bestmove") for l in late), f"late bestmove: {late}"
                assert session.bestmoves == session.gos, f"{session.gos} go, {session.bestmoves} bestmove"
                assert session.pipe.quit() == 0
        finally:
            session.pipe.close()


def position_command(fen: str, moves: Iterable[str] = ()) -> str:
    moves = list(moves)
    head = "position startpos" if fen == chess.STARTING_FEN else f"position fen {fen}"
    return head + (" moves " + " ".join(moves) if moves else "")


def board_after(fen: str, moves: Iterable[str] = ()) -> chess.Board:
    board = chess.Board(fen)
    for uci in moves:
        board.push_uci(uci)
    return board


# ---------------------------------------------------------------------------
# python-chess oracles
# ---------------------------------------------------------------------------
def mating_moves(board: chess.Board) -> Set[chess.Move]:
    found = set()
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate():
            found.add(move)
        board.pop()
    return found


def clock_draw_follows(board: chess.Board, move: chess.Move) -> bool:
    """After ``move`` the fifty-move rule ends the game, at once or after some reply of
    the opponent (and the move is not mate)."""
    board.push(move)
    try:
        if board.is_checkmate():
            return False
        if board.is_fifty_moves():
            return True
        for reply in list(board.legal_moves):
            board.push(reply)
            drawn = board.is_fifty_moves()
            board.pop()
            if drawn:
                return True
        return False
    finally:
        board.pop()


def forces_perpetual(board: chess.Board, squares: Set[int], limit: int = 200) -> bool:
    """The side to move can check for ever with its checks landing on ``squares``:
    a set of positions closed under "some such check, every reply stays in the set".
    False also when a check mates (that would be a win, not a perpetual)."""
    graph: Dict[str, List[List[str]]] = {}
    todo = [board.copy(stack=False)]
    while todo:
        node = todo.pop()
        key = node.epd()
        if key in graph:
            continue
        assert len(graph) < limit, "perpetual check search grew too large"
        options = []
        for move in node.legal_moves:
            if move.to_square not in squares or not node.gives_check(move):
                continue
            node.push(move)
            if node.is_checkmate():
                return False
            replies = []
            for reply in node.legal_moves:
                node.push(reply)
                replies.append(node.copy(stack=False))
                node.pop()
            node.pop()
            options.append([r.epd() for r in replies])
            todo.extend(replies)
        graph[key] = options
    alive = set(graph)
    changed = True
    while changed:
        changed = False
        for key in list(alive):
            if not any(all(r in alive for r in replies) for replies in graph[key]):
                alive.discard(key)
                changed = True
    return board.epd() in alive


def long_game(plies: int, seed: int) -> chess.Board:
    """A legal, seeded game of ``plies`` plies that is not over: quiet moves while the
    fifty-move clock is young, a pawn move or capture when it gets old, never a
    position repeated three times, never mate or stalemate."""
    rng = random.Random(seed)
    board = chess.Board()
    while board.ply() < plies:
        moves = list(board.legal_moves)
        quiet = [m for m in moves if not board.is_zeroing(m)]
        zeroing = [m for m in moves if board.is_zeroing(m) and not board.is_capture(m)] \
            or [m for m in moves if board.is_zeroing(m)]
        young = board.halfmove_clock < 60 + rng.randrange(40)
        pool = quiet if (young and quiet) else (zeroing or quiet)
        rng.shuffle(pool)
        for move in pool:
            board.push(move)
            if not board.is_game_over() and not board.is_repetition(3):
                break
            board.pop()
        else:
            raise AssertionError(f"seed {seed}: the generated game got stuck at ply {board.ply()}")
    return board


def test_oracle_claims_hold():
    """The hand-made positions are what the tests below say they are."""
    for fen in list(POSITIONS.values()) + MATE_IN_ONE + SINGLE_MOVE + [PERPETUAL]:
        assert chess.Board(fen).is_valid(), fen
    assert chess.Board(IN_CHECK).is_check()
    for fen in POSITIONS.values():
        assert not mating_moves(chess.Board(fen)), fen
    for fen in MATE_IN_ONE:
        assert mating_moves(chess.Board(fen)), fen
    for fen in SINGLE_MOVE:
        board = chess.Board(fen)
        assert board.is_check() and board.legal_moves.count() == 1, fen
    board = chess.Board(PERPETUAL)
    assert forces_perpetual(board, PERPETUAL_SQUARES)
    material = {chess.QUEEN: 9, chess.ROOK: 5, chess.PAWN: 1}
    white = sum(material.get(p.piece_type, 0) for p in board.piece_map().values() if p.color)
    black = sum(material.get(p.piece_type, 0) for p in board.piece_map().values() if not p.color)
    assert black - white >= 8  # two rooks


# ---------------------------------------------------------------------------
# Tiny limits on ordinary positions
# ---------------------------------------------------------------------------
TINY_LIMITS = [
    "go nodes 1",
    "go depth 1",
    "go movetime 1",
    "go wtime 1 btime 1",
    "go wtime 0 btime 0",
    "go wtime 1 btime 1 winc 0 binc 0 movestogo 1",
]


@pytest.mark.parametrize("go", TINY_LIMITS)
@pytest.mark.parametrize("name", list(POSITIONS))
def test_tiny_limits_give_one_legal_move(engine, name, go):
    fen = POSITIONS[name]
    outcome = engine.search(position_command(fen), go, chess.Board(fen))
    assert outcome.final.get("depth", 0) >= 1, outcome.lines[-2]


@pytest.mark.parametrize("name", list(POSITIONS))
def test_go_mate_1_without_a_mate_still_moves(engine, name):
    fen = POSITIONS[name]
    outcome = engine.search(position_command(fen), "go mate 1", chess.Board(fen))
    for info in outcome.infos():
        if "score" in info and info["score"][0] == "mate":
            assert info["score"][1] != 1, f"claims a mate in 1 that python-chess does not see: {info}"


@pytest.mark.parametrize("fen", MATE_IN_ONE)
def test_go_mate_1_plays_the_mate(engine, fen):
    board = chess.Board(fen)
    outcome = engine.search(position_command(fen), "go mate 1", board)
    assert outcome.score == ("mate", 1), outcome.lines[-2]
    assert outcome.best in mating_moves(board)


@pytest.mark.parametrize("go", ["go depth 0", "go nodes 0", "go movetime 0", "go mate 0"])
def test_zero_limit_is_the_smallest_search_and_says_so(engine, go):
    """0 would read as "no limit" in the core. A zero limit is raised to 1, said in
    an ``info string``, and answered by a legal bestmove; an unannounced search
    without end would leave a GUI waiting."""
    grace = 2.0
    board = chess.Board()
    engine.send("position startpos")
    engine.send(go)
    got: List[str] = []
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and not any(l.startswith("bestmove") for l in got):
        _, line = engine.pipe.next_line(timeout=max(0.01, deadline - time.monotonic()))
        if line is not None:
            got.append(line)
    answered = any(l.startswith("bestmove") for l in got)
    if not answered:
        engine.pipe.send("stop")  # end the search, so the session can go on
        got += engine.pipe.read_until(lambda l: l.startswith("bestmove"), timeout=10)
    engine.ready()
    assert engine.bestmoves == engine.gos
    check_outcome(board, go, got, 0.0)
    depths = [parse_info(l).get("depth", 0) for l in got if l.startswith("info") and " string " not in l]
    assert answered, (
        f"{go}: no bestmove within {grace} s; the engine searched without a limit "
        f"(to depth {max(depths, default=0)}) until told to stop"
    )
    assert any(l.startswith("info string") and "0" in l for l in got), got


# ---------------------------------------------------------------------------
# One legal move
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("go,within", [
    ("go depth 20", None),
    ("go movetime 5000", 2.0),
    ("go wtime 60000 btime 60000", 1.5),
])
@pytest.mark.parametrize("fen", SINGLE_MOVE)
def test_single_legal_move(engine, fen, go, within):
    board = chess.Board(fen)
    (only,) = list(board.legal_moves)
    outcome = engine.search(position_command(fen), go, board)
    assert outcome.best == only
    if within is not None:
        # The budget (5 s, or about 1.9 s planned from a 60 s clock) would be spent
        # searching; with one legal move there is nothing to decide.
        assert outcome.seconds < within, f"{go}: took {outcome.seconds:.2f} s for the only legal move {only}"


# ---------------------------------------------------------------------------
# The fifty-move rule
# ---------------------------------------------------------------------------
def _zeroing(board: chess.Board) -> Set[chess.Move]:
    return {m for m in board.legal_moves if board.is_zeroing(m)}


@pytest.mark.parametrize("clock", [98, 99])
@pytest.mark.parametrize("template", [FIFTY_PAWN_MOVE, FIFTY_CAPTURE], ids=["pawn-move", "capture"])
def test_near_fifty_moves_the_winning_side_zeroes_the_clock(engine, template, clock):
    fen = template.format(clock=clock)
    board = chess.Board(fen)
    zeroing = _zeroing(board)
    assert zeroing and not mating_moves(board)
    for move in board.legal_moves:
        if move not in zeroing:
            assert clock_draw_follows(board, move), f"{move} in {fen} does not draw by the clock"
    outcome = engine.search(position_command(fen), "go depth 10", board)
    assert outcome.best in zeroing, f"{outcome.best} lets the fifty-move rule draw a won position"
    kind, value = outcome.score
    assert value > 0, f"a rook up with the clock reset, yet score {kind} {value}"


@pytest.mark.parametrize("clock", [98, 99])
def test_near_fifty_moves_without_a_zeroing_move_scores_a_draw(engine, clock):
    fen = FIFTY_NO_ZEROING.format(clock=clock)
    board = chess.Board(fen)
    assert not _zeroing(board) and not mating_moves(board)
    assert all(clock_draw_follows(board, m) for m in board.legal_moves)
    outcome = engine.search(position_command(fen), "go depth 10", board)
    assert outcome.score == ("cp", 0), outcome.lines[-2]


def test_moves_pushing_the_clock_to_100_without_a_zeroing_move(engine):
    fen, moves = FIFTY_NO_ZEROING.format(clock=98), ["a1a2", "d7d6"]
    board = board_after(fen, moves)
    assert board.halfmove_clock == 100 and board.can_claim_fifty_moves()
    assert not _zeroing(board)
    outcome = engine.search(position_command(fen, moves), "go depth 10", board)
    assert outcome.score == ("cp", 0), outcome.lines[-2]


@pytest.mark.parametrize("fen,moves", [
    (FIFTY_PAWN_MOVE.format(clock=98), ["a1a2", "d7d6"]),
    (FIFTY_PAWN_MOVE.format(clock=100), []),
    (FIFTY_CAPTURE.format(clock=120), []),
], ids=["moves-to-100", "fen-100", "fen-120"])
def test_clock_already_at_100_with_a_zeroing_move(engine, fen, moves):
    """The draw can be claimed here, but it has not been: a move must still come, and
    a score other than 0 only goes with a move that resets the clock."""
    board = board_after(fen, moves)
    assert board.halfmove_clock >= 100 and board.can_claim_fifty_moves()
    outcome = engine.search(position_command(fen, moves), "go depth 10", board)
    if outcome.score != ("cp", 0):
        assert board.is_zeroing(outcome.best), (
            f"score {outcome.score} with {outcome.best}, after which the fifty-move rule has ended the game")


def test_mate_on_the_hundredth_half_move_is_mate(engine):
    board = chess.Board(FIFTY_MATE)
    (mate,) = mating_moves(board)
    assert not board.is_zeroing(mate)
    outcome = engine.search(position_command(FIFTY_MATE), "go depth 10", board)
    assert outcome.best == mate and outcome.score == ("mate", 1), outcome.lines[-2]


# ---------------------------------------------------------------------------
# Long game histories
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("plies", [240, 1100])
@pytest.mark.parametrize("go", ["go depth 6", "go wtime 1000 btime 1000"])
def test_long_history(engine, plies, go):
    board = long_game(plies, seed=plies)
    assert not board.is_game_over() and board.ply() == plies
    moves = [m.uci() for m in board.move_stack]
    engine.search(position_command(chess.STARTING_FEN, moves), go, board)
    engine.send("d")
    shown = [l for l in engine.pipe.read_until(lambda l: l.startswith("Checkers:")) if l.startswith("Fen: ")]
    engine.checked = len(engine.pipe.transcript)  # the ``d`` picture is not UCI; skip it
    assert shown == [f"Fen: {board.fen()}"]


def test_long_history_through_python_chess():
    board = long_game(240, seed=240)
    with chess.engine.SimpleEngine.popen_uci(engine_command(), timeout=30) as client:
        for limit in (chess.engine.Limit(nodes=1), chess.engine.Limit(depth=1),
                      chess.engine.Limit(white_clock=0.001, black_clock=0.001),
                      chess.engine.Limit(depth=6)):
            result = client.play(board, limit, info=chess.engine.INFO_ALL)
            assert result.move in board.legal_moves, (limit, result)
            probe = board.copy()
            for move in result.info.get("pv", []):
                assert move in probe.legal_moves, (limit, result.info)
                probe.push(move)
        client.ping()


# ---------------------------------------------------------------------------
# Repetitions
# ---------------------------------------------------------------------------
SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]


@pytest.mark.parametrize("moves", [SHUFFLE, SHUFFLE * 2, SHUFFLE * 2 + SHUFFLE[:3]],
                         ids=["twice", "three-times", "black-can-repeat"])
def test_knight_shuffles(engine, moves):
    board = board_after(chess.STARTING_FEN, moves)
    outcome = engine.search(position_command(chess.STARTING_FEN, moves), "go depth 6", board)
    # If some move makes a position occur for the third time, the side to move can
    # always have a draw, so its score cannot be below 0.
    repeats = []
    for move in board.legal_moves:
        board.push(move)
        if board.is_repetition(3):
            repeats.append(move)
        board.pop()
    assert bool(repeats) == (len(moves) >= 7)
    if repeats:
        kind, value = outcome.score
        assert (kind, value) == ("cp", 0) or value > 0, (
            f"{repeats} repeat a position for the third time, yet score {kind} {value}")
        if outcome.best in repeats:
            assert outcome.score == ("cp", 0), outcome.lines[-2]


@pytest.mark.parametrize("history", [[], PERPETUAL_CYCLE, PERPETUAL_CYCLE * 2],
                         ids=["fresh", "seen-twice", "seen-three-times"])
def test_perpetual_check_when_losing_scores_zero(engine, history):
    board = board_after(PERPETUAL, history)
    if len(history) >= 8:
        assert board.can_claim_threefold_repetition()
    outcome = engine.search(position_command(PERPETUAL, history), "go depth 12", board)
    assert outcome.score == ("cp", 0), outcome.lines[-2]
    assert board.gives_check(outcome.best), f"{outcome.best} gives up the perpetual check"


# ---------------------------------------------------------------------------
# The deepest searches
# ---------------------------------------------------------------------------
DEEP = [
    # Locked pawns and two kings: iterations are cheap, so the depth limit is reached.
    ("k7/8/K7/p7/P7/8/8/8 w - - 0 1", "go depth 255 movetime 3000", 255),
    ("8/8/3k4/1p1p1p2/1P1P1P2/3K4/8/8 w - - 0 1", "go depth 127 movetime 1000", 127),
    # Checks for ever: a perpetual, and a queen against king and pawn.
    ("6k1/6p1/8/7Q/8/1q6/2rr1PPP/7K w - - 0 1", "go depth 255 nodes 400000", 255),
    ("8/8/8/8/8/2k5/1p6/1K5Q w - - 0 1", "go depth 64 movetime 1000", 64),
    (KIWIPETE, "go depth 64 nodes 300000", 64),
]


@pytest.mark.parametrize("fen,go,depth", DEEP)
def test_deep_searches_stay_within_max_ply(engine, fen, go, depth):
    board = chess.Board(fen)
    assert board.is_valid()
    outcome = engine.search(position_command(fen), go, board)
    infos = [i for i in outcome.infos() if "score" in i]
    assert infos
    deepest = max(i["depth"] for i in infos)
    highest = max(i.get("seldepth", 0) for i in infos)
    print(f"{go} on {fen}: depth {deepest}, seldepth {highest}, MAX_PLY {MAX_PLY}")
    assert deepest <= min(depth, MAX_PLY)
    assert highest <= MAX_PLY


# ---------------------------------------------------------------------------
# Rapid fire
# ---------------------------------------------------------------------------
def test_rapid_fire_go_stop_and_position_changes(engine):
    rng = random.Random(2024)
    history = long_game(60, seed=60)
    setups: List[Tuple[str, chess.Board]] = [(position_command(fen), chess.Board(fen))
                                              for fen in list(POSITIONS.values()) + SINGLE_MOVE + MATE_IN_ONE]
    for ply in (10, 35, 60):
        moves = [m.uci() for m in history.move_stack[:ply]]
        setups.append((position_command(chess.STARTING_FEN, moves), board_after(chess.STARTING_FEN, moves)))
    boards: List[chess.Board] = []
    for round_ in range(200):
        command, board = rng.choice(setups)
        engine.send(command)
        engine.send(rng.choice(["go nodes 1", "go depth 1"]))
        boards.append(board)
        if rng.random() < 0.7:
            engine.send("stop")
        if round_ % 25 == 24:  # let the engine catch up now and then
            engine.pipe.read_until(lambda l: l.startswith("bestmove"), timeout=30)
    # Every go gets its bestmove, in order.
    engine.send("isready")
    seen: List[str] = [entry[3:] for entry in engine.pipe.transcript[engine.checked:] if entry.startswith("<< ")]
    count = sum(l.startswith("bestmove") for l in seen)
    ready = "readyok" in seen
    while count < len(boards) or not ready:
        _, line = engine.pipe.next_line(timeout=30)
        assert line is not None, f"only {count} bestmoves for {len(boards)} go commands"
        seen.append(line)
        count += line.startswith("bestmove")
        ready = ready or line == "readyok"
    engine.ready()
    assert engine.bestmoves == engine.gos
    assert count == len(boards)
    chunk: List[str] = []
    index = 0
    for line in seen:
        if line == "readyok":
            continue
        chunk.append(line)
        if line.startswith("bestmove"):
            check_outcome(boards[index], f"rapid fire #{index}", chunk, 0.0)
            index += 1
            chunk = []
    assert index == len(boards)
