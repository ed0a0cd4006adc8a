"""The UCI engine driven as GUIs drive it: raw pipes and python-chess's ``chess.engine``.

Every test runs the installed ``fianchetto`` executable. Wall-clock time is only
asserted for the two latencies the protocol promises (``isready`` and ``stop``
answered within 50 ms mid-search), as a median of several tries with a generous
bound on the worst single try, because the machine is shared.
"""
from __future__ import annotations

import random
import re
import time
from typing import List

import chess
import chess.engine
import chess.polyglot
import pytest

from fianchetto.cli import engine_command
from fianchetto.wdl import load_model, material_of_fen
from support.uci_pipe import (
    CURRMOVE_LINE,
    INFO_LINE,
    UciPipe,
    assert_pv_legal,
    info_lines,
    median_and_max,
    ready_engine,
)

STARTPOS = chess.STARTING_FEN
MIDDLEGAME = "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16"


@pytest.fixture
def uci():
    engine = UciPipe()
    engine.sync()  # the process is up and reading: timings start from here
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def shared():
    """One long-lived engine for tests that leave no state behind, past its first
    search: the one-time ``info string`` before it (the core variant and the
    evaluation) would otherwise land in whichever test searches first."""
    for pipe in ready_engine():
        pipe.go("go depth 1")
        yield pipe


@pytest.fixture
def popen():
    engine = chess.engine.SimpleEngine.popen_uci(engine_command(), timeout=30)
    yield engine
    engine.quit()


def final_info_before_bestmove(lines: List[str]) -> re.Match:
    """The line right before ``bestmove`` must be an exact-score search info."""
    assert lines[-1].startswith("bestmove"), lines[-3:]
    match = INFO_LINE.match(lines[-2])
    assert match, f"no info line right before bestmove: {lines[-3:]}"
    assert match.group("bound") is None, f"final info has a bound: {lines[-2]}"
    return match


# ---------------------------------------------------------------------------
# Handshake and options
# ---------------------------------------------------------------------------
EXPECTED_OPTIONS = {
    "Hash": "option name Hash type spin default 16 min 1 max 65536",
    "Threads": "option name Threads type spin default 1 min 1 max 256",
    "Clear Hash": "option name Clear Hash type button",
    "Ponder": "option name Ponder type check default false",
    "MultiPV": "option name MultiPV type spin default 1 min 1 max 256",
    "UCI_Chess960": "option name UCI_Chess960 type check default false",
}


def test_uci_handshake_lists_ids_and_options(shared):
    lines = shared.handshake()
    assert lines[0].startswith("id name Fianchetto")
    assert any(l.startswith("id author ") for l in lines)
    assert lines[-1] == "uciok"
    for name, line in EXPECTED_OPTIONS.items():
        assert line in lines, f"{name}: {line!r} not in {lines}"
    overhead = [l for l in lines if l.startswith("option name Move Overhead ")]
    assert len(overhead) == 1
    m = re.fullmatch(r"option name Move Overhead type spin default (\d+) min 0 max 5000", overhead[0])
    assert m and 1 <= int(m.group(1)) <= 20, overhead  # Stockfish's 10, at most 20
    # Every line is UCI.
    assert all(l.split()[0] in ("id", "option", "uciok") for l in lines), lines


def test_python_chess_sees_the_options(popen):
    assert popen.id["name"].startswith("Fianchetto")
    opts = popen.options
    def spin(name):
        return opts[name].type, opts[name].default, opts[name].min, opts[name].max

    assert spin("Hash") == ("spin", 16, 1, 65536)
    assert spin("Threads") == ("spin", 1, 1, 256)
    assert opts["Clear Hash"].type == "button"
    assert (opts["Ponder"].type, opts["Ponder"].default) == ("check", False)
    assert (opts["MultiPV"].type, opts["MultiPV"].default, opts["MultiPV"].max) == ("spin", 1, 256)
    assert opts["Move Overhead"].type == "spin" and opts["Move Overhead"].min == 0
    assert (opts["UCI_Chess960"].type, opts["UCI_Chess960"].default) == ("check", False)


