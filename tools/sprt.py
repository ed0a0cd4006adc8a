#!/usr/bin/env python3
"""Play two builds of Fianchetto against each other under fastchess, with an SPRT.

    python3 tools/sprt.py BASE TEST [--tc 8+0.08] [--elo0 0 --elo1 5] [--rounds 5000]
                          [--base-option NAME=VALUE ...] [--test-option NAME=VALUE ...]
                          [--log docs/sprt.md --title "what changed"]

BASE and TEST are git refs. Each is exported (``git archive``) and installed into
a virtual environment of its own under ``~/.cache/fianchetto/builds/<engine key>``
(built once, reused after; commits that differ only in documents, tests and
tools share one key, see ``engine_key``); the two engines then play colour-reversed pairs
from balanced openings, one thread and 16 MB of hash each, until the SPRT
accepts one hypothesis or the rounds run out. fastchess prints the running
Elo, LLR and pentanomial counts as it goes. With ``--log`` the result is
appended to the test log as one table row.

The same ref twice with different ``--base-option`` / ``--test-option`` values
compares two configurations of one build (e.g. ``Use NNUE=false``).
An option given there replaces the default of one thread and 16 MB for that
engine (``--test-option Threads=2``; then pass ``--concurrency 1`` on two cores).

Each test runs in a folder of its own, ``~/.cache/fianchetto/matches/<base>-<test>-<pid>``,
which holds the games (``games.pgn``), fastchess's state (``config.json``, saved
every two games) and what the log row needs (``run.json``). A test cut short, by
Ctrl-C or the end of a working session, goes on from where it stopped with

    python3 tools/sprt.py --resume ~/.cache/fianchetto/matches/<folder>

and its row is logged when it ends, as if it had never stopped. SIGTERM stops
the tool as Ctrl-C does: it ends fastchess (which ends its engines and keeps its
state) before it exits with status 130, so no games go on behind it. ``--rounds N``
given with ``--resume`` raises (or lowers) the cap of game pairs.

A test whose folder is gone (a new machine) goes on from the counts its row
logged, once TEST is built again and its bench equals the row's:

    python3 tools/sprt.py BASE TEST --carry W-D-L/LL,LD,DD+WL,WD,WW ...

fastchess plays one game pair to write its state, the carried counts are added
to it, and the test goes on from their sum (the cap of rounds counts the carried
games too); the seed shuffles the openings as before, and the pairs go on with
the openings after the carried pairs'.

fastchess is found through ``--fastchess``, ``$FASTCHESS`` or ``PATH``; build it
beside the project (see ``../shared/README.md``), never inside it.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("FIANCHETTO_CACHE", Path.home() / ".cache" / "fianchetto"))
DEFAULT_OPENINGS = ROOT.parent / "shared" / "data" / "openings.epd"
DEFAULT_ROUNDS = 5000
STOP_SECONDS = 10        # a stopped fastchess's time to end before it is killed


def commit_of(ref: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{ref}^{{commit}}"],
                          check=True, capture_output=True, text=True).stdout.strip()


#: Top-level entries of the tree that do not change how the engine plays.
NOT_ENGINE = frozenset({".ci", ".github", ".gitignore", "CHANGELOG.md", "CONTRIBUTING.md", "README.md",
                        "bench", "candidates", "docs", "tests", "tools"})


def engine_key(commit: str) -> str:
    """The name of `commit`'s build: a hash of its top-level tree entries other
    than NOT_ENGINE, so that commits with the same engine share one build."""
    listing = subprocess.run(["git", "-C", str(ROOT), "ls-tree", commit],
                             check=True, capture_output=True, text=True).stdout
    kept = [line for line in listing.splitlines() if line.split("\t", 1)[1] not in NOT_ENGINE]
    return hashlib.sha1("\n".join(kept).encode()).hexdigest()[:12]


def build(commit: str, flavour: Optional[Dict[str, str]] = None, prefix: str = "") -> Path:
    """The fianchetto executable of `commit`, installed into its own venv (cached).
    `flavour` adds build variables (``{"FIANCHETTO_TUNE": "1"}``); `prefix` keeps such
    a build apart from the default one (``tune-``)."""
    home = CACHE / "builds" / f"{prefix}{engine_key(commit)}"
    exe = home / "venv" / "bin" / "fianchetto"
    if exe.exists():
        return exe
    if home.exists():
        shutil.rmtree(home)
    src = home / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "venv", str(home / "venv")], check=True)
    print(f"building {commit[:12]} into {home}", flush=True)
    subprocess.run([str(home / "venv" / "bin" / "pip"), "install", "-q", str(src)], check=True,
                   env=dict(os.environ, **(flavour or {})))
    return exe


#: What each engine is given unless its own options name it: the usual test settings.
DEFAULT_OPTIONS = {"Hash": "16", "Threads": "1"}


def engine_args(name: str, exe: Path, options: List[str]) -> List[str]:
    """fastchess's ``-engine`` arguments: the default options, each replaced where
    ``options`` (``NAME=VALUE`` strings) names it, then the rest in the given order."""
    settings = dict(DEFAULT_OPTIONS)
    for option in options:
        key, _, value = option.partition("=")
        settings[key] = value
    return ["-engine", f"cmd={exe}", f"name={name}", *(f"option.{key}={value}" for key, value in settings.items())]


#: Adjudication: a draw after move 40 once both scores stay within 8 cp for 8 moves,
#: a resignation once both agree on 1000 cp for 4 moves.
ADJUDICATION = ["-draw", "movenumber=40", "movecount=8", "score=8",
                "-resign", "movecount=4", "score=1000", "twosided=true"]


#: The engines' names in fastchess's command, and the key of its counts of their match.
TEST_NAME, BASE_NAME = "test", "base"
#: fastchess saves its state (the counts of the game pairs played) after about
#: this many games, not its default 20: a test killed with its session replays
#: only the pairs since, and its PGN holds few games its counts do not.
STATE_SAVE_GAMES = 2
TEST_VS_BASE = f"{TEST_NAME} vs {BASE_NAME}"


def fastchess_command(fastchess: str, base: Path, test: Path, args: argparse.Namespace, pgn: Path,
                      first_opening: int = 1) -> List[str]:
    """fastchess's command for the test; its first game pair plays the shuffled
    suite's `first_opening`-th opening (counted from 1)."""
    return [
        fastchess,
        *engine_args(TEST_NAME, test, args.test_option),
        *engine_args(BASE_NAME, base, args.base_option),
        "-each", f"tc={args.tc}",
        "-openings", f"file={args.openings}", "format=epd", "order=random",
        *([f"start={first_opening}"] if first_opening > 1 else []), "-srand", str(args.seed),
        "-repeat", "-rounds", str(args.rounds), "-concurrency", str(args.concurrency),
        *([] if args.no_sprt else ["-sprt", f"elo0={args.elo0}", f"elo1={args.elo1}", "alpha=0.05", "beta=0.05"]),
        *ADJUDICATION,
        "-ratinginterval", "20", "-autosaveinterval", str(STATE_SAVE_GAMES), "-pgnout", f"file={pgn}",
    ]


