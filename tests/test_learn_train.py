"""The numpy trainer: gradients, learning on synthetic data, reproducibility, CLI.

The synthetic positions are labelled by material alone (see
fianchetto.learn.synthetic), something a small network learns within a few
epochs.
"""
from __future__ import annotations

import importlib
import io
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from fianchetto.cli import main as cli_main
import chess

from core_cy import dispatch
from fianchetto.learn.data import PAD_FEATURE, RECORD_DTYPE, Dataset, decode, encode_boards, write_records
from fianchetto.learn.network import QA, FloatNetwork, QuantNetwork, accumulate, sigmoid
from fianchetto.learn.synthetic import material_records
from fianchetto.learn.train import (
    ALIGNMENT,
    Adam,
    Progress,
    TrainConfig,
    aligned_copy,
    aligned_empty,
    batch_features,
    batch_loss,
    build_parser,
    check_config,
    checkpoint_path_for,
    config_from_args,
    cosine_lr,
    decoded_ahead,
    loss_and_gradients,
    output_buckets,
    main_train,
    quantised_cp,
    mirror_files,
    recentre_output_bias,
    run_train,
    split_for,
    split_indices,
    targets,
)


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    records, _ = material_records(3000, seed=17)
    path = tmp_path_factory.mktemp("learn") / "material.dat"
    write_records(path, records)
    return path


def small_config(data: Path, out: Path, **changes) -> TrainConfig:
    """A few seconds of training: one output bucket (eight, the shipped default,
    each see an eighth of these 3,000 positions and learn too slowly for it)."""
    settings = dict(data=[str(data)], out=str(out), epochs=6, hidden=32, batch=256, lr=3e-3, lam=0.0, val_fraction=0.1, seed=5, buckets=1)
    settings.update(changes)
    return TrainConfig(**settings)


@pytest.mark.parametrize("buckets", [1, 8])
def test_gradients_match_finite_differences(data_file: Path, buckets: int) -> None:
    records, _ = material_records(40, seed=2)
    batch = decode(records)
    rng = np.random.default_rng(0)
    net = FloatNetwork.initial(16, rng, buckets)
    net = FloatNetwork(*(p.astype(np.float64) for p in net.parameters()))
    net.ft_w += rng.normal(0, 0.2, net.ft_w.shape)  # spread accumulators over all three SCReLU pieces
    net.out_w += rng.normal(0, 0.1, net.out_w.shape)  # buckets that differ
    x = batch_features(batch)
    target = targets(batch, 0.3).astype(np.float64)
    bucket = output_buckets(batch.stm, buckets)
    _, grads = loss_and_gradients(net, x, target, bucket)
    used = sorted(set(batch.stm[:, 0].tolist()))[:2]
    b = int(bucket[0])
    probes = [(0, (used[0], 3)), (0, (used[1], 7)), (1, (5,)), (2, (b, 2)), (2, (b, 20)), (3, (b,))]
    unused = sorted(set(range(buckets)) - set(bucket.tolist()))
    if unused:
        assert not grads[2][unused[0]].any() and grads[3][unused[0]] == 0   # nobody reads it
    for which, index in probes:
        param = net.parameters()[which]
        saved = param[index]
        param[index] = saved + 1e-6
        up, _ = loss_and_gradients(net, x, target, bucket)
        param[index] = saved - 1e-6
        down, _ = loss_and_gradients(net, x, target, bucket)
        param[index] = saved
        numeric = (up - down) / 2e-6
        assert grads[which][index] == pytest.approx(numeric, rel=1e-3, abs=1e-9), (which, index)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("king_buckets", [0, 4])
