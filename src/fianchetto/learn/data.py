"""The ``FIANDATA`` training-data files: reading, decoding and writing.

A file is a 16-byte header (magic ``b"FIANDATA"``, uint32 version 1, uint32
record size 32, little-endian) followed by 32-byte records, one per position:

=========  ========  ===========================================================
field      type      meaning
=========  ========  ===========================================================
occupancy  uint64    bit ``s`` set when square ``s`` is occupied (a1 = 0, h8 = 63)
pieces     16 bytes  codes of the occupied squares in increasing square order,
                     two per byte, low nibble first; code = colour * 8 + type
                     (type 1 pawn .. 6 king; colour 0 white, 1 black)
score      int16     search score, centipawns, side to move's view
result     uint8     game result, side to move's view: 0 loss, 1 draw, 2 win
stm        uint8     0 white to move, 1 black to move
fullmove   uint16    fullmove number
rule50     uint8     halfmove clock
reserved   uint8     0
=========  ========  ===========================================================

Decoding a batch for training is one compiled pass of the core over its
records (``decode_features``); :func:`feature_index` is its definition in
numpy, which the reference evaluation of a board uses, and
:func:`decode_pieces` lists a batch's pieces for the WDL fit.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple, Union

import chess
import numpy as np
from core_cy import core, network_format

MAGIC = b"FIANDATA"
VERSION = 1
RECORD_SIZE = 32
HEADER_SIZE = 16
HEADER_DTYPE = np.dtype([("magic", "S8"), ("version", "<u4"), ("record_size", "<u4")])

RECORD_DTYPE = np.dtype(
    [
        ("occupancy", "<u8"),
        ("pieces", "u1", (16,)),
        ("score", "<i2"),
        ("result", "u1"),
        ("stm", "u1"),
        ("fullmove", "<u2"),
        ("rule50", "u1"),
        ("reserved", "u1"),
    ]
)
assert RECORD_DTYPE.itemsize == RECORD_SIZE

#: Inputs per perspective and king bucket: 2 colours x 6 piece types x 64 squares.
NUM_FEATURES = network_format.INPUTS
#: The most pieces a record can hold (16 bytes of nibbles).
MAX_PIECES = 32
#: Feature index that pads a position's feature list; it names no feature of any layout.
PAD_FEATURE = 32767
#: King buckets (architecture 3). Each view sees the board with its own king on
#: files a-d (mirrored left to right when the king stands on e-h), and the
#: king's square, so seen, picks one of K sets of 768 inputs: the table maps
#: ``rank * 4 + file`` (files a-d) of that square to the bucket. 0 king buckets
#: is the plain layout of architectures 1 and 2 (no mirroring, 768 inputs).
KING_BUCKET_LAYOUTS = network_format.KING_BUCKET_LAYOUTS     # declared with the file format

PathLike = Union[str, "os.PathLike[str]"]


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

def open_records(path: PathLike) -> np.ndarray:
    """Map the records of one ``FIANDATA`` file (read-only, not loaded), or the
    filtered positions of a ``FIANGAME`` file of whole games (decoded into memory,
    :mod:`fianchetto.learn.games`).

    Raises ``ValueError`` naming the file when its header or length is wrong.
    """
    return open_part(path)[0]


def open_part(path: PathLike) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """:func:`open_records` and the number of records of each game in order, or
    None for a ``FIANDATA`` file (it keeps no games: each position counts as one)."""
    from fianchetto.learn import games

    if games.is_game_file(os.fspath(path)):
        data, sizes = games.file_records_by_game(os.fspath(path))
        return np.frombuffer(data, dtype=RECORD_DTYPE), np.array(sizes, dtype=np.int64)
    return open_flat_records(path), None


def open_flat_records(path: PathLike) -> np.ndarray:
    """The records of a ``FIANDATA`` file, memory-mapped."""
    size = os.path.getsize(path)
    if size < HEADER_SIZE:
        raise ValueError(f"{path}: not a FIANDATA file ({size} bytes, shorter than the 16-byte header)")
    header = np.fromfile(path, dtype=HEADER_DTYPE, count=1)[0]
    if bytes(header["magic"]) != MAGIC:
        raise ValueError(f"{path}: not a FIANDATA file (magic {bytes(header['magic'])!r})")
    if int(header["version"]) != VERSION:
        raise ValueError(f"{path}: FIANDATA version {int(header['version'])}, expected {VERSION}")
    if int(header["record_size"]) != RECORD_SIZE:
        raise ValueError(f"{path}: record size {int(header['record_size'])}, expected {RECORD_SIZE}")
    body = size - HEADER_SIZE
    if body % RECORD_SIZE:
        raise ValueError(
            f"{path}: length {size} is not 16 + k * 32 (a partial record of {body % RECORD_SIZE} bytes at the end)"
        )
    count = body // RECORD_SIZE
    if count == 0:
        return np.zeros(0, dtype=RECORD_DTYPE)
    return np.memmap(path, dtype=RECORD_DTYPE, mode="r", offset=HEADER_SIZE, shape=(count,))


class Dataset:
    """Several ``FIANGAME`` or ``FIANDATA`` files seen as one indexable sequence of records."""

    def __init__(self, paths: Sequence[PathLike]) -> None:
        if not paths:
            raise ValueError("no data files given")
        self.paths = [os.fspath(p) for p in paths]
        opened = [open_part(p) for p in self.paths]
        self.parts = [records for records, _ in opened]
        self.part_games = [games for _, games in opened]
        sizes = [len(part) for part in self.parts]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def game_sizes(self) -> np.ndarray:
        """How many positions each game holds, in the order of the records (they sum
        to ``len(self)``); each position of a ``FIANDATA`` file is a game of one."""
        return np.concatenate([np.ones(len(part), dtype=np.int64) if games is None else games
                               for part, games in zip(self.parts, self.part_games)])

    def take(self, indices: np.ndarray) -> np.ndarray:
        """Copy the records at the given global indices into memory."""
        indices = np.asarray(indices, dtype=np.int64)
        if len(self.parts) == 1:
            return np.asarray(self.parts[0][indices])
        out = np.empty(len(indices), dtype=RECORD_DTYPE)
        part_of = np.searchsorted(self.offsets, indices, side="right") - 1
        for k, part in enumerate(self.parts):
            mask = part_of == k
            if mask.any():
                out[mask] = part[indices[mask] - self.offsets[k]]
        return out


@dataclass
class Batch:
    """Decoded records: padded feature lists for both perspectives and the labels.

    ``stm`` and ``nstm`` are ``(B, 32)`` int16 arrays of feature indices for the
    side to move's and the other side's view, padded with :data:`PAD_FEATURE`.
    """

    stm: np.ndarray
    nstm: np.ndarray
    score: np.ndarray
    result: np.ndarray

    def __len__(self) -> int:
        return len(self.score)


def occupancy_bits(occupancy: np.ndarray) -> np.ndarray:
    """``(B, 64)`` uint8 array: 1 where a square is occupied."""
    as_bytes = np.ascontiguousarray(occupancy, dtype="<u8").view(np.uint8).reshape(-1, 8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")


def piece_nibbles(pieces: np.ndarray) -> np.ndarray:
    """``(B, 32)`` uint8 array of the piece codes stored two per byte, low nibble first."""
    nibbles = np.empty((len(pieces), MAX_PIECES), dtype=np.uint8)
    nibbles[:, 0::2] = pieces & 0x0F
    nibbles[:, 1::2] = pieces >> 4
    return nibbles


def decode_pieces(records: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every piece of a batch of records, flattened.

    Returns ``(row, slot, square, code)``: the record each piece belongs to, its
    position in that record's piece list, its square and its code, in record
    order and increasing square order within a record.  Raises ``ValueError``
    when a record holds more than 32 pieces or an invalid piece code.
    """
    bits = occupancy_bits(records["occupancy"])
    counts = bits.sum(axis=1, dtype=np.int32)
    if len(counts) and counts.max() > MAX_PIECES:
        raise ValueError(f"record with {int(counts.max())} occupied squares (at most {MAX_PIECES})")
    rank = np.cumsum(bits, axis=1, dtype=np.int16) - 1
    row, square = np.nonzero(bits)
    slot = rank[row, square]
    code = piece_nibbles(records["pieces"])[row, slot]
    piece_type = code & 7
    if np.any((piece_type == 0) | (piece_type > 6) | (code > 15)):
        raise ValueError("record with an invalid piece code")
    return row, slot, square.astype(np.int16), code


