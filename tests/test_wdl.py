"""Scores people can trust: the WDL model, its fit, normalised centipawns and
``UCI_ShowWDL`` in the engine's info lines."""
from __future__ import annotations

import doctest
import re
import shutil

import chess
import chess.engine
import numpy as np
import pytest

from fianchetto import wdl
from fianchetto.evaluation import default_network_path
from fianchetto.wdl import DEFAULT_MODEL, WdlModel, load_model, material_of_fen
from support.uci_pipe import UciPipe


def test_doctests():
    assert doctest.testmod(wdl).failed == 0


def test_material_counts_both_sides_in_pawns():
    assert material_of_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") == 78
    assert material_of_fen("8/8/4k3/8/8/4K3/4P3/8 w - - 0 1") == 1


@pytest.mark.parametrize("model", [DEFAULT_MODEL, WdlModel((120.0, 40.0, -10.0, 5.0), (50.0, 10.0)),
                                   WdlModel((120.0, 40.0), (50.0, 10.0), d=(-1.0, -3.0))])
def test_wdl_sums_to_1000_and_moves_with_the_score(model):
    previous = None
    for score in range(-2000, 2001, 50):
        w, d, l = model.wdl(score, 40)
        assert w + d + l == 1000 and min(w, d, l) >= 0
        if previous is not None:
            assert w >= previous[0] and l <= previous[2]
        previous = (w, d, l)
    for material in (17, 30, 58, 78):
        mid = model.midpoint(material)
        assert abs(model.to_cp(int(round(mid)), material) - 100) <= 1 and model.to_cp(0, material) == 0
        assert abs(model.wdl(int(round(mid)), material)[0] - 500) <= 3   # the midpoint wins half the time
        assert 500 < model.wdl(100_000, material)[0] == round(1000 * model.plateau(material))
    assert model.wdl(-37, 50) == model.wdl(37, 50)[::-1]            # symmetric


def test_the_plateau_holds_the_win_rate_of_a_large_score_below_certainty():
    """With little material an overwhelming score still draws now and then; without
    d the model is the plain logistic one (plateau 1, midpoint a)."""
    plain = WdlModel((100.0,), (50.0,))
    capped = WdlModel((100.0,), (50.0,), d=(1.0, -6.0))           # c rises with material
    assert plain.plateau(20) == 1.0 and plain.midpoint(20) == pytest.approx(100.0)
    assert capped.plateau(17) < capped.plateau(40) < capped.plateau(78) <= 1.0
    assert capped.midpoint(17) > 100.0                              # a lower plateau needs more score
    assert capped.wdl(2000, 17)[1] > 100 and plain.wdl(2000, 17)[1] == 0
    again = WdlModel.from_json(capped.to_json())
    assert again.d == capped.d and again.wdl(150, 25) == capped.wdl(150, 25)
    assert WdlModel.from_json('{"a": [100], "b": [50]}').d == ()    # older files: no plateau


def test_a_model_file_beside_a_network_is_its_model(tmp_path):
    net = tmp_path / "net.nnue"
    net.write_bytes(b"")
    model, problem = load_model(str(net))
    assert model is DEFAULT_MODEL and "no win/draw/loss model beside" in problem   # none beside it
    (tmp_path / "net.nnue.wdl.json").write_text(WdlModel((200.0,), (70.0,), "test").to_json())
    model, problem = load_model(str(net))
    assert model.a == (200.0,) and problem is None
    (tmp_path / "net.nnue.wdl.json").write_text("{not json")
    model, problem = load_model(str(net))
    assert model is DEFAULT_MODEL and "net.nnue.wdl.json refused" in problem   # not used, and says why
    (tmp_path / "net.nnue.wdl.json").unlink()
    model, problem = load_model(str(net))
    assert model is DEFAULT_MODEL and "no win/draw/loss model beside" in problem   # gone again
    assert load_model(None) == (DEFAULT_MODEL, None)
    for bad in ('{"a": [], "b": [1]}', '{"a": [1], "b": [1], "d": "x"}', '{"a": [1], "b": [1], "d": [NaN]}',
                '[1, 2]'):
        with pytest.raises(ValueError):
            WdlModel.from_json(bad)


