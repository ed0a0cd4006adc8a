"""tools/gauntlet.py sets only the options each engine declares and logs one row per opponent."""
from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

import pytest

import gauntlet
from support.stopping import fake_fastchess, stop_while_playing

ROOT = Path(__file__).resolve().parents[1]


def stub_engine(folder: Path, options: list) -> str:
    """An executable that answers ``uci`` with the given option names."""
    lines = [f"echo 'option name {name} type check default false'" for name in options]
    script = folder / "engine.sh"
    script.write_text("#!/bin/sh\nread line\necho 'id name stub'\n" + "\n".join(lines) + "\necho uciok\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_an_option_the_engine_does_not_declare_is_not_sent(tmp_path):
    engine = stub_engine(tmp_path, ["Hash", "Ponder", "Book File"])
    assert gauntlet.declared_options(engine) == ["Hash", "Ponder", "Book File"]
    assert gauntlet.fair_settings(gauntlet.declared_options(engine)) == ["option.Hash=16", "option.Ponder=false"]


def test_the_command_gives_each_engine_its_own_fair_options(tmp_path):
    ours = stub_engine(tmp_path, ["Threads", "Hash", "OwnBook"])
    theirs_dir = tmp_path / "other"
    theirs_dir.mkdir()
    theirs = stub_engine(theirs_dir, ["Hash"])
    args = argparse.Namespace(fastchess="fastchess", tc="10+0.1", openings="o.epd", seed=3, games=101,
                              concurrency=2)
    settings = gauntlet.fair_settings(gauntlet.declared_options(ours))
    command = gauntlet.match_command(args, ours, settings, "toga", theirs, Path("toga.pgn"))
    second = command.index("-engine", 2)
    assert command[1:second] == ["-engine", f"cmd={ours}", "name=fianchetto", "option.Threads=1",
                                 "option.Hash=16", "option.OwnBook=false"]
    assert command[second:command.index("-each")] == ["-engine", f"cmd={theirs}", "name=toga", "option.Hash=16"]
    assert command[command.index("-rounds") + 1] == "51"


def test_the_row_gives_the_score_from_fianchettos_side():
    summary = {"games": "100 40 20 40", "elo": "34.86 40.10"}
    row = gauntlet.row("c" * 40, "glaurung", "10+0.1", gauntlet.outcome_of(summary))
    assert "| glaurung | 10+0.1 | 100 | 40-40-20 | 60.0% | 34.86 ± 40.10 |" in row
    assert "| glaurung | 10+0.1 | 0 | - | - | - |" in gauntlet.row("c" * 40, "glaurung", "10+0.1", None)


def test_an_opponent_must_be_name_equals_command():
    assert gauntlet.parse_opponents(["a=/x/y", "b=/z"]) == {"a": "/x/y", "b": "/z"}
    with pytest.raises(ValueError):
        gauntlet.parse_opponents(["/usr/games/toga2"])


def test_a_built_release_is_named_alone_and_gets_its_settings(tmp_path, monkeypatch):
    import opponents

    monkeypatch.setattr(opponents, "CACHE", tmp_path)
    with pytest.raises(ValueError, match="not built"):
        gauntlet.parse_opponents(["ethereal13"])
    (tmp_path / "ethereal13").write_text("")
    assert gauntlet.parse_opponents(["ethereal13"]) == {"ethereal13": str(tmp_path / "ethereal13")}
    assert gauntlet.release_settings("ethereal13") == ["option.MoveOverhead=50"]
    assert gauntlet.release_settings("toga") == []


def test_the_row_ends_with_the_pentanomial_counts():
    summary = {"games": "200 90 50 60", "elo": "52.5 40.1", "ptnml": "5, 20, 40, 25, 10"}
    text = gauntlet.row("c" * 40, "ethereal12", "10+0.1", gauntlet.outcome_of(summary), summary["ptnml"])
    assert text.endswith("| 52.5 ± 40.1 (pentanomial 5, 20, 40, 25, 10) |")


def test_the_opponents_bench_reader_takes_either_ethereal_format(tmp_path):
    import opponents

    for output, nodes in (("Time  : 3725ms\nNodes : 5132900\nNPS   : 1377959\n", 5132900),
                          ("OVERALL:                  3721244 nodes  2002822 nps\n", 3721244)):
        script = tmp_path / "bench.sh"
        script.write_text("#!/bin/sh\ncat <<'END'\n" + output + "END\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        assert opponents.bench_nodes(script) == nodes


@pytest.mark.slow
def test_ethereal_twelve_builds_from_a_local_clone_with_its_bench(tmp_path, monkeypatch):
    """Needs a clone of Ethereal's repository in FIANCHETTO_ETHEREAL_SOURCE (or its URL reachable)."""
    import os
    import shutil

    import opponents

    source = os.environ.get("FIANCHETTO_ETHEREAL_SOURCE")
    if not source or shutil.which("make") is None:
        pytest.skip("set FIANCHETTO_ETHEREAL_SOURCE to a clone of Ethereal's repository")
    monkeypatch.setattr(opponents, "CACHE", tmp_path)
    binary = opponents.build("ethereal12", source)
    assert opponents.bench_nodes(binary) == opponents.RELEASES["ethereal12"].bench_nodes


STOPPED_GAUNTLET = """\
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import gauntlet
gauntlet.build = lambda commit: Path("engine")
gauntlet.declared_options = lambda command: []
sys.exit(gauntlet.main(["HEAD", "--opponent", "stub=stub", "--fastchess", sys.argv[2]]))
"""


def test_a_gauntlet_stopped_by_sigterm_ends_its_fastchess(tmp_path):
    driver = tmp_path / "driver.py"
    driver.write_text(STOPPED_GAUNTLET)
    command = [sys.executable, str(driver), str(ROOT / "tools"), str(fake_fastchess(tmp_path))]
    stop = stop_while_playing(command, tmp_path, playing=1,
                              env=dict(os.environ, FIANCHETTO_CACHE=str(tmp_path / "cache")))
    assert stop.status == 130, stop.stderr
    assert "gauntlet: stopped" in stop.stderr
    assert len(stop.started) == 1 and not stop.left
