#!/usr/bin/env python3
"""Calibrate UCI_Elo: each level against Stockfish limited to the same UCI_Elo.

    python tools/calibrate.py [--levels 1500,2000,2400] [--games 60] [--tc 10+0.1]
                               [--engine fianchetto] [--stockfish /usr/games/stockfish]
                               [--full-strength 2400] [--fit]

For every level, fastchess plays colour-reversed pairs from
``../shared/data/openings.epd`` between Fianchetto (``UCI_LimitStrength=true``,
``UCI_Elo=level``) and Stockfish (the same two options), one thread and 16 MB
each, concurrency 2. A level is calibrated when it scores between 35% and 65%.
The script prints one Markdown table row per level, as docs/strength.md keeps
them: level, games, W-D-L (Fianchetto's), score, Elo difference with its 95%
interval as fastchess computes it. Each level's games and fastchess's running
output are written as they are played to ``--out`` (``level<N>/chunk<K>.pgn``
and ``.out``, by default under ``~/.cache/fianchetto/calibration``), ``--chunk``
games (10) at a time: a finished chunk is marked ``.done`` and a second run
with the same ``--out`` plays only what is missing, so a calibration cut short
by the end of a session resumes. Each chunk draws its openings with a seed of
its own (level * 1000 + chunk).

``--full-strength LEVEL`` also plays the engine unlimited against Stockfish at
LEVEL: its rating on this scale is LEVEL plus the Elo difference measured.
``--fit`` then refits ``src/fianchetto/strength.json``: each level played
becomes an anchor (added, with the table's values there, if it was not one) and
its node budget moves against the level's measured Elo difference, by the
table's own Elo per doubling of nodes at that level, damped to 80% so that a
noisy measurement does not overshoot; the measured full strength becomes
``full_strength_elo``, the top of the ``UCI_Elo`` range. ``--no-play`` reads
the results of levels already played from ``--out`` instead of playing them
(to refit from some of them). Run the calibration again after a fit: a fit is
a step, the table row is the proof.

Stockfish 15.1's ``UCI_Elo`` runs from 1350 to 2850 (calibrated at 60+0.6 on the
CCRL 40/4 scale); levels outside that range cannot be measured this way.
fastchess is found through ``--fastchess``, ``$FASTCHESS`` or ``PATH``.
"""
from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

from sprt import Outcome, outcome_from, outcome_of, parse_summary  # fastchess's summary, as the test log reads it
from sprt import play_to_file, stoppable  # fastchess ended with the tool

from fianchetto import strength  # the installed package: run this with its Python

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "src" / "fianchetto" / "strength.json"   # --fit writes the repository's table
DEFAULT_OPENINGS = ROOT.parent / "shared" / "data" / "openings.epd"
STOCKFISH_ELO_RANGE = (1350, 2850)