SUMMARY = {
    "elo": re.compile(r"(?<![nN])Elo:\s*(-?[\d.]+|inf|-inf)\s*\+/-\s*([\d.]+|nan|inf)"),
    "llr": re.compile(r"LLR:\s*(-?[\d.]+)"),
    "games": re.compile(r"Games:\s*(\d+),\s*Wins:\s*(\d+),\s*Losses:\s*(\d+),\s*Draws:\s*(\d+)"),
    "ptnml": re.compile(r"Ptnml\(0-2\):\s*\[?([\d,\s]+)\]?"),
}


def parse_summary(text: str) -> Dict[str, str]:
    """The last Elo, LLR, W/L/D and pentanomial figures fastchess printed."""
    found: Dict[str, str] = {}
    for key, pattern in SUMMARY.items():
        matches = pattern.findall(text)
        if matches:
            last = matches[-1]
            found[key] = " ".join(last) if isinstance(last, tuple) else last
    return found


class Outcome(NamedTuple):
    """A match's figures from the first engine's side, as the logs print them."""
    games: int
    wins: int
    draws: int
    losses: int
    score: float        # share of the points, 0 to 1
    elo: str            # "Elo ± interval", or "?"


def outcome_of(summary: Dict[str, str]) -> Optional[Outcome]:
    """The outcome in fastchess's summary (see parse_summary); None if no game ended."""
    if "games" not in summary:
        return None
    total, wins, losses, draws = (int(x) for x in summary["games"].split())
    elo = " ± ".join(summary["elo"].split()) if "elo" in summary else "?"
    return outcome_from(total, wins, draws, losses, elo)


