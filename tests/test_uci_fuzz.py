"""Protocol fuzzer: seeded random UCI sequences drive the real engine process.

Each example is a sequence of steps sent to one long-lived engine, as a GUI
would over a tournament: ``position`` (valid, with random legal moves, or
broken), every kind of ``go`` (limits, clocks, mate, searchmoves, infinite,
ponder, garbage words), ``stop`` (also stale), ``ponderhit``, ``isready``,
``setoption`` (Hash resizes, Clear Hash, MultiPV, Threads, bad names and
values), ``ucinewgame`` and garbage lines, text and binary.

A model of what the engine was told (the last good position, python-chess)
checks the invariants after every step:

* the process stays alive and answers ``isready`` with ``readyok``;
* exactly one ``bestmove`` per ``go``, none while ``go infinite``/``go ponder``
  waits, none after a stale ``stop``;
* every ``bestmove`` and every ``pv`` move is legal in the position that ``go``
  was given (and inside ``searchmoves``), ``(none)`` only without legal moves;
* no stdout line outside the UCI grammar.

``FIANCHETTO_FUZZ_EXAMPLES`` sets the number of examples (default 30) and
``FIANCHETTO_FUZZ_FIRST`` the first seed (default 0), so that a long campaign
goes on where the last one stopped; each example is made from its seed (the
test id), which reproduces it.
"""
from __future__ import annotations

import os
import time
from typing import List, Optional

import chess
import pytest
from support.fuzz import Fuzz
from support.uci_pipe import BESTMOVE_LINE, UciPipe, assert_pv_legal, assert_uci_line, last_line_of_each_rank

EXAMPLES = int(os.environ.get("FIANCHETTO_FUZZ_EXAMPLES", "30"))
FIRST_SEED = int(os.environ.get("FIANCHETTO_FUZZ_FIRST", "0"))
SEEDS = range(FIRST_SEED, FIRST_SEED + EXAMPLES)

FENS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q2/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",   # en passant
    "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1",                                # in check
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",  # checkmated
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",                                 # stalemate
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",                          # mate in 1
    "8/8/8/8/8/5k2/3p4/5K2 b - - 98 120",                             # near the 50-move limit
]
BAD_FENS = [
    "garbage",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
    "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R x K - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - -1 1",
]
BAD_MOVES = ["a1a1", "e2e5", "zzzz", "e7e8k", "e2", "0000x"]
COMMAND_WORDS = {"uci", "isready", "setoption", "ucinewgame", "position", "go", "stop", "ponderhit",
                 "quit", "debug", "register", "d", "eval", "bench"}



# --- steps -------------------------------------------------------------------------------
GO_KINDS = ["depth", "nodes", "movetime", "clock", "mate", "searchmoves", "infinite", "ponder",
            "garbage", "stop-early"]
OPTION_TEMPLATES = [
    "name Hash value {small}", "name Hash value 1", "name Clear Hash", "name MultiPV value {pv}",
    "name Threads value {threads}", "name Hash value -3", "name Hash value lots", "name NoSuch value 1",
    "name MultiPV value 0", "name Move Overhead value {small}", "name Ponder value true", "value 3",
    "name UCI_LimitStrength value {flag}", "name UCI_Elo value {elo}", "name Skill Level value {skill}",
]
SIMPLE_STEPS = [("isready",), ("stop",), ("ponderhit",), ("ucinewgame",), ("debug on",), ("debug off",)]


def position_step(f: Fuzz) -> tuple:
    return ("position", f.integer(0, len(FENS) - 1), f.list_of(lambda f: f.integer(0, 200), 0, 12),
            f.choice(["ok", "ok", "ok", "bad-fen", "bad-move", "no-setup"]))


def go_step(f: Fuzz) -> tuple:
    return ("go", f.choice(GO_KINDS), f.integer(1, 4000), f.integer(0, 40))


def option_step(f: Fuzz) -> tuple:
    return ("setoption", f.choice(OPTION_TEMPLATES), f.integer(1, 24))


