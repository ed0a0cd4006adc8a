"""Syzygy endgame tablebases: configuration and the root decision.

The compiled core reads the tables (``core_cy.core.syzygy_init``; WDL and DTZ
probes run in C, cheap enough for interior search nodes, where the search uses
WDL after every capture or pawn move). At the root, every legal move is
classified by what the tables say about the position it leads to. A won
position is converted by playing a move with the shortest distance to a zeroing
move (capture, pawn move or mate), which can never let the win slip; a drawn
position is searched among the moves that keep the draw; a lost one plays the
longest resistance. With ``Syzygy50MoveRule`` on, wins that the fifty-move rule
would spoil count as draws (and such losses as saved).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

from core_cy.core import syzygy_init

from fianchetto.board import Board
from fianchetto.score import TB_WIN_CP    # a tablebase win, minus the plies to zeroing

WIN, CURSED_WIN, DRAW, BLESSED_LOSS, LOSS = 2, 1, 0, -1, -2


@dataclass
class RootDecision:
    """What the tables say about the root: play `move` now, or search `moves`."""

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


class Tablebases:
    def __init__(self) -> None:
        self.max_pieces = 0
        self.hits = 0

    def configure(self, spec: str) -> List[str]:
        """Load the folders in `spec` (os.pathsep separated); return problems found.

        No search may run meanwhile (the core replaces its tables)."""
        problems = []
        folders = [part.strip() for part in spec.split(os.pathsep) if part.strip()]
        folders = [f for f in folders if f != "<empty>"]
        usable = []
        for folder in folders:
            path = Path(folder).expanduser()
            if path.is_dir():
                usable.append(str(path))
            else:
                problems.append(f"Syzygy folder not found: {path}")
        self.max_pieces = syzygy_init(os.pathsep.join(usable))
        if usable and not self.max_pieces:
            problems.append("no Syzygy tables found in SyzygyPath")
        return problems

    def close(self) -> None:
        syzygy_init("")
        self.max_pieces = 0

    def covers(self, board: Board, probe_limit: int) -> bool:
        placement, _, castling = board.fen().split()[:3]
        pieces = sum(ch.isalpha() for ch in placement)
        return self.max_pieces > 0 and pieces <= min(self.max_pieces, probe_limit) and castling == "-"

    def root(self, board: Board, probe_limit: int, use_50_move_rule: bool) -> Optional[RootDecision]:
        """The tables' verdict on the root, or None when they do not cover it.

        Covered positions have no castling rights, so no move needs Chess960 spelling."""
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
            wdl = position.probe_wdl()
            self.hits += 1
            if wdl is None:
                return None
            halfmove = position.halfmove_clock
            if halfmove == 0 or wdl == 0:
                plies = 1
            else:
                dtz = position.probe_dtz()      # opponent's view: plies to their zeroing
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


def _preference(r: _RankedMove):
    """Best outcome first; among wins the fastest zeroing, among losses the slowest."""
    if r.outcome > 0:
        return (r.outcome, -r.plies)
    return (r.outcome, r.plies)


def _score(outcome: int, plies: int) -> int:
    if outcome == WIN:
        return TB_WIN_CP - plies
    if outcome == LOSS:
        return -TB_WIN_CP + plies
    return 0
