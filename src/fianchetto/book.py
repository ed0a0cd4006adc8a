"""Polyglot opening books at the root.

The engine asks the book once per ``go``, so python-chess's memory-mapped reader
is fast enough. The API is small::

    book = OpeningBook.open(path or default_book_path())   # raises BookError
    if should_use_book(game_ply(board), book_depth):
        move = book.pick(board, best=not variety, rng=rng)    # UCI text or None

Moves come back in the board's own castling spelling (``e1g1`` in standard
chess, king-takes-rook ``e1h1`` in Chess960) and are always legal on the board.
"""
from __future__ import annotations

import os
import random
import struct
from pathlib import Path
from typing import List, NamedTuple, Optional, Union

import chess.polyglot

ENTRY_SIZE = 16
BOOK_NAME = "fianchetto.bin"

# Polyglot stores castling as king-takes-rook; standard chess spells it king-two-squares.
_KING_TAKES_ROOK = {"e1h1": "e1g1", "e1a1": "e1c1", "e8h8": "e8g8", "e8a8": "e8c8"}


class BookError(Exception):
    """The book file is missing, unreadable or not a Polyglot book."""


class BookMove(NamedTuple):
    uci: str      # in the board's castling spelling
    weight: int   # the entry's Polyglot weight (> 0)


def default_book_path() -> Path:
    """The bundled book: inside the installed package, else ``<repo>/books/`` of a checkout.

    Returns the installed location when neither file exists, so that opening it
    raises a :class:`BookError` naming where the book was expected.
    """
    here = Path(__file__).resolve().parent
    installed = here / "books" / BOOK_NAME
    checkout = here.parent.parent / "books" / BOOK_NAME
    for candidate in (installed, checkout):
        if candidate.is_file():
            return candidate
    return installed


def should_use_book(ply: int, book_depth: int) -> bool:
    """True when a position ``ply`` half-moves into the game may be looked up.

    ``book_depth`` is the BookDepth option: the book is used for the first
    ``book_depth`` plies of a game (0 turns it off).
    """
    return 0 <= ply < book_depth


def game_ply(board) -> int:
    """Half-moves played since the start of the game, from the full-move number and side."""
    return 2 * (board.fullmove_number - 1) + (0 if board.turn else 1)


def _piece_at(fen: str, square: str) -> str:
    """The FEN letter on ``square`` (like ``"e1"``) or ``""`` if it is empty."""
    rows = fen.split()[0].split("/")
    row = rows[8 - int(square[1])]
    file_index = ord(square[0]) - ord("a")
    col = 0
    for ch in row:
        if ch.isdigit():
            col += int(ch)
        else:
            if col == file_index:
                return ch
            col += 1
        if col > file_index:
            break
    return ""


class OpeningBook:
    """A Polyglot ``.bin`` book, open for lookups. Use :meth:`open` to create one."""

    def __init__(self, reader: chess.polyglot.MemoryMappedReader, path: Path):
        self._reader = reader
        self.path = path

    @classmethod
    def open(cls, path: Union[str, os.PathLike]) -> "OpeningBook":
        """Open and check a book. Raises :class:`BookError` if it is missing or corrupt.

        Corrupt means: empty, a size that is not a multiple of 16 bytes, or sampled
        entries whose keys are out of order or whose moves are not moves.
        """
        path = Path(path)
        if not path.is_file():
            raise BookError(f"opening book not found: {path}")
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise BookError(f"cannot read opening book {path}: {exc}") from exc
        if size == 0:
            raise BookError(f"opening book is empty: {path}")
        if size % ENTRY_SIZE:
            raise BookError(f"corrupt opening book {path}: {size} bytes is not a whole number "
                            f"of {ENTRY_SIZE}-byte entries")
        try:
            reader = chess.polyglot.MemoryMappedReader(str(path))
        except (OSError, ValueError) as exc:
            raise BookError(f"cannot read opening book {path}: {exc}") from exc
        try:
            _check_sample(reader)
        except BookError as exc:
            reader.close()
            raise BookError(f"corrupt opening book {path}: {exc}") from None
        except (OSError, ValueError, struct.error, IndexError) as exc:
            reader.close()
            raise BookError(f"cannot read opening book {path}: {exc}") from exc
        return cls(reader, path)

    def __len__(self) -> int:
        return len(self._reader)

    def __enter__(self) -> "OpeningBook":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._reader.close()

    def moves(self, board) -> List[BookMove]:
        """The book's legal moves for ``board`` (a fianchetto Board), heaviest first.

        Entries with weight 0 are skipped (Polyglot's way of deleting a move).
        """
        legal = set(board.legal_moves())
        fen = None
        found: List[BookMove] = []
        for entry in self._reader.find_all(board.key):
            uci = entry.move.uci()
            if not board.chess960 and uci in _KING_TAKES_ROOK:
                fen = fen or board.fen()
                if _piece_at(fen, uci[:2]).lower() == "k":
                    uci = _KING_TAKES_ROOK[uci]
            if uci in legal and all(m.uci != uci for m in found):
                found.append(BookMove(uci, entry.weight))
        found.sort(key=lambda m: -m.weight)  # stable: file order among equal weights
        return found

    def pick(self, board, *, best: bool, rng: Optional[random.Random] = None) -> Optional[str]:
        """A book move for ``board`` as UCI text, or None when the book has none.

        ``best=True`` plays the heaviest entry (the first one in the file on ties);
        ``best=False`` draws among the entries with probability proportional to
        weight, using ``rng`` (a ``random.Random``; the module's generator if None).
        """
        candidates = self.moves(board)
        if not candidates:
            return None
        if best:
            return candidates[0].uci
        total = sum(m.weight for m in candidates)
        r = (rng or random).randrange(total)
        for move in candidates:
            r -= move.weight
            if r < 0:
                return move.uci
        return candidates[-1].uci  # not reached


def _check_sample(reader: chess.polyglot.MemoryMappedReader, samples: int = 64) -> None:
    """Read up to ``samples`` evenly spaced entries: keys sorted, moves well-formed."""
    count = len(reader)
    step = max(1, count // samples)
    indices = sorted(set(list(range(0, count, step)) + [count - 1]))
    previous = -1
    for i in indices:
        entry = reader[i]
        if entry.key < previous:
            raise BookError(f"entries are not sorted by key (entry {i})")
        previous = entry.key
        raw = entry.raw_move
        if raw >> 15 or (raw >> 12) & 7 > 4 or (raw & 63) == ((raw >> 6) & 63):
            raise BookError(f"entry {i} holds no valid move (0x{raw:04x})")


__all__ = ["BookError", "BookMove", "OpeningBook", "default_book_path", "game_ply",
           "should_use_book", "BOOK_NAME"]