def test_every_option_can_be_set(shared):
    for line in (
        "setoption name Hash value 8",
        "setoption name Threads value 1",
        "setoption name Clear Hash",
        "setoption name Ponder value true",
        "setoption name MultiPV value 2",
        "setoption name Move Overhead value 100",
        "setoption name UCI_Chess960 value true",
        "setoption name uci_chess960 value FALSE",  # names and check values are case-insensitive
        "setoption name MultiPV value 1",
        "setoption name Ponder value false",
        "setoption name Move Overhead value 50",
        "setoption name Hash value 16",
    ):
        shared.send(line)
    assert shared.sync() == [], "valid setoptions must be silent"
    shared.send("position startpos")
    lines, best, _ = shared.go("go depth 3")
    assert best in {m.uci() for m in chess.Board().legal_moves}


def test_two_threads_search_and_stop(shared):
    shared.send("setoption name Threads value 2")
    shared.send(f"position fen {MIDDLEGAME}")
    lines, best, _ = shared.go("go movetime 300")
    assert chess.Move.from_uci(best) in chess.Board(MIDDLEGAME).legal_moves
    assert_pv_legal(MIDDLEGAME, lines)
    shared.send("go infinite")
    shared.assert_silent(0.4)
    shared.send("stop")
    shared.read_until(lambda l: l.startswith("bestmove"), timeout=5)
    shared.send("setoption name Threads value 1")
    assert shared.sync() == []


def test_isready_and_debug(shared):
    shared.send("debug on")
    shared.send("position startpos")
    lines, _, _ = shared.go("go wtime 10000 btime 10000")
    assert any(l.startswith("info string") and "soft" in l for l in lines), lines
    shared.send("debug off")
    lines, _, _ = shared.go("go wtime 10000 btime 10000")
    assert not any(l.startswith("info string") for l in lines), lines
    assert shared.sync() == []


def test_d_shows_board_fen_key_and_checkers(shared):
    board = chess.Board()
    for move in ("e2e4", "f7f6", "d1h5"):
        board.push_uci(move)
    shared.send("position startpos moves e2e4 f7f6 d1h5")
    shared.send("d")
    lines = shared.read_until(lambda l: l.startswith("Checkers:"))
    assert f"Fen: {board.fen()}" in lines
    assert f"Key: {chess.polyglot.zobrist_hash(board):016X}" in lines
    assert lines[-1].split() == ["Checkers:", "h5"]
    assert " | r | n | b | q | k | b | n | r | 8" in lines


def eval_lines(shared):
    shared.send("eval")
    return shared.read_until(lambda l: l.startswith("Final evaluation"))


def value_of(lines, label: str) -> str:
    return next(l for l in lines if l.startswith(label)).split()[2]


def test_eval_ends_with_the_evaluation_the_search_uses(shared):
    """As Stockfish's: the last line is the score the search starts from, in the
    units of ``info score`` (normalised by the WDL model): the network's when it
    is in use, the hand-crafted evaluation's otherwise."""
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    shared.send(f"position fen {fen}")
    lines = eval_lines(shared)
    assert lines[-2].startswith("Search uses: network")
    assert lines[-1] == f"Final evaluation: {value_of(lines, 'NNUE evaluation:')} (white side)"
    hand_crafted = int(value_of(lines, "Hand-crafted evaluation:"))
    shared.send("setoption name Use NNUE value false")
    try:
        lines = eval_lines(shared)
    finally:
        shared.send("setoption name Use NNUE value true")
    assert lines[-2] == "Search uses: hand-crafted evaluation"
    shown = load_model(None)[0].to_cp(hand_crafted, material_of_fen(fen))
    assert lines[-1] == f"Final evaluation: {shown / 100:+.2f} (white side)"
    assert value_of(lines, "NNUE evaluation:") != f"{shown / 100:+.2f}"    # the two differ here


def test_eval_in_check_has_no_evaluation(shared):
    shared.send("position fen 4k3/8/8/8/8/8/4q3/4K3 w - - 0 1")
    assert eval_lines(shared) == ["Final evaluation: none (in check)"]


