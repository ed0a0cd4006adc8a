#!/usr/bin/env python3
"""Tune the search's constants by SPSA on this machine, over fastchess.

    python3 tools/spsa.py start --games 8000 --tc 5+0.05 [--pairs 2] [--params A,B,...]
    python3 tools/spsa.py run [--iterations N] [--hours H]     # go on from the state file
    python3 tools/spsa.py report                               # where every parameter stands
    python3 tools/spsa.py move REF                             # go on with the engine of REF
    python3 tools/spsa.py rescale FACTOR                       # multiply every learning rate
    python3 tools/spsa.py land                                 # theta, rounded, into the table

The algorithm is OpenBench's SPSA: at iteration k every parameter is moved by
``+c_k * d`` in one engine and ``-c_k * d`` in the other (``d`` a random sign per
parameter), the two play ``--pairs`` colour-reversed game pairs, and each
parameter steps by ``a_k * (wins - losses) * d / c_k`` for the first engine. The
step sizes follow ``c_k = c / (k + 1)^gamma`` and ``a_k = a / (A + k + 1)^alpha``
with gamma 0.101, alpha 0.602 and A a tenth of the iterations; ``c`` and ``a`` are
set so that the last iteration's step is the table's ``c_end`` and its learning
rate ``r_end`` (``a_end = r_end * c_end^2``), as OpenBench does
(``src/core_cy/tunables.py`` holds both per parameter). ``--concurrency N``
(default 2) runs N workers as OpenBench's: each plays a whole iteration, one
game at a time, perturbed from theta as it stands when the worker takes it, and
steps theta when it ends; no core waits for another's last game.

The whole state (the settings, theta, the iteration, the games, the path of
theta) is one small JSON file, ``tune/spsa-state.json`` unless ``--state`` says
otherwise, rewritten after every iteration and committed with the code: a tune
stopped by the end of a working session goes on with ``run`` on any machine.
The engine is the tune build (``FIANCHETTO_TUNE=1``) of the commit the tune
started from, built once into ``~/.cache/fianchetto/builds/tune-<key>``. When the
engine changes under a running tune (a new network, a faster build), ``move``
carries theta, the schedule and the counts over to the new commit and records
the iteration of the move in the state. ``rescale`` multiplies every
parameter's ``a`` (its learning rate) from the current iteration on, also
recorded: OpenBench's usual ``r_end`` of 0.002 is made for tunes of tens of
thousands of games, and moves a parameter by a fraction of ``c_end`` in a few
thousand (docs/tuning.md).
Each worker's games go to ``~/.cache/fianchetto/spsa/<commit>/worker-N/`` (not the repository).
``land`` writes theta, rounded, as the values of the table
(``src/core_cy/tunables.py``) and regenerates its C files: the tuned build to
confirm in games before it is committed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent


def project_path(path: str) -> str:
    """`path` as the state file records it: relative to the project's root (so a
    state committed on one machine names no folder of that machine)."""
    return os.path.relpath(Path(path).resolve(), ROOT)
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "src"))

import sprt  # noqa: E402  (the build cache, engine arguments and fastchess's summary)
from core_cy import tunables  # noqa: E402  (plain Python: the table)

DEFAULT_STATE = ROOT / "tune" / "spsa-state.json"
ALPHA, GAMMA = 0.602, 0.101
PATH_EVERY = 10          # iterations between two samples of theta's path


def build_tune(commit: str) -> Path:
    """The tune build's executable of `commit`, installed into a venv of its own (cached)."""
    return sprt.build(commit, flavour={"FIANCHETTO_TUNE": "1"}, prefix="tune-")


def schedule(row: tunables.Tunable, iterations: int) -> Dict[str, float]:
    """OpenBench's c and a for a parameter: c_end and r_end reached at the last iteration."""
    big_a = iterations / 10
    c = row.c_end * iterations ** GAMMA
    a_end = row.r_end * row.c_end ** 2
    a = a_end * (big_a + iterations) ** ALPHA
    return {"c": c, "a": a, "A": big_a}


