"""bench/nps_vs_reference.py: the nodes/second guard against a saved reference."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "nps_vs_reference.py"
spec = importlib.util.spec_from_file_location("nps_vs_reference", SCRIPT)
guard = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = guard  # dataclasses look their module up there
spec.loader.exec_module(guard)


def test_noise_is_the_half_range_around_the_median():
    assert guard.Series([100, 110, 90], 5).noise == pytest.approx(0.1)
    assert guard.Series([100], 5).noise == 0.0


def test_a_slowdown_beyond_the_noise_is_a_regression():
    steady = guard.Series([1000, 1010, 990], 5)        # +-1%
    assert guard.compare(steady, guard.Series([900, 905, 895], 5), margin=0.02).regression
    assert not guard.compare(steady, guard.Series([980, 985, 975], 5), margin=0.02).regression
    noisy = guard.Series([900, 1000, 1100], 5)         # +-10%: the same -10% is noise
    assert not guard.compare(noisy, guard.Series([900, 905, 895], 5), margin=0.02).regression
    assert not guard.compare(steady, guard.Series([1200], 5), margin=0.0).regression


def test_parses_our_bench_and_stockfishs():
    ours = "Total time (ms) : 1700\nNodes searched: 2599697\nNodes/second: 1529233\n"
    theirs = "===========================\nTotal time (ms) : 2500\nNodes searched  : 2276645\nNodes/second    : 910658\n"
    assert guard.parse_bench(ours) == (2599697, 1529233)
    assert guard.parse_bench(theirs) == (2276645, 910658)
    with pytest.raises(ValueError):
        guard.parse_bench("bench crashed\n")


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_save_then_compare_and_a_changed_search_is_flagged(tmp_path):
    reference = tmp_path / "reference.json"
    saved = run("--save", "--runs", "1", "--depth", "5", "--reference", str(reference))
    assert saved.returncode == 0, saved.stdout + saved.stderr
    record = json.loads(reference.read_text())
    assert record["depth"] == 5 and record["fianchetto"]["nodes"] > 0

    compared = run("--runs", "2", "--reference", str(reference))
    assert compared.returncode in (0, 1), compared.stdout  # speed is the machine's business
    assert "nodes/second against the reference" in compared.stdout

    record["fianchetto"]["nodes"] += 1
    reference.write_text(json.dumps(record))
    changed = run("--runs", "1", "--reference", str(reference))
    assert changed.returncode == 2 and "the search changed" in changed.stdout


def test_a_missing_reference_is_reported(tmp_path):
    missing = run("--reference", str(tmp_path / "none.json"))
    assert missing.returncode == 3 and "--save" in missing.stdout
