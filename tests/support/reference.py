"""Reference positions and python-chess oracles for the tests.

python-chess is the oracle throughout: every count, move list, FEN and
Zobrist key the engine produces is compared with what python-chess says about
the same position. Nothing here depends on wall-clock time, and every random
choice comes from ``random.Random`` with a fixed seed, so a failure is
reproducible by re-running the same test.
"""
from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import random
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import chess
import chess.polyglot

SEED = 0xF1A7C3E7

# ---------------------------------------------------------------------------
# Published perft positions (https://www.chessprogramming.org/Perft_Results)
# ---------------------------------------------------------------------------
KIWIPETE_FEN = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION3_FEN = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION4_FEN = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION4_MIRROR_FEN = "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1"
POSITION5_FEN = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
POSITION6_FEN = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"

# ---------------------------------------------------------------------------
# En passant corner cases.  Each entry: (fen, chess960, has_legal_ep).  The
# FENs all carry an en-passant square that is *valid* (a pawn has just
# double-pushed past it); whether a legal capture exists varies.
# ---------------------------------------------------------------------------
EP_FENS = [
    # Legal capture: e5xd6 e.p.
    ("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3", False, True),
    # No pawn next to the double-pushed one: the square is valid but idle.
    ("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2", False, False),
    # Horizontal pin: b5xc6 would remove both pawns from the 5th rank and
    # expose the king on a5 to the rook on h5.  Pseudo-legal, not legal.
    ("8/8/8/KPp4r/8/8/8/7k w - c6 0 2", False, False),
    # Same, black to move: e4xd3 exposes the king on h4 to the rook on a4.
    ("8/8/8/8/R2Pp2k/8/8/K7 b - d3 0 1", False, False),
    # Diagonal pin: the c5 pawn is pinned by the a7 bishop against the king
    # on e3; capturing towards d6 leaves the pin line.
    ("k7/b7/8/2Pp4/8/4K3/8/8 w - d6 0 2", False, False),
    # Two capturers, one of them pinned (c5 by the a7 bishop), the other (e5) free.
    ("k7/b7/8/2PpP3/8/4K3/8/8 w - d6 0 2", False, True),
    # The double push gave check; capturing e.p. is the only pawn evasion.
    ("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", False, True),
    # The double push gives check, but the only pawn that could take it e.p.
    # is pinned on the e-file by the rook on e8.
    ("4r2k/8/8/3pP3/4K3/8/8/8 w - d6 0 2", False, False),
    # Chess960 board with black castling rights (X-FEN kq, Shredder gb) and a
    # diagonally pinned e.p. capturer (e5 pinned by g7 against c3).
    ("1r1k2r1/6b1/8/3pP3/8/2K5/8/8 w gb d6 0 2", True, False),
]

CHESS960_FENS_SMALL = [
    # A few Chess960 positions used across modules.
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9",
    "bnqnrbkr/1pp2pp1/p7/3pP2p/4P1P1/8/PPPP3P/BNQNRBKR w HEhe d6 0 9",
    "nnrqbkrb/pppp1pp1/7p/4p3/6P1/2N2B2/PPPPPP1P/NR1QBKR1 w Ggc - 2 9",
    # Castling is legal at the root for both sides in this one.
    "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1",
]


def special_position_params():
    """pytest params for the en-passant corner cases and the small Chess960 set."""
    import pytest

    return ([pytest.param(fen, c960, id=f"ep-corner-{i}") for i, (fen, c960, _) in enumerate(EP_FENS)]
            + [pytest.param(fen, True, id=f"960-{i}") for i, fen in enumerate(CHESS960_FENS_SMALL)])


# ---------------------------------------------------------------------------
# python-chess oracles
# ---------------------------------------------------------------------------
def chess_perft(board: chess.Board, depth: int) -> int:
    """Bulk-counted perft with python-chess (the oracle)."""
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += chess_perft(board, depth - 1)
        board.pop()
    return nodes


def _perft_job(job) -> int:
    fen, chess960, depth = job
    return chess_perft(chess.Board(fen, chess960=chess960), depth)


