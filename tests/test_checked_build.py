"""The checked build: the core compiled with ``FIANCHETTO_DEBUG=1``.

Bounds and wraparound checks are on, the code is built ``-O0 -g``, and the core
aborts with a message if a position invariant breaks after any make/unmake
(key against a recomputed key, bitboards against the mailbox, one piece per
square, checkers, state stack) or a TT index leaves the table.

These tests build it from the source tree into a temporary folder and run,
under it, the random-position perft and key checks, short searches on every
bench position (whose node count must equal the optimised build's), and the
protocol fuzzer driving the real engine process.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fianchetto.cli import engine_command

ROOT = Path(__file__).resolve().parents[1]
#: Bench depth for the checked searches: every bench position, a few thousand nodes each.
CHECKED_BENCH_DEPTH = 5
#: Fuzzer examples under the checked build (the optimised run has its own).
CHECKED_FUZZ_EXAMPLES = 12


@pytest.fixture(scope="module")
def checked_tree(tmp_path_factory) -> Path:
    """A folder with the checked ``core_cy`` and the ``fianchetto`` package, for PYTHONPATH."""
    if not (ROOT / "setup.py").exists() or not (ROOT / "src" / "core_cy" / "core.pxi").exists():
        pytest.skip("the checked build needs the source tree (setup.py and src/core_cy)")
    tree = tmp_path_factory.mktemp("checked")
    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tree),
         "--build-temp", str(tree / "objects")],
        cwd=ROOT, env=dict(os.environ, FIANCHETTO_DEBUG="1"), capture_output=True, text=True, timeout=900,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    for module in (ROOT / "src" / "core_cy").glob("*.py"):   # the package and its variant loader
        shutil.copy(module, tree / "core_cy" / module.name)
    shutil.copytree(ROOT / "src" / "fianchetto", tree / "fianchetto")
    # The shipped network, where an installed package keeps it, so both builds
    # evaluate with it.
    shutil.copytree(ROOT / "networks", tree / "fianchetto" / "networks")
    return tree


def checked_env(tree: Path, **extra: str) -> dict:
    return dict(os.environ, PYTHONPATH=str(tree), FIANCHETTO_EXPECT_CHECKED="1", **extra)


def bench_nodes(command, env=None) -> int:
    done = subprocess.run(command + ["bench", str(CHECKED_BENCH_DEPTH)], capture_output=True, text=True,
                          env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return int(done.stdout.split("Nodes searched:")[1].split()[0])


def test_the_checked_core_is_the_one_imported(checked_tree):
    done = subprocess.run(
        [sys.executable, "-c", "import core_cy.core as c; print(c.CHECKED_BUILD, c.__file__)"],
        capture_output=True, text=True, env=checked_env(checked_tree), cwd=checked_tree, check=True,
    )
    flag, path = done.stdout.split()
    assert flag == "True" and Path(path).is_relative_to(checked_tree)


def test_the_optimised_core_is_not_checked():
    import core_cy.core as core

    assert core.CHECKED_BUILD is False


def test_bench_searches_give_the_same_nodes_under_the_checked_build(checked_tree):
    """Every bench position searched to a small depth with every check on: the
    search must not trip an invariant, and must visit exactly the same tree."""
    assert bench_nodes(engine_command(), checked_env(checked_tree)) == bench_nodes(engine_command())


def test_random_positions_perft_and_fuzzer_under_the_checked_build(checked_tree):
    tests = ["tests/test_random_positions.py", "tests/test_moves.py", "tests/test_uci_fuzz.py",
             "tests/test_nnue_core.py", "tests/test_engine_networks.py", "tests/test_deep_perft.py",
             "tests/test_weights.py"]
    run_under_checked_build(checked_tree, tests)


@pytest.mark.slow
def test_a_thousand_engines_come_and_go_under_the_checked_build(checked_tree):
    """Networks loaded, shared and freed by Engines in four threads, with every check on."""
    run_under_checked_build(checked_tree, ["tests/test_engine_networks.py"], "-m", "slow")


def run_under_checked_build(checked_tree: Path, tests, *options: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:warnings", *options,
         *tests],
        cwd=ROOT, capture_output=True, text=True, timeout=2400,
        env=checked_env(checked_tree, FIANCHETTO_FUZZ_EXAMPLES=str(CHECKED_FUZZ_EXAMPLES)),
    )
    failures = done.stdout.find("= FAILURES =")
    assert done.returncode == 0, done.stdout[max(0, failures):][:8000] + done.stderr[-3000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
