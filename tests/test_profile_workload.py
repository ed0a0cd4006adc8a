"""The workload of the profile-guided build: what the build runs with the
instrumented core between its two compilations (build_support/profile_workload.py)."""
import json
import subprocess
import sys

from core_cy import dispatch
from fianchetto.benchmark import BENCH_FENS
from fianchetto.evaluation import default_network_path
from support.source_tree import ROOT
from build_support import profile_workload

BENCHMARK_PY = ROOT / "src" / "fianchetto" / "benchmark.py"


def test_it_reads_the_bench_positions_without_importing_the_package():
    assert profile_workload.bench_fens(BENCHMARK_PY) == BENCH_FENS


def test_every_variant_this_cpu_runs_searches_the_same_tree(tmp_path):
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-m", "build_support.profile_workload", str(default_network_path()),
                           str(BENCHMARK_PY), "4", "--report", str(report)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    ran = json.loads(report.read_text())["variants"]
    assert list(ran) == dispatch.runnable_variants()
    assert len(set(ran.values())) == 1 and min(ran.values()) > 0
    assert len(done.stdout.splitlines()) == len(ran)


def test_it_explains_its_arguments():
    done = subprocess.run([sys.executable, "-m", "build_support.profile_workload"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2 and "NETWORK BENCHMARK_PY" in done.stderr
