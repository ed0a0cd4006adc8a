"""``fianchetto datagen``: self-play games in the compiled core, kept whole.

Each game is named by its number: game ``g`` of a run with seed ``S`` starts from
the standard position (or, for a share ``--dfrc`` of the games, a double Chess960
position drawn by ``(S, g)``), plays ``random_plies`` random moves drawn from a
generator seeded by ``(S, g)`` and then node-limited searches inside the core
(:class:`core_cy.core.SelfPlayWorker`). Worker threads take game numbers in turn,
but games are written in their number order, so the output depends only on the
seed, the node budget and the other settings, not on the number of threads.

The default output is a ``FIANGAME`` file of whole games
(:mod:`fianchetto.learn.games`): an interrupted run keeps every finished game and
``--resume`` goes on from the next game number, and ``manifest.json`` beside the
file records its settings and counts (:mod:`fianchetto.learn.manifest`).
``--format fiandata`` writes the older 32-byte position records instead, and
``--from-pgn`` converts games played elsewhere (:mod:`fianchetto.learn.pgn`). The
formats are in ``docs/training.md``.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import random
import signal
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable, Deque, Dict, List, Optional, Tuple

from core_cy.core import DATA_HEADER, DATA_MAGIC, DATA_RECORD_BYTES, DATA_VERSION, Board, SelfPlayWorker, SyzygyTables
from fianchetto.learn.progress import ProgressLine

GOLDEN = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


def game_seed(seed: int, game: int) -> int:
    """The random-opening seed of game number ``game`` in a run seeded ``seed``."""
    return ((seed * GOLDEN) ^ ((game + 1) * 0xD1B54A32D192ED03)) & MASK64


DFRC_SALT = 0x5EED_DF2C
#: The default folder of self-play data (``FIANCHETTO_CACHE`` moves the cache).
DATA_DIR = os.path.join(os.environ.get("FIANCHETTO_CACHE", os.path.join(os.path.expanduser("~"), ".cache",
                                                                      "fianchetto")), "data")


@dataclass(frozen=True)
class Adjudication:
    """When a self-play game ends before mate, stalemate or a draw by rule: white's
    search score at least ``win_score`` (or at most minus it) for ``win_plies``
    plies in a row, within ``draw_score`` of zero for ``draw_plies`` plies once the
    game is ``draw_min_ply`` plies long, or ``max_plies`` plies played (a draw;
    the plies count from the end of the random opening).
    They change a seed's games, so the manifest names them."""
    win_score: int = 1500
    win_plies: int = 8
    draw_score: int = 8
    draw_plies: int = 16
    draw_min_ply: int = 80
    max_plies: int = 400

    def as_dict(self) -> Dict[str, int]:
        return dict(vars(self))


@dataclass
class GameSettings:
    nodes: int = 5000
    random_plies: int = 8
    tablebases: bool = True
    dfrc: float = 0.0            # share of games from a double Chess960 start
    max_opening_score: int = 400  # discard a game whose first search scores beyond this
    evaluation: Any = None        # the LoadedNetwork the games are played with (None: hand-crafted)
    tables: Any = None            # the SyzygyTables that end games early (None: none)
    adjudication: Adjudication = field(default_factory=Adjudication)

    def as_kwargs(self) -> Dict[str, object]:
        return {"nodes": self.nodes, "random_plies": self.random_plies, "tablebases": self.tablebases,
                "max_opening_score": self.max_opening_score, **self.adjudication.as_dict()}

    def new_worker(self, hash_mb: int) -> SelfPlayWorker:
        """A worker that plays these games: its records hold the longest game."""
        return SelfPlayWorker(hash_mb=hash_mb, max_plies=self.adjudication.max_plies, network=self.evaluation,
                              tables=self.tables)


def dfrc_fen(white: int, black: int) -> str:
    """The double Chess960 start with white's back rank of Chess960 position number
    ``white`` and black's of number ``black`` (518 is the standard arrangement), as a
    Shredder-FEN."""
    import chess

    board = chess.Board.from_chess960_pos(white)
    other = chess.Board.from_chess960_pos(black)
    for file in range(8):
        board.set_piece_at(chess.square(file, 7), other.piece_at(chess.square(file, 7)))
    board.castling_rights = board.rooks & (chess.BB_RANK_1 | chess.BB_RANK_8)
    return board.fen(shredder=True)


def start_position(seed: int, game: int, dfrc: float) -> Tuple[str, bool]:
    """Game ``game``'s start (FEN, Chess960?): a double Chess960 position for a share
    ``dfrc`` of the games, chosen by the game's seed, else the standard position."""
    from core_cy.core import START_FEN

    rng = random.Random(game_seed(seed, game) ^ DFRC_SALT)
    if dfrc > 0 and rng.random() < dfrc:
        return dfrc_fen(rng.randrange(960), rng.randrange(960)), True
    return START_FEN, False