def same_position(fen: str, board: chess.Board) -> bool:
    """The FEN is ``board``'s (castling read as X-FEN or Shredder-FEN alike)."""
    return chess.Board(fen, chess960=board.chess960).fen(shredder=True) == board.fen(shredder=True)


def network_eval_of(shared) -> str:
    return value_of(eval_lines(shared), "NNUE evaluation:")


@pytest.mark.parametrize("fen, chess960", [
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", False),
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", False),
    ("1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9", True),
])
def test_flip_mirrors_the_position_and_the_network_agrees(shared, fen, chess960):
    shared.send(f"setoption name UCI_Chess960 value {'true' if chess960 else 'false'}")
    shared.send(f"position fen {fen}")
    before = network_eval_of(shared)
    shared.send("flip")
    assert same_position(shared.shown_fen(), chess.Board(fen, chess960=chess960).mirror())
    after = network_eval_of(shared)
    assert float(after) == -float(before)           # white's view, so the sign turns
    shared.send("flip")
    assert same_position(shared.shown_fen(), chess.Board(fen, chess960=chess960))
    shared.send("setoption name UCI_Chess960 value false")
    assert shared.sync() == []


def test_flip_drops_the_moves_and_a_search_plays_the_mirrored_side(shared):
    shared.send("position startpos moves e2e4 e7e5 g1f3")
    shared.send("flip")
    board = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(move)
    assert same_position(shared.shown_fen(), board.mirror())
    _, best, _ = shared.go("go depth 4")
    assert chess.Move.from_uci(best) in board.mirror().legal_moves
    assert shared.sync() == []


def test_go_perft_is_stockfish_style(shared):
    shared.send("position startpos")
    shared.send("go perft 3")
    lines = shared.read_until(lambda l: l.startswith("Nodes searched"))
    assert lines[-1] == "Nodes searched: 8902"
    assert lines[-2] == ""
    assert len(lines) == 22 and all(re.fullmatch(r"[a-h][1-8][a-h][1-8]: \d+", l) for l in lines[:-2])


# ---------------------------------------------------------------------------
# go: output format and limits
# ---------------------------------------------------------------------------
def test_info_lines_and_final_exact_info(shared):
    shared.send("ucinewgame")
    shared.send(f"position fen {MIDDLEGAME}")
    lines, best, ponder = shared.go("go depth 7")
    infos = info_lines(lines)
    assert infos, lines
    depths = [int(m.group("depth")) for m in infos]
    assert max(depths) == 7 and 1 in depths
    for line in lines[:-1]:
        assert INFO_LINE.match(line) or CURRMOVE_LINE.match(line), f"not a UCI info line: {line!r}"
    final = final_info_before_bestmove(lines)
    assert final.group("pv").split()[0] == best
    assert ponder is not None and final.group("pv").split()[:2] == [best, ponder]
    assert_pv_legal(MIDDLEGAME, lines)
    for m in infos:
        assert int(m.group("seldepth")) >= 1 and int(m.group("multipv")) == 1
        assert 0 <= int(m.group("hashfull")) <= 1000


@pytest.mark.parametrize(
    "command",
    [
        "go nodes 3000",
        "go movetime 150",
        "go wtime 2000 btime 2000",
        "go wtime 1500 btime 1500 winc 100 binc 100",
        "go btime 3000 wtime 3000 movestogo 10",
        "go winc 20 wtime 800 binc 20 btime 800 movestogo 1",
        "go depth 4 nodes 100000 movetime 5000",
        "go mate 2 depth 6",
    ],
)
def test_go_parameters_in_any_order_and_subset(shared, command):
    shared.send(f"position fen {MIDDLEGAME}")
    lines, best, _ = shared.go(command)
    assert chess.Move.from_uci(best) in chess.Board(MIDDLEGAME).legal_moves
    final_info_before_bestmove(lines)
    assert not any(l.startswith("info string") for l in lines), lines


