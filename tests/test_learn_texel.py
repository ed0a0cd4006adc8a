"""Texel tuning of the hand-crafted evaluation: the traced linear model is the
evaluation, and tuning lowers the loss."""
from __future__ import annotations

import json

import numpy as np
import pytest

from core_cy.core import hce_traces
from fianchetto import weights
from fianchetto.learn import texel
from fianchetto.learn.data import Dataset
from fianchetto.learn.selfplay import GameSettings, generate


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    path = tmp_path_factory.mktemp("texel") / "d.bin"
    generate(str(path), 3000, GameSettings(nodes=300, random_plies=8, tablebases=False), seed=21)
    data = Dataset([str(path)])
    return data.take(np.arange(len(data)))


def test_the_traced_model_is_the_evaluation(records):
    weights.reset()
    traces = texel.trace_records(records, lam=1.0)
    model = texel.Model(traces)
    core_eval = np.frombuffer(hce_traces(records.tobytes())["eval"], dtype=np.int16)
    predicted = model.evaluate(texel.table_vector())
    # The core truncates twice (taper, then the 1/8 scaling); the model does not.
    assert np.max(np.abs(predicted - core_eval)) < 2.0


def test_gradient_matches_finite_differences(records):
    weights.reset()
    model = texel.Model(texel.trace_records(records[:400], lam=0.5))
    w = texel.table_vector()
    _, d_eval = texel.loss_and_grad(model, w, 200.0)
    grad = model.gradient(w, d_eval)
    for i in np.argsort(-np.abs(grad))[:5]:
        step = np.zeros_like(w)
        step[i] = 0.5
        up = texel.loss_and_grad(model, w + step, 200.0)[0]
        down = texel.loss_and_grad(model, w - step, 200.0)[0]
        assert (up - down) / 1.0 == pytest.approx(grad[i], rel=0.05, abs=1e-9)


def test_tuning_lowers_the_loss_and_writes_a_loadable_table(records, tmp_path):
    weights.reset()
    model = texel.Model(texel.trace_records(records, lam=0.5))
    w0 = texel.table_vector()
    k = texel.fit_k(model, w0)
    tuned = texel.tune(model, w0, k, iterations=30, lr=1.0)
    assert texel.loss_and_grad(model, tuned, k)[0] < texel.loss_and_grad(model, w0, k)[0]
    path = tmp_path / "w.json"
    path.write_text(json.dumps(texel.vector_table(tuned)))
    try:
        weights.load(path)
    finally:
        weights.reset()
