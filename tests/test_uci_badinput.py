"""Bad input never kills the engine or changes its state.

Each bad line must get an ``info string`` naming the problem (and nothing that
is not UCI), the previous good position must stay, and a following valid
``position`` + ``go`` must work normally. The parsers are also tested directly.
"""
from __future__ import annotations

from typing import List

import chess
import pytest

from fianchetto.options import OPTION_TABLE, OptionError, Options
from fianchetto.uci import parse_go, parse_position, parse_setoption
from support.uci_pipe import UciPipe, ready_engine

GOOD_FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


@pytest.fixture(scope="module")
def engine():
    yield from ready_engine()


def answers(pipe: UciPipe, line) -> List[str]:
    """Send one line; the lines it produced (up to the next readyok)."""
    pipe.send(line)
    return pipe.sync()


def assert_reported(lines: List[str], *words: str) -> None:
    assert lines, "expected an info string"
    assert all(l.startswith("info string ") for l in lines), f"non-UCI answer: {lines}"
    text = " ".join(lines).lower()
    for word in words:
        assert word.lower() in text, f"{word!r} not named in {lines}"


BAD_POSITIONS = [
    # (line, words the report must contain)
    ("position fen this is not a fen", ["position"]),
    ("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", ["position"]),
    ("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", ["position"]),  # 7 files
    ("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w KQkq - 0 1", ["position"]),  # no white king
    ("position fen 4k3/8/8/8/8/8/8/4K2q w - - 0 1 extra", ["position"]),
    ("position fen 4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", ["position"]),  # side not to move in check
    ("position fen P3k3/8/8/8/8/8/8/4K3 w - - 0 1", ["position"]),  # pawn on the back rank
    ("position fen 4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", ["position"]),  # impossible castling rights
    ("position fen 4k3/8/8/8/8/8/8/4K3 w - e3 0 1", ["position"]),  # impossible en passant
    ("position startpos moves e2e4 e7e5 e1e2 e8e7 a1a8", ["a1a8"]),  # illegal move late in the list
    ("position startpos moves e2e4 e7e5 zz99", ["zz99"]),  # malformed move
    ("position startpos moves e2e4 e7e5 e7e8q", ["e7e8q"]),
    ("position startpos moves e2", ["e2"]),
    ("position startpos extra", ["position"]),
    ("position", ["position"]),
    ("position fen", ["fen"]),
    ("position something", ["position"]),
]


@pytest.mark.parametrize("line,words", BAD_POSITIONS)
def test_bad_position_keeps_the_previous_one(engine, line, words):
    assert answers(engine, f"position fen {GOOD_FEN}") == []
    assert_reported(answers(engine, line), *words)
    assert engine.shown_fen() == GOOD_FEN


BAD_LINES = [
    ("xyzzy", ["unknown command", "xyzzy"]),
    ("gooo depth 3", ["unknown command"]),
    ("setoption name NoSuchOption value 3", ["unknown option", "NoSuchOption"]),
    ("setoption name Hash value 0", ["Hash", "range"]),
    ("setoption name Hash value 70000", ["Hash", "range"]),
    ("setoption name Hash value lots", ["Hash", "integer"]),
    ("setoption name MultiPV value 257", ["MultiPV", "range"]),
    ("setoption name MultiPV value -1", ["MultiPV", "range"]),
    ("setoption name Threads value 257", ["Threads", "range"]),
    ("setoption name Threads value 0", ["Threads", "range"]),
    ("setoption name Move Overhead value -5", ["Move Overhead", "range"]),
    ("setoption name Move Overhead value 1.5", ["Move Overhead", "integer"]),
    ("setoption name Ponder value yes", ["Ponder", "true or false"]),
    ("setoption name UCI_Chess960 value", ["UCI_Chess960"]),
    ("setoption name Hash", ["Hash", "value"]),
    ("setoption name", ["name"]),
    ("setoption Hash value 3", ["name"]),
    ("setoption", ["name"]),
    ("debug maybe", ["debug"]),
    ("go perft", ["perft"]),
    ("go perft x", ["perft"]),
    ("go perft 99", ["perft"]),
    ("x" * 5000, ["unknown command"]),
    ("position startpos moves " + " ".join(["e2e4", "e7e5"] * 1000), ["position"]),
    (b"\xff\xfe\x00\x01binary\x80junk", ["unknown command"]),
    (b"\x1b[2J\x07", ["unknown command"]),
    ("ïsready", ["unknown command"]),
]


@pytest.mark.parametrize("line,words", BAD_LINES, ids=lambda v: repr(v)[:30] if not isinstance(v, list) else "")
def test_bad_line_is_reported_and_changes_nothing(engine, line, words):
    assert answers(engine, f"position fen {GOOD_FEN}") == []
    assert_reported(answers(engine, line), *words)
    assert engine.shown_fen() == GOOD_FEN
    assert engine.proc.poll() is None


