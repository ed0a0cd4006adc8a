"""Network files for tests: small random networks in the FIANNUE format (any header
field can be set wrong), and the trainer's integer forward pass to check the core's against."""
from __future__ import annotations

import struct

import chess
import numpy as np

from fianchetto.learn.data import decode, encode_boards
from fianchetto.learn.network import QuantNetwork, fnv1a32, integer_evaluate

QA, QB, SCALE = 255, 64, 400


def random_network_bytes(hidden: int = 32, seed: int = 1, **header) -> bytes:
    """A valid network file with small random weights (the format of docs/training.md)."""
    rng = np.random.default_rng(seed)
    ft_w = rng.integers(-120, 121, size=(768, hidden), dtype=np.int16)
    ft_b = rng.integers(0, 200, size=hidden, dtype=np.int16)
    out_w = rng.integers(-127, 128, size=2 * hidden, dtype=np.int16)
    return network_bytes(ft_w, ft_b, out_w, int(rng.integers(-5000, 5000)), **header)


def saturated_network_bytes(hidden: int) -> bytes:
    """Every accumulator lane at QA in any position (bias QA, feature weights 0)
    and every output weight +127: the output sum is 2 * hidden * QA^2 * 127, past
    2^32 from 260 lanes on. The output bias takes all of it back but one lane's
    worth, QA * 127, so the score is 793 cp: a sum cut to 32 bits anywhere shows."""
    ft_w = np.zeros((768, hidden), dtype=np.int16)
    ft_b = np.full(hidden, QA, dtype=np.int16)
    out_w = np.full(2 * hidden, 127, dtype=np.int16)
    return network_bytes(ft_w, ft_b, out_w, -(2 * hidden - 1) * QA * 127)


def network_bytes(ft_w: np.ndarray, ft_b: np.ndarray, out_w: np.ndarray, out_b: int, **header) -> bytes:
    """A one-bucket network file of these int16 weights; header fields may be overridden."""
    hidden = ft_b.size
    payload = ft_w.tobytes() + ft_b.tobytes() + out_w.tobytes() + struct.pack("<i", out_b)
    fields = dict(version=1, arch=1, inputs=768, hidden=hidden, qa=QA, qb=QB, scale=SCALE,
                  payload=len(payload), checksum=fnv1a32(payload))
    fields.update(header)
    head = struct.pack("<8s10I", b"FIANNUE\0", fields["version"], fields["arch"], fields["inputs"],
                       fields["hidden"], fields["qa"], fields["qb"], fields["scale"], fields["payload"],
                       fields["checksum"], 0)
    return head + payload


def reference_eval(data: bytes, board: chess.Board) -> int:
    """The integer forward pass of the trainer's numpy reference (fianchetto.learn)."""
    return reference_evals(data, [board])[0]


def reference_evals(data: bytes, boards: list) -> list:
    """:func:`reference_eval` of many boards, the file read once (reading a wide
    network, its checksum in Python, takes a tenth of a second)."""
    return [int(score) for score in QuantNetwork.from_bytes(data).evaluate_boards(boards)]


def integer_eval(data: bytes, board: chess.Board, qa: int, qb: int, scale: int) -> int:
    """The trainer's integer forward pass (``integer_evaluate``) on a one-bucket
    network file of any quantisation (``QuantNetwork.from_bytes`` reads only its own)."""
    hidden = struct.unpack_from("<I", data, 20)[0]
    body = np.frombuffer(data[48:-4], dtype=np.int16)
    net = QuantNetwork(ft_w=body[: 768 * hidden].reshape(768, hidden), ft_b=body[768 * hidden : 769 * hidden],
                       out_w=body[769 * hidden :], out_b=np.array(struct.unpack_from("<i", data, len(data) - 4)))
    batch = decode(encode_boards([board], [0], [1]))
    return int(integer_evaluate(net, batch.stm, batch.nstm, (qa, qb, scale))[0])


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
