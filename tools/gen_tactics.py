"""Generate tests/data/tactics.epd: tactical test positions with Stockfish as the oracle.

Nothing is copied from any published puzzle collection: every position comes
from games Stockfish plays against itself from the project's opening set
(/work/shared/data/openings.epd), and every answer is Stockfish's.

    python tools/gen_tactics.py                                   # the committed file
    python tools/gen_tactics.py --out /tmp/t.epd --max-games 5 --rounds 1 --verbose   # a quick trial

Reproducibility: all random choices come from ``random.Random`` seeded per game
(``--seed``, round, opening index); every Stockfish search is node- or
depth-limited with Threads=1; the hash is cleared (``ucinewgame``) at the start
of every game and before every shallow, quick and verification search.  The
same Stockfish binary and the same arguments therefore give the same file
(the run time does not affect the output).  Stockfish is driven by a minimal
UCI client that sends exactly what ``chess.engine`` sends; ``--python-chess``
uses ``chess.engine`` itself and gives a byte-identical file, only slower.
The default run took 20 minutes on a busy 2-core machine.

Method:

1. Games.  For round r = 1..``--rounds`` and each opening in file order, play
   a game.  Moves are chosen by a *weak* player: a MultiPV 3 search of only
   ``--weak-nodes`` (300) nodes, uniformly among the moves within 50 cp of its
   best (with probability ``--random-rate`` a uniformly random legal move).  A
   weak player's mistakes are the ones whose refutation needs some depth, which
   is what a tactic is.  A game ends when it is over, after ``--max-plies``,
   when one side is 15 pawns up, or after ``--per-game`` (3) picks.
2. Screening.  Every position also gets a MultiPV ``--play-multipv`` (4) search
   of ``--play-nodes`` (5000) nodes.  Candidates are (a) the position itself
   when its best move scores >= ``--screen-score`` (130) and leads the second
   by >= ``--screen-margin`` (150); else (b) the position after each of the
   other MultiPV moves that would hand the opponent +130..+800 cp from a
   game within -400..+200, with the PV reply as the expected answer.
3. Shallow filter.  A fresh depth-``--shallow-depth`` (4) search must not play
   the expected move (it must not play the final best move either).
4. Quick checks.  Fresh MultiPV 2 searches of ``--quick-nodes``/4 and
   ``--quick-nodes`` (8000, 32000) nodes must roughly pass step 5 (thresholds
   loosened by 100 and 40 cp) and must not prefer the shallow move.
5. Verification.  A fresh MultiPV 2 search to depth ``--verify-depth`` (18),
   capped at ``--verify-nodes`` (500k) nodes.  Kept when the best move scores
   >= ``--min-score`` (150) cp, leads the second by >= ``--min-margin`` (200)
   cp, and the second scores <= ``--max-second`` (400) cp (positions that stay
   won anyway test conversion, not tactics); or when it mates in <=
   ``--max-mate`` (6) and the second move does not mate at all.
6. Picks in one game are >= ``--min-gap`` (6) plies apart, positions are
   deduplicated on their EPD text (also against rejected ones), and the run
   stops at ``--target`` (140) positions.

Each EPD line: ``<position> bm <SAN>; id "fianchetto-tactics-NNN"; c0 "sf depth D
margin M";`` (``mate N`` instead of ``margin M`` for mates), c1 with the nodes,
both scores, the second move, the shallow search's move and the source
(round, opening, ply, and the mistake for branch positions), and c2 with the
phase (opening / middlegame / endgame by non-pawn material).  Positions are
written with clocks 0 1 and no history, and were analysed exactly so.
"""
from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional, Tuple

import chess
import chess.engine

ROOT = Path(__file__).resolve().parent.parent
MATE = 100_000  # centipawn stand-in for mate scores


def pov_cp(score: chess.engine.PovScore, turn: chess.Color) -> int:
    return score.pov(turn).score(mate_score=MATE)