def chess_perft_many(boards: Sequence[chess.Board], depth: int) -> List[int]:
    """Oracle perft for many positions, spread over the available cores.

    python-chess is the slow part of the random-position test; with a fork
    start method the work is split over worker processes, otherwise it runs
    in this process.  The answer is the same either way.
    """
    jobs = [(b.fen(en_passant="fen"), b.chess960, depth) for b in boards]
    workers = min(4, os.cpu_count() or 1)
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            return list(pool.map(_perft_job, jobs, chunksize=8))
    return [_perft_job(job) for job in jobs]


def chess_divide(board: chess.Board, depth: int, chess960: Optional[bool] = None) -> Dict[str, int]:
    """Per-root-move perft counts, moves spelled as the engine spells them.

    ``chess960`` selects the castling spelling (king-takes-rook when True);
    it defaults to the board's own flag.
    """
    if chess960 is None:
        chess960 = board.chess960
    out: Dict[str, int] = {}
    for move in board.legal_moves:
        uci = board.uci(move, chess960=chess960)
        board.push(move)
        out[uci] = chess_perft(board, depth - 1)
        board.pop()
    return out


def chess_uci_moves(board: chess.Board, chess960: Optional[bool] = None) -> List[str]:
    """python-chess legal moves spelled like the engine spells them."""
    if chess960 is None:
        chess960 = board.chess960
    return sorted(board.uci(m, chess960=chess960) for m in board.legal_moves)


# ---------------------------------------------------------------------------
# Deterministic random positions
# ---------------------------------------------------------------------------
@dataclass
class Sample:
    """A python-chess position plus how to hand it to the engine."""

    board: chess.Board  # no move stack: the position *is* the root
    fen_text: str  # the exact text handed to the engine
    label: str  # short origin description (shown in test ids / messages)

    @property
    def chess960(self) -> bool:
        return self.board.chess960

    def parsed(self) -> chess.Board:
        """python-chess reading of exactly the text the engine is given."""
        return chess.Board(self.fen_text, chess960=self.chess960)

    def __repr__(self) -> str:  # shows up in assertion messages
        return f"Sample({self.label}: {self.fen_text!r}, chess960={self.chess960})"


SEED_FENS = [
    (chess.STARTING_FEN, False),
    (KIWIPETE_FEN, False),
    (POSITION3_FEN, False),
    (POSITION4_FEN, False),
    (POSITION4_MIRROR_FEN, False),
    (POSITION5_FEN, False),
    (POSITION6_FEN, False),
    # Pawns ready to promote on both sides, with captures onto the back rank.
    ("r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1", False),
    # Pawns facing each other on the 2nd/7th ranks: double pushes next to
    # enemy pawns, so en passant comes up constantly.
    ("4k3/p1p1p1p1/8/1P1P1P1P/p1p1p1p1/8/1P1P1P1P/4K3 w - - 0 1", False),
    ("r3k2r/p1p1p1p1/8/1P1P1P1P/p1p1p1p1/8/1P1P1P1P/R3K2R b KQkq - 0 1", False),
]


def _move_weight(board: chess.Board, move: chess.Move, capture_bias: float = 2.0) -> float:
    """Bias random play towards the rules that break move generators."""
    weight = 1.0
    if board.is_en_passant(move):
        weight += 40.0
    if move.promotion:
        weight += 25.0
    if board.is_castling(move):
        weight += 8.0
    if board.is_capture(move):
        weight += capture_bias
    piece = board.piece_type_at(move.from_square)
    if piece in (chess.KNIGHT, chess.BISHOP, chess.QUEEN) and chess.square_rank(move.from_square) in (0, 7):
        weight += 4.0  # develop: clears the way for castling
    if piece == chess.PAWN:
        weight += 3.0
        if abs(move.to_square - move.from_square) == 16:
            # Double pushes next to an enemy pawn create en passant squares.
            target_rank_neighbours = chess.BB_SQUARES[move.to_square]
            adj = chess.shift_left(target_rank_neighbours) | chess.shift_right(target_rank_neighbours)
            if adj & board.pawns & board.occupied_co[not board.turn]:
                weight += 15.0
    return weight


def random_playout(rng: random.Random, board: chess.Board, plies: int) -> chess.Board:
    """`board` after up to `plies` uniformly random legal moves (fewer if the game ends)."""
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def random_move(rng: random.Random, board: chess.Board, capture_bias: float = 2.0) -> Optional[chess.Move]:
    moves = list(board.legal_moves)
    if not moves:
        return None
    weights = [_move_weight(board, m, capture_bias) for m in moves]
    return rng.choices(moves, weights=weights, k=1)[0]


