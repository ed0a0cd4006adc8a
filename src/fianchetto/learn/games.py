"""The ``FIANGAME`` files of ``fianchetto datagen``: whole self-play games, compactly.

A file is a 16-byte header (magic ``b"FIANGAME"``, uint32 version 1, uint32 ply
size 4, little-endian) followed by games, each:

==========  ======  ==========================================================
field       type    meaning
==========  ======  ==========================================================
result      uint8   white's result: 0 loss, 1 draw, 2 win; 255: a discarded game
flags       uint8   bit 0: Chess960 castling rules
fen_length  uint16  bytes of the start position's FEN
ply_count   uint16  plies that follow
fen         bytes   the start position (ASCII), before the random opening
plies       4 each  the move (uint16, the core's encoding) and its search score
                    (int16, side to move's view; -32768 for a random opening ply)
==========  ======  ==========================================================

A discarded game (a lopsided or dead opening) is kept as a 6-byte record with no
position and no plies, so that the number of games in a file names the next
game to play when a run resumes. Every position is kept; what a network learns
from is chosen when the file is read (:func:`game_records`): no position in
check, none whose move captures or promotes, none with a mate or large score,
none of the first few plies. A game is about 4 bytes a position, against 32 for
a ``FIANDATA`` record.
"""
from __future__ import annotations

import os
import struct
import sys
from dataclasses import dataclass
from typing import BinaryIO, Callable, Generator, Iterator, List, Optional, Tuple

MAGIC = b"FIANGAME"
VERSION = 1
PLY_SIZE = 4
HEADER = struct.Struct("<8sII")
GAME_HEADER = struct.Struct("<BBHH")
DISCARDED = 255
FLAG_CHESS960 = 1
UNSCORED = -32768             # the score of a random opening ply

#: Filters applied when games are read, unless told otherwise.
DEFAULT_SKIP_PLIES = 8        # scored plies at the start of each game left out
DEFAULT_MAX_SCORE = 3000      # |score| at or above this is left out (centipawns)
RECORD_BYTES = 32             # one FIANDATA record (fianchetto.learn.data.RECORD_SIZE)
READ_BLOCK = 1 << 22          # bytes games_from reads at a time (a game is at most about 330 KB)


@dataclass
class Game:
    """One stored game: start position, white's result (None if discarded), plies."""

    fen: str
    chess960: bool
    result: Optional[int]
    plies: bytes

    @property
    def ply_count(self) -> int:
        return len(self.plies) // PLY_SIZE

    def scored_plies(self) -> int:
        """Plies with a search score (the positions the game holds)."""
        return count_scored(self.plies, 0, self.ply_count)


def count_scored(data: bytes, offset: int, ply_count: int) -> int:
    """How many of the `ply_count` plies at `offset` in `data` have a search score."""
    scores = struct.unpack_from(f"<{ply_count * 2}h", data, offset)[1::2]
    return sum(1 for score in scores if score != UNSCORED)


def header_bytes() -> bytes:
    return HEADER.pack(MAGIC, VERSION, PLY_SIZE)


def encode_game(game: Game) -> bytes:
    """The bytes of one game record."""
    if game.result is None:
        return GAME_HEADER.pack(DISCARDED, 0, 0, 0)
    fen = game.fen.encode("ascii")
    if len(game.plies) % PLY_SIZE or game.ply_count > 0xFFFF or len(fen) > 0xFFFF:
        raise ValueError("a game's plies must be whole 4-byte plies, at most 65535 of them")
    flags = FLAG_CHESS960 if game.chess960 else 0
    return GAME_HEADER.pack(game.result, flags, len(fen), game.ply_count) + fen + game.plies


def scored_in(record: bytes) -> int:
    """Scored plies of one encoded game record (0 for a discarded game)."""
    result, _flags, fen_length, ply_count = GAME_HEADER.unpack_from(record, 0)
    return 0 if result == DISCARDED else count_scored(record, GAME_HEADER.size + fen_length, ply_count)


def check_header(head: bytes, path: str) -> None:
    if len(head) < HEADER.size:
        raise ValueError(f"{path}: not a FIANGAME file ({len(head)} bytes, shorter than the header)")
    magic, version, ply_size = HEADER.unpack(head[:HEADER.size])
    if magic != MAGIC:
        raise ValueError(f"{path}: not a FIANGAME file (magic {magic!r})")
    if version != VERSION or ply_size != PLY_SIZE:
        raise ValueError(f"{path}: FIANGAME version {version} with {ply_size}-byte plies, "
                         f"expected version {VERSION} with {PLY_SIZE}")


def parse_games(data: bytes, at: int, path: str, first: int = 1, offset: int = 0) -> Tuple[List[Game], int]:
    """The complete games in ``data`` from byte ``at`` and where they end (a
    partial game after them is left for more bytes). Errors name the game by its
    number in the file (``first`` for this one) and its byte there (``data``
    begins at the file's byte ``offset``)."""
    games: List[Game] = []
    while at + GAME_HEADER.size <= len(data):
        result, flags, fen_length, ply_count = GAME_HEADER.unpack_from(data, at)
        end = at + GAME_HEADER.size + fen_length + ply_count * PLY_SIZE
        if end > len(data):
            break
        if result == DISCARDED:
            games.append(Game("", False, None, b""))
        elif result > 2 or fen_length == 0:
            raise ValueError(f"{path}: game {first + len(games)} at byte {offset + at} is corrupt (result {result})")
        else:
            fen_end = at + GAME_HEADER.size + fen_length
            fen = data[at + GAME_HEADER.size:fen_end].decode("ascii", "replace")
            games.append(Game(fen, bool(flags & FLAG_CHESS960), result, data[fen_end:end]))
        at = end
    return games, at


