"""The compiled Syzygy prober (core_cy/tablebases/syzygy.pxi) against python-chess.

python-chess's ``Tablebase.probe_wdl`` / ``probe_dtz`` are the oracle: on every
position below the compiled ``Board.probe_wdl(tables)`` / ``probe_dtz(tables)`` must
return the same number, or ``None`` exactly where python-chess raises
``KeyError`` (a table is missing, castling rights, too many pieces).

Positions are random placements of many material signatures (every 3- and
4-piece table, the 5-piece tables in ``../shared/data/syzygy5`` when present,
and signatures whose tables are missing), with both colourings, both sides to
move and a share of positions with an en-passant capture available. Everything
comes from ``random.Random`` with fixed seeds.
"""
from __future__ import annotations

import os
import random
import threading
from pathlib import Path
from typing import List, Optional

import chess
import chess.syzygy
import pytest

from core_cy import core

REPO = Path(__file__).resolve().parents[1]
from support.tables import SYZYGY, SYZYGY5, SYZYGY5_MISSING   # noqa: E402

SEED = 0x5A7B9C
LETTERS = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}


def table_dirs() -> List[Path]:
    return [d for d in (SYZYGY, SYZYGY5) if d.is_dir()]


def signatures_in(directory: Path) -> List[str]:
    return sorted(name[:-5] for name in os.listdir(directory) if name.endswith(".rtbw"))


# Signatures without tables here: 5-piece ones not in the small 5-piece set and
# 6-piece ones (their captures lead into the tables we have).
MISSING = ["KQQvKQ", "KRRvKB", "KQPvKQ", "KPPvKP", "KRPvKRP", "KQRvKRN", "KRRvKRB", "KPPvKPP"]


def all_signatures() -> List[str]:
    sigs = signatures_in(SYZYGY)
    if SYZYGY5.is_dir():
        sigs += signatures_in(SYZYGY5)
    return sigs + [s for s in MISSING if s not in sigs]


# ---------------------------------------------------------------------------
# python-chess oracle and the compiled prober, loaded with the same tables
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def oracle():
    dirs = table_dirs()
    tb = chess.syzygy.open_tablebase(str(dirs[0]))
    for d in dirs[1:]:
        tb.add_directory(str(d))
    yield tb
    tb.close()


@pytest.fixture(scope="module")
def tables():
    """Every test table, loaded once."""
    return core.SyzygyTables(os.pathsep.join(str(d) for d in table_dirs()))


def oracle_wdl(tb, board: chess.Board) -> Optional[int]:
    try:
        return tb.probe_wdl(board)
    except KeyError:
        return None


def oracle_dtz(tb, board: chess.Board) -> Optional[int]:
    try:
        return tb.probe_dtz(board)
    except KeyError:
        return None


def engine(board: chess.Board) -> core.Board:
    return core.Board(board.fen(en_passant="fen"))


# ---------------------------------------------------------------------------
# Random positions
# ---------------------------------------------------------------------------
def _place(rng: random.Random, board: chess.Board, pieces, color, free: List[int]) -> None:
    for letter in pieces:
        for i, sq in enumerate(free):
            if letter == "P" and chess.square_rank(sq) in (0, 7):
                continue
            board.set_piece_at(sq, chess.Piece(LETTERS[letter], color))
            del free[i]
            break


def random_position(rng: random.Random, signature: str, en_passant: bool = False) -> Optional[chess.Board]:
    """A legal position of `signature` (colours and side to move at random).

    With en_passant, the side not to move has just pushed a pawn two squares
    next to a pawn of the side to move (so an en-passant capture is possible
    unless a pin forbids it). None when no legal placement turned up."""
    first, second = signature.split("v")
    for _ in range(200):
        white, black = (first, second) if rng.random() < 0.5 else (second, first)
        white, black = list(white), list(black)
        board = chess.Board(None)
        board.turn = rng.random() < 0.5
        free = list(range(64))
        rng.shuffle(free)
        ep_square = None
        if en_passant:
            us, them = board.turn, not board.turn
            ours, theirs = (white, black) if us == chess.WHITE else (black, white)
            if "P" not in ours or "P" not in theirs:
                return None
            ours.remove("P")
            theirs.remove("P")
            f = rng.randrange(8)
            rank = 4 if them == chess.BLACK else 3
            pushed = chess.square(f, rank)
            step = 8 if them == chess.BLACK else -8
            beside = chess.square(rng.choice([g for g in (f - 1, f + 1) if 0 <= g < 8]), rank)
            board.set_piece_at(pushed, chess.Piece(chess.PAWN, them))
            board.set_piece_at(beside, chess.Piece(chess.PAWN, us))
            ep_square = pushed + step
            reserved = {pushed, beside, ep_square, pushed + 2 * step}
            free = [s for s in free if s not in reserved]
        _place(rng, board, white, chess.WHITE, free)
        _place(rng, board, black, chess.BLACK, free)
        board.ep_square = ep_square
        if board.is_valid():
            return board
    return None


