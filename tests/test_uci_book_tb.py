"""The opening book and the Syzygy tablebases, seen from the UCI protocol.

Every test drives the installed ``fianchetto`` executable, through the raw pipe
of ``uci_pipe.py`` (to read ``info string`` lines and time answers) or through
python-chess's ``chess.engine`` (as a GUI would).

Books are written by the tests into ``tmp_path`` with the project's own Polyglot
encoding (``fianchetto.bookbuild``); keys come from
``chess.polyglot.zobrist_hash``. python-chess is the oracle for the tables:
``chess.syzygy`` opened on the same folders judges every move the engine makes.

The only wall-clock bound is the protocol latency of a book move from the
bundled book (median of seven tries). The weighted book choice is checked with
bounds whose false-alarm probability is about one in a million.
"""
from __future__ import annotations

import os
import random
import statistics
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import chess
import chess.engine
import chess.polyglot
import chess.syzygy
import pytest

from fianchetto.cli import engine_command
from fianchetto.book import default_book_path
from fianchetto.bookbuild import ENTRY, encode_move, write_book
from support.uci_pipe import UciPipe

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
#: A clock-driven go, as a GUI sends it.
CLOCK_GO = "go wtime 10000 btime 10000"


def parse_info(line: str) -> Optional[Dict[str, object]]:
    """The fields of a search ``info`` line (not ``info string``, not currmove); else None.

    Lenient on purpose: every field but ``score`` is optional in UCI."""
    tokens = line.split()
    if len(tokens) < 2 or tokens[0] != "info" or tokens[1] == "string" or "currmove" in tokens:
        return None
    out: Dict[str, object] = {}
    i = 1
    while i < len(tokens):
        word = tokens[i]
        if word == "score" and i + 2 < len(tokens):
            out["kind"], out["score"] = tokens[i + 1], int(tokens[i + 2])
            i += 3
            if i < len(tokens) and tokens[i] in ("lowerbound", "upperbound"):
                out["bound"] = tokens[i]
                i += 1
        elif word == "pv":
            out["pv"] = tokens[i + 1:]
            break
        elif word in ("depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "tbhits", "time") \
                and i + 1 < len(tokens):
            out[word] = int(tokens[i + 1])
            i += 2
        else:
            i += 1
    return out if "score" in out else None


def infos(lines: Iterable[str]) -> List[Dict[str, object]]:
    return [p for p in (parse_info(l) for l in lines) if p is not None]


def closing_info(lines: Sequence[str]) -> Dict[str, object]:
    """The info line sent right before ``bestmove``."""
    assert lines[-1].startswith("bestmove"), lines[-3:]
    parsed = parse_info(lines[-2]) if len(lines) >= 2 else None
    assert parsed is not None, f"no search info right before bestmove: {lines[-3:]}"
    return parsed


def book_strings(lines: Iterable[str]) -> List[str]:
    return [l for l in lines if l.startswith("info string book move")]


def legal_uci(board: chess.Board) -> set:
    return {m.uci() for m in board.legal_moves}


def write_polyglot(path: Path, entries: Iterable[Tuple[chess.Board, str, int]]) -> Path:
    """A Polyglot book from (position, move, weight): keys from python-chess, moves
    encoded by the project's builder, entries sorted by key (heaviest first)."""
    rows = []
    for board, uci, weight in entries:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, (board.fen(), uci)
        rows.append((chess.polyglot.zobrist_hash(board), encode_move(board, move), weight, 0))
    rows.sort(key=lambda r: (r[0], -r[2], r[1]))
    write_book(str(path), b"".join(ENTRY.pack(*r) for r in rows))
    return path


#: The book line of the user's book: an unusual opening, so that a search would
#: hardly play it by itself; both sides castle at the end (Polyglot writes
#: castling as king-takes-rook, UCI as e1g1).
BOOK_LINE = ["b2b3", "e7e5", "c1b2", "b8c6", "e2e3", "g8f6", "f1b5", "d7d6",
             "g1e2", "f8e7", "e1g1", "e8g8"]
#: Lighter alternatives stored next to each line move (weight 1 against 10).
DECOYS = ["a2a3", "a7a6", "a2a3", "a7a6", "h2h3", "h7h6", "h2h3", "h7h6",
          "a2a3", "a7a6", "h2h3", "h7h6"]


@pytest.fixture
def line_book(tmp_path) -> Path:
    board = chess.Board()
    entries = []
    for move, decoy in zip(BOOK_LINE, DECOYS):
        entries.append((board.copy(), move, 10))
        entries.append((board.copy(), decoy, 1))
        board.push_uci(move)
    return write_polyglot(tmp_path / "line.bin", entries)


@pytest.fixture
def uci():
    engine = UciPipe()
    engine.sync()
    yield engine
    engine.close()


def use_book(engine: UciPipe, path, **options) -> List[str]:
    engine.send(f"setoption name BookFile value {path}")
    engine.send("setoption name OwnBook value true")
    for name, value in options.items():
        engine.send(f"setoption name {name} value {value}")
    return engine.sync()


def position_command(moves: Sequence[str], fen: Optional[str] = None) -> str:
    head = f"position fen {fen}" if fen else "position startpos"
    return f"{head} moves {' '.join(moves)}" if moves else head


# ---------------------------------------------------------------------------
# 1. Opening book
# ---------------------------------------------------------------------------
def test_user_book_is_followed_for_both_colours(uci, line_book):
    assert use_book(uci, line_book) == [], "valid setoptions must be silent"
    board = chess.Board()
    colours = set()
    for ply, move in enumerate(BOOK_LINE):
        uci.send(position_command(BOOK_LINE[:ply]))
        lines, best, _ = uci.go(CLOCK_GO)
        assert best == move, f"ply {ply} ({'white' if board.turn else 'black'}): book says {move}, engine {best}"
        assert book_strings(lines) == [f"info string book move {move}"], lines
        closing_info(lines)  # a book move still closes with a well-formed info line
        colours.add(board.turn)
        board.push_uci(best)
    assert colours == {chess.WHITE, chess.BLACK}
    # Out of the book: the engine searches (no book string) and plays a legal move.
    uci.send(position_command(BOOK_LINE))
    lines, best, _ = uci.go("go depth 3")
    assert not book_strings(lines) and best in legal_uci(board)
    assert any(i.get("depth") == 3 for i in infos(lines)), lines


def test_user_book_through_python_chess(line_book):
    """The same line, with python-chess playing the engine against itself."""
    with chess.engine.SimpleEngine.popen_uci(engine_command(), timeout=30) as engine:
        engine.configure({"OwnBook": True, "BookFile": str(line_book)})
        board = chess.Board()
        for move in BOOK_LINE:
            result = engine.play(board, chess.engine.Limit(white_clock=10, black_clock=10), game="book")
            assert result.move == chess.Move.from_uci(move), (board.fen(), result.move, move)
            board.push(result.move)


# The bounds of the weighted choice (exact binomial tails): with 200 draws at
# p = 0.75 the heavy share falls below 0.60 with probability 1.1e-6 and above 0.90
# with probability 2.3e-8. A uniform choice (p = 0.5) passes them with probability
# 0.003; a choice that ignores the light move never does.
def test_book_variety_follows_the_weights(uci, tmp_path):
    start = chess.Board()
    path = write_polyglot(tmp_path / "weighted.bin", [(start, "e2e4", 30), (start, "d2d4", 10)])
    assert use_book(uci, path, BookVariety="true") == []
    uci.send("position startpos")
    draws = 200
    counts: Counter = Counter()
    for _ in range(draws):
        lines, best, _ = uci.go(CLOCK_GO)
        assert book_strings(lines) == [f"info string book move {best}"], lines
        counts[best] += 1
    assert set(counts) == {"e2e4", "d2d4"}, counts
    share = counts["e2e4"] / draws
    print(f"BookVariety 3:1 over {draws} draws: {dict(counts)}")
    assert 0.60 <= share <= 0.90, counts
    # Without variety: always the heaviest move.
    uci.send("setoption name BookVariety value false")
    uci.send("position startpos")
    for _ in range(30):
        lines, best, _ = uci.go(CLOCK_GO)
        assert best == "e2e4" and book_strings(lines), lines


def test_bundled_book_answers_within_50_ms(uci):
    path = default_book_path()
    assert path.is_file(), f"bundled book missing at {path}"
    with chess.polyglot.open_reader(path) as reader:
        in_book = {e.move.uci() for e in reader.find_all(chess.Board())}
    assert in_book, "the bundled book has no move for the start position"
    uci.send("setoption name OwnBook value true")   # BookFile left empty: the bundled book
    uci.send("position startpos")
    assert uci.sync() == []
    times = []
    for _ in range(7):
        sent = uci.send(CLOCK_GO)
        stamped = uci.read_until_stamped(lambda l: l.startswith("bestmove"))
        times.append(stamped[-1][0] - sent)
        lines = [l for _, l in stamped]
        best = lines[-1].split()[1]
        assert best in in_book, (best, in_book)
        assert book_strings(lines) == [f"info string book move {best}"], lines
        uci.sync()
    median = statistics.median(times)
    print(f"bundled book move latency: median {median * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")
    assert median < 0.050, [round(t * 1000, 1) for t in times]


def test_go_infinite_and_ponder_on_a_book_move_wait(uci, line_book):
    use_book(uci, line_book)
    uci.send("position startpos")
    uci.send("go infinite")
    early = uci.assert_silent(0.3)
    uci.send("stop")
    lines = early + uci.read_until(lambda l: l.startswith("bestmove"), timeout=5)
    assert lines[-1].split()[1] == BOOK_LINE[0], lines
    assert book_strings(lines) == [f"info string book move {BOOK_LINE[0]}"], lines
    assert not any(l.startswith("bestmove") for l in uci.drain(0.3)), "two bestmoves for one go"
    # go ponder: bestmove only after ponderhit.
    uci.send(position_command(BOOK_LINE[:1]))
    uci.send("go ponder wtime 10000 btime 10000")
    uci.assert_silent(0.3)
    uci.send("ponderhit")
    lines = uci.read_until(lambda l: l.startswith("bestmove"), timeout=5)
    assert lines[-1].split()[1] == BOOK_LINE[1], lines
    assert not any(l.startswith("bestmove") for l in uci.drain(0.3)), "two bestmoves for one go"


PROBLEM_WORDS = ("not found", "no such", "missing", "directory", "corrupt", "invalid", "empty",
                 "16-byte", "not a ", "cannot")


def test_bad_book_paths_are_reported_and_survived(uci, tmp_path, line_book):
    rng = random.Random(2024)
    odd = tmp_path / "odd.bin"
    odd.write_bytes(rng.randbytes(16 * 40 + 7))
    noise = tmp_path / "noise.bin"
    noise.write_bytes(rng.randbytes(16 * 300))
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    folder = tmp_path / "a_folder"
    folder.mkdir()
    bad = {
        "nonexistent": tmp_path / "no_such_book.bin",
        "directory": folder,
        "random bytes, odd length": odd,
        "random bytes, whole entries": noise,
        "empty file": empty,
    }
    board = chess.Board()
    for what, path in bad.items():
        lines = use_book(uci, path)
        uci.send("position startpos")
        lines += uci.go("go depth 3")[0]
        best = lines[-1].split()[1]
        strings = [l for l in lines if l.startswith("info string")]
        named = [l for l in strings if path.name in l and any(w in l.lower() for w in PROBLEM_WORDS)]
        assert named, f"{what}: no info string naming {path} and the problem: {strings}"
        assert not book_strings(lines), f"{what}: a book move from a bad book: {lines}"
        assert best in legal_uci(board), f"{what}: illegal bestmove {best}"
        assert any(i.get("depth") == 3 and i.get("nodes", 0) > 0 for i in infos(lines)), \
            f"{what}: no normal depth-3 search: {lines}"
        assert uci.proc.poll() is None, f"{what}: the engine exited"
    assert uci.sync() == []
    # Still alive and still able to use a good book afterwards.
    use_book(uci, line_book)
    uci.send("position startpos")
    lines, best, _ = uci.go(CLOCK_GO)
    assert best == BOOK_LINE[0] and book_strings(lines), lines


def test_book_depth_limits_the_book(uci, line_book):
    use_book(uci, line_book, BookDepth=4)
    board = chess.Board()
    for ply in range(8):
        uci.send(position_command(BOOK_LINE[:ply]))
        lines, best, _ = uci.go("go depth 3")
        if ply < 4:
            assert best == BOOK_LINE[ply] and book_strings(lines), (ply, lines)
        else:
            assert not book_strings(lines), f"book used at ply {ply} with BookDepth 4: {lines}"
            assert any(i.get("depth") == 3 and i.get("nodes", 0) > 0 for i in infos(lines)), lines
            assert best in legal_uci(board)
        board.push_uci(BOOK_LINE[ply])
    # The ply count of a FEN comes from its move number: the position after four
    # plies is out of the book at BookDepth 4 and in it at BookDepth 5.
    after4 = chess.Board()
    for move in BOOK_LINE[:4]:
        after4.push_uci(move)
    uci.send(f"position fen {after4.fen()}")
    lines, _, _ = uci.go("go depth 3")
    assert not book_strings(lines), lines
    uci.send("setoption name BookDepth value 5")
    lines, best, _ = uci.go("go depth 3")
    assert best == BOOK_LINE[4] and book_strings(lines), lines
    # BookDepth 0 turns the book off.
    uci.send("setoption name BookDepth value 0")
    uci.send("position startpos")
    lines, _, _ = uci.go("go depth 3")
    assert not book_strings(lines), lines


# ---------------------------------------------------------------------------
# 2. Syzygy tablebases
# ---------------------------------------------------------------------------
from support.tables import SYZYGY, SYZYGY5, SYZYGY5_MISSING   # noqa: E402  every 3-4 piece table; five 5-piece ones
TB_FOLDERS = [SYZYGY, SYZYGY5]

#: A short search limit per move (a won root is decided by the tables at once).
WIN_NODES = "go nodes 20000"


def require_tables(*signatures: str) -> None:
    """Skip, saying what is missing, unless every table of ``signatures`` is there."""
    if not SYZYGY.is_dir():
        pytest.skip(f"Syzygy test tables not found at {SYZYGY}")
    for signature in signatures:
        for ext in (".rtbw", ".rtbz"):
            if not any((folder / (signature + ext)).is_file() for folder in TB_FOLDERS):
                pytest.skip(SYZYGY5_MISSING if len(signature) == 6 else
                            f"Syzygy table {signature}{ext} not found in {', '.join(map(str, TB_FOLDERS))}")


def tb_spec() -> str:
    return os.pathsep.join(str(f) for f in TB_FOLDERS if f.is_dir())


@pytest.fixture(scope="module")
def oracle():
    if not SYZYGY.is_dir():
        pytest.skip(f"Syzygy test tables not found at {SYZYGY}")
    tb = chess.syzygy.open_tablebase(str(SYZYGY))
    if SYZYGY5.is_dir():
        tb.add_directory(str(SYZYGY5))
    yield tb
    tb.close()


@pytest.fixture(scope="module")
def tb_engine():
    """One engine with SyzygyPath set, shared by the game tests (each starts with ucinewgame)."""
    if not SYZYGY.is_dir():
        pytest.skip(f"Syzygy test tables not found at {SYZYGY}")
    engine = UciPipe()
    engine.send(f"setoption name SyzygyPath value {tb_spec()}")
    lines = engine.sync()
    files = sum(1 for folder in TB_FOLDERS if folder.is_dir() for f in folder.iterdir()
                if f.suffix in (".rtbw", ".rtbz"))
    assert any(f"Syzygy tables loaded: {files} files, up to " in l for l in lines), lines
    yield engine
    engine.close()


def best_defence(oracle, board: chess.Board) -> chess.Move:
    """The loser's move that is worst for the winner: the lowest WDL for the winner,
    then the longest distance to the winner's next zeroing move (ties: UCI order)."""
    scored = []
    for move in sorted(board.legal_moves, key=lambda m: m.uci()):
        board.push(move)
        if board.is_checkmate():
            key = (-3, 0)
        elif board.is_stalemate() or board.is_insufficient_material():
            key = (0, 0)
        else:
            key = (oracle.probe_wdl(board), -abs(oracle.probe_dtz(board)))
        board.pop()
        scored.append((key, move))
    return min(scored, key=lambda s: s[0])[1]


class WonGame:
    """What happened in one won game: the engine's moves and what it reported."""

    def __init__(self, fen: str) -> None:
        self.fen = fen
        self.board = chess.Board(fen)
        self.engine_moves = 0
        self.tbhits = 0
        self.scores: List[Tuple[str, int]] = []
        self.ended = ""


def play_won_game(engine: UciPipe, oracle, fen: str, *, through_zeroing: bool,
                  max_plies: int = 400) -> WonGame:
    """The engine plays the side to move of ``fen`` (a win) against python-chess's best
    defence, until mate, or until the first zeroing move unless ``through_zeroing``.

    After every engine move the opponent must be lost for real: WDL -2 and the
    winner's next zeroing move (DTZ) inside the fifty-move rule."""
    game = WonGame(fen)
    board = game.board
    assert oracle.probe_wdl(board) == 2, f"not a win for the side to move: {fen}"
    engine.send("ucinewgame")
    moves: List[str] = []
    while board.ply() < max_plies:
        engine.send(position_command(moves, fen))
        lines, best, _ = engine.go(WIN_NODES)
        move = chess.Move.from_uci(best)
        assert move in board.legal_moves, f"illegal engine move {best} in {board.fen()}"
        report = closing_info(lines)
        game.scores.append((str(report["kind"]), int(report["score"])))
        game.tbhits = max([game.tbhits] + [int(i.get("tbhits", 0)) for i in infos(lines)])
        zeroing = board.is_zeroing(move)
        before = board.fen()
        board.push(move)
        moves.append(best)
        game.engine_moves += 1
        if board.is_checkmate():
            game.ended = "mate"
            return game
        assert not board.is_game_over(), f"{before}: {best} ends the game without mate ({board.result()})"
        wdl, dtz = oracle.probe_wdl(board), oracle.probe_dtz(board)
        assert wdl == -2 and dtz < 0, f"{before}: {best} gives away the win (opponent wdl {wdl}, dtz {dtz})"
        assert board.halfmove_clock + abs(dtz) <= 100, \
            f"{before}: after {best} the fifty-move rule spoils the win (clock {board.halfmove_clock}, dtz {dtz})"
        if zeroing and not through_zeroing:
            game.ended = "zeroing move"
            return game
        reply = best_defence(oracle, board)
        zeroing = board.is_zeroing(reply)
        board.push(reply)
        moves.append(reply.uci())
        if zeroing and not through_zeroing:
            game.ended = "zeroing move"
            return game
    pytest.fail(f"no mate within {max_plies} plies from {fen}: {' '.join(moves)}")


def assert_winning_reports(game: WonGame) -> None:
    for kind, score in game.scores:
        assert (kind == "mate" and score > 0) or (kind == "cp" and score >= 3000), \
            f"not a winning score: {kind} {score} (all: {game.scores})"
    assert game.tbhits > 0, "tbhits never reported nonzero"


# (material, fen, python-chess DTZ of the start in plies at least)
WON = [
    ("KRvK", "8/8/8/8/8/3k4/4R3/7K w - - 0 1", 25),
    ("KPvK", "8/8/8/7k/8/8/2P4K/8 w - - 0 1", 15),
    ("KBNvK", "8/8/8/8/8/Bk6/8/K5N1 w - - 0 1", 55),
    ("KQvKR", "8/8/8/2k5/8/8/6Q1/3r2K1 w - - 0 1", 45),
    ("KRPvKR", "7k/8/8/7r/8/1P4K1/8/6R1 w - - 0 1", 25),
]
#: Black to move and win (colours swapped, board mirrored): the other colour.
WON_BLACK = [(m, chess.Board(f).mirror().fen(), d) for m, f, d in WON if m in ("KRvK", "KQvKR")]


def check_start(oracle, fen: str, min_dtz: int) -> None:
    board = chess.Board(fen)
    assert oracle.probe_wdl(board) == 2, fen
    assert oracle.probe_dtz(board) >= min_dtz, (fen, oracle.probe_dtz(board))


@pytest.mark.parametrize("material,fen,min_dtz", WON + WON_BLACK,
                         ids=[f"{m}-{'w' if ' w ' in f else 'b'}" for m, f, _ in WON + WON_BLACK])
def test_won_endgame_is_converted(tb_engine, oracle, material, fen, min_dtz):
    require_tables(material)
    check_start(oracle, fen, min_dtz)
    game = play_won_game(tb_engine, oracle, fen, through_zeroing=False)
    print(f"{material}: {game.ended} after {game.engine_moves} engine moves, "
          f"scores {game.scores[0]}..{game.scores[-1]}, max tbhits {game.tbhits}")
    assert game.ended in ("mate", "zeroing move")
    if material in ("KRvK", "KBNvK"):
        assert game.ended == "mate"  # no capture or pawn move exists on the winning path
    assert_winning_reports(game)


# Later tables the whole games pass through (promotions, captures).
SLOW_TABLES = {
    "KPvK": ["KQvK", "KRvK"],
    "KQvKR": ["KQvK"],
    "KRPvKR": ["KQRvKR", "KRRvKR", "KRBvKR", "KRNvKR", "KRPvK", "KRvKR", "KRvKP", "KQRvK", "KRRvK",
               "KQvKR", "KQvK", "KRvK", "KPvK"],
}


@pytest.mark.slow
@pytest.mark.parametrize("material,fen,min_dtz", WON, ids=[m for m, _, _ in WON])
def test_won_endgame_is_played_to_mate(tb_engine, oracle, material, fen, min_dtz):
    """The whole game, through promotions and captures, until mate."""
    require_tables(material, *SLOW_TABLES.get(material, []))
    check_start(oracle, fen, min_dtz)
    game = play_won_game(tb_engine, oracle, fen, through_zeroing=True)
    print(f"{material}: mate after {game.engine_moves} engine moves")
    assert game.ended == "mate"
    assert_winning_reports(game)


def random_won_position(rng: random.Random, oracle, white: str, black: str, min_dtz: int) -> chess.Board:
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), 2 + len(white) + len(black))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq, symbol in zip(squares[2:], white + black.lower()):
            board.set_piece_at(sq, chess.Piece.from_symbol(symbol))
        board.turn = chess.WHITE
        if rng.random() < 0.5:
            board = board.mirror()  # black wins instead
        if not board.is_valid() or board.is_game_over():
            continue
        if oracle.probe_wdl(board) == 2 and oracle.probe_dtz(board) >= min_dtz:
            return board


