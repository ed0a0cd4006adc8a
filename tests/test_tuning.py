"""The search's tunable constants: one table, compiled in by default, UCI options in
the tune build, and OpenBench's SPSA input format."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import core_cy.core as core
from core_cy import tunables
from support.cli import run_cli
from support.stopping import fake_fastchess, stop_while_playing
from test_bench_signature import SIGNATURE_DEPTH, SIGNATURE_NODES

ROOT = Path(__file__).resolve().parents[1]


def test_the_table_is_sound_and_large_enough():
    names = [t.name for t in tunables.TUNABLES]
    assert len(names) >= 25 and len(set(n.lower() for n in names)) == len(names)
    for t in tunables.TUNABLES:
        assert t.minimum <= t.value <= t.maximum, t
        assert t.c_end > 0 and 0 < t.r_end < 1, t


def test_the_generated_files_follow_the_table():
    if not (ROOT / "tools" / "gen_tunables.py").exists():
        pytest.skip("no source tree")
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_tunables.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_default_build_has_the_table_s_values_compiled_in():
    assert core.TUNE_BUILD is False and core.build_info()["tune"] is False
    assert core.tunable_values() == [t.value for t in tunables.TUNABLES]
    with pytest.raises(ValueError, match="FIANCHETTO_TUNE"):
        core.set_tunable(0, 1)


def parse_openbench(text: str):
    """As OpenBench reads an SPSA input: name, int, value, min, max, c_end, r_end."""
    rows = []
    for line in text.strip().splitlines():
        fields = [f.strip() for f in line.split(",")]
        assert len(fields) == 7, line
        name, kind, value, low, high, c_end, r_end = fields
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and kind == "int", line
        value, low, high, c_end, r_end = int(value), int(low), int(high), float(c_end), float(r_end)
        assert low <= value <= high and c_end > 0 and r_end > 0, line
        rows.append((name, value))
    return rows


def test_tune_params_prints_openbench_s_spsa_input():
    done = run_cli(["tune-params", "--openbench"], timeout=60)
    assert done.returncode == 0, done.stderr
    rows = parse_openbench(done.stdout)
    assert rows == [(t.name, t.value) for t in tunables.TUNABLES]
    as_json = run_cli(["tune-params", "--json"], timeout=60)
    assert '"name": "RFP_MARGIN"' in as_json.stdout


def test_the_default_build_declares_no_tunable_option():
    done = run_cli([], input_text="uci\nquit\n", timeout=60)
    assert "option name RFP_MARGIN" not in done.stdout
    assert "option name Hash" in done.stdout


# --- the tune build -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def tune_tree(tmp_path_factory) -> Path:
    """The core built with FIANCHETTO_TUNE=1 beside the package, for PYTHONPATH: the
    baseline variant in one pass without a profile, for time (neither changes a
    search's nodes)."""
    if not (ROOT / "setup.py").exists():
        pytest.skip("the tune build needs the source tree")
    tree = tmp_path_factory.mktemp("tune")
    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tree), "--build-temp",
         str(tree / "objects")],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
        env=dict(os.environ, FIANCHETTO_TUNE="1", FIANCHETTO_VARIANTS="baseline", FIANCHETTO_PGO="0"),
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    for module in (ROOT / "src" / "core_cy").glob("*.py"):
        shutil.copy(module, tree / "core_cy" / module.name)
    shutil.copytree(ROOT / "src" / "fianchetto", tree / "fianchetto")
    shutil.copytree(ROOT / "networks", tree / "fianchetto" / "networks")
    return tree


def in_tree(tree: Path, args):
    return subprocess.run([sys.executable, "-m", "fianchetto", *args], capture_output=True,
                          text=True, timeout=300, cwd=tree, env=dict(os.environ, PYTHONPATH=str(tree)))


def search_nodes(tree: Path, options, position: str, depth: int = 9):
    """(nodes of the last iteration, every output line) of one search by the tune
    build's engine after `options` (setoption lines), waiting for its bestmove."""
    engine = subprocess.Popen([sys.executable, "-m", "fianchetto"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, cwd=tree, env=dict(os.environ, PYTHONPATH=str(tree)))
    try:
        engine.stdin.write("uci\n" + "".join(options) + f"isready\nposition fen {position}\ngo depth {depth}\n")
        engine.stdin.flush()
        lines = []
        for line in engine.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("bestmove"):
                break
        engine.stdin.write("quit\n")
        engine.stdin.flush()
        engine.wait(timeout=60)
    finally:
        engine.kill()
    nodes = [int(m) for m in re.findall(r"^info .*?nodes (\d+)", "\n".join(lines), re.M)]
    return nodes[-1], lines


def test_the_tune_build_with_default_values_gives_the_bench_signature(tune_tree):
    done = in_tree(tune_tree, ["bench", str(SIGNATURE_DEPTH)])
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split("Nodes searched:")[1].split()[0]) == SIGNATURE_NODES