def outcome_from(games: int, wins: int, draws: int, losses: int, elo: str = "?") -> Outcome:
    return Outcome(games, wins, draws, losses, (wins + draws / 2) / games if games else 0.0, elo)


def verdict(llr: Optional[float], bound: float = 2.944, fixed: bool = False) -> str:
    if fixed:
        return "fixed games"
    if llr is None:
        return "no result"
    if llr >= bound:
        return "H1 accepted (pass)"
    if llr <= -bound:
        return "H0 accepted (fail)"
    return "inconclusive"


def outcome_of_counts(counts: Optional[Dict[str, int]]) -> Optional[Outcome]:
    """The outcome of fastchess's saved counts (no Elo: the summary gives that);
    None if no game ended."""
    if not counts:
        return None
    wins, draws, losses = (counts.get(key, 0) for key in ("wins", "draws", "losses"))
    games = wins + draws + losses
    return outcome_from(games, wins, draws, losses) if games else None


#: The outcome of a test that ended before any game did.
NO_GAMES = Outcome(0, 0, 0, 0, 0.0, "?")


def log_row(args: argparse.Namespace, base: str, test: str, summary: Dict[str, str],
            saved: Optional[Dict[str, int]] = None) -> str:
    """The test's row; the change's cell ends with the pentanomial counts and, when
    fastchess saved its state, the ``--carry`` text that goes on from it. A test
    stopped before fastchess reported takes its W-D-L from that state."""
    outcome = outcome_of(summary) or outcome_of_counts(saved) or NO_GAMES
    llr = float(summary["llr"]) if "llr" in summary else None
    options = "; ".join([f"base {o}" for o in args.base_option] + [f"test {o}" for o in args.test_option])
    change = args.title
    if "ptnml" in summary:
        change += f" (pentanomial {', '.join(summary['ptnml'].replace(',', ' ').split())})"
    if saved:
        change += f" (saved state: `--carry {carry_text(saved)}`)"
    return (f"| {date.today()} | {change} | `{base[:8]}` | `{test[:8]}` | {args.tc} | "
            f"[{args.elo0}, {args.elo1}] | {outcome.games} | {outcome.wins}-{outcome.draws}-{outcome.losses} | "
            f"{outcome.elo} | {summary.get('llr', '?')} | {verdict(llr, fixed=args.no_sprt)} | {options} |")


RUN_FILE = "run.json"
#: fastchess's own state, saved every STATE_SAVE_GAMES games where it runs.
STATE_FILE = "config.json"
#: What a resumed test needs to write its row as the original run would have.
RUN_FIELDS = ("title", "tc", "elo0", "elo1", "no_sprt", "base_option", "test_option", "log")


def save_run(folder: Path, args: argparse.Namespace, base: str, test: str) -> None:
    record = {field: getattr(args, field) for field in RUN_FIELDS}
    record["log"] = str(Path(args.log).resolve()) if args.log else None
    record.update(base=base, test=test)
    (folder / RUN_FILE).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def load_run(folder: Path) -> Tuple[argparse.Namespace, str, str]:
    """The saved arguments of the test in `folder`, and its base and test commits."""
    record = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
    args = argparse.Namespace(**{field: record[field] for field in RUN_FIELDS})
    return args, record["base"], record["test"]


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def stoppable(run: Callable[[], int], said: Callable[[], str]) -> int:
    """`run()`'s exit status. While it runs, SIGTERM, and SIGINT even where the
    shell started the tool ignoring it (nohup, ``&``), raise KeyboardInterrupt as
    Ctrl-C does; stopped so (its fastchess ended on the way out), `said()` goes to
    stderr and the status is 130, an interrupted command's. The handlers found
    are put back at the end."""
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    found = {signum: signal.signal(signum, interrupt) for signum in STOP_SIGNALS}
    try:
        return run()
    except KeyboardInterrupt:
        print(said(), file=sys.stderr)
        return 130
    finally:
        for signum, handler in found.items():
            signal.signal(signum, handler)


