"""Build a Polyglot opening book from Fianchetto's own analysis of an opening tree.

The book is grown from the start position. Every position taken from the queue is
analysed by Fianchetto's search with MultiPV (a fixed node budget, one thread, the
hash table cleared before each position), so the same command always writes the
same bytes. Moves whose score is within ``margin`` centipawns of the best score
are kept, weighted by how much they lose, and the positions after them go back
into the queue. Both colours are treated alike.

Which positions get analysed
    Each queued position has a *cost*: for every move on the path from the start,
    the centipawns it loses against the best move where it was played, plus
    ``ply_cost`` per ply. The cheapest position is analysed first (Dijkstra
    order; ties by ply, then by the moves in UCI text). The main line of the
    engine's own preferences therefore runs deepest, side lines end sooner, and
    ``positions`` caps the work. Positions ``max_ply`` plies deep are not
    analysed. A position reached by several move orders is analysed once, at its
    cheapest path.

Weights (Polyglot's 16-bit weight, used for weighted random choice)
    ``weight = max(1, round(100 * 2 ** (-loss / half_life)))`` where ``loss`` is
    the best score minus the move's score in centipawns: the best move gets 100,
    a move ``half_life`` centipawns worse 50, and so on.

Games of your own (``--pgn``)
    Moves played in the PGN's games (standard chess from the usual start, within
    ``max_ply``, played in at least ``pgn_min_games`` games) become candidates
    too: moves the MultiPV search did not list are searched on their own (same
    budget) and kept when within the margin. A kept move's weight is multiplied by
    ``1 + points``, where ``points`` counts 2 for each game the mover won with it,
    1 for each draw (or unknown result), 0 for each loss. With ``--pgn-only`` the
    engine is not used at all: the tree follows the games' moves only and a
    move's weight is its ``points`` (moves that only lost are left out).

Run ``python -m fianchetto.bookbuild --help`` for the command line.
"""
from __future__ import annotations

import argparse
import hashlib
import heapq
import struct
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import chess
import chess.pgn
import chess.polyglot

from fianchetto.board import START_FEN, Board
from fianchetto.score import SearchInfo, event_from_core

ENTRY = struct.Struct(">QHHI")  # key, move, weight, learn: 16 bytes, big-endian
MAX_WEIGHT = 0xFFFF
BASE_WEIGHT = 100  # the weight of the best move at a position


@dataclass(frozen=True)
class BuildConfig:
    """Everything that decides the book's bytes (all of it goes into the README)."""

    max_ply: int = 14          # positions this many plies deep are not analysed
    positions: int = 2500      # at most this many positions are analysed
    nodes: int = 200_000       # search budget per position (per search)
    multipv: int = 4           # lines searched per position
    margin: int = 30           # keep moves at most this many cp worse than the best
    half_life: float = 10.0    # weight halves for every half_life cp lost
    ply_cost: int = 3          # cp added to a path's cost for every ply
    hash_mb: int = 16          # transposition table, cleared before each position
    pgn: Optional[str] = None  # games whose moves join the candidates
    pgn_min_games: int = 1     # a PGN move counts once played in this many games
    pgn_only: bool = False     # build from the PGN alone, no engine analysis

    def check(self) -> None:
        if self.max_ply < 1:
            raise ValueError("max_ply must be at least 1")
        if self.positions < 1:
            raise ValueError("positions must be at least 1")
        if self.pgn_only and not self.pgn:
            raise ValueError("pgn_only needs a PGN file")
        if not self.pgn_only:
            if self.nodes < 1:
                raise ValueError("nodes must be at least 1")
            if self.multipv < 1:
                raise ValueError("multipv must be at least 1")
        if self.margin < 0 or self.half_life <= 0 or self.ply_cost < 0:
            raise ValueError("margin and ply_cost must be >= 0 and half_life > 0")
        if self.pgn_min_games < 1:
            raise ValueError("pgn_min_games must be at least 1")


@dataclass
class BookMove:
    uci: str                 # standard spelling (castling e1g1)
    raw: int                 # Polyglot move encoding (castling king-takes-rook)
    weight: int
    score: Optional[int]     # centipawns for the side to move, None in --pgn-only
    games: int = 0           # PGN games that played it