def test_go_nodes_is_deterministic(shared):
    results = []
    for _ in range(2):
        shared.send("ucinewgame")
        shared.send(f"position fen {MIDDLEGAME}")
        lines, best, _ = shared.go("go depth 6")
        results.append((best, [m.group(0).split(" nps ")[0] for m in info_lines(lines)]))
    assert results[0] == results[1]


def test_go_with_tiny_clock_still_moves(shared):
    shared.send("position startpos moves e2e4")
    for command in ("go wtime 1 btime 1", "go btime 0 wtime 0", "go btime 5 winc 0 binc 0 wtime 5"):
        _, best, _ = shared.go(command, timeout=10)
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(best) in board.legal_moves


def test_multipv_three_reports_three_lines(shared):
    shared.send("setoption name MultiPV value 3")
    shared.send(f"position fen {MIDDLEGAME}")
    lines, best, _ = shared.go("go depth 6")
    shared.send("setoption name MultiPV value 1")
    infos = [m for m in info_lines(lines) if m.group("bound") is None]
    last_depth = max(int(m.group("depth")) for m in infos)
    at_last = {int(m.group("multipv")): m for m in infos if int(m.group("depth")) == last_depth}
    assert set(at_last) == {1, 2, 3}, lines
    firsts = [at_last[i].group("pv").split()[0] for i in (1, 2, 3)]
    assert len(set(firsts)) == 3 and firsts[0] == best
    assert_pv_legal(MIDDLEGAME, lines)


def test_multipv_through_python_chess(popen):
    infos = popen.analyse(chess.Board(MIDDLEGAME), chess.engine.Limit(depth=5), multipv=3)
    assert len(infos) == 3
    assert len({info["pv"][0] for info in infos}) == 3
    scores = [info["score"].relative.score(mate_score=100000) for info in infos]
    assert scores == sorted(scores, reverse=True)


def test_searchmoves_restricts_the_root(shared):
    allowed = {"a2a3", "h2h3", "b1a3"}
    shared.send("position startpos")
    lines, best, _ = shared.go("go depth 5 searchmoves a2a3 h2h3 b1a3")
    assert best in allowed
    for m in info_lines(lines):
        assert m.group("pv").split()[0] in allowed
    # searchmoves before other parameters, and one illegal move among them (reported).
    lines, best, _ = shared.go("go searchmoves e2e5 g1f3 depth 4")
    assert best == "g1f3"
    assert any(l.startswith("info string") and "e2e5" in l for l in lines)


def test_searchmoves_are_checked_before_the_next_command_is_answered(shared):
    """What is said of a ``go``'s searchmoves belongs to that ``go``: it comes before
    the reply to the command that follows, not from the search whenever it starts."""
    shared.send("position startpos")
    shared.send("go infinite searchmoves z9z9 e2e4 e2e4")
    lines = shared.sync()                       # isready ... readyok
    warnings = [line for line in lines if line.startswith("info string searchmoves")]
    assert warnings == ["info string searchmoves: ignoring illegal move z9z9"]
    shared.send("stop")
    lines = shared.read_until("bestmove")
    assert lines[-1].split()[1] == "e2e4"
    assert not any(line.startswith("info string") for line in lines)


def test_searchmoves_through_python_chess(popen):
    board = chess.Board()
    moves = [chess.Move.from_uci("a2a4"), chess.Move.from_uci("g2g4")]
    result = popen.play(board, chess.engine.Limit(depth=4), root_moves=moves)
    assert result.move in moves


# ---------------------------------------------------------------------------
# Mates (positions verified with a python-chess brute-force mate solver)
# ---------------------------------------------------------------------------
MATES = [
    # (fen, moves to mate)
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1),  # back rank: Ra8#
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1),  # Qxf7#
    ("8/8/8/K1k5/8/8/4r3/8 b - - 0 1", 1),  # black mates: ...Ra2#
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2),  # Nf6+ gxf6 Bxf7#
    ("7k/8/5K2/8/8/8/8/R7 w - - 0 1", 2),  # Kg6 and Ra8#
    ("2r5/8/8/8/5k2/8/8/3K4 b - - 0 1", 2),
    ("8/8/8/8/4r3/3k4/8/1K6 b - - 0 1", 3),
    ("2K5/8/8/1k6/8/8/4q3/8 b - - 0 1", 3),
    ("1k6/8/3K4/4R3/8/8/8/8 w - - 0 1", 3),  # the one above mirrored: white to move
]