def end_fastchess(proc: subprocess.Popen) -> None:
    """Ask a fastchess to end (on SIGTERM it ends its engines and keeps its saved
    state) and kill it if it has not within STOP_SECONDS."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def fastchess_child(command: List[str], folder: Path, **popen: Any) -> Iterator[subprocess.Popen]:
    """fastchess (`command`) running in `folder`, waited for at the end of the
    block. An exception in the block (a SIGTERM or Ctrl-C turned into
    KeyboardInterrupt by ``stoppable``) ends it first: no match plays on behind
    a tool that has stopped."""
    proc = subprocess.Popen(command, cwd=folder, **popen)
    try:
        yield proc
        proc.wait()
    finally:
        end_fastchess(proc)
        if proc.stdout is not None:
            proc.stdout.close()


def play(command: List[str], folder: Path) -> Dict[str, str]:
    """Run fastchess in `folder`, echoing its output; the figures it printed last."""
    print(" ".join(command), flush=True)
    output: List[str] = []
    with fastchess_child(command, folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            print(line, end="", flush=True)
    return parse_summary("".join(output))


def play_to_file(command: List[str], folder: Path, out: Path) -> None:
    """Run fastchess in `folder`, its output written to `out` as the games go."""
    with out.open("w") as stream, fastchess_child(command, folder, stdout=stream, stderr=subprocess.STDOUT):
        pass


def add_rows(log: Path, rows: List[str]) -> None:
    """Add `rows` at the end of the log's results table, its first table with a
    ``date`` column (the log goes on below it with notes and other tables); with
    no such table, at the end of the file."""
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    where = len(lines)
    header = next((i for i, line in enumerate(lines) if line.startswith("| date |")), None)
    if header is not None:
        where = header + 1
        while where < len(lines) and lines[where].startswith("|"):
            where += 1
    lines[where:where] = rows
    log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def finish(args: argparse.Namespace, base: str, test: str, summary: Dict[str, str],
           folder: Optional[Path] = None) -> int:
    """Print the log row, and add it to the log's table when there is one."""
    row = log_row(args, base, test, summary, saved_counts(folder) if folder else None)
    print(row)
    if args.log:
        add_rows(Path(args.log), [row])
    return 0 if summary else 1


def read_state(folder: Path) -> dict:
    """The state fastchess saved in `folder`."""
    return json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))


def edit_state(folder: Path, edit: Callable[[dict], None]) -> None:
    """Read the state fastchess saved in `folder`, let `edit` change it, write it back."""
    config = read_state(folder)
    edit(config)
    (folder / STATE_FILE).write_text(json.dumps(config, indent=4) + "\n", encoding="utf-8")


def set_rounds(folder: Path, rounds: int) -> None:
    """Let the test saved in `folder` play up to `rounds` game pairs (fastchess's state)."""
    edit_state(folder, lambda config: config.update(rounds=rounds))


#: fastchess's counts of a game pair's outcomes, from the test build's side.
PENTANOMIAL = ("penta_LL", "penta_LD", "penta_DD", "penta_WL", "penta_WD", "penta_WW")
#: Every count fastchess keeps of the test build's games.
COUNTS = ("wins", "draws", "losses") + PENTANOMIAL


def carried_stats(text: str) -> Dict[str, int]:
    """fastchess's counts from what a row logs, ``W-D-L/LL,LD,DD+WL,WD,WW``. The
    pentanomial's middle bucket (a drawn pair or a won and a lost game) is split by
    the wins: WL = wins - 2 WW - WD."""
    wdl, _, ptnml = text.partition("/")
    wins, draws, losses = (int(x) for x in wdl.split("-"))
    ll, ld, middle, wd, ww = (int(x) for x in ptnml.split(","))
    wl = wins - 2 * ww - wd
    dd = middle - wl
    if min(ll, ld, wd, ww, wl, dd) < 0 or draws != wd + 2 * dd + ld or losses != wl + ld + 2 * ll:
        raise ValueError(f"W-D-L and pentanomial counts disagree: {text}")
    return dict(zip(COUNTS, (wins, draws, losses, ll, ld, dd, wl, wd, ww)))


def saved_counts(folder: Path) -> Optional[Dict[str, int]]:
    """The test build's counts in the state fastchess saved in `folder`, if any."""
    try:
        return dict(read_state(folder)["stats"][TEST_VS_BASE])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def carry_text(counts: Dict[str, int]) -> str:
    """The ``--carry`` text of fastchess's counts: the inverse of carried_stats."""
    c = {key: counts.get(key, 0) for key in COUNTS}
    return (f"{c['wins']}-{c['draws']}-{c['losses']}/"
            f"{c['penta_LL']},{c['penta_LD']},{c['penta_DD'] + c['penta_WL']},{c['penta_WD']},{c['penta_WW']}")