def test_the_sparse_first_layer_equals_the_one_hot_products(dtype, king_buckets) -> None:
    """The compiled kernels the trainer uses: the forward sum of weight rows and the
    scattered weight gradient, against the products with a one-hot matrix (plain
    inputs, and the 3,072 of four king buckets)."""
    from core_cy.core import sparse_accumulate, sparse_gradient

    inputs = 768 * max(1, king_buckets)
    batch = decode(material_records(64, seed=4)[0], king_buckets)
    features = batch_features(batch)
    assert features.dtype == np.int16 and features.shape == (128, 32)
    onehot = np.zeros((len(features), inputs + 1), dtype=dtype)
    np.put_along_axis(onehot, np.minimum(features, inputs).astype(np.int64), 1.0, axis=1)   # last: padding
    onehot = onehot[:, :inputs]
    assert (onehot.sum(axis=1) == (features != PAD_FEATURE).sum(axis=1)).all()   # no repeated feature
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(inputs, 48)).astype(dtype)
    bias = rng.normal(size=48).astype(dtype)
    grad = rng.normal(size=(len(features), 48)).astype(dtype)
    acc = np.empty((len(features), 48), dtype=dtype)
    sparse_accumulate(rows, bias, features, acc)
    np.testing.assert_allclose(acc, onehot @ rows + bias, rtol=1e-5, atol=1e-5)
    scattered = np.zeros_like(rows)
    sparse_gradient(features, grad, scattered)
    np.testing.assert_allclose(scattered, onehot.T @ grad, rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError, match="shapes"):
        sparse_accumulate(rows, bias[:10], features, acc)
    with pytest.raises(ValueError, match="shapes"):
        sparse_gradient(features, grad[:5], scattered)


@pytest.mark.parametrize("buckets", [1, 8])
def test_the_validation_loss_equals_the_numpy_reference(data_file: Path, buckets: int) -> None:
    records = np.fromfile(data_file, dtype=np.uint8)[16:].view(RECORD_DTYPE)[:700]
    batch = decode(records)
    net = FloatNetwork.initial(32, np.random.default_rng(3), buckets)
    net.out_w += np.random.default_rng(4).normal(0, 0.3, net.out_w.shape).astype(net.out_w.dtype)
    reference = np.sum((sigmoid(net.forward(batch.stm, batch.nstm)).astype(np.float64)
                        - targets(batch, 0.3)) ** 2)
    assert batch_loss(net, batch, 0.3) == pytest.approx(reference, rel=1e-5)


def test_batches_decoded_ahead_are_the_batches_decoded_in_turn(data_file: Path) -> None:
    dataset = Dataset([data_file])
    order = np.random.default_rng(3).permutation(len(dataset))
    slices = [np.sort(order[start : start + 700]) for start in range(0, len(order), 700)]
    ahead = list(decoded_ahead(dataset, slices))
    assert len(ahead) == len(slices) and list(decoded_ahead(dataset, [])) == []
    for batch, indices in zip(ahead, slices):
        alone = decode(dataset.take(indices))
        assert np.array_equal(batch.stm, alone.stm) and np.array_equal(batch.nstm, alone.nstm)
        assert np.array_equal(batch.score, alone.score) and np.array_equal(batch.result, alone.result)


def test_cosine_schedule_decays() -> None:
    assert cosine_lr(1e-3, 0, 100) == pytest.approx(1e-3)
    assert cosine_lr(1e-3, 50, 100) < cosine_lr(1e-3, 10, 100)
    assert cosine_lr(1e-3, 100, 100) == pytest.approx(5e-5)


