"""``genfens`` as OpenBench's client asks for it: UCI commands as command-line
arguments, N lines ``info string genfens <FEN>``, the same for the same seed."""
from __future__ import annotations

import subprocess
import time
from typing import List

import chess
import pytest

from fianchetto.cli import engine_command, is_uci_script

PREFIX = "info string genfens "
TIMEOUT = 120


def client_fens(*commands: str) -> List[str]:
    """What OpenBench's client keeps of the engine's output: one FEN per prefixed line."""
    done = subprocess.run(engine_command() + list(commands), capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return [line[len(PREFIX):].strip() for line in done.stdout.splitlines() if line.startswith(PREFIX)]


def assert_openings(fens: List[str], count: int, chess960: bool = False) -> None:
    assert len(fens) == count
    for fen in fens:
        assert len(fen.split()) == 6
        board = chess.Board(fen, chess960=chess960)
        assert board.is_valid() and not board.is_game_over(), fen


def test_n_openings_the_same_for_a_seed_and_others_for_another():
    first = client_fens("genfens 6 seed 11 book None", "quit")
    assert_openings(first, 6)
    assert client_fens("genfens 6 seed 11 book None", "quit") == first
    other = client_fens("genfens 6 seed 12 book None", "quit")
    assert_openings(other, 6)
    assert other != first
    assert len(set(first)) == 6


def test_openings_start_from_the_book(tmp_path):
    book = tmp_path / "book.epd"
    starts = ["rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR w KQkq -",
              "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -"]
    book.write_text("".join(f"{fen} c0 \"book\";\n" for fen in starts))
    fens = client_fens(f"genfens 8 seed 3 book {book} plies=2", "quit")
    assert_openings(fens, 8)
    reachable = set()
    for start in starts:
        board = chess.Board(start)
        for first in list(board.legal_moves):
            board.push(first)
            for second in list(board.legal_moves):
                board.push(second)
                reachable.add(board.board_fen())
                board.pop()
            board.pop()
    assert all(chess.Board(fen).board_fen() in reachable for fen in fens)


def test_dfrc_openings_are_chess960_positions():
    fens = client_fens("genfens 4 seed 5 book None dfrc=1", "quit")
    assert_openings(fens, 4, chess960=True)
    assert any(not chess.Board(fen, chess960=True).board_fen().endswith("RNBQKBNR") for fen in fens)


def test_each_opening_well_within_openbenchs_fifteen_seconds():
    start = time.monotonic()
    fens = client_fens("genfens 20 seed 1 book None", "quit")
    assert len(fens) == 20
    assert (time.monotonic() - start) / 20 < 15 / 4


@pytest.mark.parametrize("command", ["genfens", "genfens x seed 1", "genfens 3 seed", "genfens 2 seed 1 book",
                                     "genfens 2 seed 1 book /no/such/book.epd"])
def test_bad_requests_say_why_and_print_no_opening(command):
    done = subprocess.run(engine_command() + [command, "isready", "quit"], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "readyok" in lines
    assert not [line for line in lines if line.startswith(PREFIX)]
    assert any(line.startswith("info string genfens:") for line in lines)


def test_subcommands_keep_their_meaning():
    assert not is_uci_script(["bench"]) and not is_uci_script(["perft", "--depth", "2"])
    assert not is_uci_script([]) and not is_uci_script(["--version"])
    assert is_uci_script(["genfens 1 seed 1 book None", "quit"])
    assert is_uci_script(["setoption name Hash value 8", "genfens 1 seed 1 book None", "quit"])


def test_setoption_before_genfens_and_the_numpy_free_path():
    done = subprocess.run(engine_command() + ["setoption name EvalFile value none", "genfens 2 seed 4 book None",
                                              "quit"], capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0
    assert len([line for line in done.stdout.splitlines() if line.startswith(PREFIX)]) == 2
    code = "import sys, fianchetto.genfens, fianchetto.uci; print('numpy' in sys.modules)"
    import sys

    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
