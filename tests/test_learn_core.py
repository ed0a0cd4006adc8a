"""The trainer's files meet the compiled core.

Networks written by fianchetto.learn.network are loaded by the core, whose
integer evaluation must equal the numpy reference exactly and the float
forward pass of the same (dequantised) network within the stated bound; data
written by the core's self-play is read by fianchetto.learn.data; and a tiny
pipeline (self-play, train, load, evaluate) runs end to end.
"""
from __future__ import annotations

from pathlib import Path

import chess
import numpy as np
import pytest

from core_cy import core
from fianchetto.board import Board
from fianchetto.learn.data import Dataset, decode, decode_boards
from fianchetto.learn.network import DEQUANTISED_BOUND_CP, FloatNetwork, QuantNetwork
from fianchetto.learn.selfplay import GameSettings, generate
from fianchetto.learn.synthetic import random_boards
from fianchetto.learn.train import TrainConfig, run_train


@pytest.fixture()
def load_into_core():
    """Load FIANNUE bytes into the core for one test; the network is dropped afterwards."""

    def load(data: bytes) -> None:
        core.load_network(data)
        assert core.set_network_active(True)

    yield load
    core.unload_network()


def core_scores(boards) -> np.ndarray:
    return np.array([core.evaluate_network(Board(board.fen())) for board in boards], dtype=np.int64)


def test_the_core_reads_the_architectures_the_trainer_declares() -> None:
    from fianchetto.learn import network

    assert core.NETWORK_OUTPUT_BUCKETS == network.OUTPUT_BUCKETS
    assert core.NETWORK_INPUTS == network.NUM_FEATURES
    assert core.NETWORK_MAX_HIDDEN == network.ENGINE_MAX_HIDDEN
    assert core.NETWORK_HEADER_BYTES == network.HEADER_SIZE
    assert core.NETWORK_MAGIC == network.MAGIC


@pytest.mark.parametrize("hidden, seed, buckets", [(16, 1, 1), (128, 2, 1), (256, 3, 1), (64, 4, 8), (256, 5, 8)])
def test_core_agrees_with_the_references(load_into_core, hidden: int, seed: int, buckets: int) -> None:
    """1,000 positions: the core equals the integer reference, and the float forward
    pass of the dequantised network within 1 + 400/16320 cp (with eight output
    buckets too: the core picks each position's bucket as the reference does)."""
    rng = np.random.default_rng(seed)
    net = FloatNetwork.initial(hidden, rng, buckets)
    net.ft_w += rng.normal(0.0, 0.15, net.ft_w.shape).astype(np.float32)
    net.out_w *= 20.0
    net.out_w += rng.normal(0.0, 0.3, net.out_w.shape).astype(np.float32)   # buckets that differ
    net.clip_weights()
    quant = QuantNetwork.quantise(net)
    load_into_core(quant.to_bytes())
    boards = random_boards(1000, seed=seed)
    in_core = core_scores(boards)
    assert np.array_equal(in_core, quant.evaluate_boards(boards))
    floats = quant.dequantise().evaluate_boards(boards)
    assert np.abs(in_core - floats).max() < DEQUANTISED_BOUND_CP + 1e-3
    assert np.ptp(in_core) > 100


def test_core_self_play_data_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "selfplay.bin"
    generate(str(path), 300, GameSettings(nodes=400, random_plies=8, tablebases=False), threads=1, seed=21)
    dataset = Dataset([path])
    assert len(dataset) == 300
    records = dataset.take(np.arange(300))
    batch = decode(records)
    for board, record, stm_row in zip(decode_boards(records), records, batch.stm):
        assert board.king(chess.WHITE) is not None and board.king(chess.BLACK) is not None
        assert not board.is_check()
        assert int(np.sum(stm_row < 768)) == len(board.piece_map())
    assert set(batch.result.tolist()) <= {0.0, 1.0, 2.0}


@pytest.mark.parametrize("buckets", [1, 8])
def test_self_play_train_load_evaluate(tmp_path: Path, load_into_core, buckets: int) -> None:
    data = tmp_path / "gen.bin"
    generate(str(data), 400, GameSettings(nodes=300, random_plies=8, tablebases=False), threads=1, seed=4)
    out = tmp_path / "gen.nnue"
    run_train(TrainConfig(data=[str(data)], out=str(out), epochs=1, hidden=32, batch=128, buckets=buckets),
              progress_stream=None, log=None)
    assert QuantNetwork.load(out).buckets == buckets
    assert core.load_network(out.read_bytes())["buckets"] == buckets
    load_into_core(out.read_bytes())
    boards = [chess.Board(), chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")]
    assert np.array_equal(core_scores(boards), QuantNetwork.load(out).evaluate_boards(boards))