def new_state(args: argparse.Namespace) -> dict:
    commit = sprt.commit_of(args.commit)
    table = tunables_of(commit)
    names = args.params.split(",") if args.params else list(table)
    rows = [tunables.by_name(n, table.values()) for n in names]
    iterations = max(1, args.games // (2 * args.pairs))
    return {
        "commit": commit,
        "tc": args.tc, "pairs": args.pairs, "iterations": iterations, "games_target": args.games,
        "openings": project_path(args.openings), "seed": args.seed,
        "iteration": 0, "games": 0, "wins": 0, "losses": 0, "draws": 0, "seconds": 0.0,
        "theta": {r.name: float(r.value) for r in rows},
        "schedule": {r.name: schedule(r, iterations) for r in rows},
        "path": [[0, {r.name: float(r.value) for r in rows}]],
    }


def load(path: Path) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def save(path: Path, state: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    os.replace(temporary, path)


Table = Dict[str, tunables.Tunable]


def perturbed(state: dict, k: int, rng: random.Random, table: Table) -> Dict[str, Dict[str, float]]:
    """Per parameter: the sign d, the step c_k, and the two engines' integer values,
    within the ranges of `table` (the played commit's)."""
    out = {}
    for name, theta in state["theta"].items():
        row, sched = table[name], state["schedule"][name]
        c_k = sched["c"] / (k + 1) ** GAMMA
        d = rng.choice((-1, 1))
        out[name] = {"d": d, "c_k": c_k, "plus": clipped(row, theta + c_k * d),
                     "minus": clipped(row, theta - c_k * d)}
    return out


def clipped(row: tunables.Tunable, value: float) -> int:
    """`value` rounded to the nearest integer within the row's range."""
    return min(row.maximum, max(row.minimum, int(round(value))))


def step(state: dict, k: int, moves: Dict[str, Dict[str, float]], wins: int, losses: int, table: Table) -> None:
    """theta += a_k (W - L) d / c_k, kept within each parameter's range in `table`."""
    for name, move in moves.items():
        row, sched = table[name], state["schedule"][name]
        a_k = sched["a"] / (sched["A"] + k + 1) ** ALPHA
        theta = state["theta"][name] + a_k * (wins - losses) * move["d"] / move["c_k"]
        state["theta"][name] = min(float(row.maximum), max(float(row.minimum), theta))


def tunables_of(commit: str) -> Table:
    """The table of `commit`: its ``src/core_cy/tunables.py``, run apart from this
    checkout's (the file is plain Python that imports nothing from the package)."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:src/core_cy/tunables.py"],
                            check=True, capture_output=True, text=True).stdout
    return table_of_source(source, f"{commit[:12]}:src/core_cy/tunables.py")


def table_of_source(source: str, name: str) -> Table:
    """The rows of a ``tunables.py`` given as text, by name."""
    namespace: dict = {}
    exec(compile(source, name, "exec"), namespace)
    return {row.name: row for row in namespace["TUNABLES"]}


def move(state: dict, ref: str) -> None:
    """Go on with the tune on the engine of `ref`. Every tuned parameter must be an
    option of that engine (one it lacks would be refused by each game's engine with
    an ``info string`` and go untuned) and theta must lie in its ranges there."""
    commit = sprt.commit_of(ref)
    if commit == state["commit"]:
        raise ValueError(f"the tune already plays {commit[:12]}")
    table = tunables_of(commit)
    missing = sorted(set(state["theta"]) - set(table))
    if missing:
        raise ValueError(f"{commit[:12]} has no tunable {', '.join(missing)}")
    outside = sorted(n for n, v in state["theta"].items() if not table[n].minimum <= v <= table[n].maximum)
    if outside:
        raise ValueError(f"theta lies outside {commit[:12]}'s range for {', '.join(outside)}")
    state.setdefault("moves", []).append({"iteration": state["iteration"], "from": state["commit"], "to": commit})
    state["commit"] = commit


def rescale(state: dict, factor: float) -> None:
    """Multiply every parameter's learning rate by `factor` from the current iteration."""
    if not factor > 0 or factor == float("inf"):
        raise ValueError(f"the factor must be a positive number, not {factor}")
    for sched in state["schedule"].values():
        sched["a"] *= factor
    state.setdefault("rescales", []).append({"iteration": state["iteration"], "factor": factor})


TABLE_SOURCE = ROOT / "src" / "core_cy" / "tunables.py"


def land(state: dict, source: Path = TABLE_SOURCE) -> List[tuple]:
    """Write each tuned parameter's theta, rounded and kept within the row's range,
    as its value in the table ``source``; the (name, old, new) of the rows that
    changed. Nothing is written when a tuned parameter has no row there."""
    text = source.read_text()
    rows = table_of_source(text, str(source))
    changes = []
    for name, theta in state["theta"].items():
        found = re.search(rf'row\("{re.escape(name)}", (-?\d+),', text)
        if found is None or name not in rows:
            raise ValueError(f"{source} has no row {name}")
        new = clipped(rows[name], theta)
        if new != rows[name].value:
            changes.append((name, rows[name].value, new))
        text = text[:found.start(1)] + str(new) + text[found.end(1):]
    source.write_text(text)
    return changes


def play_iteration(state: dict, exe: Path, moves: Dict[str, Dict[str, float]], k: int,
                   fastchess: str, worker: int,
                   play: Callable[[List[str], Path], subprocess.CompletedProcess]) -> Dict[str, int]:
    """Play iteration `k`'s game pairs one after another (fastchess, run by `play`
    (`Run.play`, which a stop can end), in a folder of the worker's own: its PGN and
    its saved state are not shared) and count them."""
    folder = sprt.CACHE / "spsa" / state["commit"][:12] / f"worker-{worker}"
    folder.mkdir(parents=True, exist_ok=True)
    plus = [f"{n}={m['plus']}" for n, m in moves.items()]
    minus = [f"{n}={m['minus']}" for n, m in moves.items()]
    command = [
        fastchess, *sprt.engine_args("plus", exe, plus), *sprt.engine_args("minus", exe, minus),
        "-each", f"tc={state['tc']}",
        "-openings", f"file={(ROOT / state['openings']).resolve()}", "format=epd", "order=random", "-srand", str(state["seed"] + k),
        "-repeat", "-rounds", str(state["pairs"]), "-concurrency", "1", *sprt.ADJUDICATION,
        "-pgnout", f"file={folder / 'games.pgn'}",
    ]
    done = play(command, folder)
    summary = sprt.parse_summary(done.stdout)
    if done.returncode != 0 or "games" not in summary:
        raise RuntimeError(f"fastchess failed (exit {done.returncode}): {done.stdout[-800:]}{done.stderr[-800:]}")
    games, wins, losses, draws = (int(x) for x in summary["games"].split())
    return {"games": games, "wins": wins, "losses": losses, "draws": draws}


class Stopped(Exception):
    """The run was stopped (SIGTERM or Ctrl-C) while a worker's games were played."""


class Run:
    """One ``run`` of a tune: hands out its iterations to the workers and applies their
    steps, each under one lock, saving the state after every step.

    As on OpenBench, where many workers play one tune, an iteration is perturbed
    from theta as it stands when a worker takes it, and steps theta when its games
    end: with N workers an iteration may start before the N - 1 before it have
    stepped. Each worker plays its games one after another, so no core waits for
    the other's last game, as both would for an iteration shared between them.

    Stopped, it ends the fastchess it started: the iterations in flight count for
    nothing, and the state keeps every one that finished."""

    def __init__(self, state_path: Path, state: dict, table: Table, iterations: Optional[int],
                 hours: Optional[float]) -> None:
        self.state_path = state_path
        self.state = state
        self.table = table
        done = self.state["iteration"]
        self.limit = self.state["iterations"] if iterations is None else min(self.state["iterations"], done + iterations)
        self.deadline = time.monotonic() + hours * 3600 if hours else None
        self.next_k = done
        self.failure: Optional[BaseException] = None
        self.stopped = False
        self.children: Set[subprocess.Popen] = set()
        self.lock = threading.Lock()
        self.clock = time.monotonic()

    def take(self) -> Optional[Tuple[int, Dict[str, Dict[str, float]]]]:
        """The next iteration and its two engines' values; None once the run is over
        (its last iteration handed out, its time up, a worker failed, or stopped)."""
        with self.lock:
            late = self.deadline is not None and time.monotonic() > self.deadline
            if self.failure is not None or self.stopped or late or self.next_k >= self.limit:
                return None
            k = self.next_k
            self.next_k += 1
            rng = random.Random(self.state["seed"] * 1_000_003 + k)
            return k, perturbed(self.state, k, rng, self.table)

    def finish(self, k: int, moves: Dict[str, Dict[str, float]], counts: Dict[str, int]) -> None:
        """Step theta by iteration `k`'s result, count its games and save the state."""
        with self.lock:
            state = self.state
            step(state, k, moves, counts["wins"], counts["losses"], self.table)
            state["iteration"] += 1
            for key in ("games", "wins", "losses", "draws"):
                state[key] += counts[key]
            now = time.monotonic()
            state["seconds"] += now - self.clock        # the tune's wall time, once for all workers
            self.clock = now
            if state["iteration"] % PATH_EVERY == 0 or state["iteration"] == state["iterations"]:
                state["path"].append([state["iteration"], dict(state["theta"])])
            save(self.state_path, state)
            print(f"iteration {state['iteration']}/{state['iterations']}  games {state['games']}  "
                  f"(+{state['wins']} ={state['draws']} -{state['losses']} for the plus side)  "
                  f"elapsed {state['seconds'] / 3600:.2f} h", flush=True)

    def fail(self, exc: BaseException) -> None:
        with self.lock:
            if self.failure is None:
                self.failure = exc

    def play(self, command: List[str], folder: Path) -> subprocess.CompletedProcess:
        """A worker's fastchess, run where `stop` can end it; Stopped if it did."""
        with self.lock:
            if self.stopped:
                raise Stopped
            child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     cwd=folder)
            self.children.add(child)
        try:
            out, err = child.communicate()
        finally:
            with self.lock:
                self.children.discard(child)
        if self.stopped:
            raise Stopped
        return subprocess.CompletedProcess(command, child.returncode, out, err)

    def stop(self) -> None:
        """Hand out no more iterations and end every fastchess playing (each ends
        its engines)."""
        with self.lock:
            self.stopped = True
            children = list(self.children)
        for child in children:
            sprt.end_fastchess(child)

    def work(self, exe: Path, fastchess: str, worker: int) -> None:
        """A worker: play the iterations it is handed until the run is over."""
        while (job := self.take()) is not None:
            k, moves = job
            try:
                counts = play_iteration(self.state, exe, moves, k, fastchess, worker, play=self.play)
            except Stopped:
                return
            except Exception as exc:      # ends the run; the state keeps the iterations that finished
                self.fail(exc)
                return
            self.finish(k, moves, counts)


def run(state_path: Path, iterations: Optional[int], hours: Optional[float], fastchess: str,
        concurrency: int) -> int:
    """Go on with the tune for `iterations` more, or about `hours`, or to its end,
    with `concurrency` workers, each playing one game at a time."""
    state = load(state_path)
    exe = build_tune(state["commit"])
    table = tunables_of(state["commit"])      # the engine's ranges, not this checkout's
    tune = Run(state_path, state, table, iterations, hours)
    workers = [threading.Thread(target=tune.work, args=(exe, fastchess, n), daemon=True)
               for n in range(max(1, concurrency))]
    for worker in workers:
        worker.start()
    try:
        for worker in workers:
            worker.join()
    except KeyboardInterrupt:
        tune.stop()
        for worker in workers:
            worker.join()
        raise
    if tune.failure is not None:
        raise tune.failure
    return 0


def report(state_path: Path) -> str:
    """Each parameter: its default in the played commit, theta now, the distance moved
    in SPSA steps, and its path (theta every PATH_EVERY iterations, a few samples)."""
    state = load(state_path)
    table = tunables_of(state["commit"])
    lines = [f"iteration {state['iteration']}/{state['iterations']}, {state['games']} games at {state['tc']}, "
             f"commit {state['commit'][:12]}"
             + "".join(f" (from {m['from'][:12]} until iteration {m['iteration']})" for m in state.get("moves", []))
             + "".join(f"; learning rates x{r['factor']:g} from iteration {r['iteration']}"
                       for r in state.get("rescales", [])),
             f"{'parameter':34} {'default':>8} {'theta':>9} {'moved':>7}  path"]
    samples = state["path"][:: max(1, len(state["path"]) // 6)] + state["path"][-1:]
    for name, theta in state["theta"].items():
        row = table[name]
        moved = (theta - row.value) / row.c_end
        path = " ".join(f"{p[1][name]:.1f}" for p in samples)
        lines.append(f"{name:34} {row.value:>8} {theta:>9.2f} {moved:>+7.1f}  {path}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", default=str(DEFAULT_STATE), help="the state file (committed)")
    commands = parser.add_subparsers(dest="command", required=True)
    start = commands.add_parser("start", help="a new tune (refuses to overwrite a state file)")
    start.add_argument("--games", type=int, default=8000)
    start.add_argument("--tc", default="5+0.05")
    start.add_argument("--pairs", type=int, default=2, help="game pairs per iteration")
    start.add_argument("--params", default="", help="comma-separated names (default: every tunable)")
    start.add_argument("--commit", default="HEAD", help="the engine to tune (git ref)")
    start.add_argument("--openings", default=str(sprt.DEFAULT_OPENINGS))
    start.add_argument("--seed", type=int, default=1)
    for command in (start, commands.add_parser("run", help="go on with the tune in the state file")):
        command.add_argument("--iterations", type=int, default=None, help="stop after this many")
        command.add_argument("--hours", type=float, default=None, help="stop after about this long")
        command.add_argument("--concurrency", type=int, default=2,
                             help="workers: iterations played at once, each one game at a time")
        command.add_argument("--fastchess", default=os.environ.get("FASTCHESS") or "fastchess")
    commands.add_parser("report", help="a table of every parameter's path")
    moving = commands.add_parser("move", help="go on with the tune on the engine of another commit")
    moving.add_argument("ref", help="the commit (git ref) whose tune build plays from now on")
    rescaling = commands.add_parser("rescale", help="multiply every parameter's learning rate from now on")
    rescaling.add_argument("factor", type=float)
    commands.add_parser("land", help="write theta, rounded, as the table's values (src/core_cy/tunables.py)")
    return parser


def command_report(args: argparse.Namespace, state_path: Path) -> int:
    print(report(state_path))
    return 0


def edit_state(state_path: Path, verb: str, edit: Callable[[dict], None],
               refusals: Tuple[type, ...], said: Callable[[dict], str]) -> int:
    """Load the state, edit it and save it, then print said(state); an edit that
    raises one of `refusals` prints why and leaves the file as it was."""
    state = load(state_path)
    try:
        edit(state)
    except refusals as exc:
        print(f"cannot {verb} the tune: {exc}", file=sys.stderr)
        return 2
    save(state_path, state)
    print(said(state))
    return 0


def command_move(args: argparse.Namespace, state_path: Path) -> int:
    return edit_state(state_path, "move", lambda state: move(state, args.ref),
                      (ValueError, subprocess.CalledProcessError),
                      lambda state: f"the tune goes on from iteration {state['iteration']} "
                                    f"with {state['commit'][:12]}")


def command_land(args: argparse.Namespace, state_path: Path) -> int:
    try:
        changes = land(load(state_path))
    except ValueError as exc:
        print(f"cannot land the tune: {exc}", file=sys.stderr)
        return 2
    subprocess.run([sys.executable, str(ROOT / "tools" / "gen_tunables.py")], check=True)
    for name, old, new in changes:
        print(f"{name:34} {old:>7} -> {new}")
    print(f"{len(changes)} values changed; build, run `fianchetto bench` for the new signature, "
          "and confirm in games before committing")
    return 0


def command_rescale(args: argparse.Namespace, state_path: Path) -> int:
    return edit_state(state_path, "rescale", lambda state: rescale(state, args.factor), (ValueError,),
                      lambda state: f"learning rates x{args.factor:g} from iteration {state['iteration']}")


def command_start(args: argparse.Namespace, state_path: Path) -> int:
    if state_path.exists():
        print(f"{state_path} exists: `run` goes on with it, or move it away", file=sys.stderr)
        return 2
    save(state_path, new_state(args))
    return 0 if args.iterations == 0 else command_run(args, state_path)


def command_run(args: argparse.Namespace, state_path: Path) -> int:
    def said() -> str:
        return f"spsa: stopped at iteration {load(state_path)['iteration']}; `run` goes on from there"

    return sprt.stoppable(lambda: run(state_path, args.iterations, args.hours, args.fastchess, args.concurrency), said)


COMMANDS = {"start": command_start, "run": command_run, "report": command_report, "move": command_move,
            "rescale": command_rescale, "land": command_land}


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return COMMANDS[args.command](args, Path(args.state))


if __name__ == "__main__":
    sys.exit(main())