#: The progress line's rate is that of about the last this many seconds, so a run
#: paused for a while (a match beside it) shows its real pace again that long after.
RATE_WINDOW = 600.0


@dataclass
class Progress:
    """Counts shared by the writer and the progress line."""

    target: int
    started: float = field(default_factory=time.monotonic)
    resumed: int = 0                 # positions already in the file when this run began
    positions: int = 0
    games: int = 0
    discarded: int = 0
    results: List[int] = field(default_factory=lambda: [0, 0, 0])
    samples: Deque[Tuple[float, int]] = field(default_factory=deque)   # (time, positions)

    def add_game(self, result: Optional[int], positions: int) -> None:
        """Count a game written: white's result (None: discarded) and its positions."""
        if result is None:
            self.discarded += 1
            return
        self.positions += positions
        self.games += 1
        self.results[result] += 1

    def rate(self, now: float) -> float:
        """Positions a second since the last sample at least RATE_WINDOW seconds old
        (since the run began, before there is one); `now` becomes a sample."""
        self.samples.append((now, self.positions))
        while len(self.samples) > 1 and now - self.samples[1][0] >= RATE_WINDOW:
            self.samples.popleft()
        since, positions = self.samples[0] if now - self.samples[0][0] >= RATE_WINDOW \
            else (self.started, self.resumed)
        return (self.positions - positions) / max(now - since, 1e-9)

    def line(self) -> str:
        now = time.monotonic()
        elapsed = now - self.started
        rate = self.rate(now)
        eta = (self.target - self.positions) / rate if rate > 0 else 0.0
        black, draws, white = self.results
        return (f"positions {self.positions}/{self.target}  {rate:.0f}/s  games {self.games} "
                f"(+{white} ={draws} -{black}, {self.discarded} discarded)  "
                f"elapsed {elapsed:.0f}s  eta {max(eta, 0):.0f}s")