def games_from(handle: BinaryIO, path: str) -> Generator[Game, None, Tuple[int, int]]:
    """Every complete game of the open file ``handle``, read from its start
    READ_BLOCK bytes at a time (a file of any length in little memory); returns
    the byte where the last of them ends and the bytes of a partial game after it."""
    data = handle.read(READ_BLOCK)
    check_header(data, path)
    at, offset, number = HEADER.size, 0, 1
    while True:
        games, at = parse_games(data, at, path, number, offset)
        yield from games
        number += len(games)
        block = handle.read(READ_BLOCK)
        if not block:
            return offset + at, len(data) - at
        data, offset, at = data[at:] + block, offset + at, 0


def iter_games(path: str, partial_end: bool = False) -> Iterator[Game]:
    """Every complete game of a file, in order (:func:`games_from`). A partial
    game at the end (the file is being written, or its run was killed) raises
    ValueError once the games before it are given, or with ``partial_end`` is
    left out with a note on stderr."""
    with open(path, "rb") as handle:
        _end, left = yield from games_from(handle, path)
    if left and not partial_end:
        raise ValueError(f"{path}: {left} bytes of a partial game at the end "
                         "(an interrupted run: `fianchetto datagen --resume` repairs it)")
    if left:
        print(f"{path}: leaving out a partial game at the end ({left} bytes)", file=sys.stderr)


def read_games(path: str, partial_end: bool = False) -> List[Game]:
    """Every complete game of a file (:func:`iter_games`, as a list)."""
    return list(iter_games(path, partial_end))


def try_lock(handle: BinaryIO) -> bool:
    """Take the file's exclusive lock for `handle` (held until it is closed, or the
    process ends, however it ends); False when another run holds it. POSIX only;
    elsewhere there is no lock, and this says True."""
    try:
        import fcntl
    except ImportError:          # Windows: no advisory locks here
        return True
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def lock_exclusively(handle: BinaryIO, path: str) -> None:
    """Hold the file for this process alone while it writes: a second run on the
    same file is refused instead of writing over the first's games."""
    if not try_lock(handle):
        handle.close()
        raise FileExistsError(f"{path} is being written by another run") from None


def being_written(path: str) -> bool:
    """Does a run hold the file's lock (is it writing it now)? False where there are
    no locks, or no file."""
    try:
        handle = open(path, "rb")
    except OSError:
        return False
    with handle:                 # closing lets go of a lock it took
        return not try_lock(handle)


def pass_over_games(handle: BinaryIO, path: str,
                    each_game: Optional[Callable[[Game], None]]) -> Tuple[int, int]:
    """Read the games of the open file ``handle`` from its start, giving each to
    ``each_game``; returns how many there are and the byte where the last ends."""
    reading = games_from(handle, path)
    count = 0
    while True:
        try:
            game = next(reading)
        except StopIteration as done:
            return count, done.value[0]
        count += 1
        if each_game is not None:
            each_game(game)


def open_for_append(path: str, each_game: Optional[Callable[[Game], None]] = None) -> Tuple[BinaryIO, int]:
    """Open a file to add games, for this process alone: a new file gets its header;
    an existing one is cut back to its last complete game. ``each_game`` is given
    the games already there, in order, as they are read (none is kept). Returns
    the handle and how many games the file holds."""
    handle = os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o644), "r+b")
    lock_exclusively(handle, path)
    if os.fstat(handle.fileno()).st_size == 0:
        handle.write(header_bytes())
        handle.flush()
        return handle, 0
    try:
        count, end = pass_over_games(handle, path, each_game)
    except BaseException:
        handle.close()
        raise
    handle.truncate(end)
    handle.seek(end)
    return handle, count


def game_records(game: Game, skip_plies: int = DEFAULT_SKIP_PLIES, max_score: int = DEFAULT_MAX_SCORE) -> bytes:
    """The 32-byte FIANDATA records of the positions of one game that pass the filters."""
    from core_cy.core import Board, replay_game_records

    if game.result is None:
        return b""
    return replay_game_records(Board(game.fen, chess960=game.chess960), game.plies, game.result,
                               skip_plies=skip_plies, max_score=max_score)


def file_records(path: str, skip_plies: int = DEFAULT_SKIP_PLIES, max_score: int = DEFAULT_MAX_SCORE) -> bytes:
    """The FIANDATA records of every complete game of a file, filtered, concatenated.
    A partial game at the end (the file is being written, or its run was killed) is
    left out with a note on stderr; anything else wrong raises ValueError."""
    return bytes(file_records_by_game(path, skip_plies, max_score)[0])


def file_records_by_game(path: str, skip_plies: int = DEFAULT_SKIP_PLIES,
                         max_score: int = DEFAULT_MAX_SCORE) -> Tuple[bytearray, List[int]]:
    """:func:`file_records` and how many of the records each game gave, in order
    (games whose every position was filtered out are left out): the trainer holds
    out whole games, so that no game has positions on both sides of the split.
    The file is read a block at a time and the records grow in one buffer, so
    the memory held is about the records' own."""
    records, sizes = bytearray(), []
    for game in iter_games(path, partial_end=True):
        chunk = game_records(game, skip_plies, max_score)
        if chunk:
            records += chunk
            sizes.append(len(chunk) // RECORD_BYTES)
    return records, sizes


def is_game_file(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False

