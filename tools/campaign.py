#!/usr/bin/env python3
"""Run a network generation's campaign on this machine: its data, its trainings, their matches.

    python3 tools/campaign.py status [--plan docs/data/generation8-plan.json]
    python3 tools/campaign.py run    [--plan ...] [--fastchess PATH]
    python3 tools/campaign.py check  [--plan ...]
    python3 tools/campaign.py hold   [--plan ...]

The plan, a JSON file committed with the code, names what a generation needs:
the self-play files (seed, target, the datagen settings) and the build that plays
them, then its stages in order (a screen, the final training): each names
candidate networks (training options) with the files they train on, and the
match that judges each candidate against the stage's base (a candidate of this
or an earlier stage, or a network file such as the shipped one). ``run``
works through it, every step resumable:

- datagen plays the first file not complete, at nice 19 in the background
  (``--resume``), then the next; a file another process is writing (its lock
  is held) is left to that process; a file is played only while a candidate
  that trains on it has no network (a new machine with every network kept
  regrows none);
- each candidate whose network is not written trains as soon as its files are
  complete (``fianchetto train ... --resume``: a run cut short goes on from its
  last epoch), one at a time with datagen beside it, two at a time once every
  file is complete (a training keeps about one core busy) if the memory
  available holds two (about 25 bytes for each byte of the files); each network is
  then copied to the plan's ``keep`` folder, to be committed: a kept network
  is not trained again, and its match needs no data, so the trainings outlive
  the cache;
- each match not yet logged (in the plan's ``log``, docs/sprt.md) is played
  with ``tools/sprt.py`` (both engines the plan's build, one network each),
  datagen paused (SIGSTOP) while it plays; a match cut short goes on from the
  folder it recorded. A match is an SPRT (``elo0``, ``elo1``) capped at
  ``rounds`` game pairs, or with ``"sprt": false`` all of them (a shipping
  match, judged by its interval: with ``ship_elo`` and ``ship_lower``,
  ``status`` says whether each candidate clears the bar and, once all are
  played, which ships);
- ``run`` ends when every step is done.

A working session's end kills the run and its children (one process group);
the same command goes on where they stopped. On a new machine, without the
cache, datagen starts again from the first game: a seed gives the same games
(docs/training.md). A match outlives the machine through ``hold``, run before a
session ends: it writes each match's counts so far to the plan's ``held`` file,
committed with the code, and a match with no folder here goes on from them
(tools/sprt.py's ``--carry``: the same seed, the openings after the held ones).
Everything goes to the cache (``~/.cache/fianchetto``,
``FIANCHETTO_CACHE`` moves it): the data to ``data/``, the rest to
``campaign/<name>/`` (networks and their training state, logs, the match
folders). ``check`` compares each self-play file, as far as it has grown, with
the first growth's record in the plan (``checkpoints``: the positions and the
openings discarded before a number of kept games; ``sha256`` of the complete
file): a regrown file is known to be the same within minutes, not at its end
(exit 1 when one differs). ``status`` prints where each step stands (a match under way: its
last game started and fastchess's last result; the data: every file's
positions together, and the hours of datagen left at the pace of the file
being written).

Run it with the Python the project is installed in (a virtual environment's):
it reads the data's manifest and trains with that install. fastchess is found
through ``--fastchess``, ``$FASTCHESS`` or ``PATH``; without it the data and
the training go on and the matches wait (exit status 3).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import BinaryIO, Dict, Iterator, List, Optional, TextIO, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import sprt  # noqa: E402  (the build cache and the match runner)
from fianchetto.cli import reader_gone  # noqa: E402
from fianchetto.learn import games, manifest  # noqa: E402  (the installed package's)
from fianchetto.learn.pgn import provenance  # noqa: E402  (a file's size and sha256)
from fianchetto.learn.selfplay import interrupt_on_stop_signals  # noqa: E402

DEFAULT_PLAN = ROOT / "docs" / "data" / "generation8-plan.json"
#: Seconds between looks at the background jobs.
POLL_SECONDS = 30.0


@dataclass
class Checkpoint:
    """What the first growth of a file held before its ``games``-th kept game."""
    games: int
    positions: int
    discarded: Optional[int] = None  # openings discarded before it (None: not recorded)


@dataclass
class DataFile:
    name: str
    seed: int
    positions: int
    checkpoints: List[Checkpoint] = field(default_factory=list)
    sha256: Optional[str] = None     # of the complete file, as first grown


@dataclass
class Match:
    base: str
    tc: str
    elo0: float
    elo1: float
    rounds: int
    seed: int
    sprt: bool = True                # False: play all the rounds (a fixed-games verdict)
    ship_elo: Optional[float] = None    # a shipping match: the Elo a candidate must reach
    ship_lower: Optional[float] = None  # ... with its 95% interval's lower end above this


@dataclass
class Verdict:
    """A logged match's Elo against its stage's shipping bar."""
    candidate: str
    elo: float
    lower: float                     # the 95% interval's lower end
    clears: bool

    def words(self) -> str:
        return (f"{'clears' if self.clears else 'short of'} the shipping bar "
                f"(Elo {self.elo:+.1f}, lower end {self.lower:+.1f})")


@dataclass
class Stage:
    """A step of a generation: candidates trained on the same files, then each
    played against the stage's base (a candidate, or a network file)."""
    name: str
    data: List[str]                  # the files its candidates train on
    train: List[str]                 # options every candidate shares
    candidates: Dict[str, List[str]]  # name -> its own options (after the shared ones)
    match: Optional[Match]

    def challengers(self) -> List[str]:
        """The candidates a match judges: all but the base, in the plan's order."""
        return [name for name in self.candidates if self.match and name != self.match.base]


