#!/usr/bin/env python3
"""Soak: many self-play games between two long-lived engine processes.

A tournament manager starts one process per engine and plays game after game
through it, with ``ucinewgame`` in between. This does the same with
python-chess's UCI client, keeps the clocks as a manager does (wall time around
every ``go``, plus the increment), and counts what a tournament user would
report as a bug:

* a crash (the process died or refused a command),
* a hang (no ``bestmove`` within the clock plus a grace period),
* an illegal ``bestmove`` or an illegal move in the final PV,
* a loss on time.

Resident memory (RSS) of both processes is read after the first and after the
last game. Openings are four random plies from the start position (seeded), each
played twice with colours reversed.

    python tools/soak.py --games 300 --tc 1+0.01
    python tools/soak.py --games 50 --tc 10+0.1 --json soak.json

Exit status 0 when no game had a failure and memory grew less than
``--max-rss-growth`` (10% by default), 1 otherwise. The last line is a summary.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Sequence

import chess
import chess.engine

from fianchetto.cli import engine_command

#: Extra seconds a move may take beyond the mover's clock before it is a hang.
HANG_GRACE_S = 10.0
#: Games longer than this many plies are drawn (keeps a shuffling draw from
#: running for ever; real managers adjudicate too).
MAX_PLIES = 400
#: Win adjudication: both sides agree on a score this large (cp) for this many plies.
ADJUDICATE_CP = 1000
ADJUDICATE_PLIES = 8


@dataclass
class Tally:
    games: int = 0
    white_wins: int = 0
    black_wins: int = 0
    draws: int = 0
    crashes: int = 0
    hangs: int = 0
    illegal_moves: int = 0
    illegal_pv: int = 0
    time_forfeits: int = 0
    plies: int = 0
    min_clock_left_s: float = float("inf")
    rss_first_kb: Dict[str, int] = field(default_factory=dict)
    rss_last_kb: Dict[str, int] = field(default_factory=dict)
    failures: List[str] = field(default_factory=list)

    @property
    def failed_games(self) -> int:
        return self.crashes + self.hangs + self.illegal_moves + self.illegal_pv + self.time_forfeits

    def rss_growth(self) -> float:
        """The largest relative RSS growth of either process, first game to last."""
        growth = 0.0
        for name, first in self.rss_first_kb.items():
            last = self.rss_last_kb.get(name, first)
            growth = max(growth, (last - first) / first if first else 0.0)
        return growth


def rss_kb(pid: int) -> int:
    """Resident set size of a process in kB: Linux's /proc, else POSIX ``ps``;
    0 where neither answers (the memory check then sees no growth)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    try:
        out = subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True, timeout=10)
        return int(out.stdout.split()[0])
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return 0


def random_openings(count: int, seed: int, plies: int = 4) -> List[str]:
    rng = random.Random(seed)
    openings = []
    while len(openings) < count:
        board = chess.Board()
        for _ in range(plies):
            board.push(rng.choice(list(board.legal_moves)))
        openings.append(board.fen())
    return openings


def pv_is_legal(board: chess.Board, pv: Sequence[chess.Move]) -> bool:
    probe = board.copy(stack=False)
    for move in pv:
        if move not in probe.legal_moves:
            return False
        probe.push(move)
    return True


def play_with_deadline(engine: chess.engine.SimpleEngine, board: chess.Board, limit: chess.engine.Limit,
                       deadline_s: float, game: object) -> chess.engine.PlayResult:
    """``engine.play`` that raises TimeoutError after ``deadline_s`` seconds.

    SimpleEngine puts no timeout on a clock-limited ``play``; a hung engine
    would hang the soak with it."""
    coroutine = asyncio.wait_for(
        engine.protocol.play(board, limit, info=chess.engine.INFO_ALL, game=game), deadline_s)
    return asyncio.run_coroutine_threadsafe(coroutine, engine.protocol.loop).result()


class Side:
    """One long-lived engine process."""

    def __init__(self, name: str, command: List[str], options: Dict[str, str]) -> None:
        self.name = name
        self.engine = chess.engine.SimpleEngine.popen_uci(command, timeout=30)
        self.pid = self.engine.transport.get_pid()
        for option, value in options.items():
            self.engine.configure({option: value})

    def close(self) -> None:
        try:
            self.engine.quit()
        except Exception:
            self.engine.close()