def add_to_state(folder: Path, counts: Dict[str, int]) -> None:
    """Add `counts` to the test build's counts in the state fastchess saved in
    `folder`. A resumed fastchess skips one opening for each game pair its counts
    hold (after the suite's ``start``): the start goes back to the first opening,
    so that the pairs after the carried ones play the openings after theirs."""
    def add(config: dict) -> None:
        stats = config["stats"].setdefault(TEST_VS_BASE, {})
        for key, value in counts.items():
            stats[key] = stats.get(key, 0) + value
        if isinstance(config.get("opening"), dict):
            config["opening"]["start"] = 1
    edit_state(folder, add)


def pairs_of(counts: Dict[str, int]) -> int:
    """The game pairs fastchess's counts hold."""
    return sum(counts.get(key, 0) for key in PENTANOMIAL)


def resume(folder: Path, fastchess: str, rounds: Optional[int] = None) -> int:
    """Go on with the test saved in `folder` (with a new cap of `rounds` game pairs
    when given); log its row when it ends."""
    args, base, test = load_run(folder)
    if rounds is not None:
        set_rounds(folder, rounds)
    summary = play([fastchess, "-config", f"file={STATE_FILE}"], folder)
    return finish(args, base, test, summary, folder)


def main(argv: Optional[List[str]] = None) -> int:
    return stoppable(lambda: run_test(argv), lambda: "sprt: stopped; `--resume` with the test folder goes on from here")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", nargs="?", help="git ref of the base build")
    parser.add_argument("test", nargs="?", help="git ref of the build under test")
    parser.add_argument("--resume", metavar="FOLDER", help="go on with the test saved in FOLDER")
    parser.add_argument("--tc", default="8+0.08")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=None,
                        help=f"at most this many game pairs ({DEFAULT_ROUNDS}; with --resume: a new cap)")
    parser.add_argument("--no-sprt", action="store_true", help="play all the rounds, no early stop")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1, help="opening order")
    parser.add_argument("--openings", default=str(DEFAULT_OPENINGS))
    parser.add_argument("--base-option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--test-option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--fastchess", default=os.environ.get("FASTCHESS") or shutil.which("fastchess"))
    parser.add_argument("--carry", metavar="W-D-L/LL,LD,DD+WL,WD,WW",
                        help="go on from the counts an earlier run of the same two builds logged")
    parser.add_argument("--log", default=None, help="add the result row to this file's results table (docs/sprt.md)")
    parser.add_argument("--title", default="", help="what the test changes, for the log")
    return parser


def run_test(argv: Optional[List[str]] = None) -> int:
    """Play a new test, or go on with a saved one, as the command line asks."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.fastchess:
        print("fastchess not found: pass --fastchess or set FASTCHESS", file=sys.stderr)
        return 2
    if args.resume and args.carry:
        parser.error("--carry starts a new test; --resume goes on with a saved one (its counts are in it)")
    if args.resume:
        return resume(Path(args.resume), args.fastchess, args.rounds)
    if args.rounds is None:
        args.rounds = DEFAULT_ROUNDS
    if not args.base or not args.test:
        parser.error("give BASE and TEST, or --resume FOLDER")
    carried = None
    if args.carry:
        try:
            carried = carried_stats(args.carry)
        except ValueError as error:
            parser.error(f"--carry: {error}")
    base_commit, test_commit = commit_of(args.base), commit_of(args.test)
    base_exe, test_exe = build(base_commit), build(test_commit)
    # fastchess writes its state (config.json) where it runs: a folder of the test's own.
    folder = CACHE / "matches" / f"{base_commit[:8]}-{test_commit[:8]}-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    save_run(folder, args, base_commit, test_commit)
    print(f"test folder: {folder} (resume with --resume)", flush=True)
    if carried is None:
        summary = play(fastchess_command(args.fastchess, base_exe, test_exe, args, folder / "games.pgn"), folder)
        return finish(args, base_commit, test_commit, summary, folder)
    # One game pair makes fastchess write its state; the carried counts join it.
    # It plays the opening after the carried pairs' (the same seed shuffles the
    # suite the same way), and so does every pair after it.
    first = argparse.Namespace(**{**vars(args), "rounds": 1})
    play(fastchess_command(args.fastchess, base_exe, test_exe, first, folder / "games.pgn",
                           first_opening=pairs_of(carried) + 1), folder)
    add_to_state(folder, carried)
    return resume(folder, args.fastchess, args.rounds)


if __name__ == "__main__":
    raise SystemExit(main())
