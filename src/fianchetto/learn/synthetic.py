"""Synthetic training positions for tests and speed measurements.

Positions come from random legal play from the start position; each is
labelled by material alone (pawn 100, knight and bishop 300, rook 500, queen
900, side to move's view), and the "result" follows the material balance.  A
network can learn these labels, which makes them a fair check that training
works, but they say nothing about chess strength.
"""
from __future__ import annotations

import random
from typing import List, Tuple

import chess
import numpy as np

from fianchetto.learn.data import encode_boards

MATERIAL = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900, chess.KING: 0}
#: Material margin (cp) from which a synthetic position counts as won.
WIN_MARGIN = 200


def material_score(board: chess.Board) -> int:
    """Material balance in centipawns from the side to move's view."""
    total = 0
    for piece in board.piece_map().values():
        value = MATERIAL[piece.piece_type]
        total += value if piece.color == board.turn else -value
    return total


def material_result(score: int) -> int:
    """0 loss, 1 draw, 2 win from a material score."""
    return 2 if score >= WIN_MARGIN else 0 if score <= -WIN_MARGIN else 1


def random_boards(count: int, seed: int, max_plies: int = 160, skip_plies: int = 4) -> List[chess.Board]:
    """``count`` positions along random games (after ``skip_plies``), seeded."""
    rng = random.Random(seed)
    boards: List[chess.Board] = []
    while len(boards) < count:
        board = chess.Board()
        for ply in range(max_plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if ply >= skip_plies:
                boards.append(board.copy(stack=False))
                if len(boards) == count:
                    break
    return boards


def material_records(count: int, seed: int) -> Tuple[np.ndarray, List[chess.Board]]:
    """Records of ``count`` random positions with material labels, and their boards."""
    boards = random_boards(count, seed)
    scores = [material_score(board) for board in boards]
    results = [material_result(score) for score in scores]
    return encode_boards(boards, scores, results), boards
