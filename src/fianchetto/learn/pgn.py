"""``fianchetto datagen --from-pgn FILES``: games played elsewhere, as training data.

OpenBench's datagen workloads (and any tournament manager) upload PGNs whose
move comments carry each move's search score: ``{+0.35/12}``, ``{-1.20/15
0.123s, n=5012, sd=15}``, mate scores ``{+M5/20}`` and ``{-M3/9}``, ``{book}``
for opening moves and ``{unknown}`` for moves without a search. This module
reads such PGNs (plain or ``.bz2``) and writes the project's ``FIANGAME``
format (:mod:`fianchetto.learn.games`), so that ``fianchetto train`` learns
from them as from its own self-play.

* Scores are the mover's, in pawns normalised as this engine prints them (1.00
  = a 50% chance to win, :mod:`fianchetto.wdl`); they are turned back into the
  search's units with the WDL model of the network that played (``--eval-file``,
  default the shipped one), at the material of the position. Mates become the
  search's mate scores, which the trainer's filters leave out.
* A move with a book comment, no comment or a comment without a score is kept
  as an unscored ply: it is replayed but never a training position. The
  game's result comes from its termination marker; an unfinished game (``*``)
  is left out and counted.
* Bad input stops the conversion with a message naming the file and the game:
  a truncated file (a game without its termination marker, a cut ``.bz2``
  stream), an illegal or unreadable move, a comment that starts as a score
  but does not parse, a start position that is no position. The output is
  written to a temporary file and renamed only when every game was read, so it
  is whole or absent.

The manifest beside the output records where it came from: each PGN's name,
size and SHA-256, and the counts.
"""
from __future__ import annotations

import bz2
import hashlib
import io
import os
import re
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, TextIO, Tuple

import chess
import chess.pgn

from fianchetto.learn import games as game_files
from fianchetto.wdl import WdlModel, material_of_fen

#: ``+0.35/12``, ``-M3/9``, ``0.00/1`` at the start of a comment.
SCORE = re.compile(r"^(?P<sign>[+-]?)(?:(?P<mate>M)(?P<plies>\d+)|(?P<pawns>\d+(?:\.\d+)?))/(?P<depth>\d+)(?=\s|,|$)")
#: A first word that looks like a score (a sign or a digit, then a slash somewhere).
SCORE_LIKE = re.compile(r"^[+-]?(?:M|\d)[^\s,]*/")
MATE_BASE = 32000             # the search's mate score at the root (VALUE_MATE)
MAX_CP_SCORE = 20000          # search units kept for a huge centipawn score (filtered out anyway)
RESULTS = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}


class PgnError(ValueError):
    """A PGN that cannot be converted; the message names the file and the game."""


@dataclass
class ImportCounts:
    games: int = 0
    positions: int = 0                 # scored plies
    unscored: int = 0                  # book, unknown or comment-less plies
    unfinished: int = 0                # games ending in '*', left out
    results: List[int] = field(default_factory=lambda: [0, 0, 0])    # white's losses, draws, wins


def parse_score(comment: str, model: WdlModel, material: int) -> Optional[int]:
    """The search score (mover's view, search units) of a move comment, or None for
    a comment without one (``book``, ``unknown``, free text). ValueError for a
    comment that starts as a score and does not parse."""
    text = comment.strip()
    match = SCORE.match(text)
    if match is None:
        if SCORE_LIKE.match(text):
            raise ValueError(f"malformed score comment {{{text[:40]}}}")
        return None
    sign = -1 if match.group("sign") == "-" else 1
    if match.group("mate"):
        plies = max(1, 2 * int(match.group("plies")) - 1)
        return sign * (MATE_BASE - plies)
    centipawns = float(match.group("pawns")) * 100
    units = int(round(centipawns * model.midpoint(material) / 100))
    return sign * min(units, MAX_CP_SCORE)


class _MainLine(chess.pgn.BaseVisitor):
    """Collects a game's headers, main-line moves (UCI), the material before and the
    comment after each move, and the termination marker; raises on any error
    python-chess reports."""

    def begin_game(self) -> None:
        self.headers: Dict[str, str] = {}
        self.start: Optional[chess.Board] = None
        self.moves: List[str] = []
        self.materials: List[int] = []            # of the position each move is played in
        self.comments: List[str] = []
        self.termination: Optional[str] = None

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def visit_board(self, board: chess.Board) -> None:
        if self.start is None:
            self.start = board.copy(stack=False)

    def begin_variation(self):
        return chess.pgn.SKIP

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        self.moves.append(board.uci(move, chess960=board.chess960))
        self.materials.append(material_of_fen(board.board_fen()))
        self.comments.append("")

    def visit_comment(self, comment: str) -> None:
        if self.moves:
            self.comments[-1] = (self.comments[-1] + " " + comment).strip()

    def visit_result(self, result: str) -> None:
        self.termination = result

    def handle_error(self, error: Exception) -> None:
        raise PgnError(str(error))

    def result(self) -> "_MainLine":
        return self