def test_long_valid_line_is_accepted(engine):
    """A 5000-character ``position`` line that is valid: a long game with repetitions."""
    moves = " ".join(["g1f3 g8f6 f3g1 f6g8"] * 250)
    line = f"position startpos moves {moves}"
    assert len(line) > 5000
    assert answers(engine, line) == []
    assert engine.shown_fen().startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ")
    lines, best, _ = engine.go("go depth 4")
    assert chess.Move.from_uci(best) in chess.Board().legal_moves


def test_options_unchanged_after_bad_values(engine):
    engine.send("setoption name MultiPV value 2")
    engine.send("setoption name MultiPV value 999")
    engine.send("setoption name MultiPV value abc")
    engine.send(f"position fen {GOOD_FEN}")
    lines, best, _ = engine.go("go depth 3")
    assert {l.split(" multipv ")[1].split()[0] for l in lines if " multipv " in l} == {"1", "2"}
    engine.send("setoption name MultiPV value 1")
    assert engine.sync() == []


@pytest.mark.parametrize(
    "command,words",
    [
        ("go wtime -1000 btime -1000", ["negative"]),
        ("go wtime 1000 btime 1000 winc -5 binc -5", ["negative"]),
        ("go depth -3 nodes 500", ["negative"]),
        ("go depth abc nodes 500", ["depth", "integer"]),
        ("go nodes 500 movetime", ["movetime", "value"]),
        ("go nodes 500 frobnicate 3", ["frobnicate"]),
        ("go nodes 500 searchmoves", ["searchmoves"]),
        ("go nodes 500 searchmoves z9z9 e2e5", ["z9z9", "e2e5"]),
        ("go depth 99999999999999999999999 nodes 500", ["depth", "range"]),
        ("go movetime 99999999999999999999999 nodes 500", ["movetime", "range"]),
        ("go nodes 500 mate 9999999999", ["mate", "range"]),
    ],
)
def test_bad_go_parameters_still_give_one_bestmove(engine, command, words):
    engine.send("position startpos")
    lines, best, _ = engine.go(command, timeout=30)
    assert chess.Move.from_uci(best) in chess.Board().legal_moves
    reports = [l for l in lines if l.startswith("info string")]
    if words:
        assert_reported(reports, *words)
    assert not any(l.startswith("bestmove") for l in engine.drain(0.2))


def test_valid_commands_work_after_all_that(engine):
    engine.send("ucinewgame")
    engine.send("position startpos moves e2e4 e7e5 g1f3")
    lines, best, _ = engine.go("go depth 5")
    board = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(move)
    assert chess.Move.from_uci(best) in board.legal_moves
    assert not any(l.startswith("info string") for l in lines)


def test_bad_input_during_a_search_does_not_disturb_it(engine):
    engine.send("position startpos")
    engine.send("go infinite")
    engine.read_until(lambda l: l.startswith("info depth"))
    for line in ("xyzzy", "position fen nonsense", "setoption name Foo value 1", "x" * 5000):
        engine.send(line)
    engine.assert_silent(0.3)
    engine.send("stop")
    lines = engine.read_until(lambda l: l.startswith("bestmove"))
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves


def test_hash_and_newgame_during_a_search_stop_it_cleanly(engine):
    for command in ("setoption name Hash value 4", "setoption name Clear Hash", "ucinewgame"):
        engine.send("position startpos")
        engine.send("go infinite")
        engine.read_until(lambda l: l.startswith("info depth"))
        engine.send(command)
        lines = engine.read_until(lambda l: l.startswith("bestmove"), timeout=10)
        assert any("stopping" in l for l in lines if l.startswith("info string"))
        assert engine.sync() == []
    engine.send("setoption name Hash value 16")
    assert engine.sync() == []


def test_closing_stdin_is_quit():
    pipe = UciPipe()
    try:
        pipe.sync()
        pipe.send(b"\xff\xfe")
        pipe.proc.stdin.close()
        assert pipe.proc.wait(timeout=20) == 0
    finally:
        pipe.close()


def test_stdout_carries_only_uci_and_stderr_is_clean():
    pipe = UciPipe()
    try:
        pipe.handshake()
        for line in ("xyzzy", "position fen bad", "setoption name Foo", "go nodes 200"):
            pipe.send(line)
        pipe.read_until(lambda l: l.startswith("bestmove"))
        pipe.sync()
        assert pipe.quit() == 0
        allowed = ("id ", "option ", "uciok", "readyok", "info ", "bestmove ")
        for entry in pipe.transcript:
            if entry.startswith("<< "):
                assert entry[3:].startswith(allowed), entry
        assert not any("Traceback" in l for l in pipe.stderr), pipe.stderr
    finally:
        pipe.close()


