"""Fresh engine processes given a burst of commands in one write.

The protocol fuzzer (test_uci_fuzz.py) drives one long-lived engine, synchronised
with ``isready`` before each example, so it never sees a process's first moments:
the first ``go`` makes the core's search, and commands that arrive meanwhile
(``isready``, ``stop``, ``setoption``, ``eval``) race with it. Here each seeded
example starts a new process, with or without ``uci`` first, and sends its
sequence in bursts, each in one write, as a script does (between bursts it waits
for ``readyok`` or a fifth of a second, so that a ``stop`` can also reach a
search well under way). Checked: exactly one ``bestmove`` per
``go``, in order, each legal in the position that ``go`` was given (inside its
``searchmoves`` when any is legal), ``(none)`` only without legal moves; every
``info`` and ``bestmove`` line well formed; a clean exit on ``quit``.

``FIANCHETTO_FUZZ_EXAMPLES`` and ``FIANCHETTO_FUZZ_FIRST`` set the seeds, as for
the protocol fuzzer (default: 24 examples from seed 0).
"""
from __future__ import annotations

import os
import random
import time
from typing import List, Optional, Set, Tuple

import chess
import pytest

from support.tables import SYZYGY
from support.uci_pipe import UciPipe, assert_uci_line

EXAMPLES = int(os.environ.get("FIANCHETTO_FUZZ_EXAMPLES", "24"))
FIRST_SEED = int(os.environ.get("FIANCHETTO_FUZZ_FIRST", "0"))
PAUSE_S = 0.2

GOS = ["go infinite", "go ponder", "go depth 3", "go movetime 50", "go nodes 2000",
       "go wtime 300 btime 300", "go mate 2", "go depth 2 searchmoves e2e4 z9z9",
       "go ponder wtime 100 btime 100"]
#: ``sync``: send what came before, with ``isready``, and wait for ``readyok``;
#: ``pause``: send what came before and wait 0.2 s (a search gets well under way).
EXTRAS = ["sync", "sync", "pause", "pause", "isready", "ponderhit", "stop", "d", "eval", "flip", "ucinewgame",
          "position startpos moves e2e4", "position fen 8/8/4k3/8/8/3BK3/8/8 w - - 0 1",
          "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",       # stalemate: bestmove (none)
          "setoption name MultiPV value 2", "setoption name Hash value 2",
          "setoption name Threads value 2", "setoption name Clear Hash",
          "setoption name Use NNUE value false", "setoption name UCI_ShowWDL value true",
          f"setoption name SyzygyPath value {SYZYGY}"]


def burst(seed: int) -> Tuple[List[str], int]:
    """The commands of example ``seed`` and the number of its ``go`` commands."""
    rng = random.Random(seed)
    commands = ["uci"] if rng.random() < 0.5 else []
    gos = rng.randint(1, 6)
    for _ in range(gos):
        go = rng.choice(GOS)
        commands.append(go)
        commands.extend(rng.sample(EXTRAS, rng.randint(0, 4)))
        if go.startswith(("go infinite", "go ponder")):
            commands.append("stop")
    return commands, gos


def boards_at_each_go(commands: List[str]) -> List[Tuple[chess.Board, Optional[Set[str]]]]:
    """What the engine was told: the position and the allowed moves of each ``go``."""
    board, found = chess.Board(), []
    for command in commands:
        words = command.split()
        if command == "ucinewgame":
            board = chess.Board()
        elif command == "flip":
            board = chess.Board(board.fen()).mirror()
        elif words[0] == "position" and words[1] == "fen":
            board = chess.Board(" ".join(words[2:8]))
        elif words[0] == "position":
            board = chess.Board()
            for move in words[3:]:
                board.push_uci(move)
        elif command in ("sync", "pause"):
            continue
        elif words[0] == "go":
            legal = {move.uci() for move in board.legal_moves}
            asked = set(words[words.index("searchmoves") + 1:]) & legal if "searchmoves" in words else set()
            found.append((board.copy(), asked or None))
    return found


def send_in_bursts(engine: UciPipe, commands: List[str]) -> List[str]:
    """Write the commands in one write up to each ``sync`` or ``pause``, there add
    ``isready`` and wait for ``readyok``, or wait :data:`PAUSE_S`; the lines read
    so far (the pipe keeps reading while the test sleeps)."""
    lines: List[str] = []
    chunk: List[str] = []
    for command in commands:
        if command == "sync":
            engine.send("\n".join(chunk + ["isready"]).encode())
            lines += engine.read_until("readyok", timeout=30)
            chunk = []
        elif command == "pause":
            if chunk:
                engine.send("\n".join(chunk).encode())
            time.sleep(PAUSE_S)
            chunk = []
        else:
            chunk.append(command)
    if chunk:
        engine.send("\n".join(chunk).encode())
    return lines


@pytest.mark.parametrize("seed", range(FIRST_SEED, FIRST_SEED + EXAMPLES))
def test_a_burst_of_first_commands_gets_one_legal_bestmove_per_go(seed):
    commands, gos = burst(seed)
    expected = boards_at_each_go(commands)
    engine = UciPipe()
    try:
        lines = send_in_bursts(engine, commands)
        while sum(line.startswith("bestmove") for line in lines) < gos:
            lines += engine.read_until(lambda l: l.startswith("bestmove"), timeout=30)
        for line in lines:
            if line.startswith(("info", "bestmove")):
                assert_uci_line(line)
        best_lines = [line for line in lines if line.startswith("bestmove")]
        assert not [l for l in engine.drain(0.3) if l.startswith("bestmove")], "a bestmove too many"
        for line, (board, allowed) in zip(best_lines, expected):
            best = line.split()[1]
            legal = {move.uci() for move in board.legal_moves}
            if not legal:
                assert best == "(none)", (line, board.fen())
            else:
                assert best in (allowed or legal), (line, board.fen(), allowed)
        assert engine.quit() == 0
    finally:
        engine.close()


def test_the_bursts_cover_every_command():
    sent = [command for seed in range(max(EXAMPLES, 24)) for command in burst(seed)[0]]
    assert set(GOS) <= set(sent) and set(EXTRAS) <= set(sent)
    assert any(burst(seed)[0][0] != "uci" for seed in range(24))    # some start without uci
