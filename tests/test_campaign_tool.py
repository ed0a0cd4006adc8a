"""tools/campaign.py: a generation's plan, its commands, and a whole small campaign run."""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import chess
import pytest

import campaign
from fianchetto.learn import games, manifest


@pytest.fixture(autouse=True)
def shipped_network(tmp_path: Path) -> Path:
    """The shipped network where a plan loaded with ``root=tmp_path`` looks for
    it (the final stage's base)."""
    shipped = tmp_path / "networks" / "fianchetto.nnue"
    shipped.parent.mkdir()
    shipped.write_bytes(b"the shipped network")
    return shipped


def write_plan(tmp_path: Path, **changes) -> Path:
    raw = json.loads(campaign.DEFAULT_PLAN.read_text())
    raw.update(changes)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(raw))
    return path


def screen_of(plan):
    return plan.stages[0]


def test_the_committed_plan_holds_together(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path, root=campaign.ROOT)
    screen = screen_of(plan)
    assert screen.match is not None and screen.match.base in screen.candidates
    assert screen.challengers() == [name for name in screen.candidates if name != screen.match.base]
    assert set(screen.data) <= {data.name for data in plan.data}
    assert len({data.seed for data in plan.data}) == len(plan.data)
    final = plan.stages[-1]          # the shipping match: every file, 400 games against the shipped network
    assert final.data == [data.name for data in plan.data] and sum(data.positions for data in plan.data) >= 80_000_000
    assert final.match.base == "networks/fianchetto.nnue" and not final.match.sprt and final.match.rounds == 200
    assert final.match.tc == "10+0.1" and final.match.seed != screen.match.seed


def test_a_plan_that_does_not_hold_together_is_refused(tmp_path):
    def refused(edit, message):
        raw = json.loads(campaign.DEFAULT_PLAN.read_text())
        edit(raw["stages"])
        with pytest.raises(ValueError, match=message):
            campaign.load_plan(write_plan(tmp_path, stages=raw["stages"]), cache=tmp_path, root=tmp_path)

    refused(lambda stages: stages[0].update(data=["elsewhere.fgame"]), "elsewhere.fgame")
    refused(lambda stages: stages[0]["match"].update(base="nobody"), "nobody")
    refused(lambda stages: stages.append(dict(stages[0], name="again")), "named twice")


def test_a_later_stage_may_play_its_candidates_against_a_network_file(tmp_path):
    shipped = tmp_path / "networks" / "fianchetto.nnue"
    raw = json.loads(campaign.DEFAULT_PLAN.read_text())
    raw["stages"].append({"name": "later", "data": [f["file"] for f in raw["data"]], "train": ["--epochs", "20"],
                          "candidates": {"g8": ["--hidden", "512"]},
                          "match": {"base": "networks/fianchetto.nnue", "tc": "10+0.1", "elo0": 0, "elo1": 5,
                                    "rounds": 200, "seed": 821, "sprt": False}})
    plan = campaign.load_plan(write_plan(tmp_path, stages=raw["stages"]), cache=tmp_path, root=tmp_path)
    final = plan.stages[-1]
    assert final.challengers() == ["g8"]
    command = campaign.match_command(plan, final, "g8", "/opt/fastchess")
    assert f"EvalFile={shipped}" in command and command[command.index("--seed") + 1] == "821"
    assert "--no-sprt" in command and command[command.index("--rounds") + 1] == "200"   # all 400 games
    assert "--no-sprt" not in campaign.match_command(plan, plan.stages[0], "s8b-h1024", "/opt/fastchess")
    assert "later: g8 vs networks/fianchetto.nnue" in campaign.match_title(plan, final, "g8")
    data = campaign.train_command(plan, final, "g8")
    assert len(data[data.index("--data") + 1].split(",")) == 2


def test_a_candidate_trains_on_its_stage_data_with_its_own_options_last(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path, root=tmp_path)
    screen = screen_of(plan)
    name = "s8d-h512-l20"
    command = campaign.train_command(plan, screen, name)
    assert command[1:4] == ["-m", "fianchetto", "train"]
    data = command[command.index("--data") + 1].split(",")
    assert data == [str(tmp_path / "data" / f) for f in screen.data]
    assert command[command.index("--out") + 1] == str(tmp_path / "campaign" / plan.name / f"{name}.nnue")
    # the candidate's lambda comes after the shared one, so it is the one argparse keeps
    lambdas = [command[i + 1] for i, word in enumerate(command) if word == "--lambda"]
    assert lambdas[-1] == screen.candidates[name][screen.candidates[name].index("--lambda") + 1]
    assert command[-1] == "--resume"


