"""``fianchetto perft --compare``, ``--suite`` and perftree's protocol.

``--compare`` is driven against a small python-chess engine with one injected
move-generation bug (tests/support/buggy_perft_engine.py) that shows only a few
plies below the start: the descent must name the position, the move and the
path. The slow test checks agreement with Stockfish on random positions.
"""
from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path
from typing import List

import chess
import pytest

from support.cli import run_cli
from support.reference import chess_divide, random_playout
from fianchetto import perft_tools
from fianchetto.perft_tools import OtherEngine, compare, parse_suite, run_compare

BUGGY = Path(__file__).resolve().parent / "support" / "buggy_perft_engine.py"
STOCKFISH = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")


def buggy(bug: str) -> str:
    return f'"{sys.executable}" "{BUGGY}" {bug}'


def find_mismatch(bug: str, fen: str, depth: int):
    board = chess.Board(fen)
    other = OtherEngine(buggy(bug), timeout=60)
    try:
        return compare(board, depth, other, lambda line: None)
    finally:
        other.close()


def replayed(fen: str, path: List[str]) -> chess.Board:
    board = chess.Board(fen)
    for move in path:
        board.push_uci(move)
    return board


# --- the descent finds each injected bug ---------------------------------------------------
def test_compare_finds_a_missing_en_passant_two_plies_down():
    start = "4k3/2p5/8/8/3P4/8/8/4K3 w - - 0 1"
    found = find_mismatch("no-en-passant", start, 3)
    assert found is not None
    assert found.path == ["d4d5", "c7c5"]
    assert replayed(start, found.path).fen() == found.fen == "4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 2"
    assert found.only_ours == ["d5c6"] and found.only_theirs == []


def test_compare_finds_a_missing_underpromotion():
    start = "8/4k3/1P6/8/8/8/8/4K3 w - - 0 1"
    found = find_mismatch("no-underpromotion", start, 3)
    assert found is not None and found.path[0] == "b6b7" and len(found.path) == 2
    board = replayed(start, found.path)
    assert board.fen() == found.fen
    assert found.only_ours == ["b7b8b", "b7b8n", "b7b8r"] and found.only_theirs == []
    assert all(board.is_legal(chess.Move.from_uci(move)) for move in found.only_ours)


def test_compare_finds_castling_through_check():
    start = "4k3/1r6/8/8/8/8/P7/4K2R w K - 0 1"
    found = find_mismatch("castle-through-check", start, 3)
    assert found is not None and found.path[0] in ("a2a3", "a2a4") and found.path[1] == "b7f7"
    board = replayed(start, found.path)
    assert board.fen() == found.fen
    assert found.only_theirs == ["e1g1"] and found.only_ours == []
    assert board.is_attacked_by(chess.BLACK, chess.F1) and not board.is_legal(chess.Move.from_uci("e1g1"))


def test_compare_agrees_with_a_correct_engine_in_chess960():
    board = chess.Board("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", chess960=True)
    other = OtherEngine(buggy("none"), timeout=60)
    try:
        assert compare(board, 2, other, lambda line: None) is None
    finally:
        other.close()


# --- the command line: exit codes and the report ---------------------------------------------
def test_cli_compare_reports_the_position_and_exits_one():
    proc = run_cli(["perft", "--compare", buggy("no-en-passant"), "--depth", "3",
                    "--fen", "4k3/2p5/8/8/3P4/8/8/4K3 w - - 0 1"])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "path: d4d5 c7c5" in proc.stdout
    assert "position: 4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 2" in proc.stdout
    assert "d5c6: generated here, not by the other engine" in proc.stdout