def feature_index(colour: np.ndarray, piece_type: np.ndarray, square: np.ndarray, perspective: np.ndarray,
                  king: np.ndarray = None, king_buckets: int = 0) -> np.ndarray:
    """Feature index of a piece seen from ``perspective`` (0 white, 1 black); broadcasts.

    ``384 * (colour != perspective) + 64 * (type - 1) + square``, the square
    mirrored vertically (``s ^ 56``) for black's view. With king buckets,
    ``king`` is the square of the perspective's own king: when it stands on
    files e-h every square is also mirrored left to right (``s ^ 7``), and the
    index is offset by ``768 * bucket`` (:func:`king_view`).
    """
    colour = np.asarray(colour, dtype=np.int16)
    perspective = np.asarray(perspective, dtype=np.int16)
    square = np.asarray(square, dtype=np.int16)
    oriented = np.where(perspective == 0, square, square ^ 56)
    base = np.int16(0)
    if king_buckets:
        flip, bucket = king_view(np.asarray(king, dtype=np.int16) ^ (perspective * 56), king_buckets)
        oriented = oriented ^ flip
        base = NUM_FEATURES * bucket
    return base + 384 * (colour != perspective) + 64 * (np.asarray(piece_type, dtype=np.int16) - 1) + oriented


def king_view(oriented_king: np.ndarray, king_buckets: int) -> Tuple[np.ndarray, np.ndarray]:
    """(file flip, bucket) of a view whose own king stands on ``oriented_king`` (seen
    from its side): the flip is 7 (mirror left to right) when the king is on files
    e-h, else 0; the bucket is the layout's entry for the mirrored square."""
    layout = np.asarray(KING_BUCKET_LAYOUTS[king_buckets], dtype=np.int16)
    flip = np.where((oriented_king & 7) >= 4, 7, 0).astype(np.int16)
    mirrored = oriented_king ^ flip
    return flip, layout[(mirrored >> 3) * 4 + (mirrored & 7)]


