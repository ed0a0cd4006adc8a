"""The perspective network: float parameters, quantisation and the ``FIANNUE`` file.

Architecture 1 is ``(768 -> H) x 2 -> 1``: one feature transformer (weights
``ft_w[768][H]``, bias ``ft_b[H]``) turns each side's view of the board into an
accumulator; both accumulators pass through SCReLU (clip to ``[0, 1]``, then
square) and are concatenated side to move first; one output neuron reads the
``2H`` values.  Architecture 2 is the same with 8 output neurons, *output
buckets*: a position is read by the one for its number of pieces,
``(pieces - 2) // 4`` (:func:`output_buckets`).  Architecture 3 adds king
buckets to architecture 2: each view sees the board with its own king on files
a-d (mirrored left to right otherwise), and that king's square picks one of K
sets of 768 inputs (``data.KING_BUCKET_LAYOUTS``; K = 1 is the mirroring
alone); the feature transformer has ``768 K`` rows.  In floats, with ``b`` the
position's bucket (always 0 in architecture 1)::

    y  = screlu(a_stm) . out_w[b, :H] + screlu(a_nstm) . out_w[b, H:] + out_b[b]
    cp = y * 400

The core evaluates the quantised network in integers, and
:func:`integer_evaluate` here does exactly the same arithmetic::

    acc  = ft_b + sum of the ft_w rows of the active features      (QA units)
    v    = clip(acc, 0, QA)
    s    = v_stm^2 . out_w[:H] + v_nstm^2 . out_w[H:]               (QA^2 QB units)
    out  = trunc(s / QA) + out_b                                    (QA QB units)
    cp   = clamp(trunc(out * scale / (QA * QB)), -15000, 15000)

File layout (little-endian): a 48-byte header -- magic ``b"FIANNUE\\0"``,
version 1, architecture (1, 2 or 3), inputs 768 K, hidden H (a multiple of 16 in
16..1024), QA 255, QB 64, scale 400, payload size, FNV-1a 32-bit checksum of the
payload, king buckets K (0 in architectures 1 and 2, whose inputs are 768) --
then the payload ``ft_w int16[inputs][H]``, ``ft_b int16[H]``,
``out_w int16[buckets][2H]``, ``out_b int32[buckets]``.

Quantisation error.  Against the float forward pass of the *dequantised*
network (:meth:`QuantNetwork.dequantise`) the integer evaluation differs only by
its two truncations: less than ``1 + scale / (QA * QB)`` (about 1.025)
centipawns.  Against the float network it was quantised from, rounding the
weights adds at most :func:`quantisation_bound` centipawns, a bound computed
from the weights and the number of active features.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Sequence, Tuple, Union

import chess
import numpy as np
from core_cy import network_format

from fianchetto.learn.data import (KING_BUCKET_LAYOUTS, MAX_PIECES, NUM_FEATURES, PAD_FEATURE, feature_index,
                                   piece_code)

# The format, declared once for the trainer, the file and the core
# (src/core_cy/network_format.py; the core's constants are generated from it).
MAGIC = network_format.MAGIC
VERSION = network_format.VERSION
#: Architecture -> output buckets: the trainer builds them, the file stores them
#: and the core evaluates them.
OUTPUT_BUCKETS = network_format.output_buckets()
#: The architectures whose inputs are king-bucketed and mirrored (the others have 768).
KING_BUCKETED = frozenset(a.number for a in network_format.ARCHITECTURES if a.king_bucketed)
ARCHITECTURE = 1      # what a network with one output bucket is
QA = network_format.QA
QB = network_format.QB
SCALE = network_format.SCALE
HEADER_SIZE = network_format.HEADER_BYTES
#: Float weights (and the feature-transformer bias) are kept within this bound so
#: their quantised values, and accumulator sums of up to 32 rows, fit int16.
WEIGHT_CLIP = network_format.MAX_OUT_WEIGHT / QB
MIN_HIDDEN = network_format.MIN_HIDDEN
MAX_HIDDEN = network_format.MAX_HIDDEN
#: The core clamps network scores to this many centipawns, clear of mate scores.
VALUE_NETWORK_MAX = network_format.VALUE_NETWORK_MAX

HEADER_DTYPE = np.dtype([(name, "S8" if code == "8s" else "<u4") for name, code in network_format.HEADER_FIELDS])
assert HEADER_DTYPE.itemsize == HEADER_SIZE

FNV_OFFSET = 2166136261
FNV_PRIME = 16777619

PathLike = Union[str, "os.PathLike[str]"]


def fnv1a32(data: bytes) -> int:
    """FNV-1a 32-bit hash of ``data``."""
    value = FNV_OFFSET
    for byte in data:
        value = ((value ^ byte) * FNV_PRIME) & 0xFFFFFFFF
    return value


def check_hidden(hidden: int) -> None:
    """Raise ``ValueError`` unless ``hidden`` is a multiple of 16 in 16..1024."""
    step = network_format.HIDDEN_STEP
    if not (MIN_HIDDEN <= hidden <= MAX_HIDDEN and hidden % step == 0):
        raise ValueError(f"hidden size {hidden} is not a multiple of {step} in {MIN_HIDDEN}..{MAX_HIDDEN}")


def input_count(king_buckets: int = 0) -> int:
    """Rows of the feature transformer: 768 per king bucket (768 without them)."""
    return NUM_FEATURES * max(1, king_buckets)


def payload_size(hidden: int, buckets: int = 1, king_buckets: int = 0) -> int:
    """Bytes of the payload of a network with ``hidden`` neurons per perspective."""
    return 2 * (input_count(king_buckets) * hidden + hidden + 2 * hidden * buckets) + 4 * buckets


def architecture_for(buckets: int, king_buckets: int = 0) -> int:
    """The architecture number of a network with this many output and king buckets."""
    if king_buckets and king_buckets not in KING_BUCKET_LAYOUTS:
        raise ValueError(f"{king_buckets} king buckets: the format has {sorted(KING_BUCKET_LAYOUTS)}")
    for architecture, count in OUTPUT_BUCKETS.items():
        if count == buckets and (architecture in KING_BUCKETED) == bool(king_buckets):
            return architecture
    raise ValueError(f"{buckets} output buckets{' with king buckets' if king_buckets else ''}: the format has "
                     + ", ".join(f"{n} ({'king-bucketed, ' if a in KING_BUCKETED else ''}architecture {a})"
                                 for a, n in OUTPUT_BUCKETS.items()))


def output_buckets(features: np.ndarray, buckets: int) -> np.ndarray:
    """Each position's output bucket from its padded feature list ``(B, 32)``: by the
    number of pieces, ``(pieces - 2) * buckets // 32`` (0 with one bucket)."""
    pieces = np.sum(features != PAD_FEATURE, axis=1)
    return np.clip((pieces - 2) * buckets // 32, 0, buckets - 1).astype(np.int64)


def screlu(x: np.ndarray) -> np.ndarray:
    """Squared clipped ReLU: ``clip(x, 0, 1) ** 2``."""
    clipped = np.clip(x, 0.0, 1.0)
    return clipped * clipped


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Logistic function, computed without overflow warnings."""
    return 0.5 * (1.0 + np.tanh(0.5 * x))


# ---------------------------------------------------------------------------
# Features of python-chess boards
# ---------------------------------------------------------------------------

def board_features(board: chess.Board, king_buckets: int = 0) -> Tuple[np.ndarray, np.ndarray]:
    """Padded ``(32,)`` feature lists of a board (of the layout with ``king_buckets``):
    side to move's view, then the other's."""
    squares = sorted(board.piece_map().items())
    if len(squares) > MAX_PIECES:
        raise ValueError(f"{len(squares)} pieces, at most {MAX_PIECES}")
    codes = np.array([piece_code(piece) for _, piece in squares], dtype=np.int16)
    where = np.array([square for square, _ in squares], dtype=np.int16)
    mover = 0 if board.turn == chess.WHITE else 1
    views = []
    for perspective in (mover, 1 - mover):
        padded = np.full(MAX_PIECES, PAD_FEATURE, dtype=np.int16)
        king = board.king(chess.WHITE if perspective == 0 else chess.BLACK) or 0
        padded[: len(codes)] = feature_index(codes >> 3, codes & 7, where, perspective, king, king_buckets)
        views.append(padded)
    return views[0], views[1]


def boards_features(boards: Sequence[chess.Board], king_buckets: int = 0) -> Tuple[np.ndarray, np.ndarray]:
    """``(B, 32)`` padded feature lists of several boards, for both views."""
    pairs = [board_features(board, king_buckets) for board in boards]
    empty = np.zeros((0, MAX_PIECES), dtype=np.int16)
    stm = np.stack([p[0] for p in pairs]) if pairs else empty
    nstm = np.stack([p[1] for p in pairs]) if pairs else empty
    return stm, nstm


def accumulate(rows: np.ndarray, bias: np.ndarray, features: np.ndarray) -> np.ndarray:
    """``bias + sum of rows[features]`` per position; padding entries add nothing.

    ``rows`` is ``(inputs, H)``; ``features`` a ``(B, 32)`` padded index array.
    Loops over the 32 slots, not over positions.
    """
    padded = np.concatenate([rows, np.zeros((1, rows.shape[1]), dtype=rows.dtype)])
    acc = np.broadcast_to(bias, (len(features), rows.shape[1])).copy()
    for slot in range(features.shape[1]):
        acc += padded[np.minimum(features[:, slot], len(rows))]
    return acc


class NetworkShape:
    """The sizes both kinds of network read off their arrays: ``ft_b`` has one entry
    per hidden unit, ``out_w`` one row per output bucket. ``king_buckets`` (0: none,
    no mirroring) is the one size the arrays do not tell apart."""

    ft_b: np.ndarray
    out_w: np.ndarray
    king_buckets: int

    @property
    def architecture(self) -> int:
        return architecture_for(self.buckets, self.king_buckets)

    @property
    def inputs(self) -> int:
        return input_count(self.king_buckets)

    @property
    def hidden(self) -> int:
        return int(self.ft_b.shape[0])

    @property
    def buckets(self) -> int:
        return int(self.out_w.shape[0])


# ---------------------------------------------------------------------------
# Float network
# ---------------------------------------------------------------------------

@dataclass
class FloatNetwork(NetworkShape):
    """Float parameters of a network (float32 arrays). A one-dimensional ``out_w``
    (and one-element ``out_b``) is taken as a single output bucket."""

    ft_w: np.ndarray  # (inputs, H)
    ft_b: np.ndarray  # (H,)
    out_w: np.ndarray  # (buckets, 2H), side to move's half first
    out_b: np.ndarray  # (buckets,)
    king_buckets: int = 0

    def __post_init__(self) -> None:
        self.out_w = self.out_w.reshape(-1, 2 * self.ft_b.shape[0])
        self.out_b = self.out_b.reshape(-1)

    @classmethod
    def initial(cls, hidden: int, rng: np.random.Generator, buckets: int = 1,
                king_buckets: int = 0) -> "FloatNetwork":
        """Random starting weights: accumulators of a typical position spread over ``[0, 1]``."""
        check_hidden(hidden)
        architecture_for(buckets, king_buckets)
        ft_scale = 1.0 / np.sqrt(MAX_PIECES)
        out_scale = 1.0 / np.sqrt(2 * hidden)
        return cls(
            ft_w=rng.uniform(-ft_scale, ft_scale, (input_count(king_buckets), hidden)).astype(np.float32),
            ft_b=np.full(hidden, 0.5, dtype=np.float32),
            out_w=rng.uniform(-out_scale, out_scale, (buckets, 2 * hidden)).astype(np.float32),
            out_b=np.zeros(buckets, dtype=np.float32),
            king_buckets=king_buckets,
        )

    def with_buckets(self, buckets: int) -> "FloatNetwork":
        """This network with `buckets` output buckets: a single output layer is copied
        into every bucket (a warm start); otherwise the counts must agree."""
        if buckets == self.buckets:
            return self
        if self.buckets != 1:
            raise ValueError(f"a network with {self.buckets} output buckets cannot become {buckets}")
        architecture_for(buckets, self.king_buckets)
        return FloatNetwork(self.ft_w, self.ft_b, np.repeat(self.out_w, buckets, axis=0),
                            np.repeat(self.out_b, buckets), self.king_buckets)

    def with_king_buckets(self, king_buckets: int) -> "FloatNetwork":
        """This network with `king_buckets` (architecture 3): a plain network's rows
        are copied into every bucket (a warm start: where a view's king stands on
        files a-d its inputs are the plain ones, and elsewhere it sees the mirror
        image, which a network trained on mirrored batches scores alike);
        otherwise the counts must agree."""
        if king_buckets == self.king_buckets:
            return self
        if self.king_buckets != 0:
            raise ValueError(f"a network with {self.king_buckets} king buckets cannot become {king_buckets}")
        architecture_for(self.buckets, king_buckets)
        return FloatNetwork(np.tile(self.ft_w, (king_buckets, 1)), self.ft_b, self.out_w, self.out_b, king_buckets)

    def parameters(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.ft_w, self.ft_b, self.out_w, self.out_b

    def copy(self) -> "FloatNetwork":
        return FloatNetwork(*(p.copy() for p in self.parameters()), king_buckets=self.king_buckets)

    def clip_limits(self) -> Tuple[float, float, float, float]:
        """The bound of each of ``parameters()``: every weight and the feature
        transformer's bias stay in ``[-127/64, 127/64]``, the output bias is free."""
        return WEIGHT_CLIP, WEIGHT_CLIP, WEIGHT_CLIP, math.inf

    def clip_weights(self) -> None:
        """Clip each parameter to its limit (clip_limits)."""
        for array, limit in zip(self.parameters(), self.clip_limits()):
            np.clip(array, -limit, limit, out=array)

    def accumulators(self, features: np.ndarray) -> np.ndarray:
        """Float accumulators ``(B, H)`` for padded feature lists."""
        return accumulate(self.ft_w, self.ft_b, features)

    def forward(self, stm: np.ndarray, nstm: np.ndarray) -> np.ndarray:
        """Network output ``y`` (B,) for padded feature lists of both views."""
        hidden = self.hidden
        bucket = output_buckets(stm, self.buckets)
        weights = self.out_w[bucket]
        y = np.sum(screlu(self.accumulators(stm)) * weights[:, :hidden], axis=1)
        y += np.sum(screlu(self.accumulators(nstm)) * weights[:, hidden:], axis=1)
        return y + self.out_b[bucket]

    def evaluate_cp(self, stm: np.ndarray, nstm: np.ndarray) -> np.ndarray:
        """Float evaluation in centipawns, side to move's view: ``400 * y``."""
        return SCALE * self.forward(stm, nstm)

    def evaluate_boards(self, boards: Sequence[chess.Board]) -> np.ndarray:
        """Float evaluation in centipawns of python-chess boards."""
        return self.evaluate_cp(*boards_features(boards, self.king_buckets))

    def save_npz(self, path: PathLike) -> None:
        """Save the float parameters (a checkpoint to continue training from)."""
        with open(path, "wb") as handle:
            np.savez(handle, architecture=self.architecture, king_buckets=self.king_buckets, ft_w=self.ft_w,
                     ft_b=self.ft_b, out_w=self.out_w, out_b=self.out_b)

    @classmethod
    def load_npz(cls, path: PathLike) -> "FloatNetwork":
        """Load a float checkpoint written by :meth:`save_npz`."""
        with np.load(path) as data:
            architecture = int(data["architecture"])
            if architecture not in OUTPUT_BUCKETS:
                raise ValueError(f"{path}: architecture {architecture}, expected one of {sorted(OUTPUT_BUCKETS)}")
            king_buckets = int(data["king_buckets"]) if "king_buckets" in data else 0
            net = cls(*(data[k].astype(np.float32) for k in ("ft_w", "ft_b", "out_w", "out_b")),
                      king_buckets=king_buckets)
        hidden, buckets = net.hidden, OUTPUT_BUCKETS[architecture]
        check_hidden(hidden)
        if architecture_for(buckets, king_buckets) != architecture:
            raise ValueError(f"{path}: architecture {architecture} with {king_buckets} king buckets")
        if net.ft_w.shape != (net.inputs, hidden) or net.out_w.shape != (buckets, 2 * hidden) \
                or net.out_b.shape != (buckets,):
            raise ValueError(f"{path}: parameter shapes do not match hidden size {hidden} "
                             f"and architecture {architecture}")
        return net


# ---------------------------------------------------------------------------
# Quantised network and the FIANNUE file
# ---------------------------------------------------------------------------

@dataclass
class QuantNetwork(NetworkShape):
    """Integer parameters exactly as the ``FIANNUE`` file stores them."""

    ft_w: np.ndarray  # int16 (inputs, H)
    ft_b: np.ndarray  # int16 (H,)
    out_w: np.ndarray  # int16 (buckets, 2H)
    out_b: np.ndarray  # int64 (buckets,), each fits int32
    king_buckets: int = 0

    def __post_init__(self) -> None:
        self.out_w = np.asarray(self.out_w).reshape(-1, 2 * self.ft_b.shape[0])
        self.out_b = np.asarray(self.out_b, dtype=np.int64).reshape(-1)

    @classmethod
    def quantise(cls, net: FloatNetwork) -> "QuantNetwork":
        """Round a float network: ``ft * QA``, ``out_w * QB``, ``out_b * QA * QB``.

        Raises ``ValueError`` when a value does not fit its integer type (a
        network whose weights were not clipped).
        """
        check_hidden(net.hidden)
        ft_w = np.round(net.ft_w.astype(np.float64) * QA)
        ft_b = np.round(net.ft_b.astype(np.float64) * QA)
        out_w = np.round(net.out_w.astype(np.float64) * QB)
        out_b = np.round(net.out_b.astype(np.float64) * QA * QB).astype(np.int64)
        for name, values in (("ft_w", ft_w), ("ft_b", ft_b), ("out_w", out_w)):
            if np.abs(values).max() > 32767:
                raise ValueError(f"{name} does not fit int16 after quantisation (weights not clipped?)")
        if np.any(out_b < -(2**31)) or np.any(out_b >= 2**31):
            raise ValueError("out_b does not fit int32 after quantisation")
        return cls(ft_w.astype(np.int16), ft_b.astype(np.int16), out_w.astype(np.int16), out_b, net.king_buckets)

    def dequantise(self) -> FloatNetwork:
        """The float network whose values are exactly the quantised ones."""
        return FloatNetwork(
            ft_w=(self.ft_w.astype(np.float64) / QA).astype(np.float32),
            ft_b=(self.ft_b.astype(np.float64) / QA).astype(np.float32),
            out_w=(self.out_w.astype(np.float64) / QB).astype(np.float32),
            out_b=(self.out_b.astype(np.float64) / (QA * QB)).astype(np.float32),
            king_buckets=self.king_buckets,
        )

    def evaluate(self, stm: np.ndarray, nstm: np.ndarray) -> np.ndarray:
        """Integer evaluation in centipawns (int64 array), as the core computes it."""
        return integer_evaluate(self, stm, nstm)

    def evaluate_boards(self, boards: Sequence[chess.Board]) -> np.ndarray:
        return self.evaluate(*boards_features(boards, self.king_buckets))

    def payload(self) -> bytes:
        return b"".join(
            (
                self.ft_w.astype("<i2").tobytes(),
                self.ft_b.astype("<i2").tobytes(),
                self.out_w.astype("<i2").tobytes(),
                self.out_b.astype("<i4").tobytes(),
            )
        )

    def to_bytes(self) -> bytes:
        """The whole ``FIANNUE`` file."""
        payload = self.payload()
        header = np.zeros((), dtype=HEADER_DTYPE)
        header["magic"] = MAGIC
        for name, value in (
            ("version", VERSION),
            ("architecture", self.architecture),
            ("inputs", self.inputs),
            ("hidden", self.hidden),
            ("qa", QA),
            ("qb", QB),
            ("scale", SCALE),
            ("payload_bytes", len(payload)),
            ("checksum", fnv1a32(payload)),
            ("king_buckets", self.king_buckets),
        ):
            header[name] = value
        return header.tobytes() + payload

    def save(self, path: PathLike) -> None:
        with open(path, "wb") as handle:
            handle.write(self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "network") -> "QuantNetwork":
        """Parse a ``FIANNUE`` file; ``ValueError`` names whatever is wrong."""
        header = parse_header(data, name)
        hidden = int(header["hidden"])
        buckets = OUTPUT_BUCKETS[int(header["architecture"])]
        king_buckets, inputs = int(header["king_buckets"]), int(header["inputs"])
        ft_w_end = HEADER_SIZE + 2 * inputs * hidden
        ft_b_end = ft_w_end + 2 * hidden
        out_w_end = ft_b_end + 4 * hidden * buckets
        return cls(
            king_buckets=king_buckets,
            ft_w=np.frombuffer(data[HEADER_SIZE:ft_w_end], dtype="<i2").reshape(inputs, hidden).astype(np.int16),
            ft_b=np.frombuffer(data[ft_w_end:ft_b_end], dtype="<i2").astype(np.int16),
            out_w=np.frombuffer(data[ft_b_end:out_w_end], dtype="<i2").reshape(buckets, 2 * hidden).astype(np.int16),
            out_b=np.frombuffer(data[out_w_end : out_w_end + 4 * buckets], dtype="<i4").astype(np.int64),
        )

    @classmethod
    def load(cls, path: PathLike) -> "QuantNetwork":
        with open(path, "rb") as handle:
            return cls.from_bytes(handle.read(), os.fspath(path))


def parse_header(data: bytes, name: str = "network") -> np.ndarray:
    """Check a ``FIANNUE`` file's header, length and checksum; returns the header."""
    if len(data) < HEADER_SIZE:
        raise ValueError(f"{name}: truncated header ({len(data)} bytes, expected {HEADER_SIZE})")
    header = np.frombuffer(data[:HEADER_SIZE], dtype=HEADER_DTYPE)[0]
    if bytes(header["magic"]).ljust(8, b"\0") != MAGIC:
        raise ValueError(f"{name}: not a FIANNUE network (magic {data[:8]!r})")
    if int(header["architecture"]) not in OUTPUT_BUCKETS:
        raise ValueError(f"{name}: unsupported architecture {int(header['architecture'])}, "
                         f"expected one of {sorted(OUTPUT_BUCKETS)}")
    architecture, king_buckets = int(header["architecture"]), int(header["king_buckets"])
    if architecture in KING_BUCKETED and king_buckets not in KING_BUCKET_LAYOUTS:
        raise ValueError(f"{name}: unsupported king_buckets {king_buckets}, expected one of {sorted(KING_BUCKET_LAYOUTS)}")
    expected = (
        ("version", VERSION),
        ("king_buckets", king_buckets if architecture in KING_BUCKETED else 0),
        ("inputs", input_count(king_buckets)),
        ("qa", QA),
        ("qb", QB),
        ("scale", SCALE),
    )
    for field, value in expected:
        if int(header[field]) != value:
            raise ValueError(f"{name}: unsupported {field} {int(header[field])}, expected {value}")
    hidden = int(header["hidden"])
    try:
        check_hidden(hidden)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    size = payload_size(hidden, OUTPUT_BUCKETS[architecture], king_buckets)
    if int(header["payload_bytes"]) != size:
        raise ValueError(f"{name}: payload size {int(header['payload_bytes'])}, expected {size} for hidden {hidden}")
    if len(data) < HEADER_SIZE + size:
        raise ValueError(f"{name}: truncated payload ({len(data) - HEADER_SIZE} of {size} bytes)")
    if len(data) > HEADER_SIZE + size:
        raise ValueError(f"{name}: {len(data) - HEADER_SIZE - size} bytes after the payload")
    checksum = fnv1a32(data[HEADER_SIZE:])
    if checksum != int(header["checksum"]):
        raise ValueError(f"{name}: checksum mismatch (stored {int(header['checksum']):#010x}, computed {checksum:#010x})")
    return header


def load_float(path: PathLike) -> FloatNetwork:
    """A float network from a ``.npz`` checkpoint or (dequantised) from a ``FIANNUE`` file."""
    with open(path, "rb") as handle:
        magic = handle.read(8)
    if magic == MAGIC:
        return QuantNetwork.load(path).dequantise()
    return FloatNetwork.load_npz(path)


# ---------------------------------------------------------------------------
# Integer reference evaluation and the error bound
# ---------------------------------------------------------------------------

def truncating_divide(numerator: np.ndarray, denominator: int) -> np.ndarray:
    """C integer division: the quotient truncated towards zero."""
    quotient = np.abs(numerator) // denominator
    return np.where(numerator < 0, -quotient, quotient)


def integer_evaluate(net: QuantNetwork, stm: np.ndarray, nstm: np.ndarray,
                     quantisation: Tuple[int, int, int] = (QA, QB, SCALE)) -> np.ndarray:
    """Centipawns (int64) of the quantised network, the core's arithmetic step by
    step. ``quantisation`` is (QA, QB, scale): the trainer's unless a file declares
    others (the core reads any; tests check it against this)."""
    ft_w = net.ft_w.astype(np.int32)
    ft_b = net.ft_b.astype(np.int32)
    return integer_output(net, accumulate(ft_w, ft_b, stm), accumulate(ft_w, ft_b, nstm),
                          output_buckets(stm, net.buckets), quantisation)


def integer_output(net: QuantNetwork, acc_stm: np.ndarray, acc_nstm: np.ndarray, bucket: np.ndarray,
                   quantisation: Tuple[int, int, int] = (QA, QB, SCALE)) -> np.ndarray:
    """:func:`integer_evaluate` from the two views' integer accumulators ``(B, H)``
    (of any dtype holding them exactly) and the positions' output buckets."""
    qa, qb, scale = quantisation
    hidden = net.hidden
    out_w = net.out_w.astype(np.int64)
    v_stm = np.clip(acc_stm, 0, qa).astype(np.int64)
    v_nstm = np.clip(acc_nstm, 0, qa).astype(np.int64)
    s = np.empty(len(bucket), dtype=np.int64)
    for b in range(net.buckets):        # each position's sum of v^2 w over its bucket's weights
        rows = bucket == b
        s[rows] = (v_stm[rows] ** 2) @ out_w[b, :hidden] + (v_nstm[rows] ** 2) @ out_w[b, hidden:]
    out = truncating_divide(s, qa) + net.out_b[bucket]
    return np.clip(truncating_divide(out * scale, qa * qb), -VALUE_NETWORK_MAX, VALUE_NETWORK_MAX)


#: The integer evaluation's own rounding against a float pass of the dequantised
#: network: trunc(s / QA) loses less than one output unit (SCALE / (QA * QB) cp),
#: the final truncation less than one centipawn.
DEQUANTISED_BOUND_CP = 1.0 + SCALE / (QA * QB)


def quantisation_bound(net: FloatNetwork, active: int = MAX_PIECES) -> float:
    """Worst-case |integer cp - float cp| for positions with at most ``active`` pieces.

    Rounding moves each feature-transformer value by at most ``0.5 / QA``, so an
    accumulator by at most ``(active + 1) * 0.5 / QA``; SCReLU is 2-Lipschitz,
    and its output (at most 1) meets an output weight rounded by at most
    ``0.5 / QB``.  Adds the output bias's rounding and
    :data:`DEQUANTISED_BOUND_CP`.
    """
    acc_error = (active + 1) * 0.5 / QA
    out_w_rounded = np.abs(net.out_w.astype(np.float64)) + 0.5 / QB
    worst_bucket = float(np.max(np.sum(out_w_rounded * 2 * acc_error, axis=1)))
    weight_error = worst_bucket + 2 * net.hidden * 0.5 / QB + 0.5 / (QA * QB)
    return SCALE * weight_error + DEQUANTISED_BOUND_CP