def mate_in(score: chess.engine.PovScore, turn: chess.Color) -> Optional[int]:
    return score.pov(turn).mate()


def phase_of(board: chess.Board) -> str:
    """opening / middlegame / endgame by non-pawn material (N=B=3, R=5, Q=9)."""
    weights = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    material = sum(w * len(board.pieces(pt, c)) for pt, w in weights.items() for c in chess.COLORS)
    if material <= 26:
        return "endgame"
    if board.fullmove_number <= 12 and material >= 58:
        return "opening"
    return "middlegame"


class Stockfish:
    """A minimal UCI driver: sends exactly what python-chess's ``chess.engine`` sends
    for ``analyse``/``play`` (so the searches are identical) but parses only the
    final info line of each PV, and only its first two moves.  python-chess
    validates every move of every info line it reads, which cost more CPU than
    Stockfish's own searches here.
    """

    def __init__(self, path: str, options: dict) -> None:
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     universal_newlines=True, bufsize=1)
        self.game: object = None
        self.first_game = True
        self.multipv: Optional[int] = None
        self.analyse_mode: Optional[bool] = None
        self.name = "?"
        self._send("uci")
        for line in self._lines("uciok"):
            if line.startswith("id name "):
                self.name = line[len("id name "):].strip()
        for name, value in options.items():
            self._send(f"setoption name {name} value {value}")
        self._ready()

    def _send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _lines(self, until: str):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("Stockfish exited")
            yield line
            if line.startswith(until):
                return

    def _ready(self) -> None:
        self._send("isready")
        for _ in self._lines("readyok"):
            pass

    def _start(self, board: chess.Board, limit: chess.engine.Limit, multipv: int, game: object,
               analyse_mode: bool) -> None:
        if analyse_mode != self.analyse_mode:  # python-chess toggles it; Stockfish ignores it
            self._send(f"setoption name UCI_AnalyseMode value {str(analyse_mode).lower()}")
            self.analyse_mode = analyse_mode
        if multipv != self.multipv:
            self._send(f"setoption name MultiPV value {multipv}")
            self.multipv = multipv
        if self.first_game or game != self.game:
            self.first_game, self.game = False, game
            self._send("ucinewgame")
            self._ready()
        root = board.root()
        fen = root.fen(en_passant="fen")
        command = "position startpos" if fen == chess.STARTING_FEN else f"position fen {fen}"
        if board.move_stack:
            command += " moves " + " ".join(m.uci() for m in board.move_stack)
        self._send(command)
        go = "go"
        if limit.depth is not None:
            go += f" depth {limit.depth}"
        if limit.nodes is not None:
            go += f" nodes {limit.nodes}"
        self._send(go)

    def analyse(self, board: chess.Board, limit: chess.engine.Limit, multipv: int = 1,
                game: object = None) -> List[dict]:
        """The last info of each PV: {"score": PovScore, "pv": first <= 2 moves, "depth", "nodes"}."""
        self._start(board, limit, multipv, game, True)
        latest: dict = {}
        for line in self._lines("bestmove"):
            if line.startswith("info ") and " score " in line and " pv " in line:
                head, pv = line.split(" pv ", 1)
                tokens = head.split()
                fields = {tokens[i]: tokens[i + 1] for i in range(1, len(tokens) - 1)
                          if tokens[i] in ("depth", "multipv", "nodes", "cp", "mate")}
                value = int(fields["cp"]) if "cp" in fields else None
                score = chess.engine.Cp(value) if value is not None else chess.engine.Mate(int(fields["mate"]))
                latest[int(fields.get("multipv", 1))] = {
                    "score": chess.engine.PovScore(score, board.turn),
                    "pv": [chess.Move.from_uci(m) for m in pv.split()[:2]],
                    "depth": int(fields["depth"]),
                    "nodes": int(fields["nodes"]),
                }
        return [latest[k] for k in sorted(latest)]

    def play(self, board: chess.Board, limit: chess.engine.Limit, game: object = None) -> chess.Move:
        self._start(board, limit, 1, game, False)
        last_line = list(self._lines("bestmove"))[-1]
        return chess.Move.from_uci(last_line.split()[1])

    def quit(self) -> None:
        self._send("quit")
        self.proc.wait(timeout=10)

