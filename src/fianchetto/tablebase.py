"""Syzygy endgame tablebases at the root (python-chess's prober).

When the root position has few enough pieces, every legal move is classified by
what the tables say about the position it leads to. A won position is converted
by playing a move with the shortest distance to a zeroing move (capture, pawn
move or mate), which can never let the win slip; a drawn position is searched
among the moves that keep the draw; a lost one plays the longest resistance.
With ``Syzygy50MoveRule`` on, wins that the fifty-move rule would spoil count as
draws (and such losses as saved).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

import chess
import chess.syzygy

from fianchetto.board import Board

TB_WIN_CP = 20000          # reported score of a tablebase win, minus plies to zeroing
WIN, CURSED_WIN, DRAW, BLESSED_LOSS, LOSS = 2, 1, 0, -1, -2


@dataclass
class RootDecision:
    """What the tables say about the root: play `move` now, or search `moves`."""

    wdl: int                          # outcome for the side to move with best play
    score_cp: int                     # score to report
    move: Optional[str] = None        # a move to play without searching
    moves: List[str] = field(default_factory=list)   # moves a search may choose from
    tbhits: int = 0


@dataclass
class _RankedMove:
    uci: str
    outcome: int          # WIN .. LOSS for us after the move (50-move rule applied)
    plies: int            # plies to the next zeroing move on the winning/losing side


class Tablebases:
    def __init__(self) -> None:
        self._tables: Optional[chess.syzygy.Tablebase] = None
        self.max_pieces = 0
        self.hits = 0

    def configure(self, spec: str) -> List[str]:
        """Open the folders in `spec` (os.pathsep separated); return problems found."""
        self.close()
        problems = []
        folders = [part for part in spec.split(os.pathsep) if part.strip()] if spec else []
        if spec.strip() in ("", "<empty>"):
            return problems
        tables = chess.syzygy.Tablebase()
        for folder in folders:
            path = Path(folder.strip()).expanduser()
            if not path.is_dir():
                problems.append(f"Syzygy folder not found: {path}")
                continue
            try:
                tables.add_directory(str(path))
            except OSError as exc:
                problems.append(f"cannot read Syzygy folder {path}: {exc}")
        self.max_pieces = max((_pieces_in_name(name) for name in tables.wdl), default=0)
        if self.max_pieces:
            self._tables = tables
        else:
            tables.close()
            if folders and not problems:
                problems.append("no Syzygy tables found in SyzygyPath")
        return problems

    def close(self) -> None:
        if self._tables is not None:
            self._tables.close()
        self._tables = None
        self.max_pieces = 0

    def covers(self, board: chess.Board, probe_limit: int) -> bool:
        pieces = chess.popcount(board.occupied)
        return (self._tables is not None and pieces <= min(self.max_pieces, probe_limit)
                and not board.castling_rights)

    def probe_wdl(self, board: chess.Board) -> Optional[int]:
        if self._tables is None:
            return None
        try:
            value = self._tables.probe_wdl(board)
        except (chess.syzygy.MissingTableError, KeyError, IndexError, ValueError):
            return None
        self.hits += 1
        return value

    def root(self, board: Board, probe_limit: int, use_50_move_rule: bool) -> Optional[RootDecision]:
        """The tables' verdict on the root, or None when they do not cover it.

        Covered positions have no castling rights, so no move needs Chess960 spelling."""
        game = chess.Board(board.fen())
        if not self.covers(game, probe_limit) or game.is_game_over():
            return None
        self.hits = 0
        ranked = []
        for move in game.legal_moves:
            ranked_move = self._rank(game, move, use_50_move_rule)
            if ranked_move is None:
                return None
            ranked.append(ranked_move)
        best = max(ranked, key=_preference)
        outcome = best.outcome
        if outcome in (WIN, LOSS) or (outcome == CURSED_WIN and not use_50_move_rule):
            return RootDecision(outcome, _score(outcome, best.plies), move=best.uci, tbhits=self.hits)
        keep = [r.uci for r in ranked if r.outcome == outcome]
        return RootDecision(outcome, _score(outcome, best.plies), moves=keep, tbhits=self.hits)

    def _rank(self, game: chess.Board, move: chess.Move, rule50: bool) -> Optional[_RankedMove]:
        zeroing = game.is_zeroing(move)
        halfmove = 0 if zeroing else game.halfmove_clock + 1
        game.push(move)
        try:
            if game.is_checkmate():
                return _RankedMove(move.uci(), WIN, 1)
            if game.is_stalemate() or game.is_insufficient_material():
                return _RankedMove(move.uci(), DRAW, 1)
            wdl = self.probe_wdl(game)
            if wdl is None:
                return None
            if zeroing or wdl == 0:
                plies = 1
            else:
                dtz = self._tables.probe_dtz(game)   # opponent's view, plies to zeroing
                self.hits += 1
                plies = abs(dtz) + 1
            outcome = -wdl
            if rule50 and outcome in (WIN, LOSS) and plies - 1 + halfmove > 100:
                outcome = CURSED_WIN if outcome == WIN else BLESSED_LOSS
            return _RankedMove(move.uci(), outcome, plies)
        except (chess.syzygy.MissingTableError, KeyError, IndexError, ValueError):
            return None
        finally:
            game.pop()


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


def _pieces_in_name(name: str) -> int:
    return sum(1 for ch in name if ch.isalpha() and ch != "v")