class GameQueue:
    """Hands out game numbers to workers and writes finished games in number order."""

    def __init__(self, out: BinaryIO, progress: Progress, first_game: int = 0) -> None:
        self.out = out
        self.progress = progress
        self.lock = threading.Lock()
        self.next_game = first_game
        self.next_to_write = first_game
        self.finished: Dict[int, Tuple[bytes, Optional[int]]] = {}

    def take(self) -> Optional[int]:
        with self.lock:
            if self.done():
                return None
            game = self.next_game
            self.next_game += 1
            return game

    def done(self) -> bool:
        return self.progress.positions >= self.progress.target

    def finish(self, game: int, records: bytes, result: Optional[int]) -> None:
        with self.lock:
            self.finished[game] = (records, result)
            while self.next_to_write in self.finished and not self.done():
                self._write(*self.finished.pop(self.next_to_write))
                self.next_to_write += 1

    def _write(self, records: bytes, result: Optional[int]) -> None:
        progress = self.progress
        chunk = b"" if result is None else records[:(progress.target - progress.positions) * DATA_RECORD_BYTES]
        self.out.write(chunk)
        progress.add_game(result, len(chunk) // DATA_RECORD_BYTES)


class WholeGameQueue(GameQueue):
    """The queue for FIANGAME files: a finished game is written whole (a discarded one
    as a marker), flushed at once, and counted by its scored plies."""

    def _write(self, payload: bytes, result: Optional[int]) -> None:
        from fianchetto.learn import games

        self.out.write(payload)
        self.out.flush()
        self.progress.add_game(result, games.scored_in(payload))


def run_worker(queue: GameQueue, seed: int, settings: GameSettings, hash_mb: int) -> None:
    worker = settings.new_worker(hash_mb)
    start = Board()
    while True:
        game = queue.take()
        if game is None:
            return
        records, result, _plies = worker.play(start, game_seed(seed, game), **settings.as_kwargs())
        queue.finish(game, records, result)


def run_whole_game_worker(queue: GameQueue, seed: int, settings: GameSettings, hash_mb: int) -> None:
    from fianchetto.learn import games

    worker = settings.new_worker(hash_mb)
    while True:
        game = queue.take()
        if game is None:
            return
        fen, chess960 = start_position(seed, game, settings.dfrc)
        _records, result, _plies = worker.play(Board(fen, chess960=chess960), game_seed(seed, game),
                                               **settings.as_kwargs())
        stored = games.Game(fen, chess960, result, worker.last_game_plies() if result is not None else b"")
        queue.finish(game, games.encode_game(stored), result)


def run_workers(target: Callable, queue: GameQueue, seed: int, settings: GameSettings, threads: int,
                hash_mb: int, report, report_every: float, every: Optional[Callable[[], None]] = None) -> None:
    """Run `threads` workers until the queue is done, reporting progress (and calling
    `every`) about every `report_every` seconds."""
    workers = [threading.Thread(target=target, args=(queue, seed, settings, hash_mb), daemon=True)
               for _ in range(max(1, threads))]
    for w in workers:
        w.start()

    def tick() -> None:
        if report is not None:
            report(queue.progress.line())
        if every is not None:
            every()

    wait_for_workers(workers, report_every, tick)


def wait_for_workers(workers: List[threading.Thread], every: float, tick: Callable[[], None]) -> None:
    """Call ``tick`` about every ``every`` seconds until all ``workers`` have ended."""
    while True:
        alive = [w for w in workers if w.is_alive()]
        if not alive:
            return
        alive[0].join(timeout=every)
        tick()


def generate(path: str, positions: int, settings: GameSettings, threads: int = 1, seed: int = 1,
             hash_mb: int = 16, report=None, report_every: float = 1.0) -> Progress:
    """Write ``positions`` records to ``path`` (a FIANDATA file); returns the counts."""
    progress = Progress(target=positions)
    with open(path, "wb") as out:
        out.write(DATA_HEADER.pack(DATA_MAGIC, DATA_VERSION, DATA_RECORD_BYTES))
        queue = GameQueue(out, progress)
        run_workers(run_worker, queue, seed, settings, threads, hash_mb, report, report_every)
    if report is not None:
        report(progress.line())
    return progress


def network_id(eval_file: Optional[str]) -> str:
    """What names the evaluation a run plays with: the network file's SHA-256 (first
    16 hex digits), or ``hce`` for the hand-crafted evaluation."""
    from fianchetto import evaluation

    if eval_file is not None and eval_file.lower() == "none":
        return "hce"
    path = eval_file or evaluation.default_network_path()
    if path is None:
        return "hce"
    with open(path, "rb") as handle:
        return "sha256:" + hashlib.sha256(handle.read()).hexdigest()[:16]


#: The depth of the search fingerprint (the bench signature's, tests/test_bench_signature.py).
FINGERPRINT_DEPTH = 8


def search_id(evaluation: Any) -> str:
    """What names the search a run plays with: the bench's node count at
    FINGERPRINT_DEPTH with ``evaluation`` (a LoadedNetwork, None: hand-crafted).
    A change of the search's rules or constants changes the games a seed gives,
    and this count with them."""
    from fianchetto.benchmark import run_bench

    return f"bench{FINGERPRINT_DEPTH}:{run_bench(FINGERPRINT_DEPTH, network=evaluation).nodes}"


def manifest_fields(settings: GameSettings, seed: int, network: str, search: str,
                    hash_mb: int) -> Dict[str, object]:
    from fianchetto.learn import manifest

    return {"format": manifest.FORMAT, "seed": seed, "nodes": settings.nodes,
            "random_plies": settings.random_plies, "dfrc": settings.dfrc, "network": network,
            "max_opening_score": settings.max_opening_score, "tablebases": settings.tablebases,
            "search": search, "hash": hash_mb, "adjudication": settings.adjudication.as_dict()}


def generate_games(path: str, positions: int, settings: GameSettings, threads: int = 1, seed: int = 1,
                   hash_mb: int = 16, report=None, report_every: float = 1.0, resume: bool = False,
                   network: str = "unknown", search: str = "unknown", manifest_every: float = 30.0) -> Progress:
    """Play games into the FIANGAME file ``path`` until it holds ``positions`` scored
    positions. With ``resume`` an existing file goes on from its next game number
    (a partial game at its end, left by an interruption, is cut off first); without,
    an existing file is refused. The manifest beside the file is kept up to date."""
    from fianchetto.learn import games, manifest

    fields = manifest_fields(settings, seed, network, search, hash_mb)
    if os.path.exists(path) and os.path.getsize(path) > 0:
        if not resume:
            raise FileExistsError(f"{path} exists; --resume goes on with it")
        old = manifest.entry(path)
        problem = manifest.mismatch(old, fields) if old is not None else None
        if problem:
            raise ValueError(f"{path} was made with other settings ({problem}); start a new file")
    progress = Progress(target=positions)
    out, stored = games.open_for_append(path, lambda game: progress.add_game(game.result, game.scored_plies()))
    progress.resumed = progress.positions
    started = time.monotonic()
    last = [started]

    def save_manifest(complete: bool = False) -> None:
        manifest.record(path, dict(fields, games=progress.games, discarded=progress.discarded,
                                   positions=progress.positions, results=list(progress.results),
                                   target=positions, complete=complete))

    def every() -> None:
        if time.monotonic() - last[0] >= manifest_every:
            last[0] = time.monotonic()
            save_manifest()

    save_manifest()
    queue = WholeGameQueue(out, progress, first_game=stored)
    try:
        run_workers(run_whole_game_worker, queue, seed, settings, threads, hash_mb, report, report_every, every)
    finally:
        with queue.lock:              # no worker is half way through writing a game
            out.close()
        save_manifest(complete=progress.positions >= positions)
    if report is not None:
        report(progress.line())
    return progress


def build_parser(parser: Optional[argparse.ArgumentParser] = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="fianchetto datagen")
    parser.add_argument("--out", default=None,
                        help=f"file to write (default: {DATA_DIR}/games-s<seed>-n<nodes>.fgame)")
    parser.add_argument("--positions", type=int, default=None,
                        help="positions the file should hold (games: scored plies, every one kept)")
    parser.add_argument("--format", choices=("games", "fiandata"), default="games",
                        help="whole games, FIANGAME (default), or 32-byte position records, FIANDATA")
    parser.add_argument("--resume", action="store_true",
                        help="go on with an existing games file from its next game (same settings)")
    parser.add_argument("--from-pgn", nargs="+", default=None, metavar="PGN",
                        help="convert PGNs with scores in their move comments (OpenBench's datagen "
                             "workloads, plain or .bz2) into a games file instead of playing")
    parser.add_argument("--list", action="store_true",
                        help="print the manifest of the data folder (of --out) and stop")
    parser.add_argument("--nodes", type=int, default=5000, help="node budget per move (default 5000)")
    parser.add_argument("--threads", type=int, default=1, help="games played at once (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="names the games (default 1)")
    parser.add_argument("--random-plies", type=int, default=8, help="random opening moves (default 8)")
    parser.add_argument("--dfrc", type=float, default=0.0,
                        help="share of games from a double Chess960 start (games format; default 0)")
    parser.add_argument("--hash", type=int, default=16, help="MB of hash per thread (default 16)")
    parser.add_argument("--eval-file", default=None,
                        help="network to play with (default: the shipped one; 'none' for the hand-crafted evaluation)")
    parser.add_argument("--syzygy-path", default="", help="Syzygy folders for adjudication")
    return parser


def interrupt_on_stop_signals() -> None:
    """SIGTERM, and SIGINT even where the shell started the process ignoring it
    (nohup, ``&``), raise KeyboardInterrupt as Ctrl-C does: a datagen run then
    keeps every finished game and writes its manifest before it exits (and
    tools/campaign.py ends its children first)."""
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, interrupt)


def default_out(args: argparse.Namespace) -> str:
    suffix = "fgame" if args.format == "games" else "bin"
    return os.path.join(DATA_DIR, f"games-s{args.seed}-n{args.nodes}.{suffix}")


def main_datagen(args: argparse.Namespace) -> int:
    from fianchetto import evaluation
    from fianchetto.learn import manifest

    if args.from_pgn:
        from fianchetto.learn.pgn import main_from_pgn

        return main_from_pgn(args.from_pgn, args.out, args.eval_file)
    out = args.out or default_out(args)
    if args.list:
        from fianchetto.learn import games

        print(manifest.table(manifest.path_for(out), writing=games.being_written))
        return 0
    if args.positions is None or args.positions < 1 or args.nodes < 1 or args.threads < 1 \
            or args.random_plies < 0 or not 0.0 <= args.dfrc <= 1.0:
        print("positions, nodes and threads must be positive, random plies not negative, "
              "dfrc between 0 and 1", file=sys.stderr)
        return 2
    if args.format == "fiandata" and (args.resume or args.dfrc):
        print("--resume and --dfrc need the games format", file=sys.stderr)
        return 2
    try:
        chosen = evaluation.for_tool(args.eval_file)
    except evaluation.NetworkError as exc:
        print(exc, file=sys.stderr)
        return 2
    tables = SyzygyTables(args.syzygy_path) if args.syzygy_path else None
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    settings = GameSettings(nodes=args.nodes, random_plies=args.random_plies, tablebases=bool(args.syzygy_path),
                            dfrc=args.dfrc, evaluation=chosen, tables=tables)

    report = ProgressLine(sys.stderr)
    interrupt_on_stop_signals()
    try:
        if args.format == "games":
            progress = generate_games(out, args.positions, settings, args.threads, args.seed, args.hash, report,
                                      resume=args.resume, network=network_id(args.eval_file), search=search_id(chosen))
        else:
            progress = generate(out, args.positions, settings, args.threads, args.seed, args.hash, report)
    except (FileExistsError, ValueError) as exc:
        report.close()
        print(exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        report.close()
        print(f"interrupted; every finished game is in {out}: --resume goes on", file=sys.stderr)
        return 130
    report.close()
    print(f"wrote {progress.positions} positions from {progress.games} games to {out}")
    return 0