def test_training_reduces_validation_loss_and_is_reproducible(data_file: Path, tmp_path: Path) -> None:
    first = run_train(small_config(data_file, tmp_path / "a.nnue"), progress_stream=None, log=None)
    second = run_train(small_config(data_file, tmp_path / "b.nnue"), progress_stream=None, log=None)
    other = run_train(small_config(data_file, tmp_path / "c.nnue", seed=6, epochs=1), progress_stream=None, log=None)
    losses = [h.val_loss for h in first.history]
    start = first.initial_val_loss
    assert losses[-1] < 0.5 * start, (start, losses)
    assert losses[-1] < losses[0]
    assert (tmp_path / "a.nnue").read_bytes() == (tmp_path / "b.nnue").read_bytes()
    assert [h.val_loss for h in second.history] == losses
    assert not np.array_equal(other.network.ft_w, first.network.ft_w)
    assert all(p.ctypes.data % ALIGNMENT == 0 for p in first.network.parameters())
    # the written files load, and the float checkpoint continues training
    quant = QuantNetwork.load(tmp_path / "a.nnue")
    assert quant.hidden == 32
    resumed = run_train(
        small_config(data_file, tmp_path / "d.nnue", epochs=1, init=str(tmp_path / "a.npz"), lr=5e-4),
        progress_stream=None,
        log=None,
    )
    assert resumed.history[0].val_loss < 0.6 * start
    # a plain network warm-starts mirrored inputs: it begins where the plain one ended
    mirrored = run_train(
        small_config(data_file, tmp_path / "e.nnue", epochs=1, init=str(tmp_path / "a.npz"), lr=5e-4,
                     buckets=8, king_buckets=1),
        progress_stream=None,
        log=None,
    )
    assert mirrored.network.king_buckets == 1 and mirrored.initial_val_loss < 0.6 * start


def test_trained_network_ranks_material(data_file: Path, tmp_path: Path) -> None:
    """After training on material labels, the integer evaluation orders material balance."""
    result = run_train(small_config(data_file, tmp_path / "m.nnue", epochs=8), progress_stream=None, log=None)
    records, _ = material_records(600, seed=99)
    batch = decode(records)
    cp = QuantNetwork.load(tmp_path / "m.nnue").evaluate(batch.stm, batch.nstm)
    ahead = cp[batch.score >= 300].mean()
    level = cp[batch.score == 0].mean()
    behind = cp[batch.score <= -300].mean()
    assert behind < level < ahead
    assert result.checkpoint_path == tmp_path / "m.npz"


def test_checkpoint_path_is_beside_the_network() -> None:
    assert checkpoint_path_for(Path("/x/gen1.nnue")) == Path("/x/gen1.npz")
    assert checkpoint_path_for(Path("/x/gen1.npz")) == Path("/x/gen1.npz.float.npz")


def test_cli_train_subcommand(data_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "cli.nnue"
    code = cli_main(["train", "--data", f"{data_file},{data_file}", "--out", str(out), "--epochs", "1", "--hidden", "16", "--batch", "512"])
    assert code == 0
    captured = capsys.readouterr()
    assert "6000 positions: 5880 train, 120 validation" in captured.out
    assert "epoch 0: validation loss" in captured.out
    assert "epoch 1: train loss" in captured.out
    assert "pos/s" in captured.err and "ETA" in captured.err
    assert QuantNetwork.load(out).hidden == 16
    assert (tmp_path / "cli.npz").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--data", "/nonexistent.dat", "--out", "x.nnue"], "No such file"),
        (["--data", "DATA", "--out", "x.nnue", "--hidden", "100"], "hidden size 100"),
        (["--data", "DATA", "--out", "x.nnue", "--lambda", "2"], "lambda"),
        (["--data", "DATA", "--out", "x.nnue", "--train-fraction", "0"], "train-fraction"),
        (["--data", "DATA", "--out", "x.nnue", "--train-fraction", "1.5"], "train-fraction"),
    ],
)
def test_train_reports_bad_options(data_file: Path, argv, message: str, capsys: pytest.CaptureFixture) -> None:
    argv = [str(data_file) if a == "DATA" else a for a in argv]
    assert main_train(argv) == 2
    assert message in capsys.readouterr().err


def test_a_train_fraction_trains_on_part_of_the_data_and_validates_on_the_same_positions(
        data_file: Path, tmp_path: Path) -> None:
    """The data-volume curve (docs/training.md): runs on a share of the training
    positions hold out the same validation positions, so their losses compare."""
    whole = run_train(small_config(data_file, tmp_path / "whole.nnue", epochs=1), progress_stream=None, log=None)
    half = run_train(small_config(data_file, tmp_path / "half.nnue", epochs=1, train_fraction=0.5),
                     progress_stream=None, log=None)
    quarter = run_train(small_config(data_file, tmp_path / "quarter.nnue", epochs=1, train_fraction=0.25),
                        progress_stream=None, log=None)
    trained = [run.history[0].positions for run in (whole, half, quarter)]
    assert trained == [2700, 1350, 675]
    assert whole.initial_val_loss == half.initial_val_loss == quarter.initial_val_loss
    assert whole.history[0].val_loss != half.history[0].val_loss


