"""tools/gauntlet.py sets only the options each engine declares and logs one row per opponent."""
from __future__ import annotations

import argparse
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import gauntlet  # noqa: E402


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