def garbage_step(f: Fuzz) -> tuple:
    if f.boolean():
        return ("text", f.text(120, exclude="\r\n"))
    return ("bytes", f.binary(80).replace(b"\n", b" ").replace(b"\r", b" "))


def simple_step(f: Fuzz) -> tuple:
    return f.choice(SIMPLE_STEPS)


def session_steps(seed: int) -> List[tuple]:
    """One to fourteen steps; a go is twice as likely as each other kind."""
    makers = [position_step, go_step, go_step, option_step, garbage_step, simple_step]
    return Fuzz(seed).list_of(lambda f: f.one_of(*makers), 1, 14)


# --- the model and the driver ----------------------------------------------------------------
class Session:
    """The engine plus what it has been told."""

    def __init__(self, engine: UciPipe) -> None:
        self.engine = engine
        self.board = chess.Board()

    # -- reading with the grammar check ----------------------------------------------------
    def check_lines(self, lines: List[str]) -> None:
        for line in lines:
            try:
                assert_uci_line(line)
            except AssertionError as error:
                self.engine.fail(f"stray stdout line: {error}")

    def sync(self) -> None:
        """``isready`` answered, with no ``bestmove`` before the ``readyok``."""
        lines = self.engine.sync()
        self.check_lines(lines)
        stray = [line for line in lines if line.startswith("bestmove")]
        if stray:
            self.engine.fail(f"bestmove without a go: {stray}")
        if self.engine.proc.poll() is not None:
            self.engine.fail(f"engine exited with {self.engine.proc.returncode}")

    # -- steps -------------------------------------------------------------------------------
    def run(self, step: tuple) -> None:
        getattr(self, "step_" + step[0].replace(" ", "_"))(*step[1:])

    def step_position(self, fen_index: int, choices: List[int], how: str) -> None:
        board = chess.Board(FENS[fen_index])
        moves = []
        for choice in choices:
            legal = list(board.legal_moves)
            if not legal:
                break
            move = legal[choice % len(legal)]
            moves.append(move.uci())
            board.push(move)
        setup = "startpos" if fen_index == 0 else "fen " + FENS[fen_index]
        if how == "bad-fen":
            setup = "fen " + BAD_FENS[len(choices) % len(BAD_FENS)]
        elif how == "bad-move":
            moves.append(BAD_MOVES[len(choices) % len(BAD_MOVES)])
        elif how == "no-setup":
            setup = "moves"
        self.engine.send(f"position {setup}" + (" moves " + " ".join(moves) if moves else ""))
        if how == "ok":
            self.board = board

    def go_command(self, kind: str, number: int, small: int) -> str:
        legal = list(self.board.legal_moves)
        if kind == "depth":
            return f"go depth {1 + number % 4}"
        if kind == "nodes":
            return f"go nodes {number}"
        if kind == "movetime":
            return f"go movetime {1 + number % 60}"
        if kind == "clock":
            return f"go wtime {number} btime {number // 2} winc {small} binc {small} movestogo {1 + small % 30}"
        if kind == "mate":
            return f"go mate {1 + small % 3} nodes {number * 5}"
        if kind == "searchmoves":
            chosen = legal[small % max(1, len(legal)):][:3]
            return "go depth 3 searchmoves " + " ".join(m.uci() for m in chosen)
        if kind == "stop-early":  # a long search, stopped after a moment
            return f"go nodes {number * 50}"
        if kind == "garbage":
            return f"go depth x{number} nodes {number} movetime -5 wtime abc frobnicate {small}"
        if kind == "ponder":  # after ponderhit the clock applies
            return f"go ponder wtime {number} btime {number} winc {small} binc {small}"
        return "go infinite"

    def step_go(self, kind: str, number: int, small: int) -> None:
        board = self.board.copy()
        command = self.go_command(kind, number, small)
        allowed = self.allowed_moves(board, command)
        self.engine.send(command)
        if kind in ("infinite", "ponder"):
            lines = self.engine.assert_silent(0.05 + small / 1000)
            self.check_lines(lines)
            self.sync()  # isready during the search: answered, and still no bestmove
            self.engine.send("ponderhit" if kind == "ponder" and small % 2 else "stop")
        elif kind == "stop-early":
            time.sleep(small / 2000)
            self.engine.send("stop")
        lines, best, _ = self.read_bestmove()
        self.check_lines(lines)
        self.check_bestmove(board, best, allowed, lines)

    def read_bestmove(self):
        lines = self.engine.read_until(lambda line: line.startswith("bestmove"), timeout=120)
        match = BESTMOVE_LINE.match(lines[-1])
        if not match:
            self.engine.fail(f"malformed bestmove line {lines[-1]!r}")
        return lines, match.group(1), match.group(2)

    @staticmethod
    def allowed_moves(board: chess.Board, command: str) -> Optional[set]:
        if " searchmoves " not in command:
            return None
        return set(command.split(" searchmoves ")[1].split()) or None

    def check_bestmove(self, board: chess.Board, best: str, allowed: Optional[set], lines: List[str]) -> None:
        if not any(board.legal_moves):
            if best != "(none)":
                self.engine.fail(f"bestmove {best} in a position without legal moves")
            return
        if best == "(none)" or chess.Move.from_uci(best) not in board.legal_moves:
            self.engine.fail(f"illegal bestmove {best} in {board.fen()}")
        if allowed and best not in allowed:
            self.engine.fail(f"bestmove {best} outside searchmoves {sorted(allowed)}")
        try:
            assert_pv_legal(board, lines)
        except AssertionError as error:
            self.engine.fail(str(error))
        shown = last_line_of_each_rank(lines)
        if shown and shown.get(1, [best])[0] != best:
            self.engine.fail(f"bestmove {best} but the last multipv 1 line starts {shown[1][0]}")
        firsts = [pv[0] for pv in shown.values()]
        if len(set(firsts)) < len(firsts):
            self.engine.fail(f"a move at two ranks of the last lines: {shown}")

    def step_setoption(self, template: str, small: int) -> None:
        text = template.format(small=small, pv=1 + small % 3, threads=1 + small % 2,
                               flag="true" if small % 3 else "false", elo=1320 + 60 * small, skill=small % 21)
        self.engine.send("setoption " + text)

    def step_text(self, text: str) -> None:
        words = text.split()
        if words and words[0].lower() in COMMAND_WORDS:
            text = "x" + text
        self.engine.send(text)

    def step_bytes(self, data: bytes) -> None:
        head = data.split()[:1]
        if head and head[0].lower() in {w.encode() for w in COMMAND_WORDS}:
            data = b"x" + data
        self.engine.send(data)

    def step_isready(self) -> None:
        self.sync()

    def step_stop(self) -> None:
        self.engine.send("stop")  # stale: nothing may come of it

    def step_ponderhit(self) -> None:
        self.engine.send("ponderhit")  # stale too

    def step_ucinewgame(self) -> None:
        self.engine.send("ucinewgame")
        self.board = chess.Board()

    def step_debug_on(self) -> None:
        self.engine.send("debug on")

    def step_debug_off(self) -> None:
        self.engine.send("debug off")


@pytest.fixture(scope="module")
def session():
    engine = UciPipe()
    engine.handshake()
    yield Session(engine)
    assert engine.quit() == 0
    engine.close()


@pytest.mark.parametrize("seed", SEEDS)
def test_random_uci_sessions_keep_every_invariant(session, seed):
    sequence = session_steps(seed)
    session.engine.send("ucinewgame")
    session.board = chess.Board()
    session.sync()
    for step in sequence:
        session.run(step)
    session.sync()


def test_the_sessions_cover_every_kind_of_step():
    """Across the examples every kind of step and every kind of go is sent."""
    steps = [step for seed in range(max(EXAMPLES, 30)) for step in session_steps(seed)]
    kinds = {step[0] for step in steps}
    assert {"position", "go", "setoption", "text", "bytes", "isready", "stop"} <= kinds, kinds
    assert {step[1] for step in steps if step[0] == "go"} == set(GO_KINDS)
    assert len({repr(session_steps(seed)) for seed in range(30)}) == 30