@pytest.mark.slow
@pytest.mark.parametrize("material", ["KRvK", "KPvK", "KBNvK", "KQvKR", "KRPvKR"])
def test_many_won_endgames_are_converted(tb_engine, oracle, material):
    """Seeded random won positions of each material, each played to its first zeroing move."""
    require_tables(material)
    white, black = material[1:].split("vK")
    rng = random.Random(sum(map(ord, material)))
    for _ in range(4):
        board = random_won_position(rng, oracle, white, black, min_dtz=9)
        game = play_won_game(tb_engine, oracle, board.fen(), through_zeroing=False)
        assert_winning_reports(game)


# --- drawn endings ---------------------------------------------------------------------
# The defender (black, to move) has exactly one move that holds the draw here.
DRAWN_DEFENCE = [
    ("KPvK", "4k3/8/5K2/3P4/8/8/8/8 b - - 0 1"),
    ("KRvKN", "3n4/8/8/5R2/8/8/2K5/4k3 b - - 0 1"),
]
#: Drawn positions with the stronger side to move.
DRAWN_ATTACK = [
    ("KPvK", "8/8/8/8/4k3/8/4P3/4K3 w - - 0 1"),
    ("KRvKN", "8/8/8/8/8/3nk3/8/R4K2 w - - 0 1"),
]
DRAW_NODES = 20000
DRAW_PLIES = 20


