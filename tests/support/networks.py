"""Network files for tests: small random networks in the FIANNUE format, and a
plain numpy integer forward pass to check the core's against."""
from __future__ import annotations

import struct

import chess
import numpy as np

QA, QB, SCALE = 255, 64, 400


def random_network_bytes(hidden: int = 32, seed: int = 1, **header) -> bytes:
    """A valid network file with small random weights (the format of docs/training.md)."""
    rng = np.random.default_rng(seed)
    ft_w = rng.integers(-120, 121, size=(768, hidden), dtype=np.int16)
    ft_b = rng.integers(0, 200, size=hidden, dtype=np.int16)
    out_w = rng.integers(-127, 128, size=2 * hidden, dtype=np.int16)
    payload = ft_w.tobytes() + ft_b.tobytes() + out_w.tobytes() + struct.pack("<i", int(rng.integers(-5000, 5000)))
    fields = dict(version=1, arch=1, inputs=768, hidden=hidden, qa=QA, qb=QB, scale=SCALE,
                  payload=len(payload), checksum=fnv1a(payload))
    fields.update(header)
    head = struct.pack("<8s10I", b"FIANNUE\0", fields["version"], fields["arch"], fields["inputs"],
                       fields["hidden"], fields["qa"], fields["qb"], fields["scale"], fields["payload"],
                       fields["checksum"], 0)
    return head + payload


def fnv1a(data: bytes) -> int:
    h = 2166136261
    for byte in data:
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def unpack(data: bytes):
    hidden = struct.unpack_from("<I", data, 20)[0]
    body = np.frombuffer(data, dtype=np.int16, count=768 * hidden + 3 * hidden, offset=48)
    ft_w = body[: 768 * hidden].reshape(768, hidden).astype(np.int64)
    ft_b = body[768 * hidden: 769 * hidden].astype(np.int64)
    out_w = body[769 * hidden:].astype(np.int64)
    out_b = struct.unpack_from("<i", data, len(data) - 4)[0]
    return ft_w, ft_b, out_w, out_b


def reference_eval(data: bytes, board: chess.Board) -> int:
    """The integer forward pass written plainly in numpy."""
    ft_w, ft_b, out_w, out_b = unpack(data)
    hidden = len(ft_b)
    acc = []
    for view in (chess.WHITE, chess.BLACK):
        total = ft_b.copy()
        for square, piece in board.piece_map().items():
            s = square if view == chess.WHITE else square ^ 56
            total += ft_w[384 * (piece.color != view) + 64 * (piece.piece_type - 1) + s]
        acc.append(np.clip(total, 0, QA))
    us, them = (acc[0], acc[1]) if board.turn == chess.WHITE else (acc[1], acc[0])
    s = int((us * us * out_w[:hidden]).sum() + (them * them * out_w[hidden:]).sum())
    out = int(s / QA) + out_b   # truncation towards zero, as C divides
    return max(-15000, min(15000, int(out * SCALE / (QA * QB))))


#: Ways a network file goes bad, each a function of a good file's bytes.
CORRUPTIONS = {
    "bad magic": lambda d: b"NOTANNET" + d[8:],
    "version": lambda d: random_network_bytes(version=2),
    "architecture": lambda d: random_network_bytes(arch=7),
    "inputs": lambda d: random_network_bytes(inputs=640),
    "hidden size": lambda d: random_network_bytes(hidden=24),
    "payload size": lambda d: random_network_bytes(payload=100),
    "truncated header": lambda d: d[:30],
    "truncated payload": lambda d: d[:-10],
    "trailing bytes": lambda d: d + b"\0\0",
    "checksum": lambda d: d[:100] + bytes([d[100] ^ 1]) + d[101:],
    "empty": lambda d: b"",
}