def test_the_tune_build_s_options_set_the_search_s_constants(tune_tree):
    fen = "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16"
    base, lines = search_nodes(tune_tree, [], fen)
    rfp = tunables.by_name("RFP_MARGIN").value
    assert f"option name RFP_MARGIN type spin default {rfp} min 40 max 250" in lines
    drop = tunables.by_name("TM_SCORE_DROP_SCALE_CP").value
    assert any(line.startswith(f"option name TM_SCORE_DROP_SCALE_CP type spin default {drop} ") for line in lines)
    same, _ = search_nodes(tune_tree, [f"setoption name RFP_MARGIN value {rfp}\n"], fen)
    margin, _ = search_nodes(tune_tree, ["setoption name RFP_MARGIN value 40\n"], fen)
    lmr, _ = search_nodes(tune_tree, ["setoption name LMR_DIVISOR_X100 value 150\n"], fen)
    assert same == base and margin != base and lmr != base
    bad = ["setoption name RFP_MARGIN value 40\n", "setoption name RFP_MARGIN value 9999\n",
           "setoption name RFP_MARGIN value abc\n"]
    kept, lines = search_nodes(tune_tree, bad, fen)
    assert "info string option RFP_MARGIN value 9999 out of range 40..250" in lines
    assert "info string option RFP_MARGIN takes an integer, not 'abc'" in lines
    assert kept == margin           # both refused: the last good value (40) stays


# --- tools/spsa.py: OpenBench's SPSA on this machine ----------------------------------------


@pytest.fixture()
def spsa():
    if not (ROOT / "tools" / "spsa.py").exists():
        pytest.skip("no source tree")
    import spsa as module

    return module


def test_the_schedule_ends_at_the_table_s_step_and_rate(spsa):
    row = tunables.by_name("RFP_MARGIN")
    iterations = 2000
    sched = spsa.schedule(row, iterations)
    last = iterations - 1
    c_last = sched["c"] / (last + 1) ** spsa.GAMMA
    a_last = sched["a"] / (sched["A"] + last + 1) ** spsa.ALPHA
    assert c_last == pytest.approx(row.c_end)
    assert a_last / c_last ** 2 == pytest.approx(row.r_end)
    assert sched["c"] / 1 ** spsa.GAMMA > c_last          # bigger steps first


def make_state(spsa, tmp_path, names="RFP_MARGIN,NMP_EVAL_DIVISOR"):
    import argparse

    args = argparse.Namespace(params=names, games=400, pairs=2, commit="HEAD", tc="5+0.05",
                              openings=str(tmp_path / "o.epd"), seed=3)
    return spsa.new_state(args)


def test_a_step_follows_the_winner_and_stays_in_range(spsa, tmp_path):
    import random

    state = make_state(spsa, tmp_path)
    assert state["iterations"] == 100 and set(state["theta"]) == {"RFP_MARGIN", "NMP_EVAL_DIVISOR"}
    table = spsa.tunables_of(state["commit"])
    moves = spsa.perturbed(state, 0, random.Random(1), table)
    for name, move in moves.items():
        row = tunables.by_name(name)
        assert move["plus"] - move["minus"] == pytest.approx(2 * move["c_k"] * move["d"], abs=1)
        assert row.minimum <= min(move["plus"], move["minus"]) <= max(move["plus"], move["minus"]) <= row.maximum
    before = dict(state["theta"])
    spsa.step(state, 0, moves, wins=3, losses=0, table=table)   # the plus side won
    for name, move in moves.items():
        assert (state["theta"][name] - before[name]) * move["d"] > 0
    spsa.step(state, 0, moves, wins=10 ** 6, losses=0, table=table)   # a huge step is clipped
    for name in moves:
        row = tunables.by_name(name)
        assert row.minimum <= state["theta"][name] <= row.maximum


def test_the_played_commit_s_ranges_clip_the_steps(spsa, tmp_path):
    """The ranges are the tuned engine's, which may differ from this checkout's."""
    import random

    state = make_state(spsa, tmp_path, names="RFP_MARGIN")
    row = tunables.by_name("RFP_MARGIN")
    narrow = {"RFP_MARGIN": row._replace(minimum=row.value - 1, maximum=row.value + 1)}
    moves = spsa.perturbed(state, 0, random.Random(1), narrow)
    assert {moves["RFP_MARGIN"]["plus"], moves["RFP_MARGIN"]["minus"]} == {row.value - 1, row.value + 1}
    spsa.step(state, 0, moves, wins=10 ** 6, losses=0, table=narrow)
    assert row.value - 1 <= state["theta"]["RFP_MARGIN"] <= row.value + 1