def trickiest_try(oracle, board: chess.Board, rng: random.Random) -> chess.Move:
    """The stronger side's move, among those keeping its result, that leaves the
    defender the fewest moves holding the draw. Moves that leave the defender a
    capture come last, so that the game does not just end in a trade, and moves
    that repeat a position next to last; ties are broken by ``rng``."""
    best_value = oracle.probe_wdl(board)
    options = []
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate():
            board.pop()
            return move
        hangs = any(board.is_capture(reply) for reply in board.legal_moves)
        repeats = board.is_repetition(2)
        if board.is_game_over():
            holding: Optional[int] = 99
        elif -oracle.probe_wdl(board) < best_value:
            holding = None  # would spoil the stronger side's result
        else:
            holding = 0
            for reply in board.legal_moves:
                board.push(reply)
                if board.is_game_over():
                    holding += 0 if board.is_checkmate() else 1
                elif oracle.probe_wdl(board) <= 0:
                    holding += 1
                board.pop()
        board.pop()
        if holding is not None:
            options.append(((hangs, repeats, holding), move.uci(), move))
    fewest = min(o[0] for o in options)
    return rng.choice([o[2] for o in sorted(options, key=lambda o: o[1]) if o[0] == fewest])


def play_drawn_game(oracle, fen: str, seed: int) -> List[Tuple[str, str, Optional[int], int, int]]:
    """The engine (through python-chess) plays the side to move of a drawn ``fen``;
    python-chess's tables play the other side's trickiest tries. Returns one record per
    engine move: (position before, move, the opponent's WDL after or None at game end,
    reported centipawns (mate as +-100000), reported tbhits)."""
    rng = random.Random(seed)
    board = chess.Board(fen)
    engine_side = board.turn
    records = []
    with chess.engine.SimpleEngine.popen_uci(engine_command(), timeout=30) as engine:
        engine.configure({"SyzygyPath": tb_spec()})
        while board.ply() < DRAW_PLIES and not board.is_game_over(claim_draw=True):
            if board.turn == engine_side:
                result = engine.play(board, chess.engine.Limit(nodes=DRAW_NODES),
                                     info=chess.engine.INFO_ALL, game="drawn")
                assert result.move in board.legal_moves, (board.fen(), result.move)
                before = board.fen()
                board.push(result.move)
                score = result.info["score"].relative.score(mate_score=100000)
                opponent = None if board.is_game_over() else oracle.probe_wdl(board)
                records.append((before, result.move.uci(), opponent, score, int(result.info.get("tbhits", 0))))
            else:
                board.push(trickiest_try(oracle, board, rng))
    return records