@dataclass
class Plan:
    name: str
    engine: Optional[str]            # git ref of the build that plays; None: this checkout's
    datagen: List[str]
    data: List[DataFile]
    stages: List[Stage]
    folder: Path                     # the campaign's own files
    data_dir: Path                   # the data folder (datagen's default one)
    keep: Optional[Path]             # where trained networks are copied, to be committed
    log: Path                        # the matches' rows (tools/sprt.py's --log)
    root: Path                       # what a base given as a file is relative to
    held: Optional[Path] = None      # the counts of matches cut short, to be committed (``hold``)

    def data_path(self, name: str) -> Path:
        return self.data_dir / name

    def trained(self, candidate: str) -> Path:
        """Where the candidate's training writes its network (and its state beside it)."""
        return self.folder / f"{candidate}.nnue"

    def kept(self, candidate: str) -> Optional[Path]:
        return self.keep / f"{candidate}.nnue" if self.keep else None

    def network(self, candidate: str) -> Path:
        """The candidate's network: the kept copy when there is one (it outlives the cache)."""
        kept = self.kept(candidate)
        return kept if kept is not None and kept.exists() else self.trained(candidate)

    def needs(self, name: str) -> bool:
        """Is the data file `name` still needed: does a candidate that trains on it
        have no network yet? (Kept networks outlive the cache, so a new machine
        does not regrow data that every network trained on.)"""
        return any(name in stage.data and not self.network(candidate).exists()
                   for stage in self.stages for candidate in stage.candidates)

    def base_network(self, base: str) -> Path:
        """A match's base: a candidate's network, or a file (the shipped network)."""
        if any(base in stage.candidates for stage in self.stages):
            return self.network(base)
        return self.root / base


def load_stage(raw: dict) -> Stage:
    match = Match(**raw["match"]) if raw.get("match") else None
    return Stage(raw["name"], list(raw["data"]), list(raw["train"]),
                 {name: list(options) for name, options in raw["candidates"].items()}, match)