def test_the_state_file_round_trips_and_reports(spsa, tmp_path):
    state = make_state(spsa, tmp_path)
    path = tmp_path / "spsa-state.json"
    spsa.save(path, state)
    assert spsa.load(path) == state
    table = spsa.report(path)
    assert "RFP_MARGIN" in table and "iteration 0/100" in table
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "spsa.py"), "--state", str(path), "start"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "exists" in done.stderr


def test_a_tune_moves_to_another_engine_keeping_theta(spsa, tmp_path):
    state = make_state(spsa, tmp_path)
    head = state["commit"]
    state["commit"], state["iteration"] = "0" * 40, 37     # as if started on an older engine
    state["theta"]["RFP_MARGIN"] = 131.5
    spsa.move(state, "HEAD")
    assert state["commit"] == head and state["theta"]["RFP_MARGIN"] == 131.5 and state["iteration"] == 37
    assert state["moves"] == [{"iteration": 37, "from": "0" * 40, "to": head}]
    with pytest.raises(ValueError, match="already"):
        spsa.move(state, "HEAD")
    path = tmp_path / "spsa-state.json"
    spsa.save(path, state)
    assert "until iteration 37" in spsa.report(path)


def test_a_tune_does_not_move_to_an_engine_that_cannot_play_it(spsa, tmp_path):
    state = make_state(spsa, tmp_path)
    state["commit"] = "0" * 40
    state["theta"]["NOT_A_TUNABLE"] = 1.0
    with pytest.raises(ValueError, match="NOT_A_TUNABLE"):
        spsa.move(state, "HEAD")
    del state["theta"]["NOT_A_TUNABLE"]
    state["theta"]["RFP_MARGIN"] = tunables.by_name("RFP_MARGIN").maximum + 1.0
    with pytest.raises(ValueError, match="RFP_MARGIN"):
        spsa.move(state, "HEAD")
    assert state["commit"] == "0" * 40 and "moves" not in state


def test_a_rescaled_tune_steps_further_from_then_on(spsa, tmp_path):
    import random
    state = make_state(spsa, tmp_path, names="RFP_MARGIN")
    table = spsa.tunables_of(state["commit"])
    moves = spsa.perturbed(state, 40, random.Random(1), table)
    before = dict(state, theta=dict(state["theta"]))
    spsa.step(before, 40, moves, wins=2, losses=0, table=table)
    state["iteration"] = 40
    spsa.rescale(state, 3)
    spsa.step(state, 40, moves, wins=2, losses=0, table=table)
    start = tunables.by_name("RFP_MARGIN").value
    assert state["theta"]["RFP_MARGIN"] - start == pytest.approx(3 * (before["theta"]["RFP_MARGIN"] - start))
    assert state["rescales"] == [{"iteration": 40, "factor": 3}]
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            spsa.rescale(state, bad)
    path = tmp_path / "spsa-state.json"
    spsa.save(path, state)
    assert "learning rates x3 from iteration 40" in spsa.report(path)
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "spsa.py"), "--state", str(path), "rescale", "-2"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "positive" in done.stderr and spsa.load(path) == state


def test_landing_a_tune_writes_rounded_theta_into_the_table(spsa, tmp_path):
    source = tmp_path / "tunables.py"
    original = (ROOT / "src" / "core_cy" / "tunables.py").read_text()
    source.write_text(original)
    state = make_state(spsa, tmp_path)            # RFP_MARGIN and NMP_EVAL_DIVISOR
    state["theta"]["RFP_MARGIN"] = 131.6
    state["theta"]["NMP_EVAL_DIVISOR"] = 10 ** 6  # beyond the row's range: its maximum
    changes = spsa.land(state, source)
    namespace: dict = {}
    exec(source.read_text(), namespace)
    landed = {row.name: row for row in namespace["TUNABLES"]}
    assert landed["RFP_MARGIN"].value == 132
    assert landed["NMP_EVAL_DIVISOR"].value == tunables.by_name("NMP_EVAL_DIVISOR").maximum
    assert [c[0] for c in changes] == ["RFP_MARGIN", "NMP_EVAL_DIVISOR"]
    others = [r for r in tunables.TUNABLES if r.name not in state["theta"]]
    assert all(landed[r.name] == r for r in others)
    assert len(source.read_text().splitlines()) == len(original.splitlines())
    state["theta"]["NOT_A_ROW"] = 1.0
    state["theta"]["RFP_MARGIN"] = 140.0
    before = source.read_text()
    with pytest.raises(ValueError, match="NOT_A_ROW"):
        spsa.land(state, source)
    assert source.read_text() == before          # all or nothing