@pytest.fixture(scope="module")
def drawn_games(oracle):
    """Each drawn game is played once and judged by two tests."""
    cache: Dict[str, list] = {}

    def get(fen: str):
        if fen not in cache:
            require_tables("KPvK", "KRvKN", "KRvK")
            assert oracle.probe_wdl(chess.Board(fen)) == 0, f"not a draw: {fen}"
            cache[fen] = play_drawn_game(oracle, fen, seed=len(fen))
        return cache[fen]

    return get


@pytest.mark.parametrize("material,fen", DRAWN_DEFENCE + DRAWN_ATTACK,
                         ids=[f"{m}-defend" for m, _ in DRAWN_DEFENCE] + [f"{m}-attack" for m, _ in DRAWN_ATTACK])
def test_drawn_endgame_is_never_lost(drawn_games, material, fen):
    records = drawn_games(fen)
    assert len(records) >= 3, records  # a game may end early in a trade (a draw)
    for before, move, opponent, _, _ in records:
        board = chess.Board(before)
        board.push_uci(move)
        if opponent is None:  # the engine's move ended the game: a draw (or a mate it gave)
            assert board.is_game_over() and board.result() in ("1/2-1/2", "1-0" if board.turn == chess.BLACK else "0-1")
            continue
        assert opponent <= 0, f"{before}: {move} lets the opponent win (opponent wdl {opponent})"
        assert opponent == 0, f"{before}: {move} changes the tablebase result (opponent wdl {opponent})"
    assert max(r[4] for r in records) > 0, "tbhits never reported nonzero"


