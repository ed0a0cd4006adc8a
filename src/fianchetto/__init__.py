"""Fianchetto: a UCI chess engine with a compiled Cython core.

>>> from fianchetto import Board
>>> board = Board()
>>> board.push("e2e4")
>>> board.perft(3)
13160

``Engine`` (:mod:`fianchetto.analysis`) searches from Python, in this process.
"""
from fianchetto.board import Board, START_FEN

__all__ = ["Board", "Engine", "START_FEN"]


def __getattr__(name: str):
    # Engine is imported on first use: it brings python-chess's engine module
    # (and asyncio), which the UCI process does not need.
    if name == "Engine":
        from fianchetto.analysis import Engine

        return Engine
    raise AttributeError(f"module 'fianchetto' has no attribute {name!r}")
__version__ = "0.1.0"