def test_cli_compare_after_moves_agrees_and_exits_zero():
    proc = run_cli(["perft", "--compare", buggy("none"), "--depth", "2", "--moves", "e2e4", "e7e5"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "agree at depth 2" in proc.stdout


@pytest.mark.parametrize("command", [buggy("dies"), f'"{sys.executable}" -c "pass"', "/nonexistent/engine"])
def test_cli_compare_exits_two_when_the_other_engine_fails(command):
    proc = run_cli(["perft", "--compare", command, "--depth", "2"])
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "error:" in proc.stdout


def test_compare_exits_two_when_the_other_engine_times_out():
    lines: List[str] = []
    silent = f'"{sys.executable}" -c "import time; time.sleep(30)"'
    assert run_compare(silent, 2, None, [], False, 1.0, lines.append) == 2
    assert any("within 1 s" in line for line in lines)


def test_parse_divide_line_reads_both_spellings():
    assert perft_tools.parse_divide_line("e2e4: 20\n") == ("e2e4", 20)
    assert perft_tools.parse_divide_line("a7a8q 3") == ("a7a8q", 3)
    assert perft_tools.parse_divide_line("info depth 1") is None
    assert perft_tools.parse_divide_line("Nodes searched: 20") is None


# --- a depth alone ------------------------------------------------------------------------
def test_a_depth_alone_counts_as_depth_does():
    """``fianchetto perft 3`` is ``--depth 3``, with ``--fen``, ``--moves`` and
    ``--divide`` as they are; a depth given twice or a bad FEN exits 2."""
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    alone = run_cli(["perft", "3"])
    assert alone.returncode == 0, alone.stderr
    assert "Nodes searched: 8902" in alone.stdout
    divided = run_cli(["perft", "2", "--fen", fen, "--moves", "e1g1", "--divide"])
    assert divided.returncode == 0, divided.stderr
    board = chess.Board(fen)
    board.push_uci("e1g1")
    assert f"Nodes searched: {sum(chess_divide(board, 2).values())}" in divided.stdout
    assert run_cli(["perft", "3", "--depth", "4"]).returncode == 2
    bad = run_cli(["perft", "3", "--fen", "not a fen"])
    assert bad.returncode == 2 and "error" in bad.stderr


# --- perftree's protocol -------------------------------------------------------------------
def test_perftree_protocol_matches_python_chess():
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    proc = run_cli(["perft", "2", fen, "e1g1 a6e2"])
    assert proc.returncode == 0, proc.stderr
    body, total = proc.stdout.rstrip("\n").split("\n\n")
    board = chess.Board(fen)
    board.push_uci("e1g1")
    board.push_uci("a6e2")
    expected = chess_divide(board, 2)
    assert dict((m, int(c)) for m, c in (line.split() for line in body.splitlines())) == expected
    assert int(total) == sum(expected.values())


# --- suites ------------------------------------------------------------------------------
def test_shipped_suite_parses_and_covers_the_rules():
    entries = parse_suite(perft_tools.SHIPPED_SUITE.read_text(encoding="utf-8"))
    assert len(entries) >= 40
    assert all(max(entry.counts) <= 6 for entry in entries)
    assert sum(perft_tools.is_chess960_fen(entry.fen) for entry in entries) >= 8
    for entry in entries:      # the counts at depth 1 and 2 agree with python-chess
        board = chess.Board(entry.fen, chess960=perft_tools.is_chess960_fen(entry.fen))
        assert len(list(board.legal_moves)) == entry.counts[1], entry.fen
        assert sum(chess_divide(board, 2).values()) == entry.counts[2], entry.fen


def test_cli_suite_to_depth_four_passes():
    proc = run_cli(["perft", "--suite", "default", "--depth", "4"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "; 0 mismatches" in proc.stdout


@pytest.mark.slow
def test_cli_suite_to_depth_six_passes():
    proc = run_cli(["perft", "--suite", "default"], timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "; 0 mismatches" in proc.stdout


def test_a_wrong_suite_line_exits_non_zero(tmp_path):
    suite = tmp_path / "suite.epd"
    suite.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\n"
                     "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 ;D1 26 ;D2 569\n", encoding="utf-8")
    proc = run_cli(["perft", "--suite", str(suite)])
    assert proc.returncode == 1
    assert "line 2 depth 2: expected 569, got 568" in proc.stdout


@pytest.mark.parametrize("text", ["8/8/8 ;D1 3\n", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 ;D1 five\n"])
def test_a_malformed_suite_exits_two(tmp_path, text):
    suite = tmp_path / "suite.epd"
    suite.write_text(text, encoding="utf-8")
    proc = run_cli(["perft", "--suite", str(suite)])
    assert proc.returncode == 2
    assert "line 1" in proc.stdout


# --- deep counts from the command line -----------------------------------------------------
def test_cli_threads_and_hash_count_exactly():
    proc = run_cli(["perft", "--depth", "4", "--fen", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w "
                    "KQkq - 0 1", "--threads", "2", "--hash", "16", "--divide"])
    assert proc.returncode == 0, proc.stderr
    assert "Nodes searched: 4085603" in proc.stdout
    assert proc.stdout.count(": ") >= 48


# --- Stockfish as the other engine ---------------------------------------------------------
def random_positions(count: int, chess960: bool, seed: int) -> List[chess.Board]:
    rng = random.Random(seed)
    positions: List[chess.Board] = []
    while len(positions) < count:
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
        random_playout(rng, board, rng.randint(10, 40))
        if not board.is_game_over():
            positions.append(chess.Board(board.fen(shredder=chess960), chess960=chess960))
    return positions


@pytest.mark.slow
@pytest.mark.skipif(STOCKFISH is None, reason="needs Stockfish (apt-get install stockfish)")
def test_compare_agrees_with_stockfish_on_random_positions():
    positions = random_positions(40, False, 72) + random_positions(10, True, 960)
    other = OtherEngine(STOCKFISH, timeout=120)
    try:
        for board in positions:
            assert compare(board, 4, other, lambda line: None) is None, board.fen()
    finally:
        other.close()
