"""A small UCI engine whose ``go perft`` has one deliberate move-generation bug.

``python buggy_perft_engine.py BUG`` where BUG is one of

* ``none``: python-chess's legal moves, counted correctly;
* ``no-en-passant``: never generates an en passant capture;
* ``no-underpromotion``: promotes to a queen only;
* ``castle-through-check``: castles even when the king passes an attacked square;
* ``dies``: exits when asked for a count.

It answers as Stockfish does: one ``move: count`` line per root move, an empty
line, ``Nodes searched: N``. ``perft --compare`` is tested against it.
"""
from __future__ import annotations

import sys
from typing import Iterator, List

import chess


def castles_through_check(board: chess.Board) -> Iterator[chess.Move]:
    """Castling moves legal but for an attacked square the king passes over."""
    if board.is_check():
        return
    king = board.king(board.turn)
    for rook in chess.scan_forward(board.clean_castling_rights() & board.occupied_co[board.turn]):
        target = chess.square(6 if rook > king else 2, chess.square_rank(king))
        passed = chess.square(5 if rook > king else 3, chess.square_rank(king))
        between = chess.SquareSet(chess.between(king, rook))
        if any(board.piece_at(square) for square in between):
            continue
        move = chess.Move(king, target)
        if board.is_attacked_by(not board.turn, passed) and not board.is_attacked_by(not board.turn, target):
            yield move


def moves(board: chess.Board, bug: str) -> List[chess.Move]:
    legal = list(board.legal_moves)
    if bug == "no-en-passant":
        return [move for move in legal if not board.is_en_passant(move)]
    if bug == "no-underpromotion":
        return [move for move in legal if move.promotion in (None, chess.QUEEN)]
    if bug == "castle-through-check":
        return legal + list(castles_through_check(board))
    return legal


def perft(board: chess.Board, depth: int, bug: str) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in moves(board, bug):
        board.push(move)
        total += perft(board, depth - 1, bug)
        board.pop()
    return total


def main(bug: str) -> None:
    board = chess.Board()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print("id name buggy perft\nuciok", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "position" and words[1] == "fen":
            board = chess.Board(" ".join(words[2:8]))
        elif words[:2] == ["go", "perft"]:
            if bug == "dies":
                sys.exit(3)
            total = 0
            for move in moves(board, bug):
                board.push(move)
                count = perft(board, int(words[2]) - 1, bug)
                board.pop()
                total += count
                print(f"{board.uci(move)}: {count}")
            print(f"\nNodes searched: {total}", flush=True)
        elif words[0] == "quit":
            return


if __name__ == "__main__":
    main(sys.argv[1])
