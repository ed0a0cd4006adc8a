"""Fianchetto: a UCI chess engine with a compiled Cython core.

>>> from fianchetto import Board
>>> board = Board()
>>> board.push("e2e4")
>>> board.perft(3)
13160
"""
from fianchetto.board import Board, START_FEN

__all__ = ["Board", "START_FEN"]
__version__ = "0.1.0"