def decode(records: np.ndarray, king_buckets: int = 0) -> Batch:
    """Decode a batch of records into padded feature lists (of the layout with
    ``king_buckets``, 0 for architectures 1 and 2) and labels: one compiled pass
    of the core (``decode_features``), which follows :func:`feature_index`.
    Raises ``ValueError`` when a record is not valid."""
    raw = np.ascontiguousarray(records, dtype=RECORD_DTYPE).view(np.uint8).reshape(-1, RECORD_SIZE)
    size = len(raw)
    layout = np.asarray(KING_BUCKET_LAYOUTS[king_buckets] if king_buckets else (), dtype=np.int16)
    features = np.empty((2 * size, MAX_PIECES), dtype=np.int16)
    problems, most = core.decode_features(raw, layout, features)
    if problems:
        raise ValueError(decode_problem(problems, most))
    return Batch(
        stm=features[:size],
        nstm=features[size:],
        score=records["score"].astype(np.float32),
        result=records["result"].astype(np.float32),
    )


def decode_problem(problems: int, most: int) -> str:
    """What is wrong with a batch, from ``decode_features``' bits (the first that applies)."""
    if problems & core.DECODE_TOO_MANY_PIECES:
        return f"record with {most} occupied squares (at most {MAX_PIECES})"
    if problems & core.DECODE_BAD_PIECE_CODE:
        return "record with an invalid piece code"
    if problems & core.DECODE_BAD_SIDE_TO_MOVE:
        return "record with side to move other than 0 or 1"
    return "record with a result other than 0, 1 or 2"