def _mates_within(board: chess.Board, n: int) -> bool:
    """python-chess oracle: the side to move mates in at most n moves."""
    for move in board.legal_moves:
        board.push(move)
        try:
            if board.is_checkmate():
                return True
            if n > 1 and not board.is_game_over() and all(
                _reply_mated(board, reply, n - 1) for reply in list(board.legal_moves)
            ):
                return True
        finally:
            board.pop()
    return False


def _reply_mated(board: chess.Board, reply: chess.Move, n: int) -> bool:
    board.push(reply)
    try:
        return _mates_within(board, n)
    finally:
        board.pop()


def test_mate_positions_are_what_they_claim():
    for fen, n in MATES:
        board = chess.Board(fen)
        assert _mates_within(board, n), fen
        if n > 1:
            assert not _mates_within(board, n - 1), fen


@pytest.mark.parametrize("fen,n", MATES)
def test_finds_mate_with_score_mate_n(shared, fen, n):
    shared.send("ucinewgame")
    shared.send(f"position fen {fen}")
    lines, best, _ = shared.go("go depth 16", timeout=60)
    final = final_info_before_bestmove(lines)
    assert (final.group("kind"), int(final.group("score"))) == ("mate", n), lines[-2]
    board = chess.Board(fen)
    board.push_uci(best)
    if n == 1:
        assert board.is_checkmate()
    else:  # the move keeps a forced mate in n-1 against every reply
        assert all(_reply_mated(board, reply, n - 1) for reply in list(board.legal_moves))
    assert_pv_legal(fen, lines)


def test_go_mate_finds_the_mate(shared):
    fen, n = MATES[4]
    shared.send(f"position fen {fen}")
    lines, best, _ = shared.go(f"go mate {n}")
    final = final_info_before_bestmove(lines)
    assert (final.group("kind"), int(final.group("score"))) == ("mate", n)


def test_mated_side_reports_negative_mate(shared):
    # White's only move Ka7 runs into a mate in one (checked with python-chess below).
    fen = "K7/8/8/8/8/8/2r5/1r5k w - - 0 1"
    board = chess.Board(fen)
    assert [m.uci() for m in board.legal_moves] == ["a8a7"]
    board.push_uci("a8a7")
    assert _mates_within(board, 1)
    shared.send(f"position fen {fen}")
    lines, best, _ = shared.go("go depth 6")
    assert best == "a8a7"
    final = final_info_before_bestmove(lines)
    assert (final.group("kind"), int(final.group("score"))) == ("mate", -1), lines[-2]


def test_no_legal_move_gives_bestmove_none(shared):
    """Checkmated (fool's mate) and stalemated: ``bestmove (none)``, Stockfish's word,
    which python-chess reads as no move (``0000`` would be its null move)."""
    shared.send("position startpos moves f2f3 e7e5 g2g4 d8h4")
    lines, best, ponder = shared.go("go depth 5")
    assert best == "(none)" and ponder is None
    assert re.match(r"^info depth 0 score mate 0\b", lines[-2]), lines
    shared.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    lines, best, _ = shared.go("go movetime 100")
    assert best == "(none)"
    assert re.match(r"^info depth 0 score cp 0\b", lines[-2]), lines


def test_a_finished_game_reports_its_exact_result_with_show_wdl(uci):
    """Mated: a loss for certain; stalemated: a draw for certain (not the model's
    guess for a level position)."""
    uci.send("setoption name UCI_ShowWDL value true")
    for fen, expected in (("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "score mate 0 wdl 0 0 1000"),
                          ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "score cp 0 wdl 0 1000 0")):
        uci.send(f"position fen {fen}")
        lines, best, _ = uci.go("go depth 3")
        assert best == "(none)" and lines[-2].startswith(f"info depth 0 {expected} "), lines


