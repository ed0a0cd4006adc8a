"""tools/calibrate.py turns fastchess's summary into a calibration table row."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import calibrate  # noqa: E402

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
    (tmp_path / "level2000.out").write_text(SUMMARY)
    assert calibrate.main(["--levels", "2000", "--no-play", "--out", str(tmp_path)]) == 0
    assert "| 2000 | 60 | 20-14-26 | 45.0% |" in capsys.readouterr().out
