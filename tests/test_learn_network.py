"""The FIANNUE network file and the integer reference evaluation.

The integer evaluation is checked three ways: against a scalar transcription
of the core's arithmetic (Python integers, C truncation), against the float
forward pass of the dequantised network (the two truncations cost less than
``DEQUANTISED_BOUND_CP``), and against the float network it was quantised
from (within ``quantisation_bound``).
"""
from __future__ import annotations

from pathlib import Path
from typing import List

import chess
import numpy as np
import pytest

from fianchetto.learn.data import PAD_FEATURE, decode, encode_boards
from fianchetto.learn.network import (
    DEQUANTISED_BOUND_CP,
    HEADER_SIZE,
    QA,
    QB,
    SCALE,
    WEIGHT_CLIP,
    FloatNetwork,
    QuantNetwork,
    fnv1a32,
    load_float,
    payload_size,
    quantisation_bound,
)
from fianchetto.learn.synthetic import random_boards


def random_network(hidden: int, seed: int, spread: float = 1.0, buckets: int = 1) -> FloatNetwork:
    """Weights drawn wide enough that accumulators land below 0, inside and above 1."""
    rng = np.random.default_rng(seed)
    net = FloatNetwork(
        ft_w=rng.normal(0.0, 0.25 * spread, (768, hidden)).astype(np.float32),
        ft_b=rng.uniform(-0.5, 1.5, hidden).astype(np.float32),
        out_w=rng.normal(0.0, 0.5 * spread, (buckets, 2 * hidden)).astype(np.float32),
        out_b=rng.normal(0.0, 0.5, buckets).astype(np.float32),
    )
    net.clip_weights()
    return net


def boards_batch(count: int, seed: int):
    boards = random_boards(count, seed) + [chess.Board(), chess.Board().mirror()]
    return boards, decode(encode_boards(boards, [0] * len(boards), [1] * len(boards)))


