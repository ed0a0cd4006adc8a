"""Soak: long-lived engine processes playing game after game (tools/soak.py).

The full soak (300 games at 1+0.01, then 100 at 10+0.1) is ``slow``; the default
run plays two games to keep the harness itself honest.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fianchetto.cli import engine_command

SOAK = Path(__file__).resolve().parents[1] / "tools" / "soak.py"


def run_soak(tmp_path: Path, games: int, tc: str, timeout: float) -> dict:
    report = tmp_path / f"soak-{tc}.json"
    done = subprocess.run(
        [sys.executable, str(SOAK), "--games", str(games), "--tc", tc,
         "--engine", " ".join(engine_command()), "--json", str(report)],
        capture_output=True, text=True, timeout=timeout,
    )
    print(done.stdout)
    tally = json.loads(report.read_text())
    assert tally["failures"] == [], done.stdout
    assert done.returncode == 0, done.stdout + done.stderr
    return tally


def assert_clean(tally: dict, games: int) -> None:
    assert tally["games"] == games
    for failure in ("crashes", "hangs", "illegal_moves", "illegal_pv", "time_forfeits"):
        assert tally[failure] == 0, (failure, tally["failures"])
    assert tally["plies"] > games * 10  # real games were played, not instant losses
    assert set(tally["rss_first_kb"]) == {"A", "B"}


def test_two_games_through_long_lived_processes(tmp_path):
    tally = run_soak(tmp_path, 2, "1+0.01", timeout=120)
    assert_clean(tally, 2)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmRSS from /proc")
def test_hash_memory_is_resident_from_the_start():
    """Found by the soak: the table was calloc'd, so the process grew by up to the
    Hash size during the first games. Now its pages are touched on allocation."""
    code = (
        "import core_cy.core as c\n"
        "def rss():\n"
        "    return int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0])\n"
        "before = rss(); s = c.Search(64, 1); print(rss() - before)\n"
    )
    grown_kb = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  check=True).stdout)
    assert grown_kb >= 60 * 1024


@pytest.mark.slow
def test_soak_300_games_at_1_plus_0_01(tmp_path):
    tally = run_soak(tmp_path, 300, "1+0.01", timeout=3 * 3600)
    assert_clean(tally, 300)
    assert tally["rss_growth"] <= 0.10


@pytest.mark.slow
def test_soak_100_games_at_10_plus_0_1(tmp_path):
    tally = run_soak(tmp_path, 100, "10+0.1", timeout=3 * 3600)
    assert_clean(tally, 100)
    assert tally["rss_growth"] <= 0.10