def test_runs_of_other_widths_and_buckets_hold_out_the_same_positions(data_file: Path, tmp_path: Path) -> None:
    dataset = Dataset([data_file])
    base = small_config(data_file, tmp_path / "a.nnue")
    _, held = split_for(base, dataset)
    for changes in ({"hidden": 64}, {"buckets": 8}, {"hidden": 16, "buckets": 8, "lam": 0.3}):
        assert np.array_equal(split_for(small_config(data_file, tmp_path / "b.nnue", **changes), dataset)[1], held)
    assert not np.array_equal(split_for(small_config(data_file, tmp_path / "c.nnue", seed=6), dataset)[1], held)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_validation_set_holds_whole_games(seed: int) -> None:
    sizes = np.random.default_rng(seed).integers(1, 60, size=300)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    game_of = np.repeat(np.arange(len(sizes)), sizes)
    train, val = split_indices(sizes, 0.05, np.random.default_rng(seed))
    count = int(sizes.sum())
    assert sorted(np.concatenate([train, val])) == list(range(count))
    assert list(val) == sorted(val)
    held = np.unique(game_of[val])
    assert not set(held) & set(game_of[train])                   # no game on both sides
    assert sizes[held].sum() == len(val)                         # held games entirely
    assert len(val) >= round(0.05 * count)                       # enough positions,
    assert len(val) < round(0.05 * count) + sizes.max()          # and at most a game more
    # Training positions come game by game, each game's in order, so that a share
    # of them (train_subset) is a share of the games.
    firsts = train[np.concatenate([[0], np.flatnonzero(np.diff(train) != 1) + 1])]
    assert set(firsts) <= set(starts)
    again_train, again_val = split_indices(sizes, 0.05, np.random.default_rng(seed))
    assert list(again_train) == list(train) and list(again_val) == list(val)


def test_a_split_keeps_a_game_for_training() -> None:
    train, val = split_indices(np.array([5, 7]), 0.9, np.random.default_rng(0))
    assert len(train) in (5, 7) and len(train) + len(val) == 12


def test_a_resume_on_data_that_changed_is_refused(tmp_path: Path) -> None:
    """A data file that grew (datagen went on) under a saved state would shift the
    saved training order onto other positions: the resume is refused instead."""
    data = tmp_path / "growing.dat"
    records, _ = material_records(600, seed=8)
    write_records(data, records[:500])
    out = tmp_path / "net.nnue"
    run_train(small_config(data, out, epochs=2, stop_after=1), progress_stream=None, log=None)
    write_records(data, records)
    with pytest.raises(ValueError, match="500 positions when the state was saved, 600 now"):
        run_train(small_config(data, out, epochs=2, resume=True), progress_stream=None, log=None)


def test_uci_path_does_not_import_numpy() -> None:
    code = "import sys, fianchetto.cli, fianchetto.uci, fianchetto.session; print('numpy' in sys.modules)"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "False"


def test_mirroring_a_batch_flips_the_files() -> None:
    records, boards = material_records(50, seed=3)
    batch = decode(records)
    mirror_files(batch, np.arange(len(batch)))
    flipped = decode(encode_boards([b.transform(chess.flip_horizontal) for b in boards], [0] * 50, [1] * 50))
    assert np.array_equal(np.sort(batch.stm, axis=1), np.sort(flipped.stm, axis=1))
    assert np.array_equal(np.sort(batch.nstm, axis=1), np.sort(flipped.nstm, axis=1))


def test_recentring_the_output_bias_removes_the_mean_rounding_error() -> None:
    rng = np.random.default_rng(8)
    net = FloatNetwork.initial(32, rng)
    net.out_w[:] = rng.uniform(-0.9, 0.9, size=net.out_w.shape).astype(np.float32) + 0.004
    records, _ = material_records(400, seed=4)
    batch = decode(records)
    quantised = QuantNetwork.quantise(net)
    recentre_output_bias(quantised, net, batch)
    gap = net.evaluate_cp(batch.stm, batch.nstm) - quantised.evaluate(batch.stm, batch.nstm)
    assert abs(float(np.mean(gap))) < 1.5