def play_game(white: Side, black: Side, fen: str, tc: tuple, game_id: object, tally: Tally) -> str:
    """Play one game; return its result and add any failure to the tally."""
    base, inc = tc
    board = chess.Board(fen)
    clocks = {chess.WHITE: base, chess.BLACK: base}
    sides = {chess.WHITE: white, chess.BLACK: black}
    streak, leader = 0, None
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome:
            return outcome.result()
        if board.ply() >= MAX_PLIES:
            return "1/2-1/2"
        mover = board.turn
        side = sides[mover]
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        where = f"game {tally.games + 1} ply {board.ply()} {side.name}: {board.fen()}"
        loss = "0-1" if mover == chess.WHITE else "1-0"
        started = time.monotonic()
        try:
            result = play_with_deadline(side.engine, board, limit, clocks[mover] + HANG_GRACE_S, game_id)
        except (TimeoutError, asyncio.TimeoutError):
            tally.hangs += 1
            tally.failures.append(f"hang at {where}")
            raise
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as error:
            tally.crashes += 1
            tally.failures.append(f"crash at {where}: {error!r}")
            raise
        spent = time.monotonic() - started
        clocks[mover] -= spent
        tally.min_clock_left_s = min(tally.min_clock_left_s, clocks[mover])
        if clocks[mover] < 0:
            tally.time_forfeits += 1
            tally.failures.append(f"time forfeit at {where} (spent {spent:.3f}s)")
            return loss
        clocks[mover] += inc
        if result.move is None or result.move not in board.legal_moves:
            tally.illegal_moves += 1
            tally.failures.append(f"illegal bestmove {result.move} at {where}")
            return loss
        if not pv_is_legal(board, result.info.get("pv", [])):
            tally.illegal_pv += 1
            tally.failures.append(f"illegal pv {result.info.get('pv')} at {where}")
        score = result.info.get("score")
        if score is not None:
            cp = score.pov(mover).score(mate_score=100_000)
            winner = mover if cp > 0 else not mover
            if abs(cp) < ADJUDICATE_CP:
                streak = 0
            elif streak and winner == leader:
                streak += 1
            else:
                streak = 1
            leader = winner
            if streak >= ADJUDICATE_PLIES:
                return "1-0" if winner == chess.WHITE else "0-1"
        board.push(result.move)
        tally.plies += 1


def count_result(tally: Tally, result: str) -> None:
    tally.games += 1
    if result == "1-0":
        tally.white_wins += 1
    elif result == "0-1":
        tally.black_wins += 1
    else:
        tally.draws += 1


def record_rss(sides: Sequence[Side], into: Dict[str, int]) -> None:
    for side in sides:
        into[side.name] = rss_kb(side.pid)


def soak(command: List[str], games: int, tc: tuple, seed: int = 1, options: Optional[Dict[str, str]] = None,
         progress: bool = False) -> Tally:
    """Play ``games`` games (rounded up to even) between two processes of ``command``."""
    tally = Tally()
    options = options or {}
    a, b = Side("A", command, options), Side("B", command, options)
    try:
        for index, fen in enumerate(random_openings((games + 1) // 2, seed)):
            for white, black in ((a, b), (b, a)):
                try:
                    result = play_game(white, black, fen, tc, game_id=(index, white.name), tally=tally)
                except (TimeoutError, asyncio.TimeoutError, chess.engine.EngineError,
                        chess.engine.EngineTerminatedError):
                    return tally
                count_result(tally, result)
                record_rss((a, b), tally.rss_first_kb if tally.games == 1 else tally.rss_last_kb)
                if progress:
                    print(f"game {tally.games}: {result} failures={tally.failed_games} "
                          f"rss={tally.rss_last_kb or tally.rss_first_kb}", flush=True)
    finally:
        a.close()
        b.close()
    return tally


def parse_tc(text: str) -> tuple:
    base, _, inc = text.partition("+")
    return float(base), float(inc or 0)


def summary(tally: Tally, tc_text: str) -> str:
    return (f"soak {tc_text}: games {tally.games} (+{tally.white_wins} ={tally.draws} -{tally.black_wins} "
            f"white's view), plies {tally.plies}, crashes {tally.crashes}, hangs {tally.hangs}, "
            f"illegal moves {tally.illegal_moves}, illegal pv {tally.illegal_pv}, "
            f"time forfeits {tally.time_forfeits}, lowest clock {tally.min_clock_left_s:.3f}s, "
            f"rss first {tally.rss_first_kb} last {tally.rss_last_kb} kB, growth {100 * tally.rss_growth():+.1f}%")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--tc", default="1+0.01", help="seconds+increment")
    parser.add_argument("--engine", help="engine command (default: the installed fianchetto)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="UCI option for both")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-rss-growth", type=float, default=0.10)
    parser.add_argument("--json", help="write the tally here")
    parser.add_argument("--progress", action="store_true", help="a line per game")
    args = parser.parse_args(argv)

    command = args.engine.split() if args.engine else engine_command()
    options = dict(item.split("=", 1) for item in args.option)
    tally = soak(command, args.games, parse_tc(args.tc), args.seed, options, args.progress)
    for failure in tally.failures:
        print(failure)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({**asdict(tally), "rss_growth": tally.rss_growth()}, out, indent=1)
    print(summary(tally, args.tc))
    complete = tally.games >= args.games
    healthy = tally.failed_games == 0 and tally.rss_growth() <= args.max_rss_growth
    return 0 if complete and healthy else 1


if __name__ == "__main__":
    sys.exit(main())