def test_a_match_starts_with_its_own_seed_and_networks_then_goes_on_from_its_folder(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path, root=tmp_path)
    screen = screen_of(plan)
    second = screen.challengers()[1]
    command = campaign.match_command(plan, screen, second, "/opt/fastchess")
    assert command[command.index("--seed") + 1] == str(screen.match.seed + 1)
    assert f"EvalFile={plan.network(screen.match.base)}" in command
    assert f"EvalFile={plan.network(second)}" in command
    assert command[command.index("--rounds") + 1] == str(screen.match.rounds)
    folder = tmp_path / "matches" / "x"
    folder.mkdir(parents=True)
    plan.folder.mkdir(parents=True)
    (plan.folder / f"match-{second}.folder").write_text(f"{folder}\n")
    assert "--resume" not in campaign.match_command(plan, screen, second, "/opt/fastchess")   # no state yet
    (folder / "config.json").write_text("{}")
    command = campaign.match_command(plan, screen, second, "/opt/fastchess")
    assert command[command.index("--resume") + 1] == str(folder)


def cut_short(plan, candidate: str, counts: dict, tmp_path: Path) -> Path:
    """A match folder on this machine whose fastchess saved `counts`."""
    folder = tmp_path / "matches" / candidate
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"stats": {"test vs base": counts}}))
    plan.folder.mkdir(parents=True, exist_ok=True)
    (plan.folder / f"match-{candidate}.folder").write_text(f"{folder}\n")
    return folder


def test_a_match_cut_short_is_held_and_goes_on_from_its_counts_on_a_machine_without_its_folder(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path / "cache", root=tmp_path)
    assert plan.held == tmp_path / "docs" / "data" / "generation8-held.json"
    final = plan.stages[-1]
    first, second = final.challengers()
    assert campaign.hold(plan) == "no match cut short on this machine" and not plan.held.exists()
    counts = {"wins": 39, "draws": 58, "losses": 23, "penta_LL": 2, "penta_LD": 9, "penta_DD": 16,
              "penta_WL": 10, "penta_WD": 17, "penta_WW": 6}
    cut_short(plan, first, counts, tmp_path)
    assert campaign.hold(plan).startswith(f"held   {first:28} 120 games: 39-58-23/2,9,26,17,6")
    record = json.loads(plan.held.read_text())[first]
    assert record["carry"] == "39-58-23/2,9,26,17,6" and record["games"] == 120
    assert campaign.sprt.carried_stats(record["carry"]) == counts
    # this machine goes on from its own folder ...
    assert "--resume" in campaign.match_command(plan, final, first, "/opt/fastchess")
    # ... a new one (no cache) carries the held counts into a new test of the same match
    fresh = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path / "new machine", root=tmp_path)
    command = campaign.match_command(fresh, final, first, "/opt/fastchess")
    assert "--resume" not in command and command[command.index("--carry") + 1] == "39-58-23/2,9,26,17,6"
    assert command[command.index("--seed") + 1] == str(final.match.seed)
    assert "--carry" not in campaign.match_command(fresh, final, second, "/opt/fastchess")
    shown = campaign.status(fresh).splitlines()
    assert f"match  {first:28} held at 120 games (+39 =58 -23, {record['date']}), goes on from them" in shown
    assert f"match  {second:28} not played" in shown


def test_a_held_record_is_not_replaced_by_fewer_games_nor_by_a_logged_match(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path / "cache", root=tmp_path)
    final = plan.stages[-1]
    first, second = final.challengers()
    plan.held.parent.mkdir(parents=True)
    plan.held.write_text(json.dumps({first: {"carry": "3-4-1/0,1,2,1,0", "games": 8, "date": "2026-12-06"}}))
    cut_short(plan, first, {"wins": 1, "draws": 0, "losses": 1, "penta_WL": 1}, tmp_path)
    cut_short(plan, second, {"wins": 1, "draws": 0, "losses": 1, "penta_WL": 1}, tmp_path)
    plan.log.parent.mkdir(parents=True, exist_ok=True)
    plan.log.write_text(shipping_row(plan, final, second, "41.00 ± 22.00") + "\n")
    assert campaign.hold(plan) == f"held   {first:28} 8 games already held"
    assert json.loads(plan.held.read_text()) == {first: {"carry": "3-4-1/0,1,2,1,0", "games": 8,
                                                         "date": "2026-12-06"}}


