#!/usr/bin/env python3
"""Play one build of Fianchetto against other engines under fastchess.

    python3 tools/gauntlet.py REF [--opponent NAME=COMMAND ...] [--games 100] [--tc 10+0.1]
                              [--log docs/gauntlet.md]

REF is a git ref, built and cached as tools/sprt.py builds it. Without
``--opponent`` the opponents are Debian's Glaurung 2.2 and Toga II 3.0
(``/usr/games/glaurung``, ``/usr/games/toga2``). ``--opponent ethereal12`` or
``ethereal13`` (a bare name) plays that release as ``tools/opponents.py``
built it, with the settings it needs at 10+0.1 (MoveOverhead). Each row ends
with fastchess's pentanomial counts (pairs scoring 0, 0.5, 1, 1.5, 2). Every engine plays with one
thread, 16 MB of hash, no pondering and no book of its own; an option is only
set when the engine declares it (Toga II has no ``Threads``: it is single
threaded anyway). fastchess plays colour-reversed pairs from balanced openings,
concurrency 2, adjudicated as tools/sprt.py adjudicates, and the script prints
one Markdown row per opponent, as the table of docs/gauntlet.md keeps them;
``--log`` adds them at the end of that table (notes follow it). Games and
fastchess's output go to ``~/.cache/fianchetto/gauntlets/<commit>-<pid>/<opponent>.pgn`` and ``.out``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Dict, List, Optional

import opponents
from sprt import (ADJUDICATION, CACHE, DEFAULT_OPENINGS, Outcome, add_rows, build, commit_of, outcome_of,
                  parse_summary, play_to_file, stoppable)

DEFAULT_OPPONENTS = ["glaurung=/usr/games/glaurung", "toga=/usr/games/toga2"]
#: The settings of a fair engine match; each is sent only to engines that declare it.
FAIR_OPTIONS = {"Threads": "1", "Hash": "16", "Ponder": "false", "OwnBook": "false"}


def declared_options(command: str, timeout: float = 10.0) -> List[str]:
    """The option names an engine lists in answer to ``uci``."""
    reply = subprocess.run([command], input="uci\nquit\n", capture_output=True, text=True,
                           timeout=timeout).stdout
    names = []
    for line in reply.splitlines():
        if line.startswith("option name "):
            names.append(line[len("option name "):].split(" type ")[0].strip())
    return names


def fair_settings(declared: List[str]) -> List[str]:
    """fastchess ``option.NAME=VALUE`` arguments for the fair options an engine has."""
    return [f"option.{name}={value}" for name, value in FAIR_OPTIONS.items() if name in declared]


def match_command(args: argparse.Namespace, engine: str, engine_settings: List[str], opponent: str,
                  command: str, pgn: Path) -> List[str]:
    """fastchess's command for Fianchetto (`engine`, with its fair settings) against one opponent."""
    return [
        args.fastchess,
        "-engine", f"cmd={engine}", "name=fianchetto", *engine_settings,
        "-engine", f"cmd={command}", f"name={opponent}", *fair_settings(declared_options(command)),
        *release_settings(opponent),
        "-each", f"tc={args.tc}",
        "-openings", f"file={args.openings}", "format=epd", "order=random", "-srand", str(args.seed),
        "-repeat", "-rounds", str((args.games + 1) // 2), "-concurrency", str(args.concurrency),
        *ADJUDICATION, "-ratinginterval", "10", "-pgnout", f"file={pgn}",
    ]


def release_settings(opponent: str) -> List[str]:
    """fastchess arguments a built release needs (tools/opponents.py), e.g. its MoveOverhead."""
    release = opponents.RELEASES.get(opponent)
    return [f"option.{name}={value}" for name, value in release.options.items()] if release else []


def row(commit: str, opponent: str, tc: str, result: Optional[Outcome], pentanomial: str = "") -> str:
    """The log row of one opponent (Fianchetto's W-D-L, then the pentanomial
    counts when fastchess gave them); dashes when no game ended."""
    if result is None:
        return f"| {date.today()} | `{commit[:8]}` | {opponent} | {tc} | 0 | - | - | - |"
    penta = f" (pentanomial {', '.join(pentanomial.replace(',', ' ').split())})" if pentanomial else ""
    return (f"| {date.today()} | `{commit[:8]}` | {opponent} | {tc} | {result.games} | "
            f"{result.wins}-{result.draws}-{result.losses} | {100 * result.score:.1f}% | {result.elo}{penta} |")


def parse_opponents(specs: List[str]) -> Dict[str, str]:
    """NAME=COMMAND, or the bare name of a release tools/opponents.py built."""
    found = {}
    for spec in specs:
        name, sep, command = spec.partition("=")
        if not sep and opponents.resolve(spec):
            found[spec] = opponents.resolve(spec)
            continue
        if not sep and spec in opponents.RELEASES:
            raise ValueError(f"{spec} is not built: python3 tools/opponents.py build {spec}")
        if not sep or not name or not command:
            raise ValueError(f"--opponent wants NAME=COMMAND or a built release "
                             f"({', '.join(sorted(opponents.RELEASES))}), not {spec!r}")
        found[name] = command
    return found


def main(argv: Optional[List[str]] = None) -> int:
    return stoppable(lambda: gauntlet(argv),
                     lambda: "gauntlet: stopped; the rows of finished opponents were printed, none logged")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref", help="git ref of the build to play")
    parser.add_argument("--opponent", action="append", default=[], metavar="NAME=COMMAND")
    parser.add_argument("--games", type=int, default=100, help="games per opponent")
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1, help="opening order")
    parser.add_argument("--openings", default=str(DEFAULT_OPENINGS))
    parser.add_argument("--fastchess", default=os.environ.get("FASTCHESS") or shutil.which("fastchess"))
    parser.add_argument("--log", default=None, help="add the rows to this file's results table (docs/gauntlet.md)")
    return parser


def gauntlet(argv: Optional[List[str]] = None) -> int:
    """Build the ref and play each opponent in turn, as the command line asks."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.fastchess:
        print("fastchess not found: pass --fastchess or set FASTCHESS", file=sys.stderr)
        return 2
    try:
        opponents = parse_opponents(args.opponent or DEFAULT_OPPONENTS)
    except ValueError as error:
        parser.error(str(error))
    commit = commit_of(args.ref)
    engine = str(build(commit))
    engine_settings = fair_settings(declared_options(engine))
    folder = CACHE / "gauntlets" / f"{commit[:8]}-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    rows, complete = [], True
    for name, command in opponents.items():
        out = folder / f"{name}.out"             # written as the games go: tail -f it
        fastchess = match_command(args, engine, engine_settings, name, command, folder / f"{name}.pgn")
        print(" ".join(fastchess), flush=True)
        play_to_file(fastchess, folder, out)
        summary = parse_summary(out.read_text())
        result = outcome_of(summary)
        complete = complete and result is not None
        rows.append(row(commit, name, args.tc, result, summary.get("ptnml", "")))
        print(rows[-1], flush=True)
    if args.log:
        add_rows(Path(args.log), rows)
    return 0 if complete else 1


if __name__ == "__main__":
    raise SystemExit(main())