def level_command(args: argparse.Namespace, level: int, pgn: Path, full_strength: bool = False,
                  games: Optional[int] = None, seed: Optional[int] = None) -> List[str]:
    limited = ["option.UCI_LimitStrength=true", f"option.UCI_Elo={level}"]
    ours = [] if full_strength else limited
    games = args.games if games is None else games
    return [
        args.fastchess,
        "-engine", f"cmd={args.engine}", "name=fianchetto", *ours,
        "-engine", f"cmd={args.stockfish}", "name=stockfish", *limited,
        "-each", f"tc={args.tc}", "option.Hash=16", "option.Threads=1",
        "-openings", f"file={args.openings}", "format=epd", "order=random",
        "-srand", str(level if seed is None else seed),
        "-repeat", "-rounds", str((games + 1) // 2), "-concurrency", str(args.concurrency),
        "-ratinginterval", "10", "-pgnout", f"file={pgn}",
    ]


def outcome(found: Union[str, Outcome, None]) -> Optional[Outcome]:
    """An Outcome, from fastchess's output or as it is."""
    if isinstance(found, str):
        found = outcome_of(parse_summary(found))
    return found if found is not None and found.games else None


def combined(outcomes: Sequence[Outcome]) -> Optional[Outcome]:
    """The chunks of a level as one result, with the Elo difference and its 95%
    interval from the trinomial spread of the games."""
    wins, draws, losses = (sum(getattr(o, key) for o in outcomes) for key in ("wins", "draws", "losses"))
    games = wins + draws + losses
    if not games:
        return None
    score = (wins + draws / 2) / games
    clamped = min(0.98, max(0.02, score))
    spread = math.sqrt(max((wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score ** 2) / games,
                           1e-12) / games)
    slope = 400 / (math.log(10) * clamped * (1 - clamped))
    elo = f"{-400 * math.log10(1 / clamped - 1):.2f} ± {1.96 * spread * slope:.2f}"
    return outcome_from(games, wins, draws, losses, elo)


def row(level: int, found: Union[str, Outcome, None]) -> str:
    """The docs/strength.md table row for one level."""
    result = outcome(found)
    if result is None:
        return f"| {level} | 0 | - | - | - | no games |"
    verdict = "calibrated" if 0.35 <= result.score <= 0.65 else ("too strong" if result.score > 0.65 else "too weak")
    return (f"| {level} | {result.games} | {result.wins}-{result.draws}-{result.losses} | "
            f"{100 * result.score:.1f}% | {result.elo} | {verdict} |")


def elo_difference(found: Union[str, Outcome, None]) -> Optional[float]:
    """Fianchetto's rating minus Stockfish's, from the score (clamped to 2%..98%
    so that a whitewash gives a finite step)."""
    result = outcome(found)
    if result is None:
        return None
    p = min(0.98, max(0.02, result.score))
    return -400 * math.log10(1 / p - 1)


def fitted_table(differences: Dict[int, float], full_strength: Optional[float]):
    """(full-strength rating, anchors) after moving each measured level's budget."""
    anchors = {a.elo: a for a in strength.ANCHORS}
    for level in differences:
        if level not in anchors and level < strength.MAX_ELO:
            anchors[level] = strength.Anchor(level, strength.node_budget(level), strength.candidates(level),
                                             round(strength.noise_cp(level), 1))
    for level, difference in differences.items():
        if level in anchors:
            old = anchors[level]
            nodes = strength.refit_budget(old.nodes, difference, strength.elo_per_doubling(level))
            anchors[level] = strength.Anchor(old.elo, nodes, old.candidates, old.noise_cp)
    top = strength.FULL_STRENGTH_ELO if full_strength is None else int(round(full_strength))
    kept = sorted((a for a in anchors.values() if a.elo < top), key=lambda a: a.elo)
    return top, kept


def play(args: argparse.Namespace, level: int, full_strength: bool = False) -> Optional[Outcome]:
    """One level's result, played in chunks of ``--chunk`` games: a chunk already
    finished in ``--out`` (its ``.done`` marker) is read back, not played again, so
    an interrupted calibration goes on where it stopped; ``--no-play`` only reads."""
    folder = args.out / (f"full{level}" if full_strength else f"level{level}")
    folder.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for index, start in enumerate(range(0, args.games, args.chunk)):
        games = min(args.chunk, args.games - start)
        log, pgn, done = (folder / f"chunk{index}{suffix}" for suffix in (".out", ".pgn", ".done"))
        if not done.exists():
            if args.no_play:
                break
            pgn.unlink(missing_ok=True)           # a chunk cut short is played again whole
            command = level_command(args, level, pgn, full_strength, games=games, seed=level * 1000 + index)
            print(" ".join(command), flush=True)
            play_to_file(command, folder, log)    # written as the games go: tail -f it
            result = outcome(log.read_text(errors="replace"))
            if result is None or result.games < games:
                print(f"{log}: the chunk ended with {result.games if result else 0} of {games} games; "
                      "run again to replay it", file=sys.stderr)
                break
            done.write_text(f"{result.games}\n")
        found = outcome(log.read_text(errors="replace"))
        if found is not None:
            outcomes.append(found)
    return combined(outcomes)


def main(argv: Optional[List[str]] = None) -> int:
    return stoppable(lambda: calibrate(argv),
                     lambda: "calibrate: stopped; the finished chunks are kept and the same command goes on")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="1500,2000,2400")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--chunk", type=int, default=10,
                        help="games per fastchess run; finished chunks are kept and not replayed (default 10)")
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--engine", default=shutil.which("fianchetto") or "fianchetto")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--openings", default=str(DEFAULT_OPENINGS))
    parser.add_argument("--fastchess", default=os.environ.get("FASTCHESS") or shutil.which("fastchess"))
    parser.add_argument("--out", type=Path, default=Path.home() / ".cache" / "fianchetto" / "calibration")
    parser.add_argument("--full-strength", type=int, default=None, metavar="LEVEL",
                        help="also play the unlimited engine against Stockfish at this UCI_Elo")
    parser.add_argument("--fit", action="store_true", help="refit src/fianchetto/strength.json from the results")
    parser.add_argument("--no-play", action="store_true",
                        help="play nothing: read the levels' results from the logs already in --out")
    return parser


def calibrate(argv: Optional[List[str]] = None) -> int:
    """Play each level (and the full strength) and fit, as the command line asks."""
    args = build_parser().parse_args(argv)
    if not args.fastchess and not args.no_play:
        print("fastchess not found: pass --fastchess or set FASTCHESS", file=sys.stderr)
        return 2
    levels = [int(x) for x in args.levels.split(",") if x.strip()]
    outside = [x for x in levels + ([args.full_strength] if args.full_strength else [])
               if not STOCKFISH_ELO_RANGE[0] <= x <= STOCKFISH_ELO_RANGE[1]]
    if outside:
        print(f"Stockfish's UCI_Elo cannot play {outside}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    rows, differences = [], {}
    for level in levels:
        text = play(args, level)   # an Outcome, or None
        rows.append(row(level, text))
        print(rows[-1], flush=True)
        difference = elo_difference(text)
        if difference is not None:
            differences[level] = difference
    full = None
    if args.full_strength:
        difference = elo_difference(play(args, args.full_strength, full_strength=True))
        if difference is not None:
            full = args.full_strength + difference
            print(f"full strength: {difference:+.0f} against Stockfish at {args.full_strength}, "
                  f"about {full:.0f} on this scale", flush=True)
    print("| level | games | W-D-L | score | Elo | verdict |")
    print("|---|---|---|---|---|---|")
    for line in rows:
        print(line)
    if args.fit:
        top, anchors = fitted_table(differences, full)
        strength.save_table(top, anchors, TABLE)
        print(f"wrote {TABLE}: full strength {top}; "
              + ", ".join(f"{a.elo}: {a.nodes} nodes" for a in anchors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