def test_a_match_is_done_once_its_row_is_logged(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path, root=tmp_path)
    screen = screen_of(plan)
    first, second = screen.challengers()[:2]
    plan.folder.mkdir(parents=True)
    plan.log.parent.mkdir(parents=True, exist_ok=True)
    plan.log.write_text(f"| 2026-12-04 | {campaign.match_title(plan, screen, first)} (pentanomial 1, 2) |\n")
    assert campaign.logged_row(plan, screen, first)
    assert campaign.logged_row(plan, screen, second) is None
    assert f"match  {first}" in campaign.status(plan) and "not played" in campaign.status(plan)


def test_the_status_of_a_file_being_written_shows_its_last_progress_line(tmp_path):
    log = tmp_path / "datagen-5.log"
    assert "another process" in campaign.last_progress(log)
    log.write_text("positions 10/90  5/s  eta 16s\rpositions 20/90  5/s  eta 14s\n"
                   "positions 30/90  6/s  eta 10s\ninterrupted; every finished game is in x\n")
    assert campaign.last_progress(log) == "positions 30/90  6/s  eta 10s"


def test_the_status_adds_up_the_files_and_the_hours_to_go_at_the_pace_of_the_one_written():
    assert campaign.rate_of("positions 30/90  6/s  eta 10s") == 6.0
    assert campaign.rate_of("positions 30/90  1,234 games") is None
    assert campaign.rate_of("(no progress yet)") is None
    assert campaign.data_to_go(7_200, 79_200, 2.0).endswith("7,200 / 79,200  about 10.0 h to go at 2/s")
    assert campaign.data_to_go(7_200, 79_200, None).endswith("7,200 / 79,200")
    assert campaign.data_to_go(79_200, 79_200, 2.0).endswith("79,200 / 79,200")


def test_the_status_counts_every_file_of_the_plan(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path, root=tmp_path)
    first, second = plan.data[0], plan.data[1]
    plan.data_path(first.name).parent.mkdir(parents=True)
    manifest.record(str(plan.data_path(first.name)), {"positions": first.positions + 151, "complete": True})
    manifest.record(str(plan.data_path(second.name)), {"positions": 1_000, "complete": False})
    shown = campaign.status(plan).splitlines()
    total = next(line for line in shown if "(all files)" in line)
    assert f"{first.positions + 1_000:,} / {sum(d.positions for d in plan.data):,}" in total
    assert "to go" not in total                     # no file is being written: no pace to go by


def test_the_status_of_a_training_under_way_shows_its_last_epoch_line(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path, root=tmp_path)
    first = next(iter(screen_of(plan).candidates))
    plan.folder.mkdir(parents=True)
    (plan.folder / f"{first}.log").write_text(
        "100 positions: 98 train, 2 validation; hidden 512\n"
        "epoch 0: validation loss 0.074 (before training)\n"
        "epoch 1: train loss 0.008  validation loss 0.0075  130.0 s  200,000 pos/s\n"
        "epoch 2/10   40%  eta 80s\r")
    shown = campaign.status(plan).splitlines()
    at = shown.index(next(line for line in shown if line.startswith(f"train  {first}")))
    assert shown[at + 1].strip() == "epoch 2/10   40%  eta 80s"


MATCH_LOG = """Started game 39 of 400 (test vs base)
Finished game 38 (base vs test): 1-0 {White wins by adjudication}
Results of test vs base (10+0.1, 1t, 16MB, openings.epd):
Elo: -12.34 +/- 40.00, nElo: -20.00 +/- 60.00
LOS: 27.00 %, DrawRatio: 50.00 %, PairsRatio: 0.80
Games: 38, Wins: 10, Losses: 12, Draws: 16, Points: 18.0 (47.37 %)
Ptnml(0-2): [1, 5, 8, 4, 1], WL/DD Ratio: 0.50
LLR: -0.20 (-6.8%) (-2.94, 2.94) [0.00, 10.00]
Started game 40 of 400 (base vs test)
"""


