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
        ours = cls(fen_of(board.root() if board.move_stack else board), chess960=board.chess960)
        for move in board.move_stack:
            # python-chess keeps castling as king-to-rook in Chess960 and as the
            # king's two-square step otherwise: the spelling this Board reads.
            ours.push(move.uci())
        return ours


_PIECES = ((chess.PAWN, "p"), (chess.KNIGHT, "n"), (chess.BISHOP, "b"), (chess.ROOK, "r"), (chess.QUEEN, "q"),
           (chess.KING, "k"))


def fen_of(board: chess.Board) -> str:
    """``board.fen(shredder=board.chess960)``, read straight from its bitboards
    (several times faster than python-chess's own, which asks square by square)."""
    cells = [""] * 64
    for color, case in ((chess.WHITE, str.upper), (chess.BLACK, str.lower)):
        mine = board.occupied_co[color]
        for piece_type, letter in _PIECES:
            symbol = case(letter)
            for square in chess.scan_forward(board.pieces_mask(piece_type, color) & mine):
                cells[square] = symbol
    ranks = []
    for rank in range(7, -1, -1):
        text, empty = "", 0
        for cell in cells[rank * 8:rank * 8 + 8]:
            if cell:
                text += (str(empty) if empty else "") + cell
                empty = 0
            else:
                empty += 1
        ranks.append(text + (str(empty) if empty else ""))
    castling = board.castling_shredder_fen() if board.chess960 else board.castling_xfen()
    ep = chess.square_name(board.ep_square) if board.ep_square is not None and board.has_legal_en_passant() else "-"
    return (f"{'/'.join(ranks)} {'w' if board.turn else 'b'} {castling} {ep} "
            f"{board.halfmove_clock} {board.fullmove_number}")


__all__ = ["Board", "START_FEN"]