def c_div(a: int, b: int) -> int:
    """C division of Python integers: truncation towards zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def scalar_integer_eval(net: QuantNetwork, stm: List[int], nstm: List[int]) -> int:
    """The core's evaluation for one position, one integer at a time; the output
    bucket is (pieces - 2) // 4 with 8 buckets."""
    hidden = net.hidden
    bucket = min(max((len(stm) - 2) * net.buckets // 32, 0), net.buckets - 1)
    total = 0
    for half, features in enumerate((stm, nstm)):
        for j in range(hidden):
            acc = int(net.ft_b[j]) + sum(int(net.ft_w[f, j]) for f in features)
            v = min(max(acc, 0), QA)
            total += v * v * int(net.out_w[bucket, half * hidden + j])
    out = c_div(total, QA) + int(net.out_b[bucket])
    return max(-15000, min(15000, c_div(out * SCALE, QA * QB)))


def test_fnv1a_known_values() -> None:
    assert fnv1a32(b"") == 0x811C9DC5
    assert fnv1a32(b"a") == 0xE40C292C
    assert fnv1a32(b"foobar") == 0xBF9CF968


def test_save_load_round_trip(tmp_path: Path) -> None:
    quant = QuantNetwork.quantise(random_network(32, seed=1))
    path = tmp_path / "net.nnue"
    quant.save(path)
    data = path.read_bytes()
    assert len(data) == HEADER_SIZE + payload_size(32)
    assert data[:8] == b"FIANNUE\0"
    back = QuantNetwork.load(path)
    assert back.to_bytes() == data
    for name in ("ft_w", "ft_b", "out_w"):
        assert np.array_equal(getattr(back, name), getattr(quant, name))
    assert np.array_equal(back.out_b, quant.out_b)
    assert np.array_equal(load_float(path).ft_w, quant.dequantise().ft_w)


def test_float_checkpoint_round_trip(tmp_path: Path) -> None:
    net = random_network(48, seed=2)
    net.save_npz(tmp_path / "net.npz")
    back = load_float(tmp_path / "net.npz")
    for a, b in zip(net.parameters(), back.parameters()):
        assert np.array_equal(a, b)


def patched(data: bytes, word: int, value: int) -> bytes:
    """``data`` with the header's ``word``-th uint32 (after the magic) replaced."""
    offset = 8 + 4 * word
    return data[:offset] + value.to_bytes(4, "little") + data[offset + 4 :]


GOOD = QuantNetwork.quantise(random_network(16, seed=3)).to_bytes()
CORRUPT = {
    "empty": (b"", "truncated header"),
    "short-header": (GOOD[:40], "truncated header"),
    "magic": (b"FIANNUX\0" + GOOD[8:], "not a FIANNUE network"),
    "version": (patched(GOOD, 0, 2), "unsupported version 2"),
    "architecture": (patched(GOOD, 1, 7), "unsupported architecture 7"),
    "inputs": (patched(GOOD, 2, 640), "unsupported inputs 640"),
    "hidden-not-multiple-of-16": (patched(GOOD, 3, 24), "hidden size 24"),
    "hidden-too-large": (patched(GOOD, 3, 2048), "hidden size 2048"),
    "hidden-disagrees-with-size": (patched(GOOD, 3, 32), "payload size"),
    "qa": (patched(GOOD, 4, 127), "unsupported qa 127"),
    "qb": (patched(GOOD, 5, 128), "unsupported qb 128"),
    "scale": (patched(GOOD, 6, 600), "unsupported scale 600"),
    "payload-size": (patched(GOOD, 7, payload_size(16) + 2), "payload size"),
    "king-buckets-in-architecture-1": (patched(GOOD, 9, 1), "unsupported king_buckets 1"),
    "truncated-payload": (GOOD[:-1], "truncated payload"),
    "header-only": (GOOD[:HEADER_SIZE], "truncated payload"),
    "trailing-bytes": (GOOD + b"\0", "after the payload"),
    "checksum-payload-bit": (GOOD[:100] + bytes([GOOD[100] ^ 1]) + GOOD[101:], "checksum mismatch"),
    "checksum-field": (patched(GOOD, 8, 0), "checksum mismatch"),
}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_corrupt_networks_are_refused(tmp_path: Path, name: str) -> None:
    data, message = CORRUPT[name]
    path = tmp_path / f"{name}.nnue"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=message):
        QuantNetwork.load(path)


def test_the_good_network_loads() -> None:
    assert QuantNetwork.from_bytes(GOOD).hidden == 16


def test_quantise_refuses_unclipped_weights() -> None:
    net = random_network(16, seed=4)
    net.ft_w[0, 0] = 200.0
    with pytest.raises(ValueError, match="ft_w does not fit int16"):
        QuantNetwork.quantise(net)


def test_output_buckets_follow_the_piece_count() -> None:
    from fianchetto.learn.network import output_buckets

    features = np.full((31, 32), PAD_FEATURE, dtype=np.int16)
    for row, pieces in enumerate(range(2, 33)):
        features[row, :pieces] = np.arange(pieces)
    assert output_buckets(features, 8).tolist() == [(pieces - 2) // 4 for pieces in range(2, 33)]
    assert output_buckets(features, 1).tolist() == [0] * 31


def test_architecture_2_round_trip_and_header(tmp_path: Path) -> None:
    quant = QuantNetwork.quantise(random_network(32, seed=31, buckets=8))
    data = quant.to_bytes()
    assert int.from_bytes(data[12:16], "little") == 2                   # the architecture field
    assert len(data) == HEADER_SIZE + payload_size(32, 8)
    back = QuantNetwork.from_bytes(data)
    assert back.buckets == 8 and np.array_equal(back.out_w, quant.out_w)
    assert np.array_equal(back.out_b, quant.out_b)
    net = random_network(32, seed=31, buckets=8)
    net.save_npz(tmp_path / "net.npz")
    assert load_float(tmp_path / "net.npz").buckets == 8


def test_a_single_output_layer_warm_starts_every_bucket() -> None:
    _, batch = boards_batch(40, seed=33)
    single = random_network(16, seed=33)
    eight = single.with_buckets(8)
    assert eight.buckets == 8
    assert np.allclose(eight.evaluate_cp(batch.stm, batch.nstm), single.evaluate_cp(batch.stm, batch.nstm))
    with pytest.raises(ValueError, match="cannot become"):
        eight.with_buckets(1)


@pytest.mark.parametrize("buckets", [1, 8])
def test_integer_reference_matches_scalar_transcription(buckets: int) -> None:
    _, batch = boards_batch(12, seed=21)
    seen = []
    for seed in range(3):
        quant = QuantNetwork.quantise(random_network(16, seed=seed, buckets=buckets))
        values = quant.evaluate(batch.stm, batch.nstm)
        for i in range(len(batch)):
            stm = [int(f) for f in batch.stm[i] if f != PAD_FEATURE]
            nstm = [int(f) for f in batch.nstm[i] if f != PAD_FEATURE]
            assert int(values[i]) == scalar_integer_eval(quant, stm, nstm)
        seen.extend(values.tolist())
    assert min(seen) < 0 < max(seen), "both signs exercise the truncation"


@pytest.mark.parametrize("hidden, seed, buckets", [(16, 5, 1), (64, 6, 1), (256, 7, 1), (64, 8, 8)])
def test_integer_evaluation_agrees_with_float(hidden: int, seed: int, buckets: int) -> None:
    """Stated bounds: dequantised float within 1 + 400/16320 cp; the original float within
    quantisation_bound (worst-case weight rounding for at most 32 active features)."""
    _, batch = boards_batch(300, seed)
    net = random_network(hidden, seed, spread=0.3, buckets=buckets)
    quant = QuantNetwork.quantise(net)
    integer = quant.evaluate(batch.stm, batch.nstm).astype(np.float64)
    dequantised = quant.dequantise().evaluate_cp(batch.stm, batch.nstm).astype(np.float64)
    original = net.evaluate_cp(batch.stm, batch.nstm).astype(np.float64)
    assert np.abs(integer - dequantised).max() < DEQUANTISED_BOUND_CP + 1e-3
    assert np.abs(integer - original).max() <= quantisation_bound(net)
    assert np.ptp(integer) > 50, "the network is not trivially flat"


def test_clipped_network_accumulators_fit_int16() -> None:
    net = FloatNetwork(
        ft_w=np.full((768, 16), WEIGHT_CLIP, dtype=np.float32),
        ft_b=np.full(16, WEIGHT_CLIP, dtype=np.float32),
        out_w=np.full(32, -WEIGHT_CLIP, dtype=np.float32),
        out_b=np.zeros(1, dtype=np.float32),
    )
    quant = QuantNetwork.quantise(net)
    full = np.arange(32, dtype=np.int16)[None, :] * 24  # 32 distinct features
    acc = quant.ft_b.astype(np.int64) + quant.ft_w[full[0]].astype(np.int64).sum(axis=0)
    assert acc.max() <= 32767
    assert int(quant.evaluate(full, full)[0]) == scalar_integer_eval(quant, full[0].tolist(), full[0].tolist())


def test_integer_scores_are_clamped() -> None:
    net = random_network(16, seed=12)
    net.out_b[0] = 60.0  # 24000 cp before the clamp
    _, batch = boards_batch(5, seed=12)
    assert (QuantNetwork.quantise(net).evaluate(batch.stm, batch.nstm) == 15000).all()


def test_board_and_batch_forward_agree() -> None:
    boards, batch = boards_batch(20, seed=9)
    net = random_network(32, seed=9)
    assert np.allclose(net.evaluate_boards(boards), net.evaluate_cp(batch.stm, batch.nstm), atol=1e-3)
    quant = QuantNetwork.quantise(net)
    assert np.array_equal(quant.evaluate_boards(boards), quant.evaluate(batch.stm, batch.nstm))


def test_start_position_is_symmetric() -> None:
    """Both views of the start position are the same features, so either side to move scores alike."""
    net = QuantNetwork.quantise(random_network(32, seed=10))
    white, black = net.evaluate_boards([chess.Board(), chess.Board().mirror()])
    assert white == black


def test_a_plain_network_warm_starts_king_buckets() -> None:
    """Rows copied into every king bucket: where both kings stand on files a-d the
    inputs are the plain ones, so the scores are the plain network's."""
    plain = random_network(32, seed=8).with_buckets(8)
    for king_buckets in (1, 4):
        kings = plain.with_king_buckets(king_buckets)
        assert kings.king_buckets == king_buckets and kings.ft_w.shape == (768 * king_buckets, 32)
        flipped = [b.transform(chess.flip_horizontal) for b in random_boards(400, seed=9)]
        queenside = [b for b in flipped
                     if chess.square_file(b.king(chess.WHITE)) < 4 and chess.square_file(b.king(chess.BLACK)) < 4]
        assert len(queenside) > 20
        np.testing.assert_allclose(kings.evaluate_boards(queenside), plain.evaluate_boards(queenside), atol=1e-3)
        assert kings.with_king_buckets(king_buckets) is kings
        with pytest.raises(ValueError):
            kings.with_king_buckets(0)