def test_a_match_under_way_shows_its_last_game_and_result(tmp_path):
    log = tmp_path / "match.log"
    assert campaign.match_progress(log) == "(no log yet)"
    log.write_text("test folder: /x (new)\n")
    assert campaign.match_progress(log) == "(no game yet)"
    log.write_text(MATCH_LOG)
    assert campaign.match_progress(log) == ("Started game 40 of 400 | Games: 38, Wins: 10, Losses: 12, Draws: 16 | "
                                            "Elo: -12.34 +/- 40.00 | LLR: -0.20 (-6.8%) (-2.94, 2.94)")


def test_a_logged_match_shows_its_result_in_one_line():
    row = ("| 2026-12-05 | generation8 screen: b vs a (pentanomial 14, 63, 86, 33, 4) | `007fe4f1` | `007fe4f1` | "
           "10+0.1 | [0.0, 10.0] | 400 | 60-230-110 | -43.66 ± 21.59 | -2.37 | H0 accepted | notes |")
    assert campaign.row_summary(row) == "400 games, +60 =230 -110, Elo -43.66 ± 21.59, LLR -2.37: H0 accepted"
    assert campaign.row_summary("| an older | row |") == "| an older | row |"


def shipping_row(plan, stage, candidate: str, elo: str) -> str:
    return (f"| 2026-12-07 | {campaign.match_title(plan, stage, candidate)} (pentanomial 1, 2, 3, 4, 5) | "
            f"`007fe4f1` | `007fe4f1` | 10+0.1 | - | 400 | 150-160-90 | {elo} | - | 400 games | notes |")


def test_a_shipping_match_is_judged_by_its_elo_and_the_lower_end_of_its_interval(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path, root=tmp_path)
    final = plan.stages[-1]
    assert (final.match.ship_elo, final.match.ship_lower) == (35, 5)
    clears = campaign.verdict(final, "a", shipping_row(plan, final, "a", "52.30 ± 24.10"))
    assert clears.clears and clears.lower == pytest.approx(28.2)
    assert "clears the shipping bar (Elo +52.3, lower end +28.2)" == clears.words()
    assert not campaign.verdict(final, "a", shipping_row(plan, final, "a", "34.90 ± 10.00")).clears  # Elo short
    assert not campaign.verdict(final, "a", shipping_row(plan, final, "a", "40.00 ± 35.00")).clears  # lower end +5
    assert campaign.verdict(final, "a", shipping_row(plan, final, "a", "?")) is None
    assert campaign.verdict(screen_of(plan), "a", shipping_row(plan, final, "a", "52.30 ± 24.10")) is None


def test_the_status_names_the_candidate_that_ships_once_every_shipping_match_is_played(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path, root=tmp_path)
    final = plan.stages[-1]
    first, second = final.challengers()
    plan.folder.mkdir(parents=True)
    plan.log.parent.mkdir(parents=True, exist_ok=True)
    plan.log.write_text(shipping_row(plan, final, first, "41.00 ± 22.00") + "\n")
    assert campaign.stage_winner(plan, final) is None                  # the second has not played
    assert "       clears the shipping bar (Elo +41.0, lower end +19.0)" in campaign.status(plan).splitlines()
    with plan.log.open("a") as log:
        log.write(shipping_row(plan, final, second, "48.00 ± 22.00") + "\n")
    assert campaign.stage_winner(plan, final).startswith(f"ships  {second} (final: the highest Elo of 2 that clear")
    assert campaign.stage_winner(plan, final) in campaign.status(plan).splitlines()
    plan.log.write_text(shipping_row(plan, final, first, "30.00 ± 22.00") + "\n"
                        + shipping_row(plan, final, second, "36.00 ± 32.00") + "\n")
    assert campaign.stage_winner(plan, final).startswith("ships  none of final: no candidate clears the bar")
    assert campaign.stage_winner(plan, screen_of(plan)) is None         # a screen has no bar


def test_the_status_says_which_match_a_run_plays_and_that_datagen_waits_for_it(tmp_path):
    plan = campaign.load_plan(campaign.DEFAULT_PLAN, cache=tmp_path, root=tmp_path)
    first = screen_of(plan).challengers()[0]
    plan.folder.mkdir(parents=True)
    (plan.folder / f"match-{first}.folder").write_text("/x\n")
    (plan.folder / f"match-{first}.log").write_text(MATCH_LOG)
    with campaign.only_run(plan), campaign.doing(plan, f"match {first}"):
        shown = campaign.status(plan).splitlines()
        at = shown.index(f"match  {first:28} playing")
        assert shown[at + 1].strip().startswith("Started game 40 of 400 | Games: 38")
        assert all("paused for the match of " + first in line for line in shown
                   if line.startswith("data ") and "(all files)" not in line)
    assert not (plan.folder / campaign.NOW_FILE).exists()
    (plan.folder / campaign.NOW_FILE).write_text(f"match {first}\n")     # left by a run that was killed
    shown = campaign.status(plan).splitlines()
    assert f"match  {first:28} cut short, goes on" in shown
    assert not any("paused" in line for line in shown)