@pytest.mark.parametrize("material,fen", DRAWN_DEFENCE + DRAWN_ATTACK,
                         ids=[f"{m}-defend" for m, _ in DRAWN_DEFENCE] + [f"{m}-attack" for m, _ in DRAWN_ATTACK])
def test_drawn_endgame_reports_a_draw_score(drawn_games, material, fen):
    """The README: 'The reported score is ... cp 0 for a draw'."""
    records = drawn_games(fen)
    scores = [(before, move, score) for before, move, _, score, _ in records]
    off = [s for s in scores if abs(s[2]) > 10]
    assert not off, f"{len(off)} of {len(scores)} drawn positions reported a non-draw score, e.g. {off[:3]}"


def test_searchmoves_without_the_winning_move_get_their_own_score(tb_engine, oracle):
    """A won root searched only among moves that throw the win away: the tables'
    verdict is about the winning move, so the score is the search's (a draw here)."""
    fen = WON[0][1]
    board = chess.Board(fen)
    blunder = chess.Move.from_uci("e2e3")                       # the king takes the rook
    board.push(blunder)
    assert oracle.probe_wdl(board) == 0
    tb_engine.send("ucinewgame")
    tb_engine.send(f"position fen {fen}")
    lines, best, _ = tb_engine.go(f"{WIN_NODES} searchmoves e2e3")
    assert best == "e2e3"
    scores = [(info["kind"], info["score"]) for info in infos(lines)]
    assert scores and all(kind == "cp" and abs(value) <= 10 for kind, value in scores), scores


