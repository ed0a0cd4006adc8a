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