# ---------------------------------------------------------------------------
# The parsers, directly
# ---------------------------------------------------------------------------
def test_parse_go_any_order_and_subset():
    params, problems = parse_go("movestogo 5 binc 20 searchmoves e2e4 d2d4 wtime 900 ponder btime 800 winc 10".split())
    assert problems == []
    assert (params.wtime, params.btime, params.winc, params.binc, params.movestogo) == (900, 800, 10, 20, 5)
    assert params.searchmoves == ["e2e4", "d2d4"] and params.ponder
    params, problems = parse_go("infinite mate 3 nodes 10 depth 4 movetime 100".split())
    assert (params.infinite, params.mate, params.nodes, params.depth, params.movetime) == (True, 3, 10, 4, 100)
    params, problems = parse_go([])
    assert problems == [] and params.depth == 0 and params.wtime is None and not params.infinite
    params, problems = parse_go(["perft", "4"])
    assert params.perft == 4
    params, problems = parse_go(["perft", "0"])
    assert params.perft is None and "at least 1" in problems[0]


@pytest.mark.parametrize("line", ["perft 0", "perft x", "perft", "perft 99", "depth 3 perft 0"])
def test_bad_go_perft_promises_no_search(line):
    """A bad ``go perft`` counts nothing and searches nothing (there is no bestmove
    to wait for), so its report must not announce a search."""
    params, problems = parse_go(line.split())
    assert params.perft is None
    assert len(problems) == 1 and "perft" in problems[0] and "search" not in problems[0]


def test_parse_go_reports_each_bad_word():
    params, problems = parse_go("wtime -5 depth x movetime".split())
    assert params.wtime == 0 and params.depth == 0 and params.movetime == 0
    assert len(problems) == 3
    params, problems = parse_go(["depth", "10" * 30])
    assert params.depth == 1 and "range" in problems[0] and "depth 1" in problems[1]


def test_parse_go_zero_limits_become_the_smallest_search():
    """0 means "no limit" to the core; an explicit 0 must not start an endless search."""
    params, problems = parse_go("depth 0 nodes 0 mate 0 movetime 0 movestogo 0 wtime 0".split())
    assert (params.depth, params.nodes, params.mate, params.movetime) == (1, 1, 1, 1)
    assert params.wtime == 0 and params.movestogo == 0
    assert len(problems) == 4 and all("using" in p for p in problems)


def test_parse_setoption_multiword():
    assert parse_setoption("name Move Overhead value 100".split()) == ("Move Overhead", "100")
    assert parse_setoption("name Clear Hash".split()) == ("Clear Hash", None)
    assert parse_setoption("name SyzygyPath value /a b/c".split()) == ("SyzygyPath", "/a b/c")
    with pytest.raises(OptionError):
        parse_setoption(["value", "3"])


def test_parse_position_errors_name_the_move():
    with pytest.raises(ValueError, match="e2e5"):
        parse_position("startpos moves e2e4 e7e5 e2e5".split(), False)
    board = parse_position("startpos moves e2e4 e7e5".split(), False)
    assert board.move_stack == ["e2e4", "e7e5"]


def test_option_table_values():
    options = Options()
    for spec in OPTION_TABLE:
        assert options[spec.name] == spec.default
        assert options[spec.name.upper()] == spec.default
    hash_spec = options.spec("hash")
    assert hash_spec.parse("1") == 1 and hash_spec.parse("65536") == 65536
    for bad in ("0", "65537", "x", "", "1e3"):
        with pytest.raises(OptionError):
            hash_spec.parse(bad)
    assert options.spec("ponder").parse("TRUE") is True
    with pytest.raises(OptionError):
        options.spec("Nope")


def test_a_hash_size_that_does_not_fit_keeps_the_table_that_worked():
    """Before the first isready as after it: the refused size changes nothing, and
    the engine does not fall back to 1 MB."""
    from support.cli import run_cli

    for before in ("", "isready\n"):
        done = run_cli([], input_text="uci\n" + before + "setoption name Hash value 65536\nisready\n"
                                      "position startpos\ngo depth 3\nquit\n", timeout=60)
        lines = done.stdout.splitlines()
        refused = [l for l in lines if "cannot allocate 65536 MB" in l]
        if not refused:
            pytest.skip("this machine allocated 64 GB of hash")
        assert refused[0].startswith("info string") and "keeping 16 MB" in refused[0]
        assert not any("using 1 MB" in l for l in lines)
        assert sum(l.startswith("bestmove ") for l in lines) == 1
