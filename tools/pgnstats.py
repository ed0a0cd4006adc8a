#!/usr/bin/env python3
"""What a tournament manager's PGN says about how the engines played their clock.

    python3 tools/pgnstats.py GAMES.pgn [GAMES.pgn ...]

Reads the PGN written by fastchess (or cutechess-cli) and prints the number of
games, how they ended (the ``Termination`` tag: time forfeits, illegal moves
and disconnects show there), and, from the move comments the managers write
(``{+0.40/13 0.046s}``: score, depth, time), the average search depth and the
average time per move. No python-chess: the file is read as text.
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from typing import Dict, Iterable, List, Optional

TERMINATION = re.compile(r'^\[Termination "([^"]*)"\]')
RESULT = re.compile(r'^\[Result "([^"]*)"\]')
MOVE_COMMENT = re.compile(r"\{[^}]*?/(\d+)\s+([\d.]+)s")


def pgn_stats(lines: Iterable[str]) -> Dict[str, object]:
    terminations: Counter = Counter()
    results: Counter = Counter()
    depths: List[int] = []
    seconds: List[float] = []
    for line in lines:
        tag = TERMINATION.match(line)
        if tag:
            terminations[tag.group(1)] += 1
            continue
        tag = RESULT.match(line)
        if tag:
            results[tag.group(1)] += 1
            continue
        if line.startswith("["):
            continue
        for depth, spent in MOVE_COMMENT.findall(line):
            depths.append(int(depth))
            seconds.append(float(spent))
    return {
        "games": sum(results.values()),
        "results": dict(results),
        "terminations": dict(terminations),
        "moves": len(depths),
        "average_depth": sum(depths) / len(depths) if depths else None,
        "average_seconds": sum(seconds) / len(seconds) if seconds else None,
    }


def report(stats: Dict[str, object]) -> str:
    depth: Optional[float] = stats["average_depth"]  # type: ignore[assignment]
    spent: Optional[float] = stats["average_seconds"]  # type: ignore[assignment]
    ends = ", ".join(f"{name or 'unknown'} {count}" for name, count in sorted(stats["terminations"].items()))
    return (f"games {stats['games']}  results {stats['results']}\n"
            f"terminations: {ends or 'none given'}\n"
            f"moves with comments {stats['moves']}  average depth "
            f"{'-' if depth is None else f'{depth:.2f}'}  average time per move "
            f"{'-' if spent is None else f'{1000 * spent:.1f} ms'}")


def main(argv: Optional[List[str]] = None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    lines: List[str] = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines.extend(handle)
    print(report(pgn_stats(lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