def sampled_results(truth, x, material, rng):
    """Game results (0 loss, 1 draw, 2 win) drawn from the model `truth` for scores x."""
    from fianchetto.learn import wdlfit

    a, b, c, _mid = wdlfit.model_arrays(truth, material)
    win, loss = wdlfit.probabilities(x, a, b, c)
    u = rng.random(len(x))
    return np.where(u < win, 2, np.where(u < win + loss, 0, 1))


def test_the_fit_recovers_a_known_model():
    from fianchetto.learn import wdlfit

    rng = np.random.default_rng(5)
    truth = WdlModel((90.0, 80.0), (45.0, 20.0))
    material = rng.integers(17, 79, 40000)
    x = rng.normal(0, 250, 40000)
    y = sampled_results(truth, x, material, rng)
    model, nll = wdlfit.fit(x, material, y, degree=1, steps=3000, plateau_degree=-1)
    assert model.d == ()
    for m in (20, 40, 58, 78):
        fa, fb = model.a_b(m)
        ta, tb = truth.a_b(m)
        assert abs(fa - ta) < 0.08 * ta and abs(fb - tb) < 0.12 * tb, (m, fa, ta, fb, tb)
    assert nll < wdlfit.baseline_loss(y)


def test_the_fit_recovers_a_plateau():
    from fianchetto.learn import wdlfit

    rng = np.random.default_rng(6)
    truth = WdlModel((90.0, 80.0), (45.0, 20.0), d=(2.0, -5.0))     # c from about 0.6 to 0.99
    material = rng.integers(17, 79, 60000)
    x = rng.normal(0, 300, 60000)
    y = sampled_results(truth, x, material, rng)
    model, _nll = wdlfit.fit(x, material, y, degree=1, steps=3000, plateau_degree=1)
    for m in (17, 40, 78):
        assert abs(model.plateau(m) - truth.plateau(m)) < 0.05, (m, model.plateau(m), truth.plateau(m))
        assert abs(model.midpoint(m) - truth.midpoint(m)) < 0.1 * truth.midpoint(m)


def test_the_bucket_table_compares_predicted_and_observed_win_rates():
    from fianchetto.learn import wdlfit

    rng = np.random.default_rng(9)
    truth = WdlModel((100.0,), (50.0,))
    material = np.full(60000, 58)
    x = rng.normal(0, 200, 60000)
    y = sampled_results(truth, x, material, rng)
    rows = wdlfit.win_rate_buckets(truth, x, material, y)
    assert [centre for centre, *_ in rows] == list(range(-300, 301, 50))
    assert sum(count for _, count, _, _ in rows) < 60000                # the tails fall outside
    by_centre = {centre: (predicted, observed) for centre, _, predicted, observed in rows}
    assert 45 < by_centre[100][0] < 55                                  # +100 cp: about half wins
    assert all(abs(p - o) < 3 for p, o in by_centre.values())           # the true model fits
    wrong = WdlModel((60.0,), (50.0,))                                  # a model too optimistic
    assert max(abs(p - o) for _, _, p, o in wdlfit.win_rate_buckets(wrong, x, material, y)) > 10
    assert "largest gap" in wdlfit.bucket_table(rows)[-1]


def info_scores(lines):
    found = []
    for line in lines:
        m = re.search(r" score (cp|mate) (-?\d+)(?: wdl (\d+) (\d+) (\d+))?", line)
        if m and line.startswith("info") and " pv " in line:
            found.append((m.group(1), int(m.group(2)), tuple(int(g) for g in m.groups()[2:]) if m.group(3) else None))
    return found


def search_lines(options, position="startpos moves e2e4 e7e5 g1f3", depth=7):
    engine = UciPipe()
    try:
        engine.handshake()
        for name, value in options.items():
            engine.send(f"setoption name {name} value {value}")
        engine.sync()
        engine.send(f"position {position}")
        lines, _best, _ponder = engine.go(f"go depth {depth}")
        engine.quit()
    finally:
        engine.close()
    return lines


def test_uci_show_wdl_adds_wdl_to_every_scored_line():
    plain = info_scores(search_lines({}))
    shown = info_scores(search_lines({"UCI_ShowWDL": "true"}))
    assert plain and all(wdl is None for *_x, wdl in plain)
    assert shown and all(wdl is not None and sum(wdl) == 1000 for *_x, wdl in shown)
    assert [s[:2] for s in plain] == [s[:2] for s in shown]          # the scores are the same


