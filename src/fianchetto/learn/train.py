"""``fianchetto train``: fit the perspective network to self-play data with Adam.

Each position's target blends the game result with its search score::

    target = lambda * result / 2 + (1 - lambda) * sigmoid(score / 400)

and the network's prediction is ``sigmoid(y)`` (``y = cp / 400``); the loss is
the mean squared difference.  A seeded shuffle holds out a validation share of
whole games (each position of a ``FIANDATA`` file, which keeps no games, counts
as one); train and validation loss are printed after every epoch.

A position sets at most 32 of the 768 inputs, so the feature transformer's
forward pass (a sum of weight rows) and its weight gradient (a scatter of
gradient rows) run in two compiled loops of the core over the batch's padded
feature lists (``core_cy.core.sparse_accumulate`` and ``sparse_gradient``).
Measured on 8192 feature lists with H = 256, one thread: 10 ms each, where the
product with a dense one-hot matrix took 270 and 320 ms. The output layer,
SCReLU and the dot product forward, its gradients backward, is one compiled
pass each way too (``output_forward`` and ``output_backward``, vector kernels
on float32), and so is each array's Adam step; the loss is numpy.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Iterator, List, Optional, Sequence, TextIO, Tuple

import numpy as np

from core_cy.core import adam_update, output_backward, output_forward, sparse_accumulate, sparse_gradient
from fianchetto.learn.data import KING_BUCKET_LAYOUTS, NUM_FEATURES, Batch, Dataset, decode
from fianchetto.learn.network import (
    OUTPUT_BUCKETS,
    QA,
    QB,
    SCALE,
    FloatNetwork,
    QuantNetwork,
    architecture_for,
    check_hidden,
    integer_output,
    load_float,
    output_buckets,
    sigmoid,
)
from fianchetto.learn.progress import ProgressLine

#: The learning rate falls along a cosine from ``lr`` to ``lr * FINAL_LR_FRACTION``.
FINAL_LR_FRACTION = 0.05
#: Positions per forward pass when only the loss is wanted (validation).
EVAL_BATCH = 16384


@dataclass
class TrainConfig:
    """Everything ``fianchetto train`` takes on its command line. The defaults are
    the recipe of the shipped network, generation 8 (docs/training.md): 768
    hidden units and 8 output buckets, 20 epochs of cosine schedule, a target of
    mostly search scores (lambda 0.5 and 0.3 lost hundreds of Elo) and small
    batches (16384 gave too few steps on a few million positions)."""

    data: List[str]
    out: str
    epochs: int = 20
    hidden: int = 768
    seed: int = 1
    lam: float = 0.1
    lr: float = 2e-3
    batch: int = 4096
    val_fraction: float = 0.02
    train_fraction: float = 1.0   # share of the training positions used (the data-volume curve)
    init: Optional[str] = None
    mirror: bool = True
    buckets: int = 8
    king_buckets: int = 0         # 0: plain inputs; K: mirrored, K king buckets (architecture 3)
    resume: bool = False          # go on from the training state beside ``out``
    stop_after: Optional[int] = None   # end this run after this epoch (the state is kept)


@dataclass
class EpochStats:
    epoch: int
    train_loss: float
    val_loss: float
    seconds: float
    positions: int


@dataclass
class TrainResult:
    network: FloatNetwork
    initial_val_loss: float = float("nan")
    history: List[EpochStats] = field(default_factory=list)
    net_path: Optional[Path] = None
    checkpoint_path: Optional[Path] = None


# ---------------------------------------------------------------------------
# Targets, optimiser, schedule
# ---------------------------------------------------------------------------

def targets(batch: Batch, lam: float) -> np.ndarray:
    """Blend of game result and squashed search score, in ``[0, 1]``."""
    return (lam * batch.result / 2 + (1 - lam) * sigmoid(batch.score / SCALE)).astype(np.float32)


ALIGNMENT = 64     # bytes: a cache line, and one 512-bit vector


def aligned_empty(shape: Tuple[int, ...], dtype: np.dtype = np.float32) -> np.ndarray:
    """An uninitialised C-contiguous array whose first element starts a cache line:
    rows of a multiple of 16 floats then all do, and the core's vector loads never
    straddle two lines (numpy's own arrays start 16 bytes into one)."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(size + ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    return raw[start:start + size].view(dtype).reshape(shape)


def aligned_zeros(shape: Tuple[int, ...], dtype: np.dtype = np.float32) -> np.ndarray:
    array = aligned_empty(shape, dtype)
    array.fill(0)
    return array


def aligned_copy(array: np.ndarray) -> np.ndarray:
    """A float32 copy of `array`, aligned as aligned_empty's."""
    copy = aligned_empty(array.shape)
    copy[...] = array
    return copy


class Adam:
    """Adam with bias correction over a list of float32 arrays, updated in place,
    each in one compiled pass (``adam_update`` of the core) that then clips it to
    its limit (``limits``, one per array; none by default)."""

    def __init__(self, params: Sequence[np.ndarray], limits: Optional[Sequence[float]] = None,
                 beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8) -> None:
        self.params = list(params)
        for p in self.params:
            if p.dtype != np.float32 or not p.flags.c_contiguous:
                raise ValueError(f"Adam updates contiguous float32 arrays in place, not {p.dtype} "
                                 f"{'contiguous' if p.flags.c_contiguous else 'strided'}")
        self.limits = [math.inf] * len(self.params) if limits is None else list(limits)
        if len(self.limits) != len(self.params):
            raise ValueError(f"{len(self.limits)} limits for {len(self.params)} arrays")
        self.m = [aligned_zeros(p.shape) for p in self.params]
        self.v = [aligned_zeros(p.shape) for p in self.params]
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.t = 0

    def step(self, grads: Sequence[np.ndarray], lr: float) -> None:
        self.t += 1
        step_size = lr * math.sqrt(1 - self.beta2**self.t) / (1 - self.beta1**self.t)
        for p, g, m, v, limit in zip(self.params, grads, self.m, self.v, self.limits):
            adam_update(p.reshape(-1), np.ascontiguousarray(g, dtype=np.float32).reshape(-1), m.reshape(-1),
                        v.reshape(-1), self.beta1, self.beta2, step_size, self.eps, limit)


def cosine_lr(base: float, step: int, total: int) -> float:
    """Learning rate at ``step`` of ``total``: cosine from ``base`` to ``base * FINAL_LR_FRACTION``."""
    progress = min(step / max(total, 1), 1.0)
    floor = base * FINAL_LR_FRACTION
    return floor + (base - floor) * 0.5 * (1 + math.cos(math.pi * progress))


# ---------------------------------------------------------------------------
# Forward and backward passes on padded feature lists
# ---------------------------------------------------------------------------

def views_features(stm: np.ndarray, nstm: np.ndarray) -> np.ndarray:
    """``(2n, 32)`` int16: the side to move's feature lists, then the other side's."""
    return np.ascontiguousarray(np.concatenate([stm, nstm]), dtype=np.int16)


def batch_features(batch: Batch) -> np.ndarray:
    """A batch's feature lists for the compiled passes (views_features)."""
    return views_features(batch.stm, batch.nstm)


def forward(net: FloatNetwork, features: np.ndarray, bucket: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Accumulators before the activation ``(2n, H)`` and outputs ``y`` ``(n,)`` for
    ``(2n, 32)`` feature lists (batch_features) whose positions read the output
    buckets ``bucket`` (n,): two compiled passes of the core."""
    acc = aligned_empty((features.shape[0], net.hidden), net.ft_w.dtype)
    sparse_accumulate(np.ascontiguousarray(net.ft_w), np.ascontiguousarray(net.ft_b), features, acc)
    y = np.empty(features.shape[0] // 2, dtype=acc.dtype)
    output_forward(acc, np.ascontiguousarray(net.out_w), np.ascontiguousarray(net.out_b),
                   np.ascontiguousarray(bucket, dtype=np.int64), y)
    return acc, y


def loss_and_gradients(net: FloatNetwork, features: np.ndarray, target: np.ndarray,
                       bucket: np.ndarray) -> Tuple[float, List[np.ndarray]]:
    """Mean squared error of ``sigmoid(y)`` against ``target`` and its parameter
    gradients, for ``(2n, 32)`` feature lists (batch_features)."""
    size = len(target)
    bucket = np.ascontiguousarray(bucket, dtype=np.int64)
    acc, y = forward(net, features, bucket)
    prediction = sigmoid(y)
    error = prediction - target
    loss = float(np.mean(error * error))
    dy = np.ascontiguousarray((2.0 / size) * error * prediction * (1.0 - prediction), dtype=acc.dtype)
    d_out_w = np.zeros_like(net.out_w)
    d_out_b = np.zeros_like(net.out_b)
    d_ft_b = np.zeros_like(net.ft_b)
    output_backward(acc, np.ascontiguousarray(net.out_w), bucket, dy, d_out_w, d_out_b, d_ft_b)   # acc: now d acc
    d_ft_w = aligned_zeros(net.ft_w.shape, net.ft_w.dtype)
    sparse_gradient(features, acc, d_ft_w)
    return loss, [d_ft_w, d_ft_b, d_out_w, d_out_b]


def batch_loss(net: FloatNetwork, batch: Batch, lam: float) -> float:
    """Summed squared error over a decoded batch (no gradients), on the compiled
    first layer as in training (``FloatNetwork.forward`` is the plain numpy twin)."""
    y = forward(net, batch_features(batch), output_buckets(batch.stm, net.buckets))[1]
    error = sigmoid(y) - targets(batch, lam)
    return float(np.sum(error.astype(np.float64) ** 2))


def validation_loss(net: FloatNetwork, dataset: Dataset, indices: np.ndarray, lam: float) -> float:
    """Mean squared error over the held-out positions (nan when there are none)."""
    if len(indices) == 0:
        return float("nan")
    slices = (indices[start : start + EVAL_BATCH] for start in range(0, len(indices), EVAL_BATCH))
    return sum(batch_loss(net, batch, lam)
               for batch in decoded_ahead(dataset, slices, net.king_buckets)) / len(indices)


def decoded_ahead(dataset: Dataset, slices: Iterable[np.ndarray], king_buckets: int = 0) -> Iterator[Batch]:
    """The batches of positions ``slices``, in order, each decoded on a second
    thread while the caller works on the one before: decoding and the passes are
    compiled loops that release the GIL, so on two cores they overlap.
    The batches are the same as decoding them one by one."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="decode") as pool:
        pending = None
        for indices in slices:
            following = pool.submit(decode_slice, dataset, indices, king_buckets)
            if pending is not None:
                yield pending.result()
            pending = following
        if pending is not None:
            yield pending.result()


def decode_slice(dataset: Dataset, indices: np.ndarray, king_buckets: int = 0) -> Batch:
    return decode(dataset.take(indices), king_buckets)


# ---------------------------------------------------------------------------
# Progress bar
# ---------------------------------------------------------------------------

def format_seconds(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    """A one-line progress bar on a text stream: percentage, positions/s, ETA of
    the epoch and, with ``epochs_after`` more to come, of the last one at this
    epoch's pace (in place on a terminal, a whole line a minute in a log:
    ProgressLine)."""

    WIDTH = 30

    def __init__(self, label: str, total: int, stream: Optional[TextIO], interval: float = 0.5,
                 epochs_after: int = 0) -> None:
        self.label, self.total, self.interval, self.epochs_after = label, total, interval, epochs_after
        self.line = ProgressLine(stream) if stream is not None else None
        self.done = 0
        self.start = time.perf_counter()
        self.last_draw = 0.0

    def update(self, count: int, loss: float) -> None:
        self.done += count
        now = time.perf_counter()
        if self.line is not None and (now - self.last_draw >= self.interval or self.done >= self.total):
            self.last_draw = now
            self.draw(now, loss)

    def draw(self, now: float, loss: float) -> None:
        elapsed = now - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        fraction = self.done / self.total if self.total else 1.0
        filled = int(self.WIDTH * fraction)
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        bar = "#" * filled + "." * (self.WIDTH - filled)
        last = (f", {format_seconds(eta + self.epochs_after * self.total / rate)} for all"
                if self.epochs_after and rate > 0 else "")
        self.line(f"{self.label} [{bar}] {100 * fraction:5.1f}% {self.done}/{self.total} "
                  f"{rate:,.0f} pos/s loss {loss:.5f} elapsed {format_seconds(elapsed)} ETA {format_seconds(eta)}"
                  f"{last} ")

    def close(self) -> None:
        if self.line is not None:
            self.line.close()


# ---------------------------------------------------------------------------
# The training loop
# ---------------------------------------------------------------------------

def split_indices(game_sizes: np.ndarray, fraction: float,
                  rng: np.random.Generator) -> Tuple[np.ndarray, np.ndarray]:
    """Hold out whole games: (train, validation) position indices. The games are
    shuffled with ``rng``, and the first ones whose positions make up ``fraction``
    of the data are held out; the training positions come game by game in the
    shuffled order (``train_subset`` takes whole games from the front), the
    validation positions sorted. Positions of one game are alike, so a game split
    between the two sets would let the validation loss flatter a network that
    learned its games by heart. At least one game is kept for training."""
    count = int(game_sizes.sum())
    wanted = int(round(count * fraction)) if fraction > 0 else 0
    wanted = min(max(wanted, 1 if fraction > 0 and count > 1 else 0), count - 1)
    order = rng.permutation(len(game_sizes))
    held_games = int(np.searchsorted(np.cumsum(game_sizes[order]), wanted)) + 1 if wanted else 0
    held_games = min(held_games, len(game_sizes) - 1)
    starts = np.concatenate([[0], np.cumsum(game_sizes)[:-1]])
    held = np.zeros(len(game_sizes), dtype=bool)
    held[order[:held_games]] = True
    train_games = order[held_games:]
    train = game_positions(starts[train_games], game_sizes[train_games])
    return train, np.flatnonzero(np.repeat(held, game_sizes))


def game_positions(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The position indices of the games starting at ``starts``, game after game."""
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes)
    return np.arange(int(sizes.sum()), dtype=np.int64) + offsets


def split_for(config: TrainConfig, dataset: Dataset) -> Tuple[np.ndarray, np.ndarray]:
    """(training, held-out) positions of a run. The split has a random generator of
    its own, apart from the one that initialises the weights and shuffles the
    epochs, so that runs of one seed on one data set hold out the same games
    whatever their width, buckets, --init or --train-fraction: their validation
    losses compare."""
    rng = np.random.default_rng([config.seed, 0x5B117])
    train_idx, val_idx = split_indices(dataset.game_sizes(), config.val_fraction, rng)
    return train_subset(train_idx, config.train_fraction), val_idx


def train_subset(train_idx: np.ndarray, fraction: float) -> np.ndarray:
    """The first ``fraction`` of the training positions, at least one: the games at
    the front of the shuffled order (one game may be cut). The validation games are
    split off before, so they do not depend on it."""
    if fraction >= 1.0:
        return train_idx
    return train_idx[: max(1, int(round(len(train_idx) * fraction)))]


def mirror_files(batch: Batch, rows: np.ndarray) -> None:
    """Flip the chosen positions left to right (file a <-> h), in place: the square is
    the feature's low six bits, so xor 7 flips the file; padding stays padding."""
    for features in (batch.stm, batch.nstm):
        chosen = features[rows]
        features[rows] = np.where(chosen < NUM_FEATURES, chosen ^ 7, chosen)


def train_epoch(
    net: FloatNetwork,
    adam: Adam,
    dataset: Dataset,
    order: np.ndarray,
    config: TrainConfig,
    schedule: Tuple[int, int],
    progress: Progress,
    rng: np.random.Generator,
) -> float:
    """One pass over ``order`` in batches; returns the mean training loss. With
    ``config.mirror`` a random half of every batch is seen flipped left to right
    (castling rights are not inputs, so the flipped position is as valid); king
    buckets see a position and its mirror image alike, so they skip it."""
    step, total_steps = schedule
    loss_sum = 0.0
    slices = (np.sort(order[start : start + config.batch]) for start in range(0, len(order), config.batch))
    for batch in decoded_ahead(dataset, slices, net.king_buckets):
        if config.mirror and not net.king_buckets:
            mirror_files(batch, np.flatnonzero(rng.random(len(batch)) < 0.5))
        loss, grads = loss_and_gradients(net, batch_features(batch), targets(batch, config.lam),
                                         output_buckets(batch.stm, net.buckets))
        adam.step(grads, cosine_lr(config.lr, step, total_steps))     # and clips the weights
        step += 1
        loss_sum += loss * len(batch)
        progress.update(len(batch), loss)
    return loss_sum / max(len(order), 1)


def state_path_for(out: Path) -> Path:
    """Where the training state (network, optimiser, epoch, shuffle) goes: beside ``out``."""
    return out.with_name(out.name + ".train.npz")


#: The settings a resumed run must share with the run that saved the state.
RESUME_KEYS = ("data", "epochs", "hidden", "seed", "lam", "lr", "batch", "val_fraction", "mirror", "buckets")


def config_fingerprint(config: TrainConfig) -> str:
    settings = {key: getattr(config, key) for key in RESUME_KEYS}
    settings["split"] = "games, own generator"   # states of earlier splits do not resume
    # Options newer than the states saved before them count only when set.
    if config.train_fraction != 1.0:
        settings["train_fraction"] = config.train_fraction
    if config.king_buckets:
        settings["king_buckets"] = config.king_buckets
    return json.dumps(settings, sort_keys=True)


def save_state(path: Path, net: FloatNetwork, adam: Adam, epoch: int, rng: np.random.Generator,
               train_idx: np.ndarray, result: "TrainResult", config: TrainConfig, positions: int) -> None:
    """Everything needed to go on after ``epoch`` exactly as an uninterrupted run
    would: written to a temporary file and renamed, so a crash leaves the old state."""
    arrays = {f"param{i}": p for i, p in enumerate(net.parameters())}
    arrays.update({f"m{i}": m for i, m in enumerate(adam.m)})
    arrays.update({f"v{i}": v for i, v in enumerate(adam.v)})
    history = [[h.epoch, h.train_loss, h.val_loss, h.seconds, h.positions] for h in result.history]
    meta = {"epoch": epoch, "adam_t": adam.t, "rng": rng.bit_generator.state, "history": history,
            "initial_val_loss": result.initial_val_loss, "config": config_fingerprint(config),
            "positions": positions}
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as handle:
        np.savez(handle, train_idx=train_idx, meta=np.array(json.dumps(meta)), **arrays)
    os.replace(temporary, path)


def load_state(path: Path, net: FloatNetwork, adam: Adam, rng: np.random.Generator, result: "TrainResult",
               config: TrainConfig, positions: int) -> Tuple[int, np.ndarray]:
    """Restore a saved state into ``net``, ``adam``, ``rng`` and ``result``; returns
    (epochs done, the training order). ValueError when it is not this run's, or
    when the data now holds another number of positions (a file that datagen
    went on writing: the saved order would point at other positions)."""
    try:
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            if meta["config"] != config_fingerprint(config):
                raise ValueError(f"{path}: saved by a run with other settings ({meta['config']})")
            if meta.get("positions", positions) != positions:
                raise ValueError(f"the data held {meta['positions']} positions when the state was saved, "
                                 f"{positions} now")
            for i, p in enumerate(net.parameters()):
                p[...] = data[f"param{i}"]
            for i in range(len(adam.m)):
                adam.m[i][...] = data[f"m{i}"]
                adam.v[i][...] = data[f"v{i}"]
            train_idx = data["train_idx"].copy()
    except (OSError, KeyError, ValueError) as exc:
        raise ValueError(f"cannot resume from {path}: {exc}") from None
    adam.t = int(meta["adam_t"])
    rng.bit_generator.state = meta["rng"]
    result.initial_val_loss = float(meta["initial_val_loss"])
    result.history = [EpochStats(int(e), t, v, s, int(n)) for e, t, v, s, n in meta["history"]]
    return int(meta["epoch"]), train_idx


def checkpoint_path_for(out: Path) -> Path:
    """Where the float checkpoint goes: beside ``out``, suffix ``.npz``."""
    path = out.with_suffix(".npz")
    return path if path != out else out.with_name(out.name + ".float.npz")


def check_config(config: TrainConfig) -> None:
    """``ValueError`` for options out of range."""
    check_hidden(config.hidden)
    architecture_for(config.buckets, config.king_buckets)
    if config.epochs < 1:
        raise ValueError("epochs must be at least 1")
    if config.batch < 1:
        raise ValueError("batch must be at least 1")
    if not 0.0 <= config.lam <= 1.0:
        raise ValueError("lambda must be between 0 and 1")
    if not 0.0 <= config.val_fraction < 1.0:
        raise ValueError("val-fraction must be in [0, 1)")
    if not 0.0 < config.train_fraction <= 1.0:
        raise ValueError("train-fraction must be in (0, 1]")
    if config.lr <= 0:
        raise ValueError("lr must be positive")
    if config.stop_after is not None and config.stop_after < 1:
        raise ValueError("stop-after must be at least 1")
    if (config.resume or config.stop_after) and not config.out:
        raise ValueError("resume and stop-after need an output path (the state lives beside it)")


def starting_network(config: TrainConfig, rng: np.random.Generator) -> FloatNetwork:
    """The network a run starts from (``--init``'s, shaped as asked, or random
    weights), in aligned float32 arrays that Adam updates in place, clipped."""
    if config.init:
        net = load_float(config.init).with_buckets(config.buckets).with_king_buckets(config.king_buckets)
        if net.hidden != config.hidden:
            raise ValueError(f"--init network has hidden size {net.hidden}, not {config.hidden}")
    else:
        net = FloatNetwork.initial(config.hidden, rng, config.buckets, config.king_buckets)
    net = FloatNetwork(*(aligned_copy(p) for p in net.parameters()), king_buckets=net.king_buckets)
    net.clip_weights()
    return net


def shape_of(config: TrainConfig) -> str:
    """The network's shape in words, for the log."""
    def counted(count: int, what: str) -> str:
        return f"{count} {what}{'s' if count > 1 else ''}"
    king = f", {counted(config.king_buckets, 'king bucket')} (mirrored)" if config.king_buckets else ""
    return f"hidden {config.hidden}, {counted(config.buckets, 'output bucket')}{king}"


def run_train(config: TrainConfig, progress_stream: Optional[TextIO] = None, log: Optional[TextIO] = None) -> TrainResult:
    """Train, then write the quantised network and the float checkpoint (when ``config.out`` is set).

    The progress bar goes to ``progress_stream`` and the per-epoch losses to
    ``log``; either may be None for silence.
    """
    check_config(config)
    rng = np.random.default_rng(config.seed)
    dataset = Dataset(config.data)
    if len(dataset) < 2:
        raise ValueError(f"{len(dataset)} positions in the data; at least 2 are needed")
    net = starting_network(config, rng)
    train_idx, val_idx = split_for(config, dataset)
    say(log, f"{len(dataset)} positions: {len(train_idx)} train, {len(val_idx)} validation; {shape_of(config)}")
    adam = Adam(net.parameters(), net.clip_limits())
    steps_per_epoch = -(-len(train_idx) // config.batch)
    state = state_path_for(Path(config.out)) if config.out else None
    result = TrainResult(network=net)
    done = 0
    if config.resume and state is not None and state.exists():
        done, train_idx = load_state(state, net, adam, rng, result, config, len(dataset))
        say(log, f"resumed from {state} after epoch {done}")
    else:
        result.initial_val_loss = validation_loss(net, dataset, val_idx, config.lam)
        say(log, f"epoch 0: validation loss {result.initial_val_loss:.6f} (before training)")
    last = config.epochs if config.stop_after is None else min(config.epochs, done + config.stop_after)
    for epoch in range(done + 1, last + 1):
        started = time.perf_counter()
        rng.shuffle(train_idx)
        progress = Progress(f"epoch {epoch}/{config.epochs}", len(train_idx), progress_stream,
                            epochs_after=config.epochs - epoch)
        schedule = ((epoch - 1) * steps_per_epoch, config.epochs * steps_per_epoch)
        train_loss = train_epoch(net, adam, dataset, train_idx, config, schedule, progress, rng)
        progress.close()
        val_loss = validation_loss(net, dataset, val_idx, config.lam)
        seconds = time.perf_counter() - started
        result.history.append(EpochStats(epoch, train_loss, val_loss, seconds, len(train_idx)))
        say(
            log,
            f"epoch {epoch}: train loss {train_loss:.6f}  validation loss {val_loss:.6f}  "
            f"{seconds:.1f} s  {len(train_idx) / seconds:,.0f} pos/s",
        )
        if state is not None:
            save_state(state, net, adam, epoch, rng, train_idx, result, config, len(dataset))
    if last < config.epochs:
        say(log, f"stopped after epoch {last} of {config.epochs}; go on with --resume")
        return result
    if config.out:
        write_trained(net, Path(config.out), decode(dataset.take(val_idx), net.king_buckets), result, log)
    return result


def write_trained(net: FloatNetwork, out: Path, held_out: Batch, result: TrainResult, log: Optional[TextIO]) -> None:
    """Write the quantised network to ``out``, its output bias recentred on the
    held-out positions, and the float checkpoint beside it; ``result`` records both."""
    result.net_path = out
    result.checkpoint_path = checkpoint_path_for(out)
    quantised = QuantNetwork.quantise(net)
    shift = recentre_output_bias(quantised, net, held_out)
    say(log, f"output bias moved by {shift:+.2f} cp so the quantised mean matches the float network")
    quantised.save(out)
    net.save_npz(result.checkpoint_path)
    say(log, f"wrote {out} (quantised) and {result.checkpoint_path} (float checkpoint)")


#: Positions evaluated at a time when the output bias is recentred: the integer
#: evaluation's numpy arithmetic holds tens of kilobytes a position at H = 1,024
#: (it widens every hidden unit and output weight to 64 bits).
RECENTRE_CHUNK = 16384


def quantised_cp(quantised: QuantNetwork, rows: np.ndarray, bias: np.ndarray, features: np.ndarray,
                 bucket: np.ndarray) -> np.ndarray:
    """``quantised.evaluate`` (the core's integer arithmetic) of ``(2n, 32)`` feature
    lists (batch_features), the accumulators summed by the compiled first layer's
    vector kernel: ``rows`` and ``bias`` are the quantised ones as float32, in
    which sums of up to 512 int16 values (below 2**24) are exact."""
    acc = aligned_empty((features.shape[0], quantised.hidden), np.float32)
    sparse_accumulate(rows, bias, features, acc)
    half = features.shape[0] // 2
    return integer_output(quantised, acc[:half], acc[half:], bucket)


def quantisation_gaps(quantised: QuantNetwork, net: FloatNetwork, batch: Batch,
                      chunk: int = RECENTRE_CHUNK) -> np.ndarray:
    """The float network's evaluation minus the quantised one's, in centipawns, for
    each position of ``batch``, ``chunk`` positions at a time, both on the compiled
    first layer. Each position is evaluated on its own, so the chunks change the
    memory held, not the gaps."""
    rows, bias = aligned_copy(quantised.ft_w), aligned_copy(quantised.ft_b)
    parts = []
    for i in range(0, len(batch), chunk):
        features = views_features(batch.stm[i : i + chunk], batch.nstm[i : i + chunk])
        bucket = output_buckets(batch.stm[i : i + chunk], net.buckets)
        parts.append(SCALE * forward(net, features, bucket)[1].astype(np.float64)
                     - quantised_cp(quantised, rows, bias, features, bucket))
    return np.concatenate(parts)


def recentre_output_bias(quantised: QuantNetwork, net: FloatNetwork, batch: Batch,
                         chunk: int = RECENTRE_CHUNK) -> float:
    """Rounding the output weights to 1/QB shifts the integer evaluation by a nearly
    constant amount; move each bucket's output bias so the mean over the positions of
    ``batch`` that read it matches the float network again (the overall mean for a
    bucket no position reads). Returns the overall shift in centipawns."""
    if len(batch) == 0:
        return 0.0
    gaps = quantisation_gaps(quantised, net, batch, chunk)
    bucket = output_buckets(batch.stm, quantised.buckets)
    overall = float(np.mean(gaps))
    for b in range(quantised.buckets):
        chosen = gaps[bucket == b]
        gap = float(np.mean(chosen)) if len(chosen) else overall
        quantised.out_b[b] += int(round(gap * QA * QB / SCALE))
    return overall


def say(stream: Optional[TextIO], line: str) -> None:
    if stream is not None:
        print(line, file=stream, flush=True)


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fianchetto train", description="Train the evaluation network on self-play data (numpy)."
    )
    defaults = TrainConfig(data=[], out="")
    parser.add_argument("--data", required=True, metavar="FILE[,FILE...]", help="FIANGAME (whole games) or FIANDATA files, comma-separated")
    parser.add_argument("--out", required=True, metavar="NET", help="quantised network to write (FIANNUE); a float .npz goes beside it")
    parser.add_argument("--epochs", type=int, metavar="E", default=defaults.epochs, help=f"passes over the data (default {defaults.epochs})")
    parser.add_argument("--hidden", type=int, metavar="H", default=defaults.hidden, help=f"accumulator size H, a multiple of 16 (default {defaults.hidden})")
    parser.add_argument("--seed", type=int, metavar="S", default=defaults.seed, help=f"seed of initial weights, split and shuffles (default {defaults.seed})")
    parser.add_argument("--lambda", dest="lam", type=float, metavar="L", default=defaults.lam, help=f"weight of the game result in the target (default {defaults.lam})")
    parser.add_argument("--lr", type=float, metavar="LR", default=defaults.lr, help=f"initial Adam learning rate, cosine decay (default {defaults.lr})")
    parser.add_argument("--batch", type=int, metavar="B", default=defaults.batch, help=f"positions per step (default {defaults.batch})")
    parser.add_argument("--val-fraction", type=float, metavar="F", default=defaults.val_fraction, help=f"held-out share (default {defaults.val_fraction})")
    parser.add_argument("--train-fraction", type=float, metavar="F", default=defaults.train_fraction,
                        help="train on this share of the positions that are not held out, the same "
                             "held-out positions whatever F (a data-volume curve; default 1)")
    parser.add_argument("--no-mirror", dest="mirror", action="store_false",
                        help="do not show half of each batch flipped left to right")
    parser.add_argument("--init", default=None, metavar="NET",
                        help="start from this network (.npz checkpoint or FIANNUE file); a single output "
                             "layer is copied into every bucket, plain inputs into every king bucket")
    parser.add_argument("--resume", action="store_true",
                        help="go on from the training state saved beside --out after each epoch")
    parser.add_argument("--stop-after", type=int, metavar="E", default=None,
                        help="end this run after E more epochs, keeping the state for --resume")
    parser.add_argument("--buckets", type=int, default=defaults.buckets, choices=sorted(set(OUTPUT_BUCKETS.values())),
                        help=f"output buckets by piece count (default {defaults.buckets}; 8 is architecture 2)")
    parser.add_argument("--king-buckets", type=int, default=defaults.king_buckets,
                        choices=[0, *sorted(KING_BUCKET_LAYOUTS)],
                        help="inputs seen with the own king on files a-d, in this many sets by the king's "
                             "square (architecture 3, with 8 output buckets; default 0: plain inputs)")
    return parser


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    return TrainConfig(
        data=[part for part in args.data.split(",") if part],
        out=args.out,
        epochs=args.epochs,
        hidden=args.hidden,
        seed=args.seed,
        lam=args.lam,
        lr=args.lr,
        batch=args.batch,
        val_fraction=args.val_fraction,
        train_fraction=args.train_fraction,
        init=args.init,
        mirror=args.mirror,
        buckets=args.buckets,
        king_buckets=args.king_buckets,
        resume=args.resume,
        stop_after=args.stop_after,
    )


def main_train(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``fianchetto train``; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        run_train(config_from_args(args), progress_stream=sys.stderr, log=sys.stdout)
    except (ValueError, OSError) as exc:
        print(f"fianchetto train: {exc}", file=sys.stderr)
        return 2
    return 0
