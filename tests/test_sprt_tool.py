"""tools/sprt.py reads fastchess's summary into the test log's row."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sprt
from support.stopping import fake_fastchess, stop_while_playing

ROOT = Path(__file__).resolve().parents[1]

SUMMARY = """\
Results of test vs base (5+0.05, 1t, 16MB, openings.epd):
Elo: 96.19 +/- 32.90, nElo: 121.35 +/- 39.32
LOS: 100.00 %, DrawRatio: 35.33 %, PairsRatio: 3.41
Games: 300, Wins: 146, Losses: 65, Draws: 89, Points: 190.5 (63.50 %)
Ptnml(0-2): [7, 15, 53, 40, 35], WL/DD Ratio: 2.12
LLR: 2.55 (86.5%) (-2.94, 2.94) [0.00, 10.00]
"""


LOG = """\
# Test log

Prose.

| date | change | base |
|---|---|---|
| 2026-11-23 | first | `aaaa` |
| 2026-11-24 | second | `bbbb` |

Notes on the rows.

## Paused candidates

| patch | change |
|---|---|
| `x.patch` | an idea |
"""


def test_a_row_joins_the_end_of_the_log_table_not_the_end_of_the_file(tmp_path):
    log = tmp_path / "sprt.md"
    log.write_text(LOG, encoding="utf-8")
    sprt.add_rows(log, ["| 2026-12-04 | third | `cccc` |", "| 2026-12-04 | fourth | `dddd` |"])
    lines = log.read_text(encoding="utf-8").splitlines()
    second = lines.index("| 2026-11-24 | second | `bbbb` |")
    assert lines[second + 1:second + 4] == ["| 2026-12-04 | third | `cccc` |", "| 2026-12-04 | fourth | `dddd` |", ""]
    assert lines[-1] == "| `x.patch` | an idea |"
    fresh = tmp_path / "new.md"                 # no table yet: the rows start the file
    sprt.add_rows(fresh, ["| 2026-12-04 | only | `eeee` |"])
    assert fresh.read_text(encoding="utf-8") == "| 2026-12-04 | only | `eeee` |\n"


def test_the_logistic_elo_is_read_not_the_normalised_one():
    found = sprt.parse_summary("Elo: 1.00 +/- 9.00, nElo: 2.00 +/- 9.00\n" + SUMMARY)
    assert found["elo"] == "96.19 32.90"
    assert found["llr"] == "2.55"
    assert found["games"] == "300 146 65 89"


def test_the_row_gives_wins_draws_losses_and_the_verdict():
    args = argparse.Namespace(title="a change", tc="5+0.05", elo0=0.0, elo1=10.0, no_sprt=False,
                              base_option=[], test_option=["Use NNUE=false"])
    row = sprt.log_row(args, "a" * 40, "b" * 40, sprt.parse_summary(SUMMARY))
    assert "| 146-89-65 |" in row and "96.19 ± 32.90" in row and "| inconclusive |" in row
    assert "| a change (pentanomial 7, 15, 53, 40, 35) |" in row
    assert sprt.verdict(2.95) == "H1 accepted (pass)" and sprt.verdict(-3.0) == "H0 accepted (fail)"


def test_a_test_stopped_before_any_game_ended_still_logs_a_row():
    args = argparse.Namespace(title="a stopped change", tc="5+0.05", elo0=0.0, elo1=5.0, no_sprt=False,
                              base_option=[], test_option=[])
    row = sprt.log_row(args, "a" * 40, "b" * 40, sprt.parse_summary("Started game 1 of 2000\n"))
    assert "| [0.0, 5.0] | 0 | 0-0-0 | ? | ? | no result |" in row


def test_each_engine_gets_one_thread_and_16_mb_unless_its_options_say_otherwise():
    args = argparse.Namespace(tc="8+0.08", openings="o.epd", seed=1, rounds=10, concurrency=1, no_sprt=True,
                              base_option=["Threads=1"], test_option=["Threads=2", "Use NNUE=false"])
    command = sprt.fastchess_command("fastchess", Path("/b"), Path("/t"), args, Path("g.pgn"))
    test_engine = command[command.index("name=test") + 1 : command.index("name=base") - 2]
    base_engine = command[command.index("name=base") + 1 : command.index("-each")]
    assert test_engine == ["option.Hash=16", "option.Threads=2", "option.Use NNUE=false"]
    assert base_engine == ["option.Hash=16", "option.Threads=1"]
    each = command[command.index("-each") : command.index("-openings")]
    assert not any(part.startswith("option.") for part in each)


def test_fastchess_saves_its_state_every_game_pair():
    args = argparse.Namespace(tc="8+0.08", openings="o.epd", seed=1, rounds=10, concurrency=2, no_sprt=False,
                              elo0=0.0, elo1=5.0, base_option=[], test_option=[])
    command = sprt.fastchess_command("fastchess", Path("/b"), Path("/t"), args, Path("g.pgn"))
    assert command[command.index("-autosaveinterval") + 1] == "2"


def test_a_new_test_plays_the_shuffled_openings_from_the_first():
    args = argparse.Namespace(tc="8+0.08", openings="o.epd", seed=1, rounds=10, concurrency=2, no_sprt=True,
                              base_option=[], test_option=[])
    command = sprt.fastchess_command("fastchess", Path("/b"), Path("/t"), args, Path("g.pgn"))
    assert command[command.index("-openings"):command.index("-srand")] == [
        "-openings", "file=o.epd", "format=epd", "order=random"]


def test_a_resumed_test_continues_fastchess_state_and_logs_the_saved_row(tmp_path, monkeypatch):
    log = tmp_path / "sprt.md"
    args = argparse.Namespace(title="a saved change", tc="3+0.03", elo0=0.0, elo1=10.0, no_sprt=False,
                              base_option=[], test_option=["Hash=32"], log=str(log))
    sprt.save_run(tmp_path, args, "c" * 40, "d" * 40)
    played = {}

    def fake_play(command, folder):
        played.update(command=command, folder=folder)
        return sprt.parse_summary(SUMMARY)

    monkeypatch.setattr(sprt, "play", fake_play)
    assert sprt.resume(tmp_path, "fastchess") == 0
    assert played == {"command": ["fastchess", "-config", "file=config.json"], "folder": tmp_path}
    row = log.read_text(encoding="utf-8")
    assert "| a saved change (pentanomial 7, 15, 53, 40, 35) | `cccccccc` | `dddddddd` | 3+0.03 | [0.0, 10.0] | 300 |" in row
    assert "test Hash=32" in row and row.count("\n") == 1


def test_a_resumed_test_can_have_its_cap_of_rounds_raised(tmp_path, monkeypatch):
    args = argparse.Namespace(title="capped", tc="5+0.05", elo0=0.0, elo1=10.0, no_sprt=False,
                              base_option=[], test_option=[], log=None)
    sprt.save_run(tmp_path, args, "c" * 40, "d" * 40)
    (tmp_path / "config.json").write_text('{"rounds": 1000, "stats": {"w": 3}}', encoding="utf-8")
    monkeypatch.setattr(sprt, "play", lambda command, folder: sprt.parse_summary(SUMMARY))
    assert sprt.resume(tmp_path, "fastchess", rounds=1500) == 0
    config = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    assert config == {"rounds": 1500, "stats": {"w": 3}}


def test_carried_counts_split_the_middle_pentanomial_bucket_by_the_wins():
    counts = sprt.carried_stats("254-393-177/14,81,163,122,32")
    assert counts == {"wins": 254, "draws": 393, "losses": 177, "penta_LL": 14, "penta_LD": 81,
                      "penta_DD": 95, "penta_WL": 68, "penta_WD": 122, "penta_WW": 32}


@pytest.mark.parametrize("text", ["254-393-178/14,81,163,122,32", "254-393-177/14,81,60,122,32", "1-2/3"])
def test_carried_counts_that_disagree_are_refused(text):
    with pytest.raises(ValueError):
        sprt.carried_stats(text)


def test_a_carried_test_plays_one_pair_adds_the_counts_and_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(sprt, "CACHE", tmp_path)
    monkeypatch.setattr(sprt, "commit_of", lambda ref: ref * 40)
    monkeypatch.setattr(sprt, "build", lambda commit: Path("/venv") / commit[:1])
    commands = []

    def fake_play(command, folder):
        commands.append(command)
        if len(commands) == 1:
            state = {"rounds": 1, "opening": {"order": "random", "start": 413},
                     "stats": {"test vs base": {"wins": 1, "draws": 0, "losses": 1, "penta_WL": 1}}}
            (folder / "config.json").write_text(json.dumps(state), encoding="utf-8")
        return sprt.parse_summary(SUMMARY)

    monkeypatch.setattr(sprt, "play", fake_play)
    assert sprt.main(["a", "b", "--fastchess", "fc", "--rounds", "700",
                      "--carry", "254-393-177/14,81,163,122,32"]) == 0
    first, second = commands
    assert first[first.index("-rounds") + 1] == "1"
    # the carried counts hold 412 pairs: the first new pair plays the 413th opening
    assert first[first.index("-openings") + 4] == "start=413"
    assert second == ["fc", "-config", "file=config.json"]
    (folder,) = (tmp_path / "matches").iterdir()
    state = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert state["rounds"] == 700
    # resumed, fastchess skips an opening for each of the 413 pairs counted
    assert state["opening"]["start"] == 1
    assert state["stats"]["test vs base"] == {"wins": 255, "draws": 393, "losses": 178, "penta_WL": 69,
                                              "penta_LL": 14, "penta_LD": 81, "penta_DD": 95,
                                              "penta_WD": 122, "penta_WW": 32}


def test_a_paused_test_logs_the_saved_counts_and_the_carry_text_that_goes_on(tmp_path):
    counts = {"wins": 261, "losses": 241, "draws": 404, "penta_WW": 33, "penta_WD": 119, "penta_WL": 76,
              "penta_DD": 89, "penta_LD": 107, "penta_LL": 29}
    (tmp_path / "config.json").write_text(json.dumps({"stats": {sprt.TEST_VS_BASE: counts}}), encoding="utf-8")
    saved = sprt.saved_counts(tmp_path)
    assert sprt.carried_stats(sprt.carry_text(saved)) == counts
    args = argparse.Namespace(title="a paused change", tc="5+0.05", elo0=0.0, elo1=10.0, no_sprt=False,
                              base_option=[], test_option=[])
    row = sprt.log_row(args, "a" * 40, "b" * 40, sprt.parse_summary("Started game 909 of 10000\n"), saved)
    assert "(saved state: `--carry 261-404-241/29,107,165,119,33`)" in row
    assert "| 906 | 261-404-241 | ? | ? | no result |" in row
    assert sprt.saved_counts(tmp_path / "elsewhere") is None


def test_carry_and_resume_together_are_refused(capsys):
    with pytest.raises(SystemExit) as refused:
        sprt.main(["--resume", "folder", "--carry", "1-0-1/0,0,1,0,0", "--fastchess", "fc"])
    assert refused.value.code == 2
    assert "--carry" in capsys.readouterr().err


def test_commits_that_differ_only_outside_the_engine_share_one_build(tmp_path, monkeypatch):
    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True,
                              text=True).stdout.strip()

    def commit(path, text):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
        git("add", "-A")
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", path)
        return git("rev-parse", "HEAD")

    git("init", "-q")
    monkeypatch.setattr(sprt, "ROOT", tmp_path)
    first = commit("src/search.pxi", "search")
    documented = commit("docs/sprt.md", "a row")
    tested = commit("tests/test_search.py", "a test")
    changed = commit("src/search.pxi", "a better search")
    assert sprt.engine_key(first) == sprt.engine_key(documented) == sprt.engine_key(tested)
    assert sprt.engine_key(changed) != sprt.engine_key(first)


def test_a_test_stopped_by_sigterm_ends_its_fastchess_and_says_how_to_resume(tmp_path):
    """TERM to `sprt.py` while fastchess plays: fastchess (which ends its engines
    and keeps its state) is ended too, not left playing beside a resumed test."""
    args = argparse.Namespace(title="stopped", tc="5+0.05", elo0=0.0, elo1=10.0, no_sprt=False,
                              base_option=[], test_option=[], log=None)
    sprt.save_run(tmp_path, args, "c" * 40, "d" * 40)
    command = [sys.executable, str(ROOT / "tools" / "sprt.py"), "--resume", str(tmp_path),
               "--fastchess", str(fake_fastchess(tmp_path))]
    stop = stop_while_playing(command, tmp_path, playing=1, env=dict(os.environ))
    assert stop.status == 130, stop.stderr
    assert "sprt: stopped; `--resume`" in stop.stderr
    assert len(stop.started) == 1 and not stop.left


def test_a_stopping_tool_puts_the_signal_handlers_back():
    import signal

    before = signal.getsignal(signal.SIGTERM)
    assert sprt.stoppable(lambda: 7, lambda: "unsaid") == 7
    assert signal.getsignal(signal.SIGTERM) is before
