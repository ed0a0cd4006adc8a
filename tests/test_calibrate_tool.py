"""tools/calibrate.py turns fastchess's summary into a calibration table row."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import calibrate
from support.stopping import fake_fastchess, stop_while_playing

SUMMARY = """\
Elo: 12.00 +/- 9.00, nElo: 1.00 +/- 1.00
Elo: -35.00 +/- 80.10, nElo: -40.00 +/- 90.00
Games: 60, Wins: 20, Losses: 26, Draws: 14, Points: 27.0 (45.00 %)
"""


def test_a_level_within_35_to_65_percent_is_calibrated():
    assert calibrate.row(1500, SUMMARY) == "| 1500 | 60 | 20-14-26 | 45.0% | -35.00 ± 80.10 | calibrated |"


def test_a_level_outside_the_band_says_which_way_it_is_off():
    strong = "Elo: 200.00 +/- 90.00\nGames: 60, Wins: 45, Losses: 5, Draws: 10, Points: 50.0 (83.33 %)\n"
    weak = "Elo: -200.00 +/- 90.00\nGames: 60, Wins: 5, Losses: 45, Draws: 10, Points: 10.0 (16.67 %)\n"
    assert calibrate.row(2000, strong).endswith("too strong |")
    assert calibrate.row(2000, weak).endswith("too weak |")
    assert calibrate.row(2400, "fastchess crashed").endswith("no games |")


def test_both_engines_are_limited_to_the_level():
    args = argparse.Namespace(fastchess="fastchess", engine="fianchetto", stockfish="stockfish", tc="10+0.1",
                              openings="o.epd", games=60, concurrency=2)
    command = calibrate.level_command(args, 2000, Path("x.pgn"))
    assert command.count("option.UCI_Elo=2000") == 2 and command.count("option.UCI_LimitStrength=true") == 2
    assert command[command.index("-rounds") + 1] == "30"


def test_the_elo_difference_comes_from_the_score():
    assert abs(calibrate.elo_difference(SUMMARY) - (-34.9)) < 0.5        # 45%
    whitewash = "Games: 10, Wins: 10, Losses: 0, Draws: 0, Points: 10.0 (100.00 %)\n"
    assert 600 < calibrate.elo_difference(whitewash) < 700               # clamped at 98%
    assert calibrate.elo_difference("no summary") is None


def test_a_fit_moves_the_measured_levels_and_adds_missing_anchors():
    strength = calibrate.strength
    first = strength.ANCHORS[1]
    top, anchors = calibrate.fitted_table({first.elo: 200.0, 1750: -100.0}, full_strength=2550.4)
    by_elo = {a.elo: a for a in anchors}
    assert top == 2550
    assert by_elo[first.elo].nodes < first.nodes                          # too strong: fewer nodes
    assert by_elo[1750].nodes > strength.node_budget(1750)                # too weak: more
    untouched = [a for a in strength.ANCHORS if a.elo != first.elo]
    assert all(by_elo[a.elo] == a for a in untouched)
    assert [a.elo for a in anchors] == sorted(by_elo)


def test_full_strength_plays_without_the_limit():
    args = argparse.Namespace(fastchess="fastchess", engine="fianchetto", stockfish="stockfish", tc="10+0.1",
                              openings="o.epd", games=20, concurrency=2)
    command = calibrate.level_command(args, 2400, Path("x.pgn"), full_strength=True)
    assert command.count("option.UCI_Elo=2400") == 1


def test_no_play_reads_the_results_already_in_the_folder(tmp_path, capsys):
    (tmp_path / "level2000").mkdir()
    (tmp_path / "level2000" / "chunk0.out").write_text(SUMMARY)
    (tmp_path / "level2000" / "chunk0.done").write_text("60\n")
    assert calibrate.main(["--levels", "2000", "--no-play", "--games", "60", "--chunk", "60",
                           "--out", str(tmp_path)]) == 0
    assert "| 2000 | 60 | 20-14-26 | 45.0% |" in capsys.readouterr().out


def test_chunks_add_up_with_an_interval():
    first = calibrate.outcome("Games: 10, Wins: 6, Losses: 2, Draws: 2, Points: 7.0 (70.00 %)\n")
    second = calibrate.outcome("Games: 10, Wins: 2, Losses: 6, Draws: 2, Points: 3.0 (30.00 %)\n")
    both = calibrate.combined([first, second])
    assert (both.games, both.wins, both.draws, both.losses, both.score) == (20, 8, 4, 8, 0.5)
    elo, interval = (float(x) for x in both.elo.split(" ± "))
    assert elo == 0.0 and 100 < interval < 250


FAKE_FASTCHESS = """import sys
from pathlib import Path
calls = Path(sys.argv[0]).with_suffix(".calls")
count = int(calls.read_text()) + 1 if calls.exists() else 1
calls.write_text(str(count))
if count == int(sys.argv[0].rsplit("-", 1)[1].split(".")[0]):
    print("the machine went away"); sys.exit(1)      # this run dies before its summary
games = 2 * int(sys.argv[sys.argv.index("-rounds") + 1])
print(f"Games: {games}, Wins: {games // 2}, Losses: 0, Draws: {games - games // 2}, Points: 0 (75.00 %)")
"""


def test_a_calibration_cut_short_resumes_with_the_missing_chunks(tmp_path, capsys):
    fake = tmp_path / "fastchess-2.py"               # its second run fails
    fake.write_text(FAKE_FASTCHESS)
    runner = tmp_path / "fastchess"
    runner.write_text(f"#!/bin/sh\nexec {sys.executable} {fake} \"$@\"\n")
    runner.chmod(0o755)
    argv = ["--levels", "1500", "--games", "30", "--chunk", "10", "--fastchess", str(runner),
            "--out", str(tmp_path / "out")]
    calibrate.main(argv)
    assert "| 1500 | 10 | 5-5-0 |" in capsys.readouterr().out      # chunk 1 died: one chunk counted
    calibrate.main(argv)
    assert "| 1500 | 30 | 15-15-0 |" in capsys.readouterr().out
    assert fake.with_suffix(".calls").read_text() == "4"             # 1 + the failed one + the 2 missing


def test_a_calibration_stopped_by_sigterm_ends_its_fastchess_and_marks_no_chunk_done(tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, str(Path(calibrate.__file__)), "--levels", "1500", "--games", "10",
               "--fastchess", str(fake_fastchess(tmp_path)), "--out", str(out)]
    stop = stop_while_playing(command, tmp_path, playing=1, env=dict(os.environ))
    assert stop.status == 130, stop.stderr
    assert "calibrate: stopped" in stop.stderr
    assert len(stop.started) == 1 and not stop.left
    assert not list(out.rglob("*.done"))        # the chunk cut short is played again whole