def decode_boards(records: np.ndarray) -> List[chess.Board]:
    """python-chess boards of a batch of records (pieces and side to move only).

    Castling rights and the en-passant square are not stored, so the boards
    have neither; the move counters come from the record.
    """
    row, _slot, square, code = decode_pieces(records)
    boards = []
    for record in records:
        board = chess.Board.empty()
        board.turn = chess.WHITE if record["stm"] == 0 else chess.BLACK
        board.fullmove_number = int(record["fullmove"])
        board.halfmove_clock = int(record["rule50"])
        boards.append(board)
    for r, s, c in zip(row.tolist(), square.tolist(), code.tolist()):
        boards[r].set_piece_at(s, chess.Piece(c & 7, chess.WHITE if c < 8 else chess.BLACK))
    return boards


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def piece_code(piece: chess.Piece) -> int:
    """The 4-bit code of a python-chess piece: colour * 8 + type."""
    return (0 if piece.color == chess.WHITE else 8) + piece.piece_type


def board_nibble_bytes(board: chess.Board) -> List[int]:
    """The 16 piece bytes of a board: codes in increasing square order, low nibble first."""
    piece_map = board.piece_map()
    if len(piece_map) > MAX_PIECES:
        raise ValueError(f"{len(piece_map)} pieces, at most {MAX_PIECES} fit a record")
    nibbles = [piece_code(piece_map[s]) for s in sorted(piece_map)] + [0] * (MAX_PIECES - len(piece_map))
    return [nibbles[i] | (nibbles[i + 1] << 4) for i in range(0, MAX_PIECES, 2)]


def encode_boards(boards: Sequence[chess.Board], scores: Sequence[int], results: Sequence[int]) -> np.ndarray:
    """Records (an array of :data:`RECORD_DTYPE`) for boards and their labels.

    ``scores`` are centipawns and ``results`` 0 loss, 1 draw or 2 win, both
    from the side to move's view.
    """
    if not len(boards) == len(scores) == len(results):
        raise ValueError("boards, scores and results differ in length")
    score_array = np.asarray(scores, dtype=np.int64)
    result_array = np.asarray(results, dtype=np.int64)
    if np.any((score_array < -32768) | (score_array > 32767)):
        raise ValueError("a score does not fit int16")
    if np.any((result_array < 0) | (result_array > 2)):
        raise ValueError("a result is not 0, 1 or 2")
    records = np.zeros(len(boards), dtype=RECORD_DTYPE)
    if not len(boards):
        return records
    records["occupancy"] = np.array([int(board.occupied) for board in boards], dtype=np.uint64)
    records["pieces"] = np.array([board_nibble_bytes(board) for board in boards], dtype=np.uint8)
    records["score"] = score_array
    records["result"] = result_array
    records["stm"] = [0 if board.turn == chess.WHITE else 1 for board in boards]
    records["fullmove"] = [min(board.fullmove_number, 65535) for board in boards]
    records["rule50"] = [min(board.halfmove_clock, 255) for board in boards]
    return records


def encode_board(board: chess.Board, score: int, result: int) -> np.ndarray:
    """One record (a 0-d array of :data:`RECORD_DTYPE`) for a board and its labels."""
    return encode_boards([board], [score], [result])[0]


def header_bytes() -> bytes:
    """The 16-byte ``FIANDATA`` header."""
    return np.array([(MAGIC, VERSION, RECORD_SIZE)], dtype=HEADER_DTYPE).tobytes()


def write_records(path: PathLike, records: np.ndarray) -> None:
    """Write a whole ``FIANDATA`` file from an array of records."""
    with open(path, "wb") as handle:
        handle.write(header_bytes())
        handle.write(np.ascontiguousarray(records, dtype=RECORD_DTYPE).tobytes())


def write_positions(path: PathLike, positions: Iterable[Tuple[chess.Board, int, int]]) -> int:
    """Write ``(board, score, result)`` triples as a ``FIANDATA`` file; returns the count."""
    triples = list(positions)
    records = encode_boards([t[0] for t in triples], [t[1] for t in triples], [t[2] for t in triples])
    write_records(path, records)
    return len(records)