# --- tbhits -----------------------------------------------------------------------------
TBHIT_POSITIONS = [
    WON[0][1],                 # a won root: the tables decide the move
    DRAWN_ATTACK[1][1],        # a drawn root: searched, tables probed after captures
]


def all_tbhits(engine: UciPipe, fen: str) -> List[int]:
    engine.send("ucinewgame")
    engine.send(f"position fen {fen}")
    lines, best, _ = engine.go(WIN_NODES)
    assert best in legal_uci(chess.Board(fen))
    return [int(i.get("tbhits", -1)) for i in infos(lines)]


def test_tbhits_reported_with_syzygy_path_and_zero_without():
    require_tables("KRvK", "KRvKN")
    with_tables = UciPipe()
    without = UciPipe()
    try:
        with_tables.send(f"setoption name SyzygyPath value {tb_spec()}")
        with_tables.sync()
        without.sync()
        for fen in TBHIT_POSITIONS:
            hits = all_tbhits(with_tables, fen)
            assert hits and max(hits) > 0, f"{fen}: tbhits {hits} with SyzygyPath set"
            hits = all_tbhits(without, fen)
            assert hits and all(h == 0 for h in hits), f"{fen}: tbhits {hits} without SyzygyPath"
        # Clearing the option turns the tables off again.
        with_tables.send("setoption name SyzygyPath value <empty>")
        with_tables.sync()
        for fen in TBHIT_POSITIONS:
            hits = all_tbhits(with_tables, fen)
            assert hits and all(h == 0 for h in hits), f"{fen}: tbhits {hits} after clearing SyzygyPath"
    finally:
        with_tables.close()
        without.close()


