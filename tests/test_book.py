"""Opening book: the builder (fianchetto.bookbuild), the prober (fianchetto.book) and
the bundled book (books/fianchetto.bin).

python-chess is the oracle: keys must equal ``chess.polyglot.zobrist_hash`` and
python-chess's own Polyglot reader must find every entry legal.
"""
from __future__ import annotations

import random
import struct
import subprocess
import sys
from collections import Counter
from pathlib import Path

import chess
import chess.polyglot
import pytest

from fianchetto import Board
from fianchetto.book import (BookError, OpeningBook, default_book_path, game_ply,
                             should_use_book)
from fianchetto.bookbuild import BuildConfig, build, encode_move, main, weight_for_loss

ENTRY = struct.Struct(">QHHI")
TINY = BuildConfig(max_ply=4, positions=12, nodes=3000, multipv=3, margin=30)


def read_entries(data: bytes):
    assert len(data) % 16 == 0
    return [ENTRY.unpack_from(data, i) for i in range(0, len(data), 16)]


def write_raw(path: Path, entries) -> Path:
    """Write (key, raw_move, weight) entries sorted by key, as Polyglot does."""
    entries = sorted(entries, key=lambda e: e[0])
    path.write_bytes(b"".join(ENTRY.pack(k, m, w, 0) for k, m, w in entries))
    return path


def raw_move(board: chess.Board, uci: str) -> int:
    return encode_move(board, chess.Move.from_uci(uci))


@pytest.fixture(scope="module")
def tiny():
    result = build(TINY)
    return result, result.to_bytes()


# --- the builder --------------------------------------------------------------------

def test_builder_writes_sorted_polyglot_entries(tiny):
    result, data = tiny
    entries = read_entries(data)
    assert len(entries) >= 12
    keys = [e[0] for e in entries]
    assert keys == sorted(keys)
    assert all(e[2] > 0 and e[3] == 0 for e in entries)


def test_builder_keys_are_zobrist_hashes_and_moves_are_legal(tiny, tmp_path):
    result, data = tiny
    path = tmp_path / "tiny.bin"
    path.write_bytes(data)
    per_key = Counter(e[0] for e in read_entries(data))
    assert set(per_key) <= set(result.positions)
    with chess.polyglot.open_reader(path) as reader:
        for key, count in per_key.items():
            position = result.positions[key]
            board = chess.Board(position.fen)
            assert chess.polyglot.zobrist_hash(board) == key, position.fen
            # python-chess's reader yields only entries whose move is legal on the board.
            found = list(reader.find_all(board))
            assert len(found) == count, position.fen
            assert {board.uci(e.move) for e in found} == {m.uci for m in position.moves}


def test_builder_covers_both_colours_and_follows_its_own_moves(tiny):
    result, _ = tiny
    fens = {p.key: p for p in result.positions.values() if p.moves}
    assert any(" b " in p.fen for p in fens.values())
    assert any(" w " in p.fen for p in fens.values())
    for p in result.positions.values():  # every analysed position is reached by kept moves
        board = chess.Board()
        for uci in p.path:
            parent = result.positions[chess.polyglot.zobrist_hash(board)]
            assert uci in {m.uci for m in parent.moves}
            board.push_uci(uci)
        assert p.ply == len(p.path) < TINY.max_ply


def test_builder_is_deterministic(tiny):
    _, data = tiny
    assert build(TINY).to_bytes() == data


def test_weights_follow_the_documented_formula(tiny):
    result, _ = tiny
    for p in result.positions.values():
        if not p.moves:
            continue
        best = max(m.score for m in p.moves)
        for m in p.moves:
            assert best - m.score <= TINY.margin
            assert m.weight == weight_for_loss(best - m.score, TINY.half_life)
    assert weight_for_loss(0, 10) == 100
    assert weight_for_loss(10, 10) == 50
    assert weight_for_loss(30, 10) == 12
    assert weight_for_loss(10_000, 10) == 1


def test_castling_is_written_king_takes_rook():
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    e1, h1, a1 = chess.E1, chess.H1, chess.A1
    assert raw_move(board, "e1g1") == h1 | e1 << 6
    assert raw_move(board, "e1c1") == a1 | e1 << 6
    board.turn = chess.BLACK
    assert raw_move(board, "e8g8") == chess.H8 | chess.E8 << 6
    promo = chess.Board("8/P6k/8/8/8/8/8/K7 w - - 0 1")
    assert raw_move(promo, "a7a8q") == chess.A8 | chess.A7 << 6 | 4 << 12
    assert raw_move(promo, "a7a8n") == chess.A8 | chess.A7 << 6 | 1 << 12