@dataclass
class BookPosition:
    key: int
    fen: str
    ply: int
    cost: int
    path: Tuple[str, ...]
    moves: List[BookMove] = field(default_factory=list)


@dataclass
class BuildResult:
    config: BuildConfig
    positions: Dict[int, BookPosition]
    seconds: float

    def entries(self) -> List[Tuple[int, int, int, int]]:
        """(key, move, weight, learn) tuples in file order: by key, then heaviest first."""
        out = [(p.key, m.raw, m.weight, 0) for p in self.positions.values() for m in p.moves]
        out.sort(key=lambda e: (e[0], -e[2], e[1]))
        return out

    def to_bytes(self) -> bytes:
        return b"".join(ENTRY.pack(*e) for e in self.entries())

    def ply_histogram(self) -> Dict[int, Tuple[int, int]]:
        """ply -> (positions with book moves, entries)."""
        hist: Dict[int, List[int]] = {}
        for p in self.positions.values():
            if p.moves:
                row = hist.setdefault(p.ply, [0, 0])
                row[0] += 1
                row[1] += len(p.moves)
        return {ply: (row[0], row[1]) for ply, row in sorted(hist.items())}


# --- Polyglot encoding ------------------------------------------------------------

_PROMOTION_CODE = {chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}


def encode_move(board: chess.Board, move: chess.Move) -> int:
    """Polyglot's 16-bit move: to | from << 6 | promotion << 12; castling as king takes rook."""
    to_square = move.to_square
    if board.is_castling(move):
        # Standard-chess castling e1g1 is stored as e1h1 (the rook's square).
        rook_file = 7 if chess.square_file(move.to_square) > chess.square_file(move.from_square) else 0
        if board.chess960:
            to_square = move.to_square  # python-chess already spells it king-takes-rook
        else:
            to_square = chess.square(rook_file, chess.square_rank(move.from_square))
    return to_square | (move.from_square << 6) | (_PROMOTION_CODE.get(move.promotion, 0) << 12)


def write_book(path: str, data: bytes) -> str:
    """Write the book's bytes; returns their sha256."""
    with open(path, "wb") as f:
        f.write(data)
    return hashlib.sha256(data).hexdigest()


# --- PGN statistics -----------------------------------------------------------------

@dataclass
class MoveStats:
    games: int = 0
    points: int = 0  # 2 per win for the mover, 1 per draw or unknown result


def read_pgn_stats(path: str, max_ply: int) -> Dict[int, Dict[str, MoveStats]]:
    """Per Polyglot key: the moves played there (standard spelling) and their results.

    Only standard-chess games from the usual start position are read, each up to
    ``max_ply`` plies.
    """
    stats: Dict[int, Dict[str, MoveStats]] = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            headers = game.headers
            if headers.get("Variant", "Standard").lower() not in ("standard", "chess", ""):
                continue
            if headers.get("FEN", START_FEN) != START_FEN:
                continue
            result = headers.get("Result", "*")
            board = chess.Board()
            for ply, move in enumerate(game.mainline_moves()):
                if ply >= max_ply or not board.is_legal(move):
                    break
                mover_white = board.turn == chess.WHITE
                if result == "1-0":
                    points = 2 if mover_white else 0
                elif result == "0-1":
                    points = 0 if mover_white else 2
                else:
                    points = 1
                key = chess.polyglot.zobrist_hash(board)
                entry = stats.setdefault(key, {}).setdefault(board.uci(move), MoveStats())
                entry.games += 1
                entry.points += points
                board.push(move)
    return stats


# --- engine analysis ----------------------------------------------------------------

