#!/usr/bin/env python3
"""Calibrate UCI_Elo: each level against Stockfish limited to the same UCI_Elo.

    python3 tools/calibrate.py [--levels 1500,2000,2400] [--games 60] [--tc 10+0.1]
                               [--engine fianchetto] [--stockfish /usr/games/stockfish]

For every level, fastchess plays colour-reversed pairs from
``../shared/data/openings.epd`` between Fianchetto (``UCI_LimitStrength=true``,
``UCI_Elo=level``) and Stockfish (the same two options), one thread and 16 MB
each, concurrency 2. A level is calibrated when it scores between 35% and 65%.
The script prints one Markdown table row per level, as docs/strength.md keeps
them: level, games, W-D-L (Fianchetto's), score, Elo difference with its 95%
interval as fastchess computes it. Each level's games and fastchess's running
output are written as they are played to ``--out`` (``level<N>.pgn`` and
``level<N>.out``, by default under ``~/.cache/fianchetto/calibration``).

Stockfish 15.1's ``UCI_Elo`` runs from 1350 to 2850 (calibrated at 60+0.6 on the
CCRL 40/4 scale); levels outside that range cannot be measured this way.
fastchess is found through ``--fastchess``, ``$FASTCHESS`` or ``PATH``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

from sprt import outcome_of, parse_summary  # fastchess's summary, read as the test log reads it

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OPENINGS = ROOT.parent / "shared" / "data" / "openings.epd"
STOCKFISH_ELO_RANGE = (1350, 2850)


def level_command(args: argparse.Namespace, level: int, pgn: Path) -> List[str]:
    limited = ["option.UCI_LimitStrength=true", f"option.UCI_Elo={level}"]
    return [
        args.fastchess,
        "-engine", f"cmd={args.engine}", "name=fianchetto", *limited,
        "-engine", f"cmd={args.stockfish}", "name=stockfish", *limited,
        "-each", f"tc={args.tc}", "option.Hash=16", "option.Threads=1",
        "-openings", f"file={args.openings}", "format=epd", "order=random", "-srand", str(level),
        "-repeat", "-rounds", str((args.games + 1) // 2), "-concurrency", str(args.concurrency),
        "-ratinginterval", "10", "-pgnout", f"file={pgn}",
    ]


def row(level: int, text: str) -> str:
    """The docs/strength.md table row for one level, from fastchess's last summary."""
    result = outcome_of(parse_summary(text))
    if result is None:
        return f"| {level} | 0 | - | - | - | no games |"
    verdict = "calibrated" if 0.35 <= result.score <= 0.65 else ("too strong" if result.score > 0.65 else "too weak")
    return (f"| {level} | {result.games} | {result.wins}-{result.draws}-{result.losses} | "
            f"{100 * result.score:.1f}% | {result.elo} | {verdict} |")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="1500,2000,2400")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--engine", default=shutil.which("fianchetto") or "fianchetto")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--openings", default=str(DEFAULT_OPENINGS))
    parser.add_argument("--fastchess", default=os.environ.get("FASTCHESS") or shutil.which("fastchess"))
    parser.add_argument("--out", type=Path, default=Path.home() / ".cache" / "fianchetto" / "calibration")
    args = parser.parse_args(argv)
    if not args.fastchess:
        print("fastchess not found: pass --fastchess or set FASTCHESS", file=sys.stderr)
        return 2
    levels = [int(x) for x in args.levels.split(",") if x.strip()]
    outside = [x for x in levels if not STOCKFISH_ELO_RANGE[0] <= x <= STOCKFISH_ELO_RANGE[1]]
    if outside:
        print(f"Stockfish's UCI_Elo cannot play {outside}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for level in levels:
        command = level_command(args, level, args.out / f"level{level}.pgn")
        print(" ".join(command), flush=True)
        log = args.out / f"level{level}.out"   # written as the games go: tail -f it
        with log.open("w") as stream:
            subprocess.run(command, stdout=stream, stderr=subprocess.STDOUT, cwd=args.out)
        rows.append(row(level, log.read_text()))
        print(rows[-1], flush=True)
    print("| level | games | W-D-L | score | Elo | verdict |")
    print("|---|---|---|---|---|---|")
    for line in rows:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