def _start_board(rng: random.Random, kind: str) -> chess.Board:
    if kind == "960":
        return chess.Board.from_chess960_pos(rng.randrange(960))
    fen, chess960 = rng.choice(SEED_FENS)
    return chess.Board(fen, chess960=chess960)


def _sample_text(rng: random.Random, board: chess.Board) -> str:
    """Pick one of the legitimate spellings of ``board``'s FEN."""
    roll = rng.random()
    if board.chess960 and roll < 0.5:
        # Shredder-FEN (HAha) spelling; sometimes with every ep square shown.
        return board.shredder_fen(en_passant="fen" if roll < 0.2 else "legal")
    if roll < 0.75:
        return board.fen()
    # Show the en-passant square after every double push, even when no capture
    # is possible (the engine must accept it and must hash it polyglot-style).
    text = board.fen(en_passant="fen")
    if roll < 0.85:
        text = " ".join(text.split()[:4])  # four-field FEN: no clocks
    return text


def random_samples(count: int, seed: int = SEED) -> List[Sample]:
    """``count`` positions reached by biased random play (deterministic).

    Every third game starts from a random Chess960 starting position, the
    others from the standard start or one of the published tricky positions.
    A quarter of the games are short (openings, castling still available); the
    rest trade pieces eagerly and run long, reaching endings and promotions
    (and keeping the python-chess oracle affordable).
    Positions are taken at random plies along each game.
    """
    rng = random.Random(seed)
    samples: List[Sample] = []
    game = 0
    while len(samples) < count:
        game += 1
        kind = "960" if game % 3 == 0 else "std"
        board = _start_board(rng, kind)
        if game % 4 == 1:
            capture_bias, plies, first = 2.0, rng.randrange(4, 40), 0
        else:
            capture_bias, plies, first = 10.0, rng.randrange(50, 160), 35
        take_every = rng.choice([3, 5, 7])
        for ply in range(plies):
            move = random_move(rng, board, capture_bias)
            if move is None:
                break
            board.push(move)
            if ply < first:
                continue
            if ply % take_every == take_every - 1 or (board.ep_square is not None and (board.has_legal_en_passant() or rng.random() < 0.5)):
                root = board.copy(stack=False)
                samples.append(Sample(root, _sample_text(rng, root), f"g{game}p{ply}"))
                if len(samples) >= count:
                    break
    # Always include the hand-made en-passant corner cases.
    for fen, chess960, _ in EP_FENS:
        board = chess.Board(fen, chess960=chess960)
        samples.append(Sample(board, board.fen(en_passant="fen"), "ep-corner"))
    return samples


# ---------------------------------------------------------------------------
# Engine helpers
# ---------------------------------------------------------------------------
def engine_board(sample_or_board, text: Optional[str] = None):
    """Construct a ``fianchetto.Board`` for a python-chess board / Sample."""
    from fianchetto import Board

    if isinstance(sample_or_board, Sample):
        return Board(sample_or_board.fen_text, chess960=sample_or_board.chess960)
    board = sample_or_board
    return Board(text if text is not None else board.fen(), chess960=board.chess960)


def engine_state(board) -> tuple:
    """Everything observable about an engine board, for 'unchanged' checks."""
    return (
        board.fen(),
        board.fen(shredder=True),
        board.key,
        board.turn,
        board.chess960,
        list(board.move_stack),
        sorted(board.legal_moves()),
        board.is_check(),
    )


def assert_matches_python_chess(board, pc: chess.Board, context: str = "") -> None:
    """The engine board and the python-chess board describe the same position."""
    where = f" [{context}]" if context else ""
    assert board.fen() == pc.fen(), f"fen differs{where}"
    assert board.fen(shredder=True) == pc.shredder_fen(), f"shredder fen differs{where}"
    assert board.key == chess.polyglot.zobrist_hash(pc), f"key differs{where} at {pc.fen(en_passant='fen')}"
    assert board.turn == pc.turn, f"turn differs{where}"
    assert board.is_check() == pc.is_check(), f"is_check differs{where} at {pc.fen()}"