def positions(seed: int, per_signature: int, signatures: List[str]) -> List[chess.Board]:
    rng = random.Random(seed)
    out = []
    for sig in signatures:
        for k in range(per_signature):
            board = None
            if k % 4 == 0:
                board = random_position(rng, sig, en_passant=True)
            if board is None:
                board = random_position(rng, sig)
            if board is not None:
                out.append(board)
    return out


# Hand-picked en-passant positions: the capture changes the result, or it is
# the only legal move.
EP_POSITIONS = [
    "k7/8/8/8/2Pp4/8/6K1/8 b - c3 0 1",        # draw without it, win with it
    "8/8/8/8/5KpP/8/8/k7 b - h3 0 1",          # loss without it, draw with it
    "8/3k4/8/6Pp/8/K7/8/8 w - h6 0 1",         # loss without it, win with it
    "7K/5k2/5n2/4pP2/8/8/8/8 w - e6 0 1",      # the capture is the only legal move
    "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",       # the double push gave check
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",         # the capture is pinned (horizontal)
    "k7/b7/8/2Pp4/8/4K3/8/8 w - d6 0 2",       # the capture is pinned (diagonal)
]


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------
def test_a_set_reports_its_largest_table_and_files(tables):
    assert tables.largest == (5 if SYZYGY5.is_dir() else 4)
    small = core.SyzygyTables(str(SYZYGY))
    assert small.largest == 4 and small.files == 2 * len(signatures_in(SYZYGY)) < tables.files
    assert core.SyzygyTables("").largest == core.SyzygyTables("").files == 0
    assert core.SyzygyTables(str(REPO / "no-such-folder")).largest == 0


def test_sets_of_other_folders_live_side_by_side(tables):
    """Each user loads its own set: another set, smaller or empty, loaded beside it
    and dropped, changes nothing of its answers, nor it of the other's."""
    documented = core.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1")
    empty = core.SyzygyTables("")
    assert documented.probe_wdl(empty) is None and documented.probe_wdl(tables) == -2
    del empty
    assert documented.probe_wdl(tables) == -2
    if SYZYGY5.is_dir():
        quiet_five = core.Board("8/8/8/3k4/8/6r1/8/KQR5 w - - 0 1")   # no capture leads into 4 pieces
        small = core.SyzygyTables(str(SYZYGY))
        assert quiet_five.probe_wdl(small) is None and quiet_five.probe_wdl(tables) == 2


@pytest.mark.skipif(not SYZYGY5.is_dir(), reason=SYZYGY5_MISSING)
def test_the_five_piece_tables_agree_with_python_chess(tables, oracle):
    """With the 5-piece folder beside the project the tests above cover its
    tables too; here every one of them is probed on positions of its own."""
    assert tables.largest == 5
    boards = positions(SEED + 5, 40, signatures_in(SYZYGY5))
    assert len(boards) >= 100
    for board in boards:
        assert engine(board).probe_wdl(tables) == oracle_wdl(oracle, board), board.fen()
        assert engine(board).probe_dtz(tables) == oracle_dtz(oracle, board), board.fen()


def test_documented_example(tables):
    board = core.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1")
    assert board.probe_wdl(tables) == -2
    assert board.probe_dtz(tables) == -53


def test_wdl_matches_python_chess(tables, oracle):
    boards = positions(SEED, 60, all_signatures())
    assert len(boards) > 2500
    mismatches = []
    answered = 0
    for board in boards:
        expected = oracle_wdl(oracle, board)
        got = engine(board).probe_wdl(tables)
        answered += expected is not None
        if got != expected:
            mismatches.append((board.fen(en_passant="fen"), expected, got))
    assert not mismatches, f"{len(mismatches)} of {len(boards)} differ, e.g. {mismatches[:5]}"
    assert answered > 2000