PGN = """
[Event "a"]
[Result "1-0"]

1. e4 e5 2. Nf3 1-0

[Event "b"]
[Result "1/2-1/2"]

1. e4 c5 1/2-1/2

[Event "c"]
[Result "0-1"]

1. d4 d5 0-1
"""


def test_pgn_only_book_weights_moves_by_results(tmp_path):
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN)
    result = build(BuildConfig(max_ply=3, pgn=str(pgn), pgn_only=True))
    root = result.positions[chess.polyglot.zobrist_hash(chess.Board())]
    # e4: won once (2) + drawn once (1); d4 only lost, so it is left out.
    assert [(m.uci, m.weight, m.games) for m in root.moves] == [("e2e4", 3, 2)]
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    black = result.positions[chess.polyglot.zobrist_hash(after_e4)]
    # c5 was drawn (1); e5 lost (0), so it is left out.
    assert [(m.uci, m.weight) for m in black.moves] == [("c7c5", 1)]


def test_pgn_moves_join_the_engine_candidates(tmp_path):
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. h3 1-0\n')
    config = BuildConfig(max_ply=1, positions=1, nodes=2000, multipv=1, margin=10_000,
                         pgn=str(pgn))
    root = build(config).positions[chess.polyglot.zobrist_hash(chess.Board())]
    moves = {m.uci: m for m in root.moves}
    assert "h2h3" in moves and len(moves) == 2  # the engine's choice and the game's move
    best = max(m.score for m in root.moves)
    h3 = moves["h2h3"]
    assert h3.games == 1 and h3.weight == weight_for_loss(best - h3.score, 10) * 3


def test_command_line(tmp_path):
    out = tmp_path / "cli.bin"
    assert main(["-o", str(out), "--positions", "3", "--nodes", "2000", "--max-ply", "2", "-q"]) == 0
    assert out.stat().st_size > 0 and out.stat().st_size % 16 == 0
    helped = subprocess.run([sys.executable, "-m", "fianchetto.bookbuild", "--help"],
                            capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "--pgn" in helped.stdout and "--nodes" in helped.stdout


# --- the prober ---------------------------------------------------------------------

@pytest.fixture
def start_book(tmp_path):
    start = chess.Board()
    key = chess.polyglot.zobrist_hash(start)
    return write_raw(tmp_path / "start.bin", [
        (key, raw_move(start, "e2e4"), 60),
        (key, raw_move(start, "d2d4"), 30),
        (key, raw_move(start, "g1f3"), 10),
        (key, raw_move(start, "c2c4"), 0),    # weight 0: deleted, never played
        (key + 1, raw_move(start, "a2a3"), 99),  # another position's entry
    ])


def test_pick_best_returns_the_heaviest_move(start_book):
    with OpeningBook.open(start_book) as book:
        assert book.pick(Board(), best=True, rng=random.Random(1)) == "e2e4"
        assert [(m.uci, m.weight) for m in book.moves(Board())] == [
            ("e2e4", 60), ("d2d4", 30), ("g1f3", 10)]
        after = Board()
        after.push("e2e4")
        assert book.pick(after, best=True, rng=None) is None


def test_pick_random_follows_the_weights(start_book):
    rng = random.Random(12345)
    draws = 4000
    with OpeningBook.open(start_book) as book:
        counts = Counter(book.pick(Board(), best=False, rng=rng) for _ in range(draws))
    assert set(counts) == {"e2e4", "d2d4", "g1f3"}
    for move, share in (("e2e4", 0.6), ("d2d4", 0.3), ("g1f3", 0.1)):
        assert abs(counts[move] / draws - share) < 0.03, counts


def test_pick_is_reproducible_with_a_seeded_rng(start_book):
    with OpeningBook.open(start_book) as book:
        first = [book.pick(Board(), best=False, rng=random.Random(7)) for _ in range(5)]
        again = [book.pick(Board(), best=False, rng=random.Random(7)) for _ in range(5)]
    assert first == again


CASTLE_FEN = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize("turn_fen, entries, standard, chess960", [
    (CASTLE_FEN, ["e1g1"], "e1g1", "e1h1"),
    (CASTLE_FEN, ["e1c1"], "e1c1", "e1a1"),
    (CASTLE_FEN.replace(" w ", " b "), ["e8g8"], "e8g8", "e8h8"),
    (CASTLE_FEN.replace(" w ", " b "), ["e8c8"], "e8c8", "e8a8"),
])
def test_castling_comes_back_in_the_boards_spelling(tmp_path, turn_fen, entries, standard, chess960):
    pc = chess.Board(turn_fen)
    key = chess.polyglot.zobrist_hash(pc)
    path = write_raw(tmp_path / "castle.bin", [(key, raw_move(pc, u), 5) for u in entries])
    with OpeningBook.open(path) as book:
        board = Board(turn_fen)
        move = book.pick(board, best=True, rng=None)
        assert move == standard and move in board.legal_moves()
        board960 = Board(turn_fen, chess960=True)
        assert board960.key == key
        move = book.pick(board960, best=True, rng=None)
        assert move == chess960 and move in board960.legal_moves()


def test_rook_move_from_the_kings_square_is_not_castling(tmp_path):
    fen = "3k4/8/8/8/8/8/8/K3R3 w - - 0 1"  # a rook on e1 may go to h1: no castling here
    pc = chess.Board(fen)
    path = write_raw(tmp_path / "rook.bin", [(chess.polyglot.zobrist_hash(pc), raw_move(pc, "e1h1"), 1)])
    with OpeningBook.open(path) as book:
        assert book.pick(Board(fen), best=True, rng=None) == "e1h1"


def test_illegal_entries_are_ignored(tmp_path):
    start = chess.Board()
    key = chess.polyglot.zobrist_hash(start)
    path = write_raw(tmp_path / "illegal.bin", [
        (key, chess.E5 | chess.E2 << 6, 50),   # e2e5: not a legal move
        (key, raw_move(start, "b1c3"), 1),
    ])
    with OpeningBook.open(path) as book:
        assert book.pick(Board(), best=True, rng=None) == "b1c3"


def test_missing_and_corrupt_books_raise_book_error(tmp_path):
    with pytest.raises(BookError, match="not found"):
        OpeningBook.open(tmp_path / "absent.bin")
    with pytest.raises(BookError, match="not found"):
        OpeningBook.open(tmp_path)  # a directory is not a book
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    with pytest.raises(BookError, match="empty"):
        OpeningBook.open(empty)
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"\x00" * 17)
    with pytest.raises(BookError, match="16-byte"):
        OpeningBook.open(odd)
    noise = tmp_path / "noise.bin"
    noise.write_bytes(random.Random(3).randbytes(16 * 200))
    with pytest.raises(BookError, match="corrupt"):
        OpeningBook.open(noise)
    no_move = write_raw(tmp_path / "nomove.bin", [(5, chess.E2 | chess.E2 << 6, 1)])
    with pytest.raises(BookError, match="corrupt"):
        OpeningBook.open(no_move)