# ---------------------------------------------------------------------------
# Threads: latencies, stop, infinite, ponder
# ---------------------------------------------------------------------------
def test_isready_latency_mid_search(uci):
    uci.send(f"position fen {MIDDLEGAME}")
    uci.send("go infinite")
    uci.read_until(lambda l: l.startswith("info depth"))
    times = []
    for _ in range(9):
        times.append(uci.latency("isready", "readyok"))
        time.sleep(0.05)
    uci.send("stop")
    uci.read_until(lambda l: l.startswith("bestmove"))
    median, worst = median_and_max(times)
    print(f"isready latency mid-search: median {median * 1000:.1f} ms, max {worst * 1000:.1f} ms")
    assert median < 0.050 and worst < 0.250, times


def test_stop_latency_and_single_bestmove(uci):
    times = []
    for i in range(5):
        uci.send(f"position fen {MIDDLEGAME}")
        uci.send("go infinite")
        uci.read_until(lambda l: l.startswith("info depth"))
        time.sleep(0.2 + 0.05 * i)
        times.append(uci.latency("stop", lambda l: l.startswith("bestmove")))
        extra = uci.drain(0.2)
        assert not any(l.startswith("bestmove") for l in extra), "two bestmoves for one go"
    median, worst = median_and_max(times)
    print(f"stop latency: median {median * 1000:.1f} ms, max {worst * 1000:.1f} ms")
    assert median < 0.050 and worst < 0.250, times


def test_infinite_waits_for_stop_even_when_search_ends(uci):
    # A mate-in-1 position (the search ends at once) and a depth-limited infinite search.
    uci.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    uci.send("go infinite")
    uci.assert_silent(1.0)
    uci.send("stop")
    lines = uci.read_until(lambda l: l.startswith("bestmove"), timeout=5)
    assert lines[-1].startswith("bestmove a1a8")
    final_info_before_bestmove(lines)
    uci.send("position startpos")
    uci.send("go infinite depth 2")
    uci.assert_silent(0.7)
    uci.send("stop")
    uci.read_until(lambda l: l.startswith("bestmove"), timeout=5)


def test_stale_stop_does_not_end_the_next_search(uci):
    uci.send("position startpos")
    uci.send("stop")
    uci.send("stop")
    assert uci.sync() == [], "a stale stop must not answer"
    uci.send("go infinite")
    uci.assert_silent(0.8)
    uci.send("stop")
    uci.read_until(lambda l: l.startswith("bestmove"))
    # stop right after a finished search (the race the GUI cannot avoid)
    uci.go("go depth 2")
    uci.send("stop")
    uci.send("go infinite")
    uci.assert_silent(0.8)
    uci.send("stop")
    uci.read_until(lambda l: l.startswith("bestmove"))


def test_go_during_search_stops_the_old_one_first(uci):
    uci.send("position startpos")
    uci.send("go infinite")
    uci.read_until(lambda l: l.startswith("info depth"))
    uci.send("position startpos moves e2e4")
    uci.send("go depth 3")
    first = uci.read_until(lambda l: l.startswith("bestmove"))
    second = uci.read_until(lambda l: l.startswith("bestmove"))
    assert first[-1].split()[1] in {m.uci() for m in chess.Board().legal_moves}
    board = chess.Board()
    board.push_uci("e2e4")
    assert second[-1].split()[1] in {m.uci() for m in board.legal_moves}
    assert not any(l.startswith("bestmove") for l in uci.drain(0.3))


@pytest.mark.parametrize("history, ending, move", [
    # black's f6g8 brings the starting position back a third time (the first
    # search sees it a second time, a position like any other)
    (("startpos moves g1f3 g8f6 f3g1", "startpos moves g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1"), "threefold", "f6g8"),
    # a quiet rook move makes the hundredth half-move without a capture or pawn move
    (("fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 80", "fen 8/8/8/4k3/8/8/8/R3K3 w - - 99 80"), "fifty", "a1a2"),
])
def test_no_line_and_no_ponder_move_go_on_after_a_move_that_ends_the_game(uci, history, ending, move):
    """The first search leaves the hash a move for the position after ``move``;
    the second, from a position where ``move`` ends the game, must not offer it."""
    fill, position = history
    uci.send(f"position {fill}")
    uci.go("go depth 9")
    uci.send(f"position {position}")
    lines, best, ponder = uci.go(f"go depth 9 searchmoves {move}")
    assert (best, ponder) == (move, None), (ending, lines[-2:])
    board = chess.Board(position[4:]) if position.startswith("fen") else chess.Board()
    for played in position.split(" moves ")[1].split() if " moves " in position else []:
        board.push_uci(played)
    assert_pv_legal(board, lines)


