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


def core_scores(network, boards) -> np.ndarray:
    """The core's evaluations of python-chess boards with a LoadedNetwork."""
    return np.array([network.evaluate(Board(board.fen())) for board in boards], dtype=np.int64)


@pytest.mark.parametrize("hidden, seed, buckets, king_buckets",
                         [(16, 1, 1, 0), (128, 2, 1, 0), (256, 3, 1, 0), (64, 4, 8, 0), (256, 5, 8, 0),
                          (64, 6, 8, 1), (128, 7, 8, 4),
                          (48, 8, 8, 4)])        # rows padded in memory: 48 is not a multiple of 32
def test_core_agrees_with_the_references(hidden: int, seed: int, buckets: int,
                                         king_buckets: int) -> None:
    """1,000 positions: the core equals the integer reference, and the float forward
    pass of the dequantised network within 1 + 400/16320 cp (with eight output
    buckets too: the core picks each position's bucket as the reference does; and
    with king buckets, where it picks each view's inputs as the reference does)."""
    rng = np.random.default_rng(seed)
    net = FloatNetwork.initial(hidden, rng, buckets, king_buckets)
    net.ft_w += rng.normal(0.0, 0.15, net.ft_w.shape).astype(np.float32)
    net.out_w *= 20.0
    net.out_w += rng.normal(0.0, 0.3, net.out_w.shape).astype(np.float32)   # buckets that differ
    net.clip_weights()
    quant = QuantNetwork.quantise(net)
    loaded = core.load_network(quant.to_bytes())
    boards = random_boards(1000, seed=seed)
    in_core = core_scores(loaded, boards)
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
    for board, stm_row in zip(decode_boards(records), batch.stm):
        assert board.king(chess.WHITE) is not None and board.king(chess.BLACK) is not None
        assert not board.is_check()
        assert int(np.sum(stm_row < 768)) == len(board.piece_map())
    assert set(batch.result.tolist()) <= {0.0, 1.0, 2.0}


@pytest.mark.parametrize("buckets, king_buckets", [(1, 0), (8, 0), (8, 4)])
def test_self_play_train_load_evaluate(tmp_path: Path, buckets: int, king_buckets: int) -> None:
    data = tmp_path / "gen.bin"
    generate(str(data), 400, GameSettings(nodes=300, random_plies=8, tablebases=False), threads=1, seed=4)
    out = tmp_path / "gen.nnue"
    run_train(TrainConfig(data=[str(data)], out=str(out), epochs=1, hidden=32, batch=128, buckets=buckets,
                          king_buckets=king_buckets), progress_stream=None, log=None)
    assert QuantNetwork.load(out).buckets == buckets
    assert QuantNetwork.load(out).king_buckets == king_buckets
    loaded = core.load_network(out.read_bytes())
    assert (loaded.buckets, loaded.king_buckets) == (buckets, king_buckets)
    boards = [chess.Board(), chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")]
    assert np.array_equal(core_scores(loaded, boards), QuantNetwork.load(out).evaluate_boards(boards))


# --- king buckets (architecture 3) ---------------------------------------------------

def king_network(king_buckets: int, seed: int) -> QuantNetwork:
    rng = np.random.default_rng(seed)
    net = FloatNetwork.initial(32, rng, 8, king_buckets)
    net.ft_w += rng.normal(0.0, 0.15, net.ft_w.shape).astype(np.float32)
    net.out_w *= 20.0
    net.clip_weights()
    return QuantNetwork.quantise(net)


def test_a_king_bucketed_view_sees_a_position_and_its_mirror_image_alike() -> None:
    """Left to right mirroring is built into architecture 3's inputs: a position
    without castling rights and its mirror image get the same score, in the core
    and in the reference (a plain network tells them apart)."""
    quant = king_network(4, seed=11)
    loaded = core.load_network(quant.to_bytes())
    boards = [b for b in random_boards(300, seed=12) if not b.castling_rights]
    mirrored = [b.transform(chess.flip_horizontal) for b in boards]
    assert len(boards) > 100
    assert np.array_equal(core_scores(loaded, boards), core_scores(loaded, mirrored))
    assert np.array_equal(quant.evaluate_boards(boards), quant.evaluate_boards(mirrored))
    plain = QuantNetwork.quantise(FloatNetwork.initial(32, np.random.default_rng(11), 8))
    assert not np.array_equal(plain.evaluate_boards(boards), plain.evaluate_boards(mirrored))


@pytest.mark.parametrize("king_buckets", [1, 4])
def test_incremental_accumulators_follow_kings_across_their_views(king_buckets: int) -> None:
    """Random games whose kings walk over the board (crossing the d/e files and the
    buckets' ranks): after every move the incrementally updated accumulator equals
    one built from scratch, and the evaluation the reference's."""
    quant = king_network(king_buckets, seed=13)
    loaded = core.load_network(quant.to_bytes())
    rng = np.random.default_rng(14)
    crossings = 0
    for fen in ("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1", "8/2k5/8/3p4/3P4/8/5K2/8 w - - 0 1",
                "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1"):
        board, chess_board = Board(fen), chess.Board(fen)
        for _ in range(120):
            moves = list(chess_board.legal_moves)
            if not moves:
                break
            kings = [m for m in moves if chess_board.piece_type_at(m.from_square) == chess.KING]
            move = kings[rng.integers(len(kings))] if kings and rng.random() < 0.6 else moves[rng.integers(len(moves))]
            crossings += kings != [] and (chess.square_file(move.from_square) < 4) != (chess.square_file(move.to_square) < 4)
            board.push(move.uci())
            chess_board.push(move)
        assert loaded.accumulator_mismatch(board) == -1
        assert loaded.evaluate(board) == int(quant.evaluate_boards([chess_board])[0])
    assert crossings > 10


def test_an_unknown_king_bucket_count_is_refused() -> None:
    good = king_network(4, seed=15).to_bytes()
    bad = good[:44] + (3).to_bytes(4, "little") + good[48:]
    with pytest.raises(ValueError, match="king buckets"):
        core.load_network(bad)
    with pytest.raises(ValueError, match="king_buckets 3"):
        QuantNetwork.from_bytes(bad)