def test_book_depth_helpers():
    assert should_use_book(0, 8) and should_use_book(7, 8)
    assert not should_use_book(8, 8) and not should_use_book(0, 0)
    board = Board()
    assert game_ply(board) == 0
    board.push("e2e4")
    assert game_ply(board) == 1
    board.push("e7e5")
    assert game_ply(board) == 2
    assert game_ply(Board("4k3/8/8/8/8/8/8/4K3 b - - 0 30")) == 59


# --- the bundled book ---------------------------------------------------------------

@pytest.fixture(scope="module")
def bundled():
    path = default_book_path()
    assert path.is_file(), f"bundled book missing at {path}"
    with OpeningBook.open(path) as book:
        yield book


def test_bundled_book_answers_the_start_position(bundled):
    board = Board()
    move = bundled.pick(board, best=True, rng=None)
    assert move in board.legal_moves()
    for seed in range(5):
        assert bundled.pick(board, best=False, rng=random.Random(seed)) in board.legal_moves()


def test_bundled_book_is_one_tree_from_the_start_for_both_colours(bundled):
    """Every entry is reachable from the start through book moves, for both colours."""
    data = bundled.path.read_bytes()
    entries = read_entries(data)
    keys = [e[0] for e in entries]
    assert keys == sorted(keys)
    file_keys = Counter(keys)
    seen = {}
    stack = [Board()]
    while stack:
        board = stack.pop()
        if board.key in seen:
            continue
        moves = bundled.moves(board)
        seen[board.key] = (board.turn, len(moves))
        for m in moves:
            child = board.copy()
            child.push(m.uci)
            stack.append(child)
    reached = {k for k, (_, n) in seen.items() if n}
    assert reached == set(file_keys)
    assert all(seen[k][1] == file_keys[k] for k in reached)  # every entry legal and unique
    black = sum(1 for k in reached if not seen[k][0])
    white = len(reached) - black
    assert black > 100 and white > 100, (white, black)