def test_a_file_is_complete_by_its_manifest_and_busy_while_its_lock_is_held(tmp_path):
    path = tmp_path / "games-s9-n10.fgame"
    path.write_bytes(b"games")
    assert not campaign.is_complete(path) and not games.being_written(str(path))
    manifest.record(str(path), {"positions": 10, "complete": False})
    assert not campaign.is_complete(path)
    manifest.record(str(path), {"positions": 20, "complete": True})
    assert campaign.is_complete(path)
    with open(path, "rb") as writer:
        fcntl.flock(writer.fileno(), fcntl.LOCK_EX)
        assert games.being_written(str(path))
    assert not games.being_written(str(path))


def small_plan(tmp_path: Path) -> Path:
    return write_plan(tmp_path, name="tiny", engine=None, keep="kept", log="log.md",
                      datagen=["--nodes", "200", "--threads", "2", "--eval-file", "none"],
                      data=[{"file": "games-s5-n200.fgame", "seed": 5, "positions": 1500}],
                      stages=[{"name": "screen", "data": ["games-s5-n200.fgame"],
                               "train": ["--epochs", "1", "--hidden", "16", "--batch", "256", "--seed", "2"],
                               "candidates": {"tiny16": []}}])


def test_a_small_campaign_makes_its_data_and_network_then_has_nothing_left(tmp_path, monkeypatch):
    monkeypatch.setattr(campaign, "POLL_SECONDS", 0.2)
    plan = campaign.load_plan(small_plan(tmp_path), cache=tmp_path / "cache", root=tmp_path)
    assert campaign.run(plan, fastchess=None) == 0
    data = plan.data_path("games-s5-n200.fgame")
    assert campaign.is_complete(data) and campaign.data_state(data)["positions"] >= 1500
    trained, kept = plan.trained("tiny16"), tmp_path / "kept" / "tiny16.nnue"
    assert kept.read_bytes() == trained.read_bytes() and plan.network("tiny16") == kept
    assert f"written: {kept}" in campaign.status(plan)
    stamps = (data.stat().st_mtime_ns, kept.stat().st_mtime_ns)
    assert campaign.run(plan, fastchess=None) == 0
    assert (data.stat().st_mtime_ns, kept.stat().st_mtime_ns) == stamps


def test_a_kept_network_is_not_trained_again_on_a_machine_without_the_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(campaign, "POLL_SECONDS", 0.2)
    plan = campaign.load_plan(small_plan(tmp_path), cache=tmp_path / "cache", root=tmp_path)
    kept = tmp_path / "kept" / "tiny16.nnue"
    kept.parent.mkdir()
    kept.write_bytes(b"a network trained on another machine")
    assert campaign.run(plan, fastchess=None) == 0
    assert not plan.trained("tiny16").exists()
    assert kept.read_bytes() == b"a network trained on another machine"
    # nor is the data it trained on played again: nothing needs it
    assert not plan.data_path("games-s5-n200.fgame").exists()
    assert "not needed (its networks are kept)" in campaign.status(plan)
    with campaign.only_run(plan), campaign.doing(plan, "match tiny16"):  # no datagen waits for a match either
        assert "not needed (its networks are kept)" in campaign.status(plan)


def test_a_file_is_needed_while_a_candidate_that_trains_on_it_has_no_network(tmp_path):
    plan = campaign.load_plan(write_plan(tmp_path, keep="kept"), cache=tmp_path / "cache", root=tmp_path)
    screen, final = plan.stages[0], plan.stages[-1]
    first, second = (data.name for data in plan.data)
    assert screen.data == [first] and set(final.data) == {first, second}
    (tmp_path / "kept").mkdir()
    for candidate in screen.candidates:
        plan.kept(candidate).write_bytes(b"kept")
    assert plan.needs(first) and plan.needs(second)        # the final stage still trains on both
    *others, last = final.candidates
    for candidate in others:
        plan.kept(candidate).write_bytes(b"kept")
    plan.trained(last).parent.mkdir(parents=True)
    plan.trained(last).write_bytes(b"trained here, not yet kept")
    assert not plan.needs(first) and not plan.needs(second)


