"""Syzygy endgame tablebases: configuration and the root decision.

The compiled core reads the tables (``core_cy.core.SyzygyTables``; WDL and DTZ
probes run in C, cheap enough for interior search nodes, where the search uses
WDL after every capture or pawn move). At the root, every legal move is
classified by what the tables say about the position it leads to. A won
position is converted by playing a move with the shortest distance to a zeroing
move (capture, pawn move or mate), which can never let the win slip; a drawn
position is searched among the moves that keep the draw; a lost one plays the
longest resistance. With ``Syzygy50MoveRule`` on, wins that the fifty-move rule
would spoil count as draws (and such losses as saved). A root without mating
material (K v K, a lone minor piece, bishops all on one colour) is a draw
whatever is played, with tables or without: its score is reported as exact.

Each :class:`Tablebases` (a UCI session, each in-process ``Engine``) loads a set
of its own (``core_cy.core.SyzygyTables``), so users of other folders never see
each other's tables. A new set replaces the old one only once it has loaded;
a search that was started with the old one holds it until it ends.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Tuple

from core_cy.core import SyzygyTables

from fianchetto.board import Board
from fianchetto.score import TB_WIN_CP    # a tablebase win, minus the plies to zeroing

WIN, CURSED_WIN, DRAW, BLESSED_LOSS, LOSS = 2, 1, 0, -1, -2


@dataclass
class RootDecision:
    """What the tables (or a dead draw) say about the root: play `move` now, or
    search `moves`."""

    wdl: int                          # outcome for the side to move with best play
    score_cp: int                     # score to report
    move: Optional[str] = None        # a move to play without searching
    moves: List[str] = field(default_factory=list)   # moves a search may choose from
    tbhits: int = 0

    def plan(self, allowed: Optional[List[str]]) -> "RootPlan":
        """What to do when the user allows only `allowed` (None: every move). A verdict
        about moves the user did not allow says nothing of the others: they are
        searched, with the search's own scores."""
        if self.move is not None:
            if allowed is None or self.move in allowed:
                return RootPlan(play=self.move)
            return RootPlan(roots=allowed)
        kept = [move for move in (allowed or self.moves) if move in self.moves]
        if not kept:
            return RootPlan(roots=allowed)
        return RootPlan(roots=kept, score_cp=self.score_cp)


@dataclass
class RootPlan:
    """A covered root: play `play` without searching, or search `roots` (None: every
    move) and report `score_cp` for them (None: the search's own scores)."""

    play: Optional[str] = None
    roots: Optional[List[str]] = None
    score_cp: Optional[int] = None


@dataclass
class _RankedMove:
    uci: str
    outcome: int          # WIN .. LOSS for us after the move (50-move rule applied)
    plies: int            # plies to the next zeroing move on the winning/losing side


class TablebaseError(ValueError):
    """A SyzygyPath that cannot be used; the tables held before stay."""