def test_ponder_waits_for_ponderhit(uci):
    uci.send("setoption name Ponder value true")
    uci.send("position startpos moves e2e4 e7e5")
    uci.send("go ponder wtime 3000 btime 3000 winc 0 binc 0")
    uci.assert_silent(1.2)
    sent = uci.send("ponderhit")
    lines = uci.read_until(lambda l: l.startswith("bestmove"), timeout=10)
    assert time.monotonic() - sent < 5
    final_info_before_bestmove(lines)


def test_ponder_search_that_finishes_early_still_waits(uci):
    uci.send("position startpos")
    uci.send("go ponder depth 2")
    uci.assert_silent(1.0)
    t = uci.latency("ponderhit", lambda l: l.startswith("bestmove"), timeout=5)
    assert t < 1.0
    # ponder then stop (the opponent played another move)
    uci.send("go ponder wtime 5000 btime 5000")
    uci.assert_silent(0.5)
    uci.send("stop")
    uci.read_until(lambda l: l.startswith("bestmove"), timeout=5)
    # a stray ponderhit is reported, not acted on
    uci.send("ponderhit")
    assert any(l.startswith("info string") for l in uci.sync())


def test_ponder_through_python_chess(popen):
    board = chess.Board()
    result = popen.play(board, chess.engine.Limit(white_clock=2, black_clock=2), ponder=True)
    assert result.move in board.legal_moves
    board.push(result.move)
    if result.ponder is not None:
        assert result.ponder in board.legal_moves
        board.push(result.ponder)
        result = popen.play(board, chess.engine.Limit(white_clock=2, black_clock=2), ponder=True)
        assert result.move in board.legal_moves


def test_currmove_after_the_first_second(uci):
    uci.send(f"position fen {MIDDLEGAME}")
    uci.send("go movetime 2500")
    lines = uci.read_until(lambda l: l.startswith("bestmove"))
    assert any(CURRMOVE_LINE.match(l) for l in lines), "no currmove lines in a 2.5 s search"


def test_quit_mid_search_exits_zero_at_once(uci):
    uci.send("position startpos")
    uci.send("go infinite")
    uci.read_until(lambda l: l.startswith("info depth"))
    start = time.monotonic()
    assert uci.quit(timeout=10) == 0
    print(f"quit mid-search: exit after {(time.monotonic() - start) * 1000:.0f} ms")


def test_eof_mid_ponder_exits_zero(uci):
    uci.send("position startpos")
    uci.send("go ponder")
    uci.read_until(lambda l: l.startswith("info depth"))
    uci.proc.stdin.close()
    assert uci.proc.wait(timeout=10) == 0


# ---------------------------------------------------------------------------
# Chess960
# ---------------------------------------------------------------------------
C960_FEN = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"


def test_chess960_castling_is_king_takes_rook(shared):
    shared.send("setoption name UCI_Chess960 value true")
    shared.send(f"position fen {C960_FEN}")
    lines, best, _ = shared.go("go depth 3 searchmoves b1h1")
    assert best == "b1h1"
    # The other spelling is accepted as input too, and the game goes on.
    shared.send(f"position fen {C960_FEN} moves b1g1 b8g8")
    shared.send("d")
    fen_line = [l for l in shared.read_until(lambda l: l.startswith("Checkers")) if l.startswith("Fen:")][0]
    expected = chess.Board(C960_FEN, chess960=True)
    expected.push(expected.parse_uci("b1h1"))
    expected.push(expected.parse_uci("b8h8"))
    assert fen_line == f"Fen: {expected.fen()}"
    shared.send("setoption name UCI_Chess960 value false")
    shared.sync()