def test_dtz_matches_python_chess(tables, oracle):
    boards = positions(SEED + 1, 25, all_signatures())
    assert len(boards) > 1000
    mismatches = []
    for board in boards:
        expected = oracle_dtz(oracle, board)
        got = engine(board).probe_dtz(tables)
        if got != expected:
            mismatches.append((board.fen(en_passant="fen"), expected, got))
    assert not mismatches, f"{len(mismatches)} of {len(boards)} differ, e.g. {mismatches[:5]}"


@pytest.mark.parametrize("fen", EP_POSITIONS)
def test_en_passant(tables, oracle, fen):
    board = chess.Board(fen)
    ours = engine(board)
    assert ours.probe_wdl(tables) == oracle_wdl(oracle, board)
    assert ours.probe_dtz(tables) == oracle_dtz(oracle, board)


def test_en_passant_changes_the_result(tables, oracle):
    """The first three EP_POSITIONS have a different value without the ep square."""
    for fen in EP_POSITIONS[:3]:
        with_ep = core.Board(fen)
        without = core.Board(fen.replace(fen.split()[3], "-"))
        assert with_ep.probe_wdl(tables) != without.probe_wdl(tables)
        assert with_ep.probe_wdl(tables) == oracle_wdl(oracle, chess.Board(fen))


def test_missing_tables_and_unsupported_positions_give_none(tables, oracle):
    # A 5-piece table that is not in the test set, without any capture.
    quiet = "8/8/8/3k4/8/6q1/8/KQQ5 w - - 0 1"
    assert core.Board(quiet).probe_wdl(tables) is None
    assert core.Board(quiet).probe_dtz(tables) is None
    assert oracle_wdl(oracle, chess.Board(quiet)) is None
    # ... but a capture into a table we have decides it (as in python-chess).
    assert core.Board("8/8/8/3k4/8/1q6/8/KQQ5 w - - 0 1").probe_wdl(tables) == 2
    # Too many pieces.
    assert core.Board("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1").probe_wdl(tables) is None
    assert core.Board("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1").probe_dtz(tables) is None
    # Castling rights: the tables have no such positions (python-chess raises too).
    castling = "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"
    assert core.Board(castling).probe_wdl(tables) is None
    assert core.Board(castling).probe_dtz(tables) is None
    assert oracle_wdl(oracle, chess.Board(castling)) is None
    # Bare kings are a draw without any table.
    assert core.Board("8/8/3k4/8/8/8/8/K7 w - - 0 1").probe_wdl(tables) == 0
    # Nothing loaded: no answers at all.
    empty = core.SyzygyTables("")
    assert core.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1").probe_wdl(empty) is None
    assert core.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1").probe_dtz(empty) is None


def test_only_the_four_piece_set_loaded(oracle):
    """5-piece positions answer None when only the 3-4 piece folder is loaded."""
    tables = core.SyzygyTables(str(SYZYGY))
    small = chess.syzygy.open_tablebase(str(SYZYGY))
    try:
        boards = positions(SEED + 2, 20, ["KRPvKR", "KQRvKR", "KQvKR", "KPvKP"])
        for board in boards:
            assert engine(board).probe_wdl(tables) == oracle_wdl(small, board), board.fen(en_passant="fen")
    finally:
        small.close()


def test_probing_leaves_the_board_unchanged(tables):
    fen = "8/8/8/8/5KpP/8/8/k7 b - h3 0 1"
    board = core.Board(fen)
    key = board.key
    board.probe_wdl(tables)
    board.probe_dtz(tables)
    assert board.fen() == core.Board(fen).fen()
    assert board.key == key
    assert board._check_invariants()


def test_threads_probe_concurrently(tables, oracle):
    """Probes release the GIL and share the tables read-only."""
    boards = positions(SEED + 3, 6, all_signatures())
    expected = [engine(b).probe_wdl(tables) for b in boards]
    results: List[List[Optional[int]]] = [[] for _ in range(4)]

    def work(slot: int) -> None:
        for _ in range(5):
            results[slot] = [engine(b).probe_wdl(tables) for b in boards]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert r == expected


@pytest.mark.slow
def test_many_more_positions(tables, oracle):
    """A longer run of the same comparison (pytest -m slow)."""
    for seed in range(SEED + 10, SEED + 13):
        for board in positions(seed, 150, all_signatures()):
            assert engine(board).probe_wdl(tables) == oracle_wdl(oracle, board), board.fen(en_passant="fen")
    for board in positions(SEED + 20, 60, all_signatures()):
        assert engine(board).probe_dtz(tables) == oracle_dtz(oracle, board), board.fen(en_passant="fen")
