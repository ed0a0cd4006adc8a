#!/usr/bin/env python3
"""Measure the latency a GUI sees beyond the engine's own search time.

For every move: the time from the GUI sending ``go`` to it reading ``bestmove``,
minus the search time the engine itself reported (the ``time`` of its last
``info`` line). What is left is what ``Move Overhead`` and the time manager's
reserve must cover: reading the command, starting and stopping the search,
printing, the pipe, and the GUI's own scheduling.

Two sources:

    python3 tools/latency.py fastchess LOG [LOG ...]
        LOG is a fastchess log written with ``-log file=LOG level=info engine=true``;
        fastchess stamps each line it sends and reads with microseconds.

    python3 tools/latency.py python-chess [--engine fianchetto] [--tc 1+0.01] [--games 4]
        plays short self-play games through python-chess's UCI client (what
        ``../shared/tools/match.py`` uses) and times each ``play`` call.

    python3 tools/latency.py pipe [--engine fianchetto] [--searches 300]
        the engine's own share: ``go nodes 50`` from the start position over a raw
        pipe, again and again, with nothing else in the way.

Each prints the number of moves and the median, 99th percentile and maximum in ms.
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

LOG_LINE = re.compile(r"\[(\d\d:\d\d:\d\d\.\d+)\]\s*<\s*\d+>\s*(\S+)\s+(<---|--->)\s+(.*)$")
INFO_TIME = re.compile(r"\btime (\d+)\b")


def _seconds(stamp: str) -> float:
    moment = datetime.strptime(stamp, "%H:%M:%S.%f")
    return moment.hour * 3600 + moment.minute * 60 + moment.second + moment.microsecond / 1e6


def latencies_from_fastchess(lines: Iterable[str]) -> List[float]:
    """Per move, ms from ``go`` sent to ``bestmove`` read, minus the engine's own time.

    Engines are told apart by their name in the log, so concurrent games with
    distinct names, or one game at a time, are read correctly."""
    pending: Dict[str, Tuple[float, Optional[int]]] = {}
    found: List[float] = []
    for line in lines:
        match = LOG_LINE.search(line)
        if not match:
            continue
        stamp, name, direction, text = match.groups()
        now = _seconds(stamp)
        if direction == "<---" and text.startswith("go"):
            pending[name] = (now, None)
        elif direction == "--->" and name in pending:
            started, engine_ms = pending[name]
            if text.startswith("info"):
                reported = INFO_TIME.search(text)
                if reported:
                    pending[name] = (started, int(reported.group(1)))
            elif text.startswith("bestmove"):
                del pending[name]
                elapsed_ms = (now - started) * 1000.0
                if elapsed_ms < 0:  # the log crossed midnight
                    elapsed_ms += 86_400_000.0
                found.append(max(0.0, elapsed_ms - (engine_ms or 0)))
    return found


def latencies_from_python_chess(engine: str, tc: str, games: int, openings: Optional[Path]) -> List[float]:
    """Self-play through python-chess's UCI client, timing each move as a GUI does."""
    import chess
    import chess.engine

    base_s, _, inc_s = tc.partition("+")
    base, inc = float(base_s), float(inc_s or 0)
    fens = [None]
    if openings and openings.exists():
        fens = [line.strip() for line in openings.read_text().splitlines() if line.strip()]
    found: List[float] = []
    with chess.engine.SimpleEngine.popen_uci(engine) as player:
        for game in range(games):
            fen = fens[game % len(fens)]
            board = chess.Board(fen) if fen else chess.Board()
            clocks = {chess.WHITE: base, chess.BLACK: base}
            while not board.is_game_over(claim_draw=True) and board.ply() < 300:
                limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                           white_inc=inc, black_inc=inc)
                started = time.perf_counter()
                result = player.play(board, limit, info=chess.engine.INFO_BASIC)
                elapsed_ms = (time.perf_counter() - started) * 1000.0
                engine_ms = float(result.info.get("time", 0.0)) * 1000.0
                found.append(max(0.0, elapsed_ms - engine_ms))
                clocks[board.turn] += inc - elapsed_ms / 1000.0
                if clocks[board.turn] <= 0 or result.move is None:
                    break
                board.push(result.move)
    return found


def latencies_from_pipe(engine: str, searches: int) -> List[float]:
    """``go nodes 50`` over a raw pipe: the engine's own part of the latency."""
    proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None

    def send(line: str) -> None:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    def read_until(prefix: str) -> Optional[int]:
        engine_ms = None
        for line in proc.stdout:
            reported = INFO_TIME.search(line) if line.startswith("info") else None
            if reported:
                engine_ms = int(reported.group(1))
            if line.startswith(prefix):
                return engine_ms
        raise RuntimeError("the engine closed its output")

    found: List[float] = []
    try:
        send("uci")
        read_until("uciok")
        for _ in range(searches):
            send("position startpos")
            send("isready")
            read_until("readyok")
            started = time.perf_counter()
            send("go nodes 50")
            engine_ms = read_until("bestmove")
            found.append(max(0.0, (time.perf_counter() - started) * 1000.0 - (engine_ms or 0)))
        send("quit")
    finally:
        proc.wait(timeout=10)
    return found


def summary(values: List[float]) -> str:
    if not values:
        return "no moves found"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (f"moves {len(ordered)}  median {statistics.median(ordered):.1f} ms  "
            f"p99 {p99:.1f} ms  max {ordered[-1]:.1f} ms")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sources = parser.add_subparsers(dest="source", required=True)
    from_log = sources.add_parser("fastchess", help="read fastchess engine logs")
    from_log.add_argument("logs", nargs="+", type=Path)
    live = sources.add_parser("python-chess", help="play self-play games through python-chess")
    live.add_argument("--engine", default="fianchetto")
    live.add_argument("--tc", default="1+0.01")
    live.add_argument("--games", type=int, default=4)
    live.add_argument("--openings", type=Path,
                      default=Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "openings.epd")
    pipe = sources.add_parser("pipe", help="the engine alone, over a raw pipe")
    pipe.add_argument("--engine", default="fianchetto")
    pipe.add_argument("--searches", type=int, default=300)
    args = parser.parse_args(argv)
    if args.source == "pipe":
        values = latencies_from_pipe(args.engine, args.searches)
    elif args.source == "fastchess":
        values: List[float] = []
        for log in args.logs:
            with open(log, encoding="utf-8", errors="replace") as lines:
                values.extend(latencies_from_fastchess(lines))
    else:
        values = latencies_from_python_chess(args.engine, args.tc, args.games, args.openings)
    print(summary(values))
    return 0 if values else 1


if __name__ == "__main__":
    sys.exit(main())