def test_chess960_game_through_python_chess(popen):
    rng = random.Random(960)
    board = chess.Board.from_chess960_pos(rng.randrange(960))
    for _ in range(40):
        if board.is_game_over(claim_draw=True):
            break
        result = popen.play(board, chess.engine.Limit(nodes=400), info=chess.engine.INFO_ALL)
        assert result.move in board.legal_moves
        board.push(result.move)
    assert board.chess960


# ---------------------------------------------------------------------------
# Self-play legality
# ---------------------------------------------------------------------------
def _self_play(engine: UciPipe, games: int, seed: int, go: str, max_plies: int = 160) -> int:
    """Play games in one engine process; check every bestmove and PV move. Returns plies."""
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        board = chess.Board()
        for _ in range(rng.randrange(0, 6)):  # a few random opening moves for variety
            board.push(rng.choice(list(board.legal_moves)))
        engine.send("ucinewgame")
        while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
            moves = " ".join(m.uci() for m in board.move_stack)
            engine.send(f"position startpos moves {moves}" if moves else "position startpos")
            lines, best, ponder = engine.go(go)
            assert_pv_legal(board, lines)
            move = chess.Move.from_uci(best)
            assert move in board.legal_moves, f"illegal bestmove {best} in {board.fen()}"
            board.push(move)
            if ponder:
                assert chess.Move.from_uci(ponder) in board.legal_moves, f"illegal ponder {ponder}"
            plies += 1
    return plies


def test_self_play_ten_games_all_moves_legal(uci):
    plies = _self_play(uci, games=10, seed=1, go="go nodes 300")
    assert plies > 100


@pytest.mark.slow
def test_self_play_two_hundred_games_all_moves_legal(uci):
    plies = _self_play(uci, games=200, seed=2, go="go nodes 300")
    assert plies > 5000


def test_self_play_through_python_chess(popen):
    board = chess.Board()
    while not board.is_game_over(claim_draw=True) and board.ply() < 80:
        result = popen.play(board, chess.engine.Limit(depth=2), info=chess.engine.INFO_ALL)
        assert result.move in board.legal_moves
        pv = result.info.get("pv", [])
        probe = board.copy()
        for move in pv:
            assert move in probe.legal_moves
            probe.push(move)
        board.push(result.move)


# --- the first search of a process ------------------------------------------------------
@pytest.mark.parametrize("round_", range(6))
def test_an_isready_during_the_first_search_leaves_it_stoppable(round_):
    """A process's first ``go`` (no ``isready`` before it, as a script may send)
    makes the core's search; an ``isready`` that arrives as it starts must not make
    a second one, which ``stop`` would then reach instead of the running search
    (no bestmove, ever). The race is timing-bound: several fresh processes."""
    engine = UciPipe()
    try:
        engine.send(b"position startpos\ngo infinite\nisready")    # one write, as a script sends
        engine.read_until("readyok")
        engine.send("stop")
        lines = engine.read_until(lambda l: l.startswith("bestmove"), timeout=10)
        assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
        assert engine.quit() == 0
    finally:
        engine.close()


def test_go_makes_the_search_before_its_worker_starts(monkeypatch):
    """The deterministic half of the test above: the search a worker runs already
    exists when the worker starts, made by ``go`` on the reader thread."""
    from fianchetto.session import UciSession
    from fianchetto.uci import UciLoop

    seen = []
    worker = UciSession._worker

    def recording_worker(session, job):
        seen.append(session._search)
        worker(session, job)

    monkeypatch.setattr(UciSession, "_worker", recording_worker)
    out: List[str] = []
    loop = UciLoop(emit=out.append)
    for line in ("uci", "position startpos", "go depth 2"):
        loop.handle(line)
    loop.engine.finish_search()
    assert seen and seen[0] is not None and seen[0] is loop.engine._search
    assert [line for line in out if line.startswith("bestmove")] and loop.engine.shutdown()