class Analyser:
    """MultiPV analysis of one position at a time, from an empty hash table."""

    def __init__(self, config: BuildConfig):
        from core_cy.core import Search

        self.config = config
        self.search = Search(hash_mb=config.hash_mb)

    def _lines(self, board: Board, multipv: int, searchmoves: Optional[List[str]]) -> Dict[str, int]:
        """move -> score from the deepest completed iteration."""
        completed: Dict[int, Dict[int, Tuple[str, int]]] = {}
        last: List[SearchInfo] = []

        def info(report: Any) -> None:
            event = event_from_core(report)
            if not isinstance(event, SearchInfo) or not event.pv or event.score is None:
                return
            if event.final:
                last.append(event)
            elif event.bound is None:
                completed.setdefault(event.depth, {})[event.multipv or 1] = (event.pv[0], event.score.as_cp())

        self.search.clear()
        self.search.go(board, nodes=self.config.nodes, multipv=multipv,
                       searchmoves=searchmoves, info=info)
        if completed:
            lines = completed[max(completed)]
            return {move: score for _, (move, score) in sorted(lines.items())}
        if last:  # not even depth 1 finished: take what the search returned
            return {last[-1].pv[0]: last[-1].score.as_cp()}  # type: ignore[union-attr]
        return {}

    def analyse(self, board: Board, extra: Sequence[str] = ()) -> Dict[str, int]:
        """Scores (cp, side to move) for the top MultiPV moves and for ``extra`` moves."""
        scores = self._lines(board, self.config.multipv, None)
        missing = [m for m in extra if m not in scores]
        if missing:
            scores.update(self._lines(board, len(missing), missing))
        return scores


def weight_for_loss(loss: int, half_life: float) -> int:
    """The documented weight formula: 100 for the best move, halved every half_life cp."""
    return max(1, round(BASE_WEIGHT * 2.0 ** (-max(loss, 0) / half_life)))