@pytest.mark.parametrize("hidden, buckets, king_buckets", [(32, 1, 0), (48, 8, 0), (64, 8, 1), (32, 8, 4)])
def test_the_compiled_quantised_evaluation_is_the_integer_reference(hidden, buckets, king_buckets) -> None:
    """quantised_cp (accumulators summed by the compiled first layer in float32)
    gives QuantNetwork.evaluate's centipawns exactly, with accumulators below 0,
    inside and above the clipped range."""
    rng = np.random.default_rng(21)
    net = FloatNetwork.initial(hidden, rng, buckets=buckets, king_buckets=king_buckets)
    net.ft_w[:] = rng.uniform(-0.6, 0.6, size=net.ft_w.shape).astype(np.float32)
    net.out_w[:] = rng.uniform(-0.9, 0.9, size=net.out_w.shape).astype(np.float32)
    quantised = QuantNetwork.quantise(net)
    batch = decode(material_records(500, seed=8)[0], king_buckets)
    features = batch_features(batch)
    rows, bias = quantised.ft_w.astype(np.float32), quantised.ft_b.astype(np.float32)
    bucket = output_buckets(batch.stm, buckets)
    expected = quantised.evaluate(batch.stm, batch.nstm)
    got = quantised_cp(quantised, rows, bias, features, bucket)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)
    acc = accumulate(quantised.ft_w.astype(np.int64), quantised.ft_b.astype(np.int64), batch.stm)
    assert (acc < 0).any() and (acc > QA).any()                   # both clips are exercised


def test_the_output_bias_is_recentred_alike_in_chunks() -> None:
    """The held-out positions are evaluated a chunk at a time (memory); every chunk
    size must move the biases exactly as one pass over them all."""
    rng = np.random.default_rng(9)
    net = FloatNetwork.initial(32, rng, buckets=8)
    net.out_w[:] = rng.uniform(-0.9, 0.9, size=net.out_w.shape).astype(np.float32) + 0.004
    batch = decode(material_records(300, seed=5)[0])
    whole = QuantNetwork.quantise(net)
    shift = recentre_output_bias(whole, net, batch, chunk=len(batch))
    assert shift != 0.0
    for chunk in (1, 7, 64):
        chunked = QuantNetwork.quantise(net)
        assert recentre_output_bias(chunked, net, batch, chunk=chunk) == shift
        assert np.array_equal(chunked.out_b, whole.out_b)


@pytest.mark.parametrize("buckets, king_buckets", [(1, 0), (8, 0), (8, 1)])
def test_an_interrupted_training_resumes_as_if_it_never_stopped(data_file: Path, tmp_path: Path,
                                                                buckets: int, king_buckets: int) -> None:
    shape = dict(buckets=buckets, king_buckets=king_buckets)
    whole = run_train(small_config(data_file, tmp_path / "whole.nnue", epochs=3, **shape),
                      progress_stream=None, log=None)
    parts = tmp_path / "parts.nnue"
    first = run_train(small_config(data_file, parts, epochs=3, stop_after=2, **shape),
                      progress_stream=None, log=None)
    assert len(first.history) == 2 and not parts.exists()             # no network until the end
    assert (tmp_path / "parts.nnue.train.npz").exists()
    if king_buckets:
        with pytest.raises(ValueError, match="other settings"):      # the inputs are part of the run
            run_train(small_config(data_file, parts, epochs=3, buckets=buckets, resume=True),
                      progress_stream=None, log=None)
    rest = run_train(small_config(data_file, parts, epochs=3, resume=True, **shape),
                     progress_stream=None, log=None)
    assert parts.read_bytes() == (tmp_path / "whole.nnue").read_bytes()
    assert [h.val_loss for h in rest.history] == [h.val_loss for h in whole.history]
    assert rest.initial_val_loss == whole.initial_val_loss


