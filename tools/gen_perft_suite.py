"""Generate src/fianchetto/data/perftsuite.epd: the perft suite that ships with the engine.

    python tools/gen_perft_suite.py [--stockfish /usr/games/stockfish] [--out FILE]

(with the Python of an install: Stockfish is driven by ``perft --compare``'s
client, :class:`fianchetto.perft_tools.OtherEngine`.)

Every count comes from Stockfish's ``go perft`` (with ``UCI_Chess960`` for the
Chess960 lines) and, to depth 3, is checked against python-chess: two
independent generators, neither of them this engine's. The positions are the
ones people check a move generator with: the Chess Programming Wiki's six,
Chess960 positions with castling rights on unusual files, and short endgames
that each stress one rule (en passant that would expose the king, en passant
that gives or removes a check, castling out of, through or into check,
promotions and under-promotions that check, discovered and double checks,
stalemate and mate close to the root). Depths stop before a count would pass about
200 million leaves, and never go past 6, so that the whole suite takes
seconds.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Dict, List, Tuple

import chess

from fianchetto.perft_tools import OtherEngine, is_chess960_fen

OUT = Path(__file__).resolve().parents[1] / "src" / "fianchetto" / "data" / "perftsuite.epd"
MAX_DEPTH = 6
MAX_LEAVES = 200_000_000

#: (FEN, what the line checks). Chess960 lines use Shredder-FEN castling letters.
POSITIONS: List[Tuple[str, str]] = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "the start position"),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "CPW position 2 (Kiwipete)"),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "CPW position 3: pins along the rank, en passant"),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", "CPW position 4"),
    ("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", "CPW position 4, mirrored"),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", "CPW position 5"),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", "CPW position 6"),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", "Chess960: rooks on f and h"),
    ("b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9", "Chess960: rooks on e and g"),
    ("qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9", "Chess960: only black may castle"),
    ("bnqnrbkr/1pp2pp1/p7/3pP2p/4P1P1/8/PPPP3P/BNQNRBKR w HEhe d6 0 9", "Chess960 with en passant"),
    ("nnrqbkrb/pppp1pp1/7p/4p3/6P1/2N2B2/PPPPPP1P/NR1QBKR1 w Ggc - 2 9", "Chess960: king between its rooks"),
    ("nnrkrbbq/pppp2pp/8/4pp2/4P3/P7/1PPPBPPP/NNKRR1BQ w c - 0 9", "Chess960: king on c"),
    ("1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9", "Chess960: rook b castles to d"),
    ("rbbqn1kr/pp2p1pp/6n1/2pp1p2/2P4P/P7/BP1PPPP1/R1BQNNKR w HAha - 0 9", "Chess960: king on g castles long"),
    ("1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1", "Chess960: a king already on its castled square"),
    ("1r2k1r1/8/8/8/8/8/8/R3K2R w KQbg - 0 1", "castling rights on both kinds of file"),
    ("3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", "a double push whose capture en passant would expose the king"),
    ("8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", "en passant pinned along a diagonal"),
    ("8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", "en passant that gives check"),
    ("8/5k2/8/2Pp4/4K3/8/8/8 w - d6 0 1", "en passant that captures the checking pawn"),
    ("4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 1", "both pawns leave the rank of king and rook"),
    ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "short castling gives check"),
    ("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", "long castling gives check"),
    ("r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", "castling rights lost to captures and moves"),
    ("r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", "castling prevented by attacked squares"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "four castlings, rooks that capture rooks"),
    ("r3k2r/8/8/8/4r3/8/8/R3K2R w KQkq - 0 1", "castling out of check"),
    ("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1", "castling through check"),
    ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "black to castle"),
    ("1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1", "long castling with b1 attacked stays legal"),
    ("2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", "promotion out of check"),
    ("4k3/1P6/8/8/8/8/K7/8 w - - 0 1", "promotion that gives check"),
    ("8/P1k5/K7/8/8/8/8/8 w - - 0 1", "under-promotion that gives check"),
    ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", "promotions with captures on both sides"),
    ("8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", "discovered check"),
    ("4k3/8/5N2/8/8/8/8/K3R3 b - - 0 1", "double check: only the king may move"),
    ("4k3/8/8/8/1b6/8/3N4/4K2R w K - 0 1", "a pinned knight"),
    ("K1k5/8/P7/8/8/8/8/8 w - - 0 1", "self-stalemate"),
    ("8/k1P5/8/1K6/8/8/8/8 w - - 0 1", "stalemate and mate a few plies down"),
    ("8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", "stalemate and mate with a queen and knight"),
]


def python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


def suite_line(fen: str, stockfish: OtherEngine) -> str:
    chess960 = is_chess960_fen(fen)
    board = chess.Board(fen, chess960=chess960)
    if not board.is_valid():
        raise ValueError(f"invalid position {fen}: {board.status()!r}")
    counts: Dict[int, int] = {}
    for depth in range(1, MAX_DEPTH + 1):
        counts[depth] = sum(stockfish.divide(fen, depth, chess960).values())
        if depth <= 3 and counts[depth] != python_chess_perft(board, depth):
            raise ValueError(f"Stockfish and python-chess disagree on {fen} at depth {depth}")
        growth = counts[depth] / counts.get(depth - 1, 1)
        if counts[depth] * max(growth, 1.0) > MAX_LEAVES:
            break       # the next depth would pass MAX_LEAVES
    return fen + "".join(f" ;D{depth} {count}" for depth, count in counts.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    stockfish = OtherEngine(args.stockfish, timeout=3600)
    lines = ["# Perft suite: FEN ;D<depth> <leaves> ...  (generated by tools/gen_perft_suite.py;",
             "# counts from Stockfish's go perft, checked against python-chess to depth 3)"]
    for fen, purpose in POSITIONS:
        lines.append(f"# {purpose}")
        lines.append(suite_line(fen, stockfish))
        print(lines[-1], flush=True)
    stockfish.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