def fake_games(spsa, monkeypatch, play):
    """The run's games replaced by `play(moves, k, worker) -> (wins, losses)` (4 games
    an iteration, the rest drawn); no engine is built."""
    monkeypatch.setattr(spsa, "build_tune", lambda commit: Path("engine"))

    def play_iteration(state, exe, moves, k, fastchess, worker, **_):
        wins, losses = play(moves, k, worker)
        return {"games": 4, "wins": wins, "losses": losses, "draws": 4 - wins - losses}

    monkeypatch.setattr(spsa, "play_iteration", play_iteration)


def test_two_workers_play_iterations_at_once_and_follow_the_winner(spsa, tmp_path, monkeypatch):
    """A landscape where the larger RFP_MARGIN always wins: both workers play (the
    first two iterations meet at a barrier), every iteration is played once, and
    theta climbs."""
    import threading

    path = tmp_path / "spsa-state.json"
    spsa.save(path, make_state(spsa, tmp_path, names="RFP_MARGIN"))
    barrier = threading.Barrier(2, timeout=30)
    played, workers = [], set()

    def play(moves, k, worker):
        if k < 2:
            barrier.wait()                      # broken (an error) unless two play at once
        played.append(k)
        workers.add(worker)
        move = moves["RFP_MARGIN"]
        return (3, 0) if move["plus"] > move["minus"] else (0, 3)

    fake_games(spsa, monkeypatch, play)
    assert spsa.run(path, iterations=12, hours=None, fastchess="fastchess", concurrency=2) == 0
    state = spsa.load(path)
    assert sorted(played) == list(range(12)) and workers == {0, 1}
    assert state["iteration"] == 12 and state["games"] == 48 and state["wins"] + state["losses"] == 36
    assert state["theta"]["RFP_MARGIN"] > tunables.by_name("RFP_MARGIN").value
    assert state["path"][-1][0] == 10            # sampled every PATH_EVERY iterations
    spsa.run(path, iterations=3, hours=None, fastchess="fastchess", concurrency=2)
    assert sorted(played) == list(range(15)) and spsa.load(path)["iteration"] == 15


def test_a_failed_iteration_ends_the_run_keeping_the_finished_ones(spsa, tmp_path, monkeypatch):
    path = tmp_path / "spsa-state.json"
    spsa.save(path, make_state(spsa, tmp_path, names="RFP_MARGIN"))

    def play(moves, k, worker):
        if k == 3:
            raise RuntimeError("fastchess failed (exit 1)")
        return 1, 0

    fake_games(spsa, monkeypatch, play)
    with pytest.raises(RuntimeError, match="fastchess failed"):
        spsa.run(path, iterations=None, hours=None, fastchess="fastchess", concurrency=1)
    state = spsa.load(path)
    assert state["iteration"] == 3 and state["games"] == 12     # 0, 1 and 2; nothing after the failure


STOPPED_RUN = """\
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import spsa
spsa.build_tune = lambda commit: Path("engine")
sys.exit(spsa.main(["--state", sys.argv[2], "run", "--fastchess", sys.argv[3], "--concurrency", "2"]))
"""


def test_a_tune_stopped_by_sigterm_ends_its_fastchess_and_keeps_its_state(spsa, tmp_path):
    """TERM to `spsa.py run` while both workers' fastchess are playing: the run ends
    them (no game goes on behind it), counts nothing of the iterations in flight and
    says how to go on."""
    path = tmp_path / "spsa-state.json"
    spsa.save(path, make_state(spsa, tmp_path, names="RFP_MARGIN"))
    before = path.read_text()
    driver = tmp_path / "driver.py"
    driver.write_text(STOPPED_RUN)
    command = [sys.executable, str(driver), str(ROOT / "tools"), str(path), str(fake_fastchess(tmp_path))]
    stop = stop_while_playing(command, tmp_path, playing=2,
                              env=dict(os.environ, FIANCHETTO_CACHE=str(tmp_path / "cache")))
    assert stop.status == 130, stop.stderr
    assert "stopped at iteration 0" in stop.stderr
    assert len(stop.started) == 2 and not stop.left
    assert path.read_text() == before