def open_text(path: str) -> TextIO:
    """A PGN as text; ``.bz2`` files are decompressed as they are read."""
    if path.endswith(".bz2"):
        return io.TextIOWrapper(bz2.open(path, "rb"), encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def read_games(path: str) -> Iterator[Tuple[int, _MainLine]]:
    """(game number, its main line) for every game of a PGN; PgnError on bad input."""
    number = 0
    with open_text(path) as handle:
        while True:
            try:
                game = chess.pgn.read_game(handle, Visitor=_MainLine)
            except PgnError as exc:
                raise PgnError(f"{path}: game {number + 1}: {exc}") from None
            except (EOFError, OSError) as exc:
                raise PgnError(f"{path}: the file is cut short or unreadable after game {number} ({exc})") from None
            if game is None:
                return
            number += 1
            if game.termination is None:
                raise PgnError(f"{path}: game {number} has no result at the end of its moves "
                               "(a truncated file?)")
            yield number, game


def encode(game: _MainLine, model: WdlModel) -> Tuple[game_files.Game, int, int]:
    """The FIANGAME game of a PGN game, its scored and unscored plies."""
    from core_cy.core import Board, encode_game_plies

    chess960 = game.start.chess960
    start_fen = game.start.fen(shredder=chess960)
    scores = [parse_score(comment, model, material) for comment, material in zip(game.comments, game.materials)]
    plies = encode_game_plies(Board(start_fen, chess960=chess960), game.moves, scores)
    scored = sum(score is not None for score in scores)
    return game_files.Game(start_fen, chess960, RESULTS[game.termination], plies), scored, len(scores) - scored


def convert(paths: List[str], out: str, model: WdlModel, report=None) -> ImportCounts:
    """Write every finished game of `paths` to the FIANGAME file `out` (whole or not
    at all); PgnError naming the file and game on bad input."""
    counts = ImportCounts()
    temporary = out + ".part"
    try:
        with open(temporary, "wb") as handle:
            handle.write(game_files.header_bytes())
            for path in paths:
                for number, game in read_games(path):
                    if game.termination == "*":
                        counts.unfinished += 1
                        continue
                    try:
                        record, scored, unscored = encode(game, model)
                    except ValueError as exc:
                        raise PgnError(f"{path}: game {number}: {exc}") from None
                    handle.write(game_files.encode_game(record))
                    counts.games += 1
                    counts.positions += scored
                    counts.unscored += unscored
                    counts.results[record.result] += 1
                    if report is not None and counts.games % 1000 == 0:
                        report(f"{counts.games} games, {counts.positions} positions")
        os.replace(temporary, out)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return counts


def provenance(path: str) -> Dict[str, object]:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return {"name": os.path.basename(path), "bytes": os.path.getsize(path), "sha256": digest.hexdigest()}


def main_from_pgn(paths: List[str], out: Optional[str], eval_file: Optional[str]) -> int:
    """``fianchetto datagen --from-pgn``: 0 when written, 2 on bad input."""
    import sys

    from fianchetto import evaluation
    from fianchetto.learn import manifest
    from fianchetto.learn.selfplay import DATA_DIR, network_id
    from fianchetto.wdl import load_model

    missing = [path for path in paths if not os.path.isfile(path)]
    if missing:
        print(f"no such PGN: {', '.join(missing)}", file=sys.stderr)
        return 2
    stem = os.path.basename(paths[0]).split(".")[0] or "games"
    out = out or os.path.join(DATA_DIR, f"pgn-{stem}.fgame")
    if os.path.exists(out):
        print(f"{out} exists; name another --out", file=sys.stderr)
        return 2
    model, problem = load_model(evaluation.network_path(eval_file))
    if problem:
        print(problem, file=sys.stderr)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    try:
        counts = convert(paths, out, model, report=lambda line: print("\r" + line, end="", file=sys.stderr))
    except PgnError as exc:
        print(f"\n{exc}; nothing written", file=sys.stderr)
        return 2
    manifest.record(out, {"format": manifest.FORMAT, "source": "pgn", "pgn": [provenance(p) for p in paths],
                          "network": network_id(eval_file), "games": counts.games, "discarded": counts.unfinished,
                          "positions": counts.positions, "unscored_plies": counts.unscored,
                          "results": counts.results, "complete": True})
    print(f"\nwrote {counts.positions} positions from {counts.games} games to {out} "
          f"({counts.unscored} plies without a score kept unscored, {counts.unfinished} unfinished games left out)")
    return 0