class Tablebases:
    """One user's Syzygy tables and the root decision (module docstring)."""

    def __init__(self) -> None:
        self.tables: Optional[SyzygyTables] = None    # what searches probe (None: no tables)
        self.folders: List[str] = []
        self.hits = 0

    @property
    def max_pieces(self) -> int:
        return self.tables.largest if self.tables is not None else 0

    @property
    def files(self) -> int:
        """The WDL and DTZ files loaded."""
        return self.tables.files if self.tables is not None else 0

    def configure(self, spec: str) -> List[str]:
        """Use the tables of the folders in `spec` (os.pathsep separated; empty or
        ``<empty>``: none) and return the problems with some of its folders.
        :class:`TablebaseError`, the tables held before kept, when no folder of
        `spec` holds tables."""
        folders, problems = _folders_with_tables(spec)
        if problems and not folders:
            raise TablebaseError("; ".join(problems))
        if not folders:
            self.close()
        elif folders != self.folders:
            tables = SyzygyTables(os.pathsep.join(folders))
            if not tables.largest:
                raise TablebaseError("no Syzygy tables found in SyzygyPath")
            self.tables, self.folders = tables, folders
        return problems

    def describe(self) -> str:
        return f"the Syzygy tables loaded before (up to {self.max_pieces} pieces)" if self.max_pieces \
            else "no Syzygy tables"

    def close(self) -> None:
        """Let go of the tables (a search still running keeps them until it ends)."""
        self.tables, self.folders = None, []

    def probe_limit(self, limit: int) -> int:
        """The search's probe limit: `limit`, or 0 when this user has no tables."""
        return min(int(limit), self.max_pieces)

    def covers(self, board: Board, probe_limit: int) -> bool:
        placement, _, castling = board.fen().split()[:3]
        pieces = sum(ch.isalpha() for ch in placement)
        return self.max_pieces > 0 and pieces <= min(self.max_pieces, probe_limit) and castling == "-"

    def root(self, board: Board, probe_limit: int, use_50_move_rule: bool) -> Optional[RootDecision]:
        """What is known of the root without a search, or None: a dead draw (no
        sequence of moves can mate, so every move draws), else the tables' verdict
        when they cover the root.

        Covered positions have no castling rights, so no move needs Chess960 spelling."""
        if board.is_insufficient_material():
            return _dead_draw(board)
        if not self.covers(board, probe_limit):
            return None
        position = board.copy()
        self.hits = 0
        ranked = []
        for move in position.legal_moves():
            ranked_move = self._rank(position, move, use_50_move_rule)
            if ranked_move is None:
                return None
            ranked.append(ranked_move)
        if not ranked:
            return None
        best = max(ranked, key=_preference)
        outcome = best.outcome
        if outcome in (WIN, LOSS) or (outcome == CURSED_WIN and not use_50_move_rule):
            return RootDecision(outcome, _score(outcome, best.plies), move=best.uci, tbhits=self.hits)
        keep = [r.uci for r in ranked if r.outcome == outcome]
        return RootDecision(outcome, _score(outcome, best.plies), moves=keep, tbhits=self.hits)

    def _rank(self, position: Board, move: str, rule50: bool) -> Optional[_RankedMove]:
        position.push(move)
        try:
            if position.is_checkmate():
                return _RankedMove(move, WIN, 1)
            if position.is_stalemate() or position.is_insufficient_material():
                return _RankedMove(move, DRAW, 1)
            wdl = position.probe_wdl(self.tables)
            self.hits += 1
            if wdl is None:
                return None
            halfmove = position.halfmove_clock
            if halfmove == 0 or wdl == 0:
                plies = 1
            else:
                dtz = position.probe_dtz(self.tables)   # opponent's view: plies to their zeroing
                self.hits += 1
                if dtz is None:
                    return None
                plies = abs(dtz) + 1
            outcome = -wdl
            if rule50 and outcome in (WIN, LOSS) and plies - 1 + halfmove > 100:
                outcome = CURSED_WIN if outcome == WIN else BLESSED_LOSS
            return _RankedMove(move, outcome, plies)
        finally:
            position.pop()


def _folders_with_tables(spec: str) -> Tuple[List[str], List[str]]:
    """The folders of `spec` that hold WDL tables (resolved paths), and the problems."""
    problems, folders, found = [], [], False
    for part in spec.split(os.pathsep):
        part = part.strip()
        if not part or part == "<empty>":
            continue
        path = Path(part).expanduser()
        if not path.is_dir():
            problems.append(f"Syzygy folder not found: {path}")
            continue
        found = True
        if any(path.glob("*.rtbw")):
            folders.append(str(path.resolve()))
    if found and not folders:
        problems.append("no Syzygy tables found in SyzygyPath")
    return folders, problems


def _preference(r: _RankedMove):
    """Best outcome first; among wins the fastest zeroing, among losses the slowest."""
    if r.outcome > 0:
        return (r.outcome, -r.plies)
    return (r.outcome, r.plies)


def _dead_draw(board: Board) -> Optional[RootDecision]:
    """A root without mating material: drawn whatever is played (None: no move)."""
    moves = board.legal_moves()
    return RootDecision(DRAW, 0, moves=moves) if moves else None


def _score(outcome: int, plies: int) -> int:
    if outcome == WIN:
        return TB_WIN_CP - plies
    if outcome == LOSS:
        return -TB_WIN_CP + plies
    return 0