def test_a_mate_has_an_exact_wdl():
    lines = search_lines({"UCI_ShowWDL": "true"}, position="fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", depth=5)
    mates = [s for s in info_scores(lines) if s[0] == "mate"]
    assert mates and all(wdl == (1000, 0, 0) for _kind, _v, wdl in mates)


def test_scores_are_normalised_by_the_network_s_model(tmp_path):
    network = default_network_path()
    if network is None:
        pytest.skip("no shipped network")
    one, two = tmp_path / "one.nnue", tmp_path / "two.nnue"
    for path, a in ((one, 100.0), (two, 200.0)):
        shutil.copy(network, path)
        path.with_name(path.name + ".wdl.json").write_text(WdlModel((a,), (60.0,), "test").to_json())
    raw = [v for kind, v, _ in info_scores(search_lines({"EvalFile": str(one)})) if kind == "cp"]
    half = [v for kind, v, _ in info_scores(search_lines({"EvalFile": str(two)})) if kind == "cp"]
    assert raw and len(raw) == len(half)
    assert any(abs(v) > 20 for v in raw)
    for r, h in zip(raw, half):
        assert abs(h - r / 2) <= 1, (r, h)


def test_wdl_fit_reports_its_fit_on_the_data_it_fitted(monkeypatch, capsys, tmp_path):
    """The command's whole path: fit, print the midpoints, then the calibration and
    the buckets of the same positions (every material band, small gaps)."""
    from fianchetto.learn import wdlfit

    rng = np.random.default_rng(11)
    truth = WdlModel((90.0, 80.0), (45.0, 20.0), d=(2.0, -5.0))
    material = rng.integers(17, 79, 30000)
    x = rng.normal(0, 250, 30000)
    y = sampled_results(truth, x, material, rng)
    monkeypatch.setattr(wdlfit, "samples", lambda paths: (x, material, y))
    out = tmp_path / "model.wdl.json"
    assert wdlfit.main_wdl_fit(["--data", "synthetic", "--degree", "1", "--plateau-degree", "1",
                                "--steps", "1500", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    bands = {line.split()[0] for line in text.splitlines() if re.match(r"\s*\d+-\d+\s", line)}
    assert bands == {"17-30", "31-45", "46-60", "61-78"}
    gap = float(re.search(r"largest gap: ([\d.]+)", text).group(1))
    assert gap < 4.0
    assert WdlModel.from_json(out.read_text()).d


def test_the_default_model_is_the_shipped_network_s():
    shipped = load_model(str(default_network_path()))[0]
    assert shipped is not DEFAULT_MODEL and shipped.d
    for pawns in (17, 30, 58, 78):
        assert shipped.midpoint(pawns) == pytest.approx(DEFAULT_MODEL.midpoint(pawns), abs=0.01)
        assert shipped.wdl(150, pawns) == DEFAULT_MODEL.wdl(150, pawns)


#: No sequence of moves mates: K v K, K+minor v K, bishops all on one colour.
DEAD_DRAWS = ["8/8/4k3/8/8/4K3/8/8 b - - 0 1",
              "8/8/4k3/8/8/3BK3/8/8 w - - 0 1",
              "8/5n2/4k3/8/8/4K3/8/8 w - - 0 1",
              "2b5/8/4k3/8/8/3BK3/8/8 w - - 0 1"]


@pytest.mark.parametrize("fen", DEAD_DRAWS)
def test_a_dead_drawn_root_has_an_exact_draw(fen):
    """As a drawn tablebase root: whatever is played, the game is drawn, so every
    line says 0 and wdl 0 1000 0 (not the model's guess for a level score)."""
    scores = info_scores(search_lines({"UCI_ShowWDL": "true"}, position=f"fen {fen}", depth=6))
    assert scores and all(score == ("cp", 0, (0, 1000, 0)) for score in scores)


def test_the_engine_api_reports_a_dead_draw_exactly():
    from fianchetto import Engine

    with Engine() as engine:
        info = engine.analyse(chess.Board(DEAD_DRAWS[1]), chess.engine.Limit(depth=6))
    assert info["score"].white() == chess.engine.Cp(0)
    assert info["wdl"].white() == chess.engine.Wdl(0, 1000, 0)