def test_a_stopped_run_ends_its_datagen_which_keeps_its_games(tmp_path):
    """SIGTERM to a run started as nohup starts it (SIGINT ignored) stops it: its
    datagen ends as Ctrl-C ends it, the manifest counting every game on disk,
    and no process of the run is left."""
    plan_path = write_plan(tmp_path, name="long", engine=None, keep=None, log=None,
                           datagen=["--nodes", "200", "--threads", "1", "--eval-file", "none"],
                           data=[{"file": "games-s7-n200.fgame", "seed": 7, "positions": 100000000}],
                           stages=[{"name": "screen", "data": ["games-s7-n200.fgame"], "train": ["--epochs", "1"],
                                    "candidates": {"later": []}}])
    cache = tmp_path / "cache"
    data = cache / "data" / "games-s7-n200.fgame"
    run = subprocess.Popen([sys.executable, str(campaign.ROOT / "tools" / "campaign.py"), "run", "--plan",
                            str(plan_path)], env=dict(os.environ, FIANCHETTO_CACHE=str(cache)),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    deadline = time.monotonic() + 60
    while (not data.exists() or data.stat().st_size < 2000) and time.monotonic() < deadline:
        time.sleep(0.05)
    run.send_signal(signal.SIGTERM)
    output, _ = run.communicate(timeout=100)
    assert run.returncode == 130 and "goes on" in output
    assert not games.being_written(str(data))          # the datagen has ended
    stored = [game for game in games.read_games(str(data)) if game.result is not None]
    assert manifest.entry(str(data))["games"] == len(stored) > 0
    log = (cache / "campaign" / "long" / "datagen-7.log").read_text()
    assert "interrupted" in log


def test_without_fastchess_the_data_and_training_go_on_and_the_matches_wait(tmp_path, monkeypatch):
    monkeypatch.setattr(campaign, "POLL_SECONDS", 0.2)
    raw = json.loads(small_plan(tmp_path).read_text())
    raw["stages"][0]["candidates"] = {"tiny16": [], "tiny32": ["--hidden", "32"]}
    raw["stages"][0]["match"] = {"base": "tiny16", "tc": "1+0.01", "elo0": 0, "elo1": 10, "rounds": 1, "seed": 1}
    plan = campaign.load_plan(write_plan(tmp_path, **raw), cache=tmp_path / "cache", root=tmp_path)
    assert campaign.run(plan, fastchess=None) == 3
    assert plan.network("tiny16").exists() and plan.network("tiny32").exists()
    assert "match  tiny32" in campaign.status(plan) and "not played" in campaign.status(plan)


class FakeDatagen:
    """A datagen that says whether it still has files to play, and plays none."""

    def __init__(self, busy: bool) -> None:
        self.busy = busy

    def poll(self) -> bool:
        return self.busy


def plan_with_its_data(tmp_path, monkeypatch, *candidates: str):
    """The small plan with these candidates (no options of their own), its data file complete."""
    monkeypatch.setattr(campaign, "POLL_SECONDS", 0.05)
    raw = json.loads(small_plan(tmp_path).read_text())
    raw["stages"][0]["candidates"] = {name: [] for name in candidates}
    plan = campaign.load_plan(write_plan(tmp_path, **raw), cache=tmp_path / "cache", root=tmp_path)
    data = plan.data_path("games-s5-n200.fgame")
    data.parent.mkdir(parents=True)
    manifest.record(str(data), {"complete": True})
    plan.folder.mkdir(parents=True)
    return plan


def timed_trainings(tmp_path, monkeypatch, busy: bool, memory=None):
    """Three candidates trained by a stand-in that notes when it ran: their (start, end) times
    (``memory``: what the machine is said to have available, bytes)."""
    plan = plan_with_its_data(tmp_path, monkeypatch, "one", "two", "three")
    monkeypatch.setattr(campaign, "available_memory", lambda: memory)
    script = ("import sys, time; started = time.time(); time.sleep(0.5); "
              "open(sys.argv[1], 'wb').write(b'net'); print(started, time.time())")
    monkeypatch.setattr(campaign, "train_command", lambda plan, stage, candidate: [
        sys.executable, "-c", script, str(plan.trained(candidate))])
    campaign.train_all(plan, screen_of(plan), FakeDatagen(busy))
    for name in ("one", "two", "three"):
        assert (tmp_path / "kept" / f"{name}.nnue").read_bytes() == b"net"
    return [tuple(map(float, (plan.folder / f"{name}.log").read_text().split())) for name in ("one", "two", "three")]


def overlap(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def test_trainings_run_two_at_a_time_once_no_datagen_needs_the_cores(tmp_path, monkeypatch):
    one, two, three = timed_trainings(tmp_path, monkeypatch, busy=False)
    assert overlap(one, two) and not overlap(two, three) and three[0] >= max(one[1], two[1])


def test_trainings_run_one_at_a_time_where_the_memory_holds_one(tmp_path, monkeypatch, capsys):
    data_bytes = 1000
    monkeypatch.setattr(campaign, "training_memory", lambda plan, stage: campaign.TRAINING_BYTES_PER_DATA_BYTE
                        * data_bytes)
    one, two, three = timed_trainings(tmp_path, monkeypatch, busy=False,
                                      memory=campaign.TRAINING_BYTES_PER_DATA_BYTE * data_bytes * 3 // 2)
    assert one[1] <= two[0] and two[1] <= three[0]
    assert "train: 1 at a time" in capsys.readouterr().out


def test_how_many_trainings_fit():
    gib = 2**30
    assert campaign.trainings_at_once(False, 7 * gib, 23 * gib) == 2
    assert campaign.trainings_at_once(False, 7 * gib, 13 * gib) == 1
    assert campaign.trainings_at_once(False, 7 * gib, 3 * gib) == 1      # never none
    assert campaign.trainings_at_once(False, 7 * gib, None) == campaign.TRAININGS_AT_ONCE
    assert campaign.trainings_at_once(True, 1, 100 * gib) == 1           # a datagen holds a core


def test_a_training_needs_memory_in_proportion_to_its_data_files(tmp_path, monkeypatch):
    plan = plan_with_its_data(tmp_path, monkeypatch, "one")
    plan.data_path("games-s5-n200.fgame").write_bytes(b"x" * 4000)
    assert campaign.training_memory(plan, screen_of(plan)) == campaign.TRAINING_BYTES_PER_DATA_BYTE * 4000
    available = campaign.available_memory()
    assert available is None or available > 0


def test_trainings_run_one_at_a_time_beside_a_datagen(tmp_path, monkeypatch):
    one, two, three = timed_trainings(tmp_path, monkeypatch, busy=True)
    assert one[1] <= two[0] and two[1] <= three[0]


def test_a_failed_training_ends_the_one_beside_it(tmp_path, monkeypatch):
    plan = plan_with_its_data(tmp_path, monkeypatch, "fails", "long")
    pid_file = tmp_path / "long.pid"
    commands = {   # the failing one fails once the other runs
        "fails": f"import os, sys, time\nwhile not os.path.exists({str(pid_file)!r}): time.sleep(0.01)\nsys.exit(2)",
        "long": f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(600)"}
    monkeypatch.setattr(campaign, "train_command", lambda plan, stage, candidate: [
        sys.executable, "-c", commands[candidate]])
    begun = time.monotonic()
    with pytest.raises(RuntimeError, match="training fails ended with 2"):
        campaign.train_all(plan, screen_of(plan), FakeDatagen(False))
    assert time.monotonic() - begun < 60
    with pytest.raises(ProcessLookupError):          # ended and reaped
        os.kill(int(pid_file.read_text()), 0)


def test_a_second_run_of_one_plan_is_refused(tmp_path):
    plan = campaign.load_plan(small_plan(tmp_path), cache=tmp_path, root=tmp_path)
    with campaign.only_run(plan):
        with pytest.raises(RuntimeError, match="another run"):
            with campaign.only_run(plan):
                pass


def test_status_to_a_reader_that_went_away_ends_quietly(tmp_path):
    reader, writer = os.pipe()
    os.close(reader)                        # every write to the pipe now fails (EPIPE)
    env = dict(os.environ, FIANCHETTO_CACHE=str(tmp_path))
    try:
        done = subprocess.run([sys.executable, str(campaign.ROOT / "tools" / "campaign.py"), "status"],
                              stdout=writer, stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    finally:
        os.close(writer)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr


def process_state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_a_paused_datagen_stays_paused_when_the_shell_that_started_the_campaign_ends(tmp_path):
    """``nohup ... &`` from a shell that then exits (as a session's tool does) leaves
    the campaign's process group orphaned, and the kernel continues (SIGCONT) every
    stopped process of such a group: datagen, paused for a match, must not be one."""
    pid_file = tmp_path / "child.pid"
    campaign_like = (
        "import signal, subprocess, sys, time\n"
        f"sys.path.insert(0, {str(Path(campaign.__file__).parent)!r})\n"
        "import campaign\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'],"
        " preexec_fn=campaign.background_child)\n"
        "child.send_signal(signal.SIGSTOP)\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(4)\n"
        "child.kill()\n")
    script = tmp_path / "campaign_like.py"
    script.write_text(campaign_like)
    # the shell leads a process group of its own (as a job does), starts the
    # campaign in it and exits once the campaign has paused its datagen
    subprocess.run(["bash", "-c", f"nohup {sys.executable} {script} >/dev/null 2>&1 & "
                                  f"for i in $(seq 50); do [ -s {pid_file} ] && break; sleep 0.1; done"],
                   preexec_fn=os.setpgrp, check=True, timeout=30)
    child = int(pid_file.read_text())
    time.sleep(1.0)     # the shell is gone: any SIGCONT has been sent
    assert process_state(child) == "T"


# --- check: a regrown file against the first growth's record ----------------------------------
def write_games(path: Path, layout) -> None:
    """A games file: None is a discarded opening, (scored, unscored) a kept game's plies."""
    scored, unscored = struct.pack("<hh", 0, 25), struct.pack("<hh", 0, games.UNSCORED)
    body = games.header_bytes()
    for game in layout:
        if game is None:
            body += games.encode_game(games.Game("", False, None, b""))
        else:
            body += games.encode_game(games.Game(chess.STARTING_FEN, False, 1, scored * game[0] + unscored * game[1]))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)


def plan_with_record(tmp_path: Path, checkpoints, sha256=None):
    entry = {"file": "games-s7-n10.fgame", "seed": 7, "positions": 12, "checkpoints": checkpoints}
    if sha256:
        entry["sha256"] = sha256
    path = write_plan(tmp_path, name="recorded", engine=None, data=[entry],
                      stages=[{"name": "screen", "data": [entry["file"]], "train": [], "candidates": {"a": []}}])
    return campaign.load_plan(path, cache=tmp_path / "cache", root=tmp_path)


LAYOUT = [None, (5, 2), (3, 0), None, None, (4, 1)]     # kept games of 5, 3 and 4 positions


def test_check_compares_a_file_as_far_as_it_has_grown_with_its_record(tmp_path):
    plan = plan_with_record(tmp_path, [{"games": 2, "positions": 8, "discarded": 1},
                                       {"games": 3, "positions": 12, "discarded": 3},
                                       {"games": 9, "positions": 99}])
    assert campaign.check(plan) == ("games-s7-n10.fgame: not started", True)
    write_games(plan.data_path("games-s7-n10.fgame"), LAYOUT)
    report, agrees = campaign.check(plan)
    lines = report.splitlines()
    assert agrees and len(lines) == 3
    assert lines[0].startswith("games-s7-n10.fgame: its first 2 kept games: 8 positions (1 openings discarded")
    assert lines[1].endswith("agrees") and lines[2].endswith("not grown yet")


def test_check_says_where_a_regrown_file_differs(tmp_path):
    plan = plan_with_record(tmp_path, [{"games": 1, "positions": 5}, {"games": 3, "positions": 12, "discarded": 2}])
    write_games(plan.data_path("games-s7-n10.fgame"), LAYOUT)
    report, agrees = campaign.check(plan)
    assert not agrees
    assert report.splitlines()[0].endswith("agrees")       # no discarded count recorded: not compared
    assert report.splitlines()[1].endswith("DIFFERS") and "the record: 12 (2)" in report


def test_check_compares_a_complete_file_with_its_sha256(tmp_path):
    probe = plan_with_record(tmp_path, [])
    path = probe.data_path("games-s7-n10.fgame")
    write_games(path, LAYOUT)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    plan = plan_with_record(tmp_path, [], sha256=digest)
    assert campaign.check(plan) == ("games-s7-n10.fgame: its sha256 is compared once it is complete", True)
    manifest.record(str(path), {"complete": True})
    report, agrees = campaign.check(plan)
    assert agrees and report == f"games-s7-n10.fgame: sha256 {digest[:12]}...; the record: {digest[:12]}...: agrees"
    assert campaign.check(plan_with_record(tmp_path, [], sha256="0" * 64))[1] is False