def load_plan(path: Path, cache: Path = sprt.CACHE, root: Path = ROOT) -> Plan:
    """The plan in `path` (its ``keep`` and ``log`` paths, and a base given as a
    file, relative to `root`); ValueError naming the problem when it does not
    hold together."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    data = [DataFile(entry["file"], int(entry["seed"]), int(entry["positions"]),
                     [Checkpoint(**point) for point in entry.get("checkpoints", [])], entry.get("sha256"))
            for entry in raw["data"]]
    plan = Plan(raw["name"], raw.get("engine"), list(raw["datagen"]), data,
                [load_stage(stage) for stage in raw["stages"]], cache / "campaign" / raw["name"], cache / "data",
                root / raw["keep"] if raw.get("keep") else None,
                root / raw["log"] if raw.get("log") else cache / "campaign" / raw["name"] / "matches.md", root,
                root / raw["held"] if raw.get("held") else None)
    check_plan(plan)
    return plan


def check_plan(plan: Plan) -> None:
    known = {f.name for f in plan.data}
    seen: List[str] = []
    for stage in plan.stages:
        unknown = [name for name in stage.data if name not in known]
        if unknown:
            raise ValueError(f"stage {stage.name} trains on files the plan does not make: {', '.join(unknown)}")
        twice = [name for name in stage.candidates if name in seen]
        if twice:
            raise ValueError(f"candidates named twice: {', '.join(twice)}")
        seen += stage.candidates
        base = stage.match.base if stage.match else None
        if base is not None and base not in seen and not (plan.root / base).is_file():
            raise ValueError(f"stage {stage.name}'s base {base!r} is neither a candidate so far nor a file")


def data_state(path: Path) -> Dict[str, object]:
    """What the manifest says of the data file `path` ({} when it has no entry)."""
    try:
        return dict(manifest.entry(str(path)) or {})
    except ValueError:
        return {}


def is_complete(path: Path) -> bool:
    return bool(data_state(path).get("complete"))


def engine_command(plan: Plan) -> List[str]:
    """How to run the plan's build: built once into the cache, or this checkout's."""
    if plan.engine is None:
        return [sys.executable, "-m", "fianchetto"]
    return [str(sprt.build(sprt.commit_of(plan.engine)))]


def datagen_command(plan: Plan, engine: List[str], data: DataFile) -> List[str]:
    return [*engine, "datagen", "--seed", str(data.seed), "--positions", str(data.positions), *plan.datagen,
            "--out", str(plan.data_path(data.name)), "--resume"]


def train_command(plan: Plan, stage: Stage, candidate: str) -> List[str]:
    files = ",".join(str(plan.data_path(name)) for name in stage.data)
    return [sys.executable, "-m", "fianchetto", "train", "--data", files, "--out", str(plan.trained(candidate)),
            *stage.train, *stage.candidates[candidate], "--resume"]


def match_title(plan: Plan, stage: Stage, candidate: str) -> str:
    assert stage.match is not None
    return f"{plan.name} {stage.name}: {candidate} vs {stage.match.base}"


def logged_row(plan: Plan, stage: Stage, candidate: str) -> Optional[str]:
    """The match's row in the campaign's log, once the match has ended."""
    log = plan.log
    if not log.exists():
        return None
    title = f"| {match_title(plan, stage, candidate)}"
    rows = [line for line in log.read_text(encoding="utf-8").splitlines() if title in line]
    return rows[-1] if rows else None


def row_cells(row: str) -> Optional[List[str]]:
    """A logged row's cells, when it has the columns tools/sprt.py writes."""
    cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
    return cells if len(cells) >= 11 else None


def row_summary(row: str) -> str:
    """A logged row's result in one line: games, W-D-L, Elo, LLR and verdict (the
    columns tools/sprt.py writes); the row itself when it has other columns."""
    cells = row_cells(row)
    if cells is None:
        return row
    games, wdl, elo, llr, verdict = cells[6:11]
    return f"{games} games, +{wdl.replace('-', ' =', 1).replace('-', ' -', 1)}, Elo {elo}, LLR {llr}: {verdict}"


def row_elo(row: str) -> Optional[Tuple[float, float]]:
    """A logged row's Elo and the half-width of its 95% interval (None when the
    row has no such column, or its match gave no estimate)."""
    cells = row_cells(row)
    found = re.fullmatch(r"(-?\d+(?:\.\d+)?) ± (\d+(?:\.\d+)?)", cells[8]) if cells else None
    return (float(found.group(1)), float(found.group(2))) if found else None


def verdict(stage: Stage, candidate: str, row: str) -> Optional[Verdict]:
    """Where a logged match leaves its candidate against the stage's shipping bar
    (None: the stage has no bar, or the row no Elo)."""
    match, elo = stage.match, row_elo(row)
    if match is None or match.ship_elo is None or elo is None:
        return None
    lower = elo[0] - elo[1]
    floor = match.ship_lower if match.ship_lower is not None else float("-inf")
    return Verdict(candidate, elo[0], lower, elo[0] >= match.ship_elo and lower > floor)


def stage_winner(plan: Plan, stage: Stage) -> Optional[str]:
    """:func:`shipping_line` of the stage's logged matches."""
    verdicts = []
    for candidate in stage.challengers():
        row = logged_row(plan, stage, candidate)
        verdicts.append(verdict(stage, candidate, row) if row else None)
    return shipping_line(stage, verdicts)


def shipping_line(stage: Stage, verdicts: List[Optional[Verdict]]) -> Optional[str]:
    """Once every match of a stage with a shipping bar has a verdict (one for each
    challenger, in order): the line naming the candidate that ships (of those
    that clear the bar, the highest Elo), or that none does. None before then,
    or without a bar."""
    match = stage.match
    if match is None or match.ship_elo is None or any(found is None for found in verdicts):
        return None
    bar = f"at least {match.ship_elo:+g} Elo"
    if match.ship_lower is not None:
        bar += f", lower end above {match.ship_lower:+g}"
    clearing = [found for found in verdicts if found is not None and found.clears]
    if not clearing:
        return f"ships  none of {stage.name}: no candidate clears the bar ({bar})"
    best = max(clearing, key=lambda found: found.elo)
    return f"ships  {best.candidate} ({stage.name}: the highest Elo of {len(clearing)} that clear {bar})"


