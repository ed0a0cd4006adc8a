"""The workload of the profile-guided build: what setup.py runs with the
instrumented core between its two compilations (core_cy/profile_workload.py)."""
import subprocess
import sys
from pathlib import Path

from core_cy import dispatch, profile_workload
from fianchetto.benchmark import BENCH_FENS
from fianchetto.evaluation import default_network_path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARK_PY = ROOT / "src" / "fianchetto" / "benchmark.py"


def test_it_reads_the_bench_positions_without_importing_the_package():
    assert profile_workload.bench_fens(BENCHMARK_PY) == BENCH_FENS


def test_every_variant_this_cpu_runs_searches_the_same_tree():
    done = subprocess.run([sys.executable, "-m", "core_cy.profile_workload", str(default_network_path()),
                           str(BENCHMARK_PY), "4"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[1].strip() for line in lines] == dispatch.runnable_variants()
    counts = {line.rsplit(":", 1)[1] for line in lines}
    assert len(counts) == 1 and int(counts.pop().split()[0]) > 0


def test_it_explains_its_arguments():
    done = subprocess.run([sys.executable, "-m", "core_cy.profile_workload"], capture_output=True, text=True)
    assert done.returncode == 2 and "NETWORK BENCHMARK_PY" in done.stderr