def _scale(weights: List[int]) -> List[int]:
    """Scale a position's weights down proportionally if the largest exceeds 16 bits."""
    top = max(weights, default=0)
    if top <= MAX_WEIGHT:
        return weights
    return [max(1, w * MAX_WEIGHT // top) for w in weights]


# --- the tree -----------------------------------------------------------------------

Progress = Callable[[int, BookPosition], None]
#: (move, score or None, cp lost against the best move, PGN points)
Candidate = Tuple[str, Optional[int], int, int]


def _replay(path: Tuple[str, ...]) -> Tuple[Board, set]:
    """The board at the end of ``path`` and the keys of every position on the way."""
    board = Board()
    path_keys = {board.key}
    for uci in path:
        board.push(uci)
        path_keys.add(board.key)
    return board, path_keys


def _candidates(config: BuildConfig, analyser: Optional[Analyser], board: Board,
                played: Dict[str, MoveStats]) -> Optional[Tuple[List[Candidate], List[int]]]:
    """The moves kept at a position and their weights; None when the search found none."""
    if analyser is None:
        candidates = [(m, None, 0, s.points) for m, s in played.items() if s.points > 0]
        return candidates, _scale([points for _, _, _, points in candidates])
    scores = analyser.analyse(board, sorted(played))
    if not scores:
        return None
    best = max(scores.values())
    kept: List[Candidate] = [(m, s, best - s, played[m].points if m in played else 0)
                             for m, s in scores.items() if best - s <= config.margin]
    return kept, _scale([weight_for_loss(loss, config.half_life) * (1 + points) for _, _, loss, points in kept])


def build(config: BuildConfig, progress: Optional[Progress] = None) -> BuildResult:
    """Grow and analyse the opening tree; nothing is written."""
    config.check()
    started = time.monotonic()
    pgn_stats = read_pgn_stats(config.pgn, config.max_ply) if config.pgn else {}
    analyser = None if config.pgn_only else Analyser(config)

    root = Board()
    queue: List[Tuple[int, int, Tuple[str, ...], int]] = [(0, 0, (), root.key)]
    cheapest: Dict[int, int] = {root.key: 0}
    done: Dict[int, BookPosition] = {}

    while queue and len(done) < config.positions:
        cost, ply, path, key = heapq.heappop(queue)
        if key in done or cheapest.get(key, cost) < cost:
            continue
        board, path_keys = _replay(path)
        position = BookPosition(key, board.fen(), ply, cost, path)
        done[key] = position
        legal = set(board.legal_moves())
        if not legal:
            continue
        pc = chess.Board(board.fen())
        played = {m: s for m, s in pgn_stats.get(key, {}).items()
                  if s.games >= config.pgn_min_games and m in legal}

        chosen = _candidates(config, analyser, board, played)
        if chosen is None:
            continue
        candidates, weights = chosen
        for (uci, score, loss, _), weight in zip(candidates, weights):
            stats = played.get(uci)
            position.moves.append(BookMove(uci, encode_move(pc, pc.parse_uci(uci)), weight,
                                           score, stats.games if stats else 0))
            if ply + 1 >= config.max_ply:
                continue
            board.push(uci)
            child_key = board.key
            board.pop()
            if child_key in path_keys:  # a repetition: do not grow the tree there
                continue
            child_cost = cost + loss + config.ply_cost
            if child_key not in done and child_cost < cheapest.get(child_key, 1 << 62):
                cheapest[child_key] = child_cost
                heapq.heappush(queue, (child_cost, ply + 1, path + (uci,), child_key))
        position.moves.sort(key=lambda m: (-m.weight, m.uci))
        if progress is not None:
            progress(len(done), position)

    return BuildResult(config, done, time.monotonic() - started)


# --- command line -------------------------------------------------------------------

def summary(result: BuildResult, data: bytes, sha256: str) -> str:
    c = result.config
    hist = result.ply_histogram()
    lines = [
        f"positions analysed: {len(result.positions)}",
        f"positions with moves: {sum(p for p, _ in hist.values())}",
        f"entries: {len(data) // ENTRY.size}",
        f"bytes: {len(data)}",
        f"deepest position with moves: ply {max(hist) if hist else 0}",
        "by ply (ply: positions/entries): " + ", ".join(f"{k}: {p}/{e}" for k, (p, e) in hist.items()),
        f"sha256: {sha256}",
        f"seconds: {result.seconds:.1f}",
        f"config: max_ply={c.max_ply} positions={c.positions} nodes={c.nodes} multipv={c.multipv} "
        f"margin={c.margin} half_life={c.half_life:g} ply_cost={c.ply_cost} hash_mb={c.hash_mb} "
        f"pgn={c.pgn} pgn_min_games={c.pgn_min_games} pgn_only={c.pgn_only}",
    ]
    return "\n".join(lines)


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    d = BuildConfig()
    p = argparse.ArgumentParser(
        prog="python -m fianchetto.bookbuild",
        description="Build a Polyglot opening book (.bin) from Fianchetto's own MultiPV analysis "
                    "of an opening tree, optionally seeded with the moves of a PGN file. The same "
                    "command and engine version always write the same bytes.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("-o", "--output", required=True, help="the .bin file to write")
    p.add_argument("--max-ply", type=int, default=d.max_ply, help="no positions this many plies deep or deeper are analysed")
    p.add_argument("--positions", type=int, default=d.positions, help="analyse at most this many positions (cheapest first)")
    p.add_argument("--nodes", type=int, default=d.nodes, help="search nodes per position")
    p.add_argument("--multipv", type=int, default=d.multipv, help="moves searched per position")
    p.add_argument("--margin", type=int, default=d.margin, help="keep moves at most this many centipawns worse than the best")
    p.add_argument("--half-life", type=float, default=d.half_life, help="weight = 100 * 2^(-loss/half_life), loss in centipawns")
    p.add_argument("--ply-cost", type=int, default=d.ply_cost, help="centipawns added to a line's cost per ply (larger: broader, shallower)")
    p.add_argument("--hash", type=int, default=d.hash_mb, help="hash table in MB (cleared before each position)")
    p.add_argument("--pgn", help="PGN file whose moves become candidates and raise weights")
    p.add_argument("--pgn-min-games", type=int, default=d.pgn_min_games, help="a PGN move counts once played in this many games")
    p.add_argument("--pgn-only", action="store_true", help="build from the PGN alone (no engine analysis)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return p.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    config = BuildConfig(max_ply=args.max_ply, positions=args.positions, nodes=args.nodes,
                         multipv=args.multipv, margin=args.margin, half_life=args.half_life,
                         ply_cost=args.ply_cost, hash_mb=args.hash, pgn=args.pgn,
                         pgn_min_games=args.pgn_min_games, pgn_only=args.pgn_only)
    try:
        config.check()
    except ValueError as exc:
        print(f"bookbuild: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()

    def progress(count: int, position: BookPosition) -> None:
        if not args.quiet and (count % 100 == 0 or count == config.positions):
            moves = " ".join(m.uci for m in position.moves)
            print(f"[{time.monotonic() - started:7.1f}s] {count} positions, ply {position.ply}, "
                  f"cost {position.cost}: {moves}", file=sys.stderr, flush=True)

    result = build(config, progress)
    data = result.to_bytes()
    sha256 = write_book(args.output, data)
    print(summary(result, data, sha256))
    return 0


if __name__ == "__main__":
    sys.exit(main())
