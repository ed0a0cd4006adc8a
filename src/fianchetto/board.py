"""The Python face of a position: the compiled Board plus python-chess interop."""
from __future__ import annotations

import chess

from core_cy.core import START_FEN
from core_cy.core import Board as _CoreBoard


class Board(_CoreBoard):
    """A chess position with its move history; moves are UCI strings.

    ``Board(fen=None, chess960=False)``: ``fen()``, ``legal_moves()``, ``push(uci)``,
    ``pop()``, ``perft(depth)``, ``divide(depth)``, ``key`` (the Polyglot key),
    ``is_check()``, ``copy()``. Move generation and perft run in compiled code.
    """

    def to_python_chess(self) -> chess.Board:
        """The same game as a ``chess.Board``, with the move stack replayed."""
        moves = self.move_stack
        root = self.copy()
        for _ in moves:
            root.pop()
        board = chess.Board(root.fen(), chess960=self.chess960)
        for uci in moves:
            board.push(board.parse_uci(uci))
        return board

    @classmethod
    def from_python_chess(cls, board: chess.Board) -> "Board":
        """A Board for the game in ``board`` (its root position and move stack)."""
        root = board.root()
        ours = cls(root.fen(), chess960=board.chess960)
        replay = root.copy(stack=False)
        for move in board.move_stack:
            ours.push(replay.uci(move, chess960=board.chess960))
            replay.push(move)
        return ours


__all__ = ["Board", "START_FEN"]