class Generator:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        if args.python_chess:
            self.engine = chess.engine.SimpleEngine.popen_uci(args.stockfish)
            self.engine.configure({"Threads": 1, "Hash": args.hash})
            self.sf_name = self.engine.id.get("name", "?")
        else:
            self.engine = Stockfish(args.stockfish, {"Threads": 1, "Hash": args.hash})
            self.sf_name = self.engine.name
        self.clears = 0
        self.tried = set()
        self.out: List[Tuple[chess.Board, chess.Move, dict]] = []
        self.stats = {"plies": 0, "candidates": 0, "shallow_ok": 0, "quick_ok": 0, "kept": 0}

    def fresh(self) -> object:
        """A new `game` token: python-chess then sends ucinewgame (hash cleared)."""
        self.clears += 1
        self.token = ("fresh", self.clears)
        return self.token

    def close(self) -> None:
        self.engine.quit()

    # -- move choice ---------------------------------------------------------
    def choose(self, rng: random.Random, board: chess.Board, infos: list) -> chess.Move:
        turn = board.turn
        lines = [(pov_cp(i["score"], turn), i["pv"][0]) for i in infos if i.get("pv")]
        best = lines[0][0]
        roll = rng.random()
        if roll < self.args.random_rate:
            return rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))
        if roll < self.args.random_rate + self.args.error_rate:
            errors = [m for s, m in lines if 100 <= best - s <= 500]
            if errors:
                return rng.choice(errors)
        good = [m for s, m in lines if best - s <= 50]
        return rng.choice(good)

    # -- candidate handling ----------------------------------------------------
    def verdict(self, root: chess.Board, infos: list, slack: int = 0) -> Optional[str]:
        """'margin M' / 'mate N' when a MultiPV 2 result shows one clearly best move, else None.

        ``slack`` loosens the thresholds (used for the quick pre-verification).
        """
        a = self.args
        turn = root.turn
        if len(infos) < 2 or not infos[0].get("pv") or not infos[1].get("pv"):
            return None
        v1, v2 = pov_cp(infos[0]["score"], turn), pov_cp(infos[1]["score"], turn)
        m1, m2 = mate_in(infos[0]["score"], turn), mate_in(infos[1]["score"], turn)
        if m1 is not None and 0 < m1 <= a.max_mate:
            return None if m2 is not None and m2 > 0 else f"mate {m1}"
        if m1 is not None or v1 < a.min_score - slack or v1 - v2 < a.min_margin - slack:
            return None
        if v2 > a.max_second + slack:
            return None
        return f"margin {v1 - v2}"

    def shallow_move(self, root: chess.Board) -> chess.Move:
        result = self.engine.play(root, chess.engine.Limit(depth=self.args.shallow_depth), game=self.fresh())
        return result if isinstance(result, chess.Move) else result.move

    def candidate(self, board: chess.Board, expected: chess.Move, label: str) -> bool:
        """Examine one position whose best move is expected to be ``expected``; keep it if it qualifies."""
        a = self.args
        turn = board.turn
        if board.is_game_over() or board.legal_moves.count() < 3:
            return False
        root = chess.Board(board.fen())  # what the EPD line will describe: no history, clocks 0/1
        root.halfmove_clock, root.fullmove_number = 0, 1
        key = root.epd()
        if key in self.tried:
            return False
        self.tried.add(key)
        self.stats["candidates"] += 1
        # Cheap filter first: a shallow search that already finds the move means no tactic.
        shallow = self.shallow_move(root) if a.shallow_depth else None
        if shallow == expected:
            return False
        self.stats["shallow_ok"] += 1
        # Quick verifications next (cheap, then less cheap, each with looser thresholds
        # than the final test): most candidates do not survive a deeper look.
        for nodes, slack in ((a.quick_nodes // 4, 100), (a.quick_nodes, 40)):
            quick = self.engine.analyse(root, chess.engine.Limit(nodes=nodes), multipv=2, game=self.fresh())
            if self.verdict(root, quick, slack=slack) is None or quick[0]["pv"][0] == shallow:
                return False
        self.stats["quick_ok"] += 1
        deep = self.engine.analyse(root, chess.engine.Limit(depth=a.verify_depth, nodes=a.verify_nodes), multipv=2, game=self.fresh())
        verdict = self.verdict(root, deep)
        if a.verbose:
            print(f"  {label}: quick {root.san(quick[0]['pv'][0])} {pov_cp(quick[0]['score'], turn)}/"
                  f"{pov_cp(quick[1]['score'], turn)} shallow {shallow and root.san(shallow)} deep "
                  f"{' '.join(root.san(i['pv'][0]) + ' ' + str(pov_cp(i['score'], turn)) for i in deep if i.get('pv'))}"
                  f" -> {verdict}", file=sys.stderr)
        if verdict is None:
            return False
        bm = deep[0]["pv"][0]
        if bm == shallow:
            return False
        meta = {
            "c0": f"sf depth {deep[0].get('depth', 0)} {verdict}",
            "c1": f"sf nodes {deep[0].get('nodes', 0)} best {deep[0]['score'].pov(turn)} "
                  f"second {root.san(deep[1]['pv'][0])} {deep[1]['score'].pov(turn)} "
                  f"shallow d{a.shallow_depth} {shallow and root.san(shallow)} source {label}",
            "c2": phase_of(root),
        }
        self.out.append((root, bm, meta))
        self.stats["kept"] += 1
        return True

    # -- one game ------------------------------------------------------------
    def play_game(self, rnd: int, index: int, fen: str) -> None:
        a = self.args
        rng = random.Random(f"{a.seed}-{rnd}-{index}")
        board = chess.Board(fen)
        self.fresh()
        picks, last_pick = 0, -100
        for ply in range(a.max_plies):
            if board.is_game_over(claim_draw=True):
                return
            infos = self.engine.analyse(board, chess.engine.Limit(nodes=a.play_nodes), multipv=a.play_multipv,
                                        game=self.token)
            infos = [i for i in infos if i.get("pv")]
            if not infos:
                return
            self.stats["plies"] += 1
            turn = board.turn
            best = pov_cp(infos[0]["score"], turn)
            if ply - last_pick >= a.min_gap:
                # (a) the position itself, when its best move already stands out,
                found = (len(infos) >= 2 and best >= a.screen_score
                         and best - pov_cp(infos[1]["score"], turn) >= a.screen_margin
                         and self.candidate(board, infos[0]["pv"][0], f"round {rnd + 1} opening {index + 1} ply {ply}"))
                # (b) else the positions after the plausible mistakes: the refutation in each line.
                for info in infos[1:]:
                    if found:
                        break
                    loss = best - pov_cp(info["score"], turn)
                    # after the mistake the opponent stands at about (loss - best); keep
                    # it when that is a clear advantage won back from a balanced-ish game
                    if a.screen_score <= loss - best <= 800 and -400 <= best <= 200 and len(info["pv"]) >= 2:
                        child = board.copy()
                        child.push(info["pv"][0])
                        found = self.candidate(child, info["pv"][1],
                                               f"round {rnd + 1} opening {index + 1} ply {ply} after {board.san(info['pv'][0])}")
                if found:
                    picks, last_pick = picks + 1, ply
                    if picks >= a.per_game or len(self.out) >= a.target:
                        return
            if abs(best) >= 1500:
                return
            if a.weak_nodes:
                # The move itself comes from a much shallower search: a weak player's
                # mistakes are the ones whose refutation needs depth, i.e. tactics.
                infos = self.engine.analyse(board, chess.engine.Limit(nodes=a.weak_nodes), multipv=3,
                                            game=self.token)
                infos = [i for i in infos if i.get("pv")]
            board.push(self.choose(rng, board, infos))

    def run(self) -> None:
        a = self.args
        lines = [ln.strip() for ln in Path(a.openings).read_text().splitlines() if ln.strip()]
        if a.max_games:
            lines = lines[: a.max_games]
        start = time.time()
        self.games = 0
        for rnd in range(a.rounds):
            for index, line in enumerate(lines):
                board, _ = chess.Board.from_epd(line)
                self.play_game(rnd, index, board.fen())
                self.games += 1
                print(f"[{time.time() - start:7.1f}s] round {rnd + 1} game {index + 1}/{len(lines)}: "
                      f"{len(self.out)} kept, {self.stats}", file=sys.stderr, flush=True)
                if len(self.out) >= a.target:
                    break
            if len(self.out) >= a.target:
                break
        self.elapsed = time.time() - start

    def write(self) -> None:
        out = Path(self.args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        text = []
        for n, (root, bm, meta) in enumerate(self.out, 1):
            text.append(root.epd(bm=bm, id=f"fianchetto-tactics-{n:03d}", **meta))
        out.write_text("\n".join(text) + "\n")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stockfish", default="/usr/games/stockfish")
    p.add_argument("--openings", default="/work/shared/data/openings.epd")
    p.add_argument("--out", default=str(ROOT / "tests" / "data" / "tactics.epd"))
    p.add_argument("--seed", type=int, default=20240617)
    p.add_argument("--hash", type=int, default=16, help="Stockfish hash in MB (cleared before every fresh search)")
    p.add_argument("--target", type=int, default=140, help="stop after this many positions")
    p.add_argument("--max-games", type=int, default=0, help="use only the first N openings (0: all)")
    p.add_argument("--max-plies", type=int, default=160)
    p.add_argument("--per-game", type=int, default=3)
    p.add_argument("--play-nodes", type=int, default=5000, help="nodes of the screening search at every ply")
    p.add_argument("--weak-nodes", type=int, default=300,
                   help="choose moves with a search of this many nodes (0: the screening search)")
    p.add_argument("--play-multipv", type=int, default=4)
    p.add_argument("--min-gap", type=int, default=6, help="plies between two picks from one game")
    p.add_argument("--error-rate", type=float, default=0.0)
    p.add_argument("--random-rate", type=float, default=0.02)
    p.add_argument("--shallow-depth", type=int, default=4)
    p.add_argument("--screen-score", type=int, default=130)
    p.add_argument("--screen-margin", type=int, default=150)
    p.add_argument("--quick-nodes", type=int, default=32_000)
    p.add_argument("--max-mate", type=int, default=6)
    p.add_argument("--verify-depth", type=int, default=18)
    p.add_argument("--verify-nodes", type=int, default=500_000, help="node cap of the depth-limited verification")
    p.add_argument("--rounds", type=int, default=3, help="games per opening (round-major order)")
    p.add_argument("--min-score", type=int, default=150)
    p.add_argument("--min-margin", type=int, default=200)
    p.add_argument("--max-second", type=int, default=400)
    p.add_argument("--python-chess", action="store_true",
                   help="drive Stockfish through chess.engine (same searches, same output, more CPU)")
    p.add_argument("--verbose", action="store_true")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    gen = Generator(args)
    try:
        gen.run()
    finally:
        gen.close()
    gen.write()
    phases = {}
    for _, _, meta in gen.out:
        phases[meta["c2"]] = phases.get(meta["c2"], 0) + 1
    white = sum(1 for root, _, _ in gen.out if root.turn == chess.WHITE)
    mates = sum(1 for _, _, meta in gen.out if "mate" in meta["c0"])
    print(f"{gen.sf_name}: wrote {len(gen.out)} positions to {args.out} in {gen.elapsed:.0f}s "
          f"(white to move {white}, mates {mates}, phases {phases}); {gen.stats}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