def test_a_syzygy_path_without_tables_keeps_the_tables_loaded_before(tmp_path):
    require_tables("KRvK", "KRvKN")
    engine = UciPipe()
    try:
        engine.send(f"setoption name SyzygyPath value {tb_spec()}")
        engine.sync()
        for bad in (tmp_path / "missing", tmp_path):
            engine.send(f"setoption name SyzygyPath value {bad}")
            said = [line for line in engine.sync() if line.startswith("info string")]
            assert any("keeping the Syzygy tables loaded before" in line for line in said), said
            for fen in TBHIT_POSITIONS:
                assert max(all_tbhits(engine, fen)) > 0, f"{fen}: the tables were let go after {bad}"
    finally:
        engine.close()


def search_tbhits(engine: UciPipe, fen: str, probe_limit: int, probe_depth: int) -> int:
    engine.send(f"setoption name SyzygyProbeLimit value {probe_limit}")
    engine.send(f"setoption name SyzygyProbeDepth value {probe_depth}")
    return max(all_tbhits(engine, fen))


def test_syzygy_probe_depth_spares_only_the_largest_tables():
    """SyzygyProbeDepth, as Stockfish has it: positions with as many pieces as the
    probe limit are probed only from that depth on, those with fewer at any depth.
    The roots have more pieces than the limit, so the search itself probes."""
    require_tables("KPvK", "KPvKP", "KNPvK", "KNvKP")
    engine = UciPipe()
    try:
        engine.send(f"setoption name SyzygyPath value {tb_spec()}")
        engine.sync()
        pawns = "4k3/8/8/4p3/3P4/8/8/4K3 w - - 0 1"              # captures reach three pieces
        assert search_tbhits(engine, pawns, 3, 1) > 0
        assert search_tbhits(engine, pawns, 3, 100) == 0
        knight = "4k3/8/8/4p3/3P4/8/8/1N2K3 w - - 0 1"           # four pieces, then three
        everywhere = search_tbhits(engine, knight, 4, 1)
        fewer_only = search_tbhits(engine, knight, 4, 100)
        assert everywhere > fewer_only > 0
    finally:
        engine.close()