def saved_folder(plan: Plan, candidate: str) -> Optional[Path]:
    """The folder of the candidate's match on this machine, once fastchess saved its state there."""
    note = plan.folder / f"match-{candidate}.folder"
    folder = Path(note.read_text().strip()) if note.exists() else None
    return folder if folder is not None and (folder / sprt.STATE_FILE).exists() else None


def read_held(plan: Plan) -> Dict[str, dict]:
    """The held matches: candidate -> ``{"carry": W-D-L/pentanomial, "games": n, "date": ...}``."""
    if plan.held is None or not plan.held.exists():
        return {}
    return dict(json.loads(plan.held.read_text(encoding="utf-8")))


def hold(plan: Plan) -> str:
    """Write the counts of every match cut short on this machine (its folder's
    saved state) to the plan's ``held`` file, where they outlive the cache: a run
    on a machine without the folder goes on from them (``--carry``). A record
    with more games than this machine's is kept."""
    if plan.held is None:
        return "the plan names no held file"
    before = read_held(plan)
    held, lines = dict(before), []
    for stage in plan.stages:
        for candidate in stage.challengers():
            folder = saved_folder(plan, candidate)
            counts = sprt.saved_counts(folder) if folder and not logged_row(plan, stage, candidate) else None
            if not counts:
                continue
            games_now = sprt.pairs_of(counts) * 2
            if games_now <= held.get(candidate, {}).get("games", 0):
                lines.append(f"held   {candidate:28} {held[candidate]['games']} games already held")
                continue
            held[candidate] = {"carry": sprt.carry_text(counts), "games": games_now, "date": str(date.today())}
            lines.append(f"held   {candidate:28} {games_now} games: {held[candidate]['carry']}")
    if held != before:
        plan.held.parent.mkdir(parents=True, exist_ok=True)
        plan.held.write_text(json.dumps(held, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return "\n".join(lines) if lines else "no match cut short on this machine"


def match_command(plan: Plan, stage: Stage, candidate: str, fastchess: str) -> List[str]:
    """tools/sprt.py's command for the candidate's match: a saved folder goes on;
    without one, a held record's counts are carried into a new folder."""
    match = stage.match
    assert match is not None
    saved = saved_folder(plan, candidate)
    if saved is not None:
        return [sys.executable, str(ROOT / "tools" / "sprt.py"), "--resume", str(saved), "--fastchess", fastchess]
    held = read_held(plan).get(candidate)
    ref = plan.engine or "HEAD"
    index = stage.challengers().index(candidate)
    return [sys.executable, str(ROOT / "tools" / "sprt.py"), ref, ref, "--tc", match.tc,
            "--elo0", str(match.elo0), "--elo1", str(match.elo1), "--rounds", str(match.rounds),
            "--seed", str(match.seed + index), "--concurrency", "2", *([] if match.sprt else ["--no-sprt"]),
            "--base-option", f"EvalFile={plan.base_network(match.base)}",
            "--test-option", f"EvalFile={plan.network(candidate)}",
            "--fastchess", fastchess, "--log", str(plan.log), "--title", match_title(plan, stage, candidate),
            *(["--carry", held["carry"]] if held else [])]


#: Seconds a child is given to end by itself (datagen writes its manifest) before it is killed.
STOP_SECONDS = 120.0


def interruptible_child() -> None:
    """In a child, before it runs: SIGINT back to its default, which a shell's ``&``
    or nohup left ignored, so that Python's Ctrl-C handling applies there."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def background_child() -> None:
    """In the datagen child: interruptible, at nice 19, in a process group of its
    own. The campaign's group is orphaned when the shell that started it with
    ``nohup ... &`` exits, and the kernel continues every stopped process of an
    orphaned group: datagen, paused for a match, would play on beside it."""
    interruptible_child()
    os.setpgid(0, 0)
    os.nice(19)


def end_child(proc: subprocess.Popen, group: bool = False) -> None:
    """Ask a child to end as Ctrl-C does (with `group`, every process of the group
    it leads: a match and its fastchess), and kill it if it has not within STOP_SECONDS."""
    def send(signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(proc.pid, signum)
            else:
                proc.send_signal(signum)

    if proc.poll() is not None:
        return
    send(signal.SIGCONT)
    send(signal.SIGINT)
    try:
        proc.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        proc.wait()


class Datagen:
    """The background datagen: one file at a time, in the plan's order."""

    def __init__(self, plan: Plan, engine: List[str]) -> None:
        self.plan = plan
        self.engine = engine
        self.proc: Optional[subprocess.Popen] = None
        self.current: Optional[DataFile] = None
        self.log: Optional[BinaryIO] = None

    def poll(self) -> bool:
        """Start the next file when none is playing; False once every file is complete."""
        if self.proc is not None:
            code = self.proc.poll()
            if code is None:
                return True
            if code != 0 and not is_complete(self.plan.data_path(self.current.name)):
                raise RuntimeError(f"datagen of {self.current.name} ended with {code} (see its log)")
            self.close_log()
            self.proc = self.current = None
        for data in self.plan.data:
            path = self.plan.data_path(data.name)
            if is_complete(path) or not self.plan.needs(data.name):
                continue
            if games.being_written(str(path)):
                return True          # another process plays it
            path.parent.mkdir(parents=True, exist_ok=True)
            self.log = open(self.plan.folder / f"datagen-{data.seed}.log", "ab")
            self.proc = subprocess.Popen(datagen_command(self.plan, self.engine, data), stdout=self.log,
                                         stderr=subprocess.STDOUT, preexec_fn=background_child)
            self.current = data
            print(f"datagen: {data.name} (seed {data.seed}) toward {data.positions:,} positions", flush=True)
            return True
        return False

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the datagen process (if this run started one) for the duration."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGSTOP)
        elif any(games.being_written(str(self.plan.data_path(data.name))) for data in self.plan.data):
            print("warning: a datagen this run did not start goes on beside the match", flush=True)
        try:
            yield
        finally:
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGCONT)

    def close_log(self) -> None:
        if self.log is not None:
            self.log.close()
            self.log = None

    def stop(self) -> None:
        """End the datagen as Ctrl-C does: it closes its file and writes its manifest."""
        if self.proc is not None:
            end_child(self.proc)
        self.close_log()


def wait(proc: subprocess.Popen, datagen: Datagen, what: str) -> None:
    """Wait for `proc`, keeping datagen going; RuntimeError when it fails. When
    the wait itself is interrupted, `proc` is ended before the error goes on."""
    try:
        while proc.poll() is None:
            datagen.poll()
            try:
                proc.wait(timeout=POLL_SECONDS)
            except subprocess.TimeoutExpired:
                pass
    except BaseException:
        end_child(proc)
        raise
    if proc.returncode != 0:
        raise RuntimeError(f"{what} ended with {proc.returncode}")


#: Trainings run side by side once no datagen shares the cores (a training keeps
#: about one core busy; the machine has two), as many as the memory holds.
TRAININGS_AT_ONCE = 2
#: Memory a training holds for each byte of the games files it reads (the
#: filtered positions decoded, 32 bytes each, and their indices): measured 9.0
#: since the files are read a block at a time (all of seed 802's 193 MB file,
#: 1.73 GB resident at H = 768; 12.1 before; docs/training.md), counted as 15.
TRAINING_BYTES_PER_DATA_BYTE = 15


def available_memory() -> Optional[int]:
    """The memory the kernel says new work can have (MemAvailable), in bytes;
    None where /proc/meminfo does not tell."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def training_memory(plan: Plan, stage: Stage) -> int:
    """About the memory one training of the stage holds, in bytes."""
    files = (plan.data_path(name) for name in stage.data)
    return TRAINING_BYTES_PER_DATA_BYTE * sum(path.stat().st_size for path in files if path.exists())


def trainings_at_once(datagen_busy: bool, need: int, memory: Optional[int]) -> int:
    """One beside a datagen; otherwise TRAININGS_AT_ONCE, fewer where the memory
    (None: not known) cannot hold them, never none."""
    if datagen_busy:
        return 1
    if memory is None:
        return TRAININGS_AT_ONCE
    return max(1, min(TRAININGS_AT_ONCE, memory // max(need, 1)))


def train_all(plan: Plan, stage: Stage, datagen: Datagen) -> None:
    """Train the stage's candidates that have no network yet, in the plan's order:
    one at a time beside a datagen, up to TRAININGS_AT_ONCE at a time when none is
    left and the memory holds them."""
    pending = [candidate for candidate in stage.candidates if not plan.network(candidate).exists()]
    if pending:
        wait_for_data(plan, stage, datagen)
    while pending:
        busy, need, memory = datagen.poll(), training_memory(plan, stage), available_memory()
        at_once = trainings_at_once(busy, need, memory)
        if not busy and memory is not None and at_once < min(TRAININGS_AT_ONCE, len(pending)):
            print(f"train: {at_once} at a time: {memory / 2**30:.1f} GiB available, each training "
                  f"needs about {need / 2**30:.1f} GiB", flush=True)
        train_together(plan, stage, datagen, pending[:at_once])
        for candidate in pending[:at_once]:
            keep(plan, candidate)
        pending = pending[at_once:]
    for candidate in stage.candidates:
        keep(plan, candidate)


def wait_for_data(plan: Plan, stage: Stage, datagen: Datagen) -> None:
    while not all(is_complete(plan.data_path(name)) for name in stage.data):
        datagen.poll()
        time.sleep(POLL_SECONDS)


def train_together(plan: Plan, stage: Stage, datagen: Datagen, candidates: List[str]) -> None:
    """Train `candidates` side by side and wait for all; an error or an
    interruption ends the others too."""
    with contextlib.ExitStack() as logs:
        started: List[Tuple[str, subprocess.Popen]] = []
        try:
            for candidate in candidates:
                print(f"train: {candidate} ({stage.name})", flush=True)
                log = logs.enter_context(open(plan.folder / f"{candidate}.log", "ab"))
                started.append((candidate, subprocess.Popen(train_command(plan, stage, candidate), stdout=log,
                                                            stderr=subprocess.STDOUT,
                                                            preexec_fn=interruptible_child)))
            for candidate, proc in started:
                wait(proc, datagen, f"training {candidate}")
        except BaseException:
            for _, proc in started:
                end_child(proc)
            raise


def keep(plan: Plan, candidate: str) -> None:
    """Copy a trained network where the plan keeps them (to be committed)."""
    kept = plan.kept(candidate)
    if kept is not None and not kept.exists():
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(plan.trained(candidate), kept)
        print(f"kept: {kept} (commit it: the matches need it, the data may not last)", flush=True)


def match_all(plan: Plan, stage: Stage, datagen: Datagen, fastchess: str) -> None:
    assert stage.match is not None
    for candidate in stage.challengers():
        if logged_row(plan, stage, candidate):
            continue
        print(f"match: {candidate} against {stage.match.base} ({stage.name})", flush=True)
        with datagen.paused(), open(plan.folder / f"match-{candidate}.log", "a") as log, \
                doing(plan, f"match {candidate}"):
            # A group of its own, so that an interrupted campaign stops fastchess too
            # (which saves its state for the match to go on).
            proc = subprocess.Popen(match_command(plan, stage, candidate, fastchess), stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, start_new_session=True,
                                    preexec_fn=interruptible_child)
            try:
                follow_match(plan, candidate, proc, log)
            except BaseException:
                end_child(proc, group=True)
                raise
            if proc.wait() != 0 or not logged_row(plan, stage, candidate):
                raise RuntimeError(f"the match of {candidate} ended without a result (see its log)")


def follow_match(plan: Plan, candidate: str, proc: subprocess.Popen, log: TextIO) -> None:
    """Copy the match's output to its log, noting the folder it plays in."""
    assert proc.stdout is not None
    for line in proc.stdout:
        log.write(line)
        log.flush()
        if line.startswith("test folder: "):
            folder = line[len("test folder: "):].split(" (")[0].strip()
            (plan.folder / f"match-{candidate}.folder").write_text(folder + "\n")


#: What a run is doing now (``match CANDIDATE``), for ``status``; believed only
#: while the run holds its lock.
NOW_FILE = "now.txt"


@contextlib.contextmanager
def doing(plan: Plan, step: str) -> Iterator[None]:
    """Say what the run is doing, for ``status``, for the duration."""
    now = plan.folder / NOW_FILE
    now.write_text(step + "\n")
    try:
        yield
    finally:
        now.unlink(missing_ok=True)


@contextlib.contextmanager
def only_run(plan: Plan) -> Iterator[None]:
    """Hold the campaign's lock: a second ``run`` of the same plan refuses."""
    plan.folder.mkdir(parents=True, exist_ok=True)
    with open(plan.folder / "run.lock", "wb") as handle:
        if not games.try_lock(handle):
            raise RuntimeError(f"another run of {plan.name} is going on")
        yield


def run(plan: Plan, fastchess: Optional[str]) -> int:
    """Every step of the plan not yet done; 0 when all are, 3 when the matches
    were left for want of fastchess (the data and the training go on without it)."""
    matches = any(stage.challengers() for stage in plan.stages)
    if matches and not fastchess:
        print("warning: fastchess not found (--fastchess or FASTCHESS): the matches will wait", flush=True)
    with only_run(plan):
        datagen = Datagen(plan, engine_command(plan))
        try:
            datagen.poll()
            for stage in plan.stages:
                train_all(plan, stage, datagen)
                if stage.challengers() and fastchess:
                    match_all(plan, stage, datagen, fastchess)
            while datagen.poll():
                time.sleep(POLL_SECONDS)
        finally:
            datagen.stop()
    print(status(plan), flush=True)
    return 3 if matches and not fastchess else 0


def log_tail(log: Path, size: int = 4096) -> List[str]:
    """The lines of a log's last `size` bytes (a progress bar's returns as line ends)."""
    with open(log, "rb") as handle:
        handle.seek(max(0, log.stat().st_size - size))
        return handle.read().decode("utf-8", "replace").replace("\r", "\n").splitlines()


def last_progress(log: Path, prefix: str = "positions ") -> str:
    """The last progress line a log holds: a datagen's rate and time to go, or
    (prefix ``"epoch "``) a training's epoch and losses."""
    if not log.exists():
        return "(no log here: another process writes it)"
    lines = [line.strip() for line in log_tail(log) if line.startswith(prefix)]
    return lines[-1] if lines else "(no progress yet)"


#: fastchess's lines that say where a match stands (it prints its result every few
#: dozen games), in the order ``status`` shows them.
MATCH_PROGRESS = ("Started game ", "Games: ", "Elo: ", "LLR: ")
#: ... each cut where it says what status leaves out.
MATCH_PROGRESS_ENDS = {"Started game ": " (", "Games: ": ", Points", "Elo: ": ", nElo", "LLR: ": " ["}


def match_progress(log: Path) -> str:
    """Where a match stands by its log: the last game started and the last result
    fastchess printed (games, Elo, the SPRT's LLR)."""
    if not log.exists():
        return "(no log yet)"
    tail = log_tail(log, 32768)
    last = {prefix: next((line.strip() for line in reversed(tail) if line.startswith(prefix)), None)
            for prefix in MATCH_PROGRESS}
    shown = [line.split(MATCH_PROGRESS_ENDS[prefix])[0] for prefix, line in last.items() if line is not None]
    return " | ".join(shown) if shown else "(no game yet)"


def run_going_on(plan: Plan) -> bool:
    """Does a ``run`` of the plan hold its lock now?"""
    return games.being_written(str(plan.folder / "run.lock"))


def match_playing(plan: Plan) -> Optional[str]:
    """The candidate whose match a run of the plan is playing now, if any."""
    now = plan.folder / NOW_FILE
    if not run_going_on(plan) or not now.exists():
        return None
    words = now.read_text().split()
    return words[1] if len(words) == 2 and words[0] == "match" else None


_RATE = re.compile(r"\s(\d+(?:\.\d+)?)/s\b")


def rate_of(progress: str) -> Optional[float]:
    """The positions a second of a datagen's progress line, if it says."""
    found = _RATE.search(progress)
    return float(found.group(1)) if found else None


def data_to_go(recorded: int, target: int, rate: Optional[float]) -> str:
    """Every file's positions against the plan's, and the hours of datagen left
    at `rate` positions a second (the pace of the file being written)."""
    line = f"data   {'(all files)':28} {recorded:>12,} / {target:,}"
    if recorded < target and rate:
        line += f"  about {(target - recorded) / rate / 3600:.1f} h to go at {rate:,.0f}/s"
    return line


def held_words(record: dict) -> str:
    counts = sprt.carried_stats(record["carry"])
    return (f"held at {record['games']} games (+{counts['wins']} ={counts['draws']} -{counts['losses']}, "
            f"{record['date']}), goes on from them")


def data_words(path: Path, state: Dict[str, object], needed: bool, playing: Optional[str]) -> str:
    """Where the data file `path` stands (its manifest `state`; `needed`: a
    candidate still to train reads it), for `status`."""
    if state.get("complete"):
        return "complete"
    if not needed:
        return "not needed (its networks are kept)"
    if playing:
        return f"paused for the match of {playing}"
    if games.being_written(str(path)):
        return "being written"
    return "stopped" if state else "not started"


def match_words(candidate: str, row: Optional[str], playing: Optional[str], saved: bool,
                held: Dict[str, dict]) -> str:
    """Where a candidate's match stands, for `status`: its logged row, else
    playing, cut short, held games or not played."""
    if row:
        return row_summary(row)
    if candidate == playing:
        return "playing"
    if saved:
        return "cut short, goes on"
    return held_words(held[candidate]) if candidate in held else "not played"


def status(plan: Plan) -> str:
    lines = []
    held = read_held(plan)
    playing = match_playing(plan)
    recorded, rate = 0, None
    for data in plan.data:
        path = plan.data_path(data.name)
        state = data_state(path)
        where = data_words(path, state, plan.needs(data.name), playing)
        positions = int(state.get("positions", 0))
        recorded += min(positions, data.positions)
        lines.append(f"data   {data.name:28} {positions:>12,} / {data.positions:,}  {where}")
        if where == "being written":
            progress = last_progress(plan.folder / f"datagen-{data.seed}.log")
            rate = rate_of(progress)
            lines.append(f"       {progress}")
    if len(plan.data) > 1:
        lines.append(data_to_go(recorded, sum(data.positions for data in plan.data), rate))
    for stage in plan.stages:
        for candidate in stage.candidates:
            network, trained = plan.network(candidate), plan.trained(candidate)
            state_file = trained.with_name(trained.name + ".train.npz")
            where = (f"written: {network}" if network.exists() else "part trained" if state_file.exists()
                     else "not started")
            lines.append(f"train  {candidate:28} {where}")
            log = plan.folder / f"{candidate}.log"
            if not network.exists() and log.exists():
                lines.append(f"       {last_progress(log, 'epoch ')}")
        verdicts: List[Optional[Verdict]] = []
        for candidate in stage.challengers():
            row = logged_row(plan, stage, candidate)
            saved = (plan.folder / f"match-{candidate}.folder").exists()
            where = match_words(candidate, row, playing, saved, held)
            lines.append(f"match  {candidate:28} {where}")
            found = verdict(stage, candidate, row) if row else None
            verdicts.append(found)
            if found is not None:
                lines.append(f"       {found.words()}")
            if not row and (candidate == playing or saved):
                lines.append(f"       {match_progress(plan.folder / f'match-{candidate}.log')}")
        winner = shipping_line(stage, verdicts)
        if winner:
            lines.append(winner)
    return "\n".join(lines)


def counts_before(path: Path, kept_games: List[int]) -> Dict[int, Tuple[int, int]]:
    """(positions, openings discarded) before each of ``kept_games`` kept games
    of the file, for those it holds (a file being written is read as far as its
    last whole game; the reading stops at the last one asked for)."""
    wanted, found = set(kept_games), {}
    kept = positions = discarded = 0
    for game in games.iter_games(str(path), partial_end=True):
        if len(found) == len(wanted):
            break
        if game.result is None:
            discarded += 1
            continue
        kept += 1
        positions += game.scored_plies()
        if kept in wanted:
            found[kept] = (positions, discarded)
    return found


def check_file(plan: Plan, data: DataFile) -> Tuple[List[str], bool]:
    """Lines saying how the file compares with its record, and whether it agrees."""
    path = plan.data_path(data.name)
    if not path.exists():
        return [f"{data.name}: not started"], True
    found = counts_before(path, [point.games for point in data.checkpoints])
    lines, agrees = [], True
    for point in data.checkpoints:
        head = f"{data.name}: its first {point.games:,} kept games"
        if point.games not in found:
            lines.append(f"{head}: not grown yet")
            continue
        positions, discarded = found[point.games]
        same = positions == point.positions and point.discarded in (None, discarded)
        agrees = agrees and same
        recorded = f"{point.positions:,}" + (f" ({point.discarded:,})" if point.discarded is not None else "")
        grown = f"{positions:,} positions ({discarded:,} openings discarded before them)"
        lines.append(f"{head}: {grown}; the record: {recorded}: {'agrees' if same else 'DIFFERS'}")
    if data.sha256 and not is_complete(path):
        lines.append(f"{data.name}: its sha256 is compared once it is complete")
    elif data.sha256:
        digest = str(provenance(str(path))["sha256"])
        agrees = agrees and digest == data.sha256
        lines.append(f"{data.name}: sha256 {digest[:12]}...; the record: {data.sha256[:12]}...: "
                     f"{'agrees' if digest == data.sha256 else 'DIFFERS'}")
    elif not data.checkpoints:
        lines.append(f"{data.name}: no record to compare with")
    return lines, agrees


def check(plan: Plan) -> Tuple[str, bool]:
    """Every file of the plan against its record: (the report, all agree)."""
    report, agrees = [], True
    for data in plan.data:
        lines, same = check_file(plan, data)
        report += lines
        agrees = agrees and same
    return "\n".join(report), agrees


def print_quietly(text: str) -> int:
    """Print ``text``; a reader that went away early (``status | head -3``) ends
    the command quietly (exit 1), as with any Unix tool."""
    try:
        print(text, flush=True)
        return 0
    except BrokenPipeError:
        return reader_gone()


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("status", "run", "check", "hold"))
    parser.add_argument("--plan", type=Path, default=DEFAULT_PLAN)
    parser.add_argument("--fastchess", default=os.environ.get("FASTCHESS") or shutil.which("fastchess"))
    args = parser.parse_args(argv)
    try:
        plan = load_plan(args.plan)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"{args.plan}: {error!r}", file=sys.stderr)
        return 2
    if args.command == "status":
        return print_quietly(status(plan))
    if args.command == "check":
        report, agrees = check(plan)
        return print_quietly(report) or (0 if agrees else 1)
    if args.command == "hold":
        return print_quietly(hold(plan))
    interrupt_on_stop_signals()
    try:
        return run(plan, args.fastchess)
    except RuntimeError as error:
        print(f"campaign: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("campaign: stopped; the same command goes on from here", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