def test_a_resume_with_other_settings_is_refused(data_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "net.nnue"
    run_train(small_config(data_file, out, epochs=2, stop_after=1), progress_stream=None, log=None)
    with pytest.raises(ValueError, match="other settings"):
        run_train(small_config(data_file, out, epochs=2, lr=1e-2, resume=True), progress_stream=None, log=None)
    (tmp_path / "net.nnue.train.npz").write_bytes(b"not a state")
    with pytest.raises(ValueError, match="cannot resume"):
        run_train(small_config(data_file, out, epochs=2, resume=True), progress_stream=None, log=None)


def test_the_command_line_takes_king_buckets() -> None:
    parser = build_parser()
    config = config_from_args(parser.parse_args(["--data", "a.fgame", "--out", "n.nnue", "--king-buckets", "4"]))
    assert config.king_buckets == 4 and config.buckets == 8
    assert config_from_args(parser.parse_args(["--data", "a", "--out", "n"])).king_buckets == 0
    with pytest.raises(SystemExit):
        parser.parse_args(["--data", "a", "--out", "n", "--king-buckets", "3"])
    with pytest.raises(ValueError, match="output buckets with king buckets"):
        check_config(TrainConfig(data=["a"], out="n", buckets=1, king_buckets=1))


def test_the_help_names_each_bucket_count_once() -> None:
    """Architectures 2 and 3 both have 8 output buckets; the choices list it once."""
    usage = build_parser().format_usage()
    assert "--buckets {1,8}" in usage


@pytest.mark.parametrize("variant", dispatch.runnable_variants())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("hidden", [48, 200, 512])
def test_the_first_layer_adds_rows_in_the_features_order(dtype, hidden, variant) -> None:
    """sparse_accumulate (a slice of columns at a time in registers, in every core
    variant this CPU runs) gives the same floats, to the bit, as adding the bias
    and then each feature's row in the list's order; widths with and without a
    partial slice at the end."""
    module = importlib.import_module(f"core_cy._core_{variant}")
    features = batch_features(decode(material_records(64, seed=5)[0]))
    rng = np.random.default_rng(11)
    rows = rng.normal(size=(768, hidden)).astype(dtype)
    bias = rng.normal(size=hidden).astype(dtype)
    acc = np.empty((len(features), hidden), dtype=dtype)
    module.sparse_accumulate(rows, bias, features, acc)
    expected = np.repeat(bias[None, :], len(features), axis=0)
    for slot in range(features.shape[1]):
        present = features[:, slot] < len(rows)
        expected[present] += rows[features[present, slot]]
    np.testing.assert_array_equal(acc, expected)
    with pytest.raises(ValueError, match="at most 64"):
        module.sparse_accumulate(rows, bias, np.zeros((4, 65), dtype=np.int16), acc[:4])


@pytest.mark.parametrize("variant", dispatch.runnable_variants())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("positions", [1, 300, 700])
def test_the_first_layer_gradient_adds_positions_in_their_order(dtype, positions, variant) -> None:
    """sparse_gradient (blocks of positions listed under each feature, each list
    added in registers) gives the same floats, to the bit, as adding each
    position's gradient row to its features' rows one position after another:
    one position, part of a block, and more than two blocks."""
    module = importlib.import_module(f"core_cy._core_{variant}")
    features = batch_features(decode(material_records(positions, seed=6)[0]))
    rng = np.random.default_rng(13)
    grad = rng.normal(size=(len(features), 72)).astype(dtype)
    scattered = rng.normal(size=(768, 72)).astype(dtype)     # it adds to what is there
    expected = scattered.copy()
    module.sparse_gradient(features, grad, scattered)
    for i, row in enumerate(features):
        expected[row[row < len(expected)]] += grad[i]
    np.testing.assert_array_equal(scattered, expected)


@pytest.mark.parametrize("variant", dispatch.runnable_variants())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("h", [48, 512])
def test_the_compiled_output_layer_equals_numpy(dtype, h, variant) -> None:
    """output_forward and output_backward (vector kernels on float32, in every core
    variant this CPU runs) against the numpy formulas, with accumulators below 0,
    inside (0, 1), at 0 and 1 and above; 48 columns leave 512-bit vectors a single
    one after the pairs."""
    module = importlib.import_module(f"core_cy._core_{variant}")
    output_forward, output_backward = module.output_forward, module.output_backward
    rng = np.random.default_rng(7)
    n, buckets = 300, 8
    acc = rng.uniform(-0.5, 1.5, (2 * n, h)).astype(dtype)
    acc[:, :4] = [0.0, 1.0, -0.0, 0.999999]
    out_w = rng.normal(0, 0.5, (buckets, 2 * h)).astype(dtype)
    out_b = rng.normal(0, 0.1, buckets).astype(dtype)
    bucket = rng.integers(0, buckets, n).astype(np.int64)
    dy = rng.normal(0, 1e-3, n).astype(dtype)
    c = np.clip(acc.astype(np.float64), 0, 1)
    w = out_w.astype(np.float64)[bucket]
    expected_y = np.sum(c[:n] ** 2 * w[:, :h], axis=1) + np.sum(c[n:] ** 2 * w[:, h:], axis=1) + out_b[bucket]
    y = np.empty(n, dtype=dtype)
    output_forward(acc, out_w, out_b, bucket, y)
    np.testing.assert_allclose(y, expected_y, rtol=1e-5, atol=1e-5)
    expected_dw = np.zeros((buckets, 2 * h))
    np.add.at(expected_dw, bucket, dy[:, None] * np.concatenate([c[:n] ** 2, c[n:] ** 2], axis=1))
    expected_dacc = np.where(c < 1, 2 * np.concatenate([dy, dy])[:, None] * np.concatenate([w[:, :h], w[:, h:]]) * c, 0)
    d_out_w, d_out_b, d_ft_b = np.zeros_like(out_w), np.zeros_like(out_b), np.zeros(h, dtype=dtype)
    output_backward(acc, out_w, bucket, dy, d_out_w, d_out_b, d_ft_b)
    np.testing.assert_allclose(d_out_w, expected_dw, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(d_out_b, np.bincount(bucket, dy, buckets), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(acc, expected_dacc, rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(d_ft_b, expected_dacc.sum(axis=0), rtol=1e-4, atol=1e-7)
    with pytest.raises(ValueError, match="bias gradient 40"):
        output_backward(acc, out_w, bucket, dy, d_out_w, d_out_b, np.zeros(40, dtype=dtype))
    with pytest.raises(ValueError, match="shapes"):
        output_forward(np.ascontiguousarray(acc[:, :h - 8]), out_w, out_b, bucket, y)
    with pytest.raises(ValueError, match="bucket 8"):
        output_forward(acc, out_w, out_b, np.full(n, 8, dtype=np.int64), y)


def numpy_adam(p, g, m, v, beta1, beta2, step, eps, limit):
    """The Adam step of the definition, in float64: the parameters, m and v after it."""
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    return np.clip(p - step * m / (np.sqrt(v) + eps), -limit, limit), m, v


@pytest.mark.parametrize("variant", dispatch.runnable_variants())
@pytest.mark.parametrize("size", [1, 37, 4099])
def test_the_compiled_adam_step_follows_the_definition(size, variant) -> None:
    """adam_update (vector kernels and their plain tail, in every core variant this
    CPU runs) against the formulas in float64, over three steps, with the clip
    biting on some parameters and none (an infinite limit) on others."""
    module = importlib.import_module(f"core_cy._core_{variant}")
    rng = np.random.default_rng(size)
    for limit in (0.3, np.inf):
        p = rng.uniform(-0.35, 0.35, size).astype(np.float32)
        p[0] = 0.29                                             # pushed up past 0.3 below
        m, v = np.zeros(size, dtype=np.float32), np.zeros(size, dtype=np.float32)
        expected = (p.astype(np.float64), m.astype(np.float64), v.astype(np.float64))
        for _ in range(3):
            g = rng.normal(0, 1e-2, size).astype(np.float32)
            g[0] = -1e-2
            module.adam_update(p, g, m, v, 0.9, 0.999, 0.05, 1e-8, limit)
            expected = numpy_adam(*expected[:1], g.astype(np.float64), *expected[1:], 0.9, 0.999, 0.05, 1e-8, limit)
            np.testing.assert_allclose(p, expected[0], rtol=1e-5, atol=1e-7)
            np.testing.assert_allclose(m, expected[1], rtol=1e-5, atol=1e-9)
            np.testing.assert_allclose(v, expected[2], rtol=1e-5, atol=1e-13)
        assert np.abs(p).max() <= limit
        if limit < np.inf:
            assert np.any(np.abs(p) == np.float32(limit))       # the clip did bite
    with pytest.raises(ValueError, match="shapes"):
        module.adam_update(p, g[:-1] if size > 1 else g[:0], m, v, 0.9, 0.999, 0.05, 1e-8, 1.0)


def test_adam_keeps_each_array_within_its_limit_and_refuses_copies() -> None:
    """The trainer's Adam clips each array to its own limit after the step (the
    output bias is free), and will not update an array it would only update a
    copy of."""
    weights, bias = np.zeros((4, 16), dtype=np.float32), np.zeros(3, dtype=np.float32)
    adam = Adam([weights, bias], [0.5, np.inf])
    for _ in range(40):
        adam.step([np.full_like(weights, -1.0), np.full_like(bias, -1.0)], lr=0.1)
    assert np.all(weights == np.float32(0.5)) and np.all(bias > 0.5)
    with pytest.raises(ValueError, match="strided"):
        Adam([np.zeros((16, 4), dtype=np.float32).T])
    with pytest.raises(ValueError, match="float64"):
        Adam([np.zeros(4)])


@pytest.mark.parametrize("shape", [(1,), (3, 48), (7, 5, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
def test_aligned_arrays_start_a_cache_line(shape, dtype) -> None:
    """The trainer's arrays start a cache line, whatever numpy's allocator gives,
    and are ordinary C-contiguous arrays of the shape asked for."""
    arrays = [aligned_empty(shape, dtype) for _ in range(8)]
    for array in arrays:
        assert array.ctypes.data % ALIGNMENT == 0
        assert array.shape == shape and array.dtype == dtype and array.flags.c_contiguous
        assert array.flags.writeable
    source = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    copy = aligned_copy(source)
    assert copy.dtype == np.float32 and copy.ctypes.data % ALIGNMENT == 0
    np.testing.assert_array_equal(copy, source.astype(np.float32))


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_training_progress_is_whole_lines_in_a_log_and_rewritten_on_a_terminal():
    log = io.StringIO()
    progress = Progress("epoch 1/1", 1000, log, interval=0)
    for _ in range(10):
        progress.update(100, 0.5)
    progress.close()
    lines = log.getvalue().split("\n")
    assert "\r" not in log.getvalue() and lines[-1] == ""
    assert len(lines) == 3 and "  0.0%" not in lines[0] and "100.0% 1000/1000" in lines[1]
    terminal = Terminal()
    progress = Progress("epoch 1/1", 1000, terminal, interval=0)
    for _ in range(10):
        progress.update(100, 0.5)
    progress.close()
    assert terminal.getvalue().count("\r") == 10 and terminal.getvalue().endswith("\n")
    assert "for all" not in terminal.getvalue()                 # the last epoch: its ETA is the run's


def test_the_progress_gives_the_time_to_the_last_epoch_at_this_ones_pace(monkeypatch):
    clock = iter([0.0, 10.0])                  # 250 positions in 10 s: 25 a second
    monkeypatch.setattr(time, "perf_counter", lambda: next(clock))
    log = io.StringIO()
    progress = Progress("epoch 2/5", 1000, log, interval=0, epochs_after=3)
    progress.update(250, 0.5)
    assert "ETA 0:00:30, 0:02:30 for all" in log.getvalue()     # 750 more now, then 3 x 1000
