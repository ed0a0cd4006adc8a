"""``fianchetto bench`` nodes/second against a saved reference, with its noise.

    python bench/nps_vs_reference.py                 # 5 runs, compare with bench/reference_nps.json
    python bench/nps_vs_reference.py --runs 9 --stockfish /usr/games/stockfish
    python bench/nps_vs_reference.py --save          # (re)write the reference from this machine

Each run is the real command line, ``fianchetto bench <depth>``; its last lines
give the node count (the search's signature) and nodes/second. With
``--stockfish`` the script alternates ``stockfish bench`` runs with ours, so that
a slower or busier machine moves both figures alike: the ratio of the two is
then compared with the reference's ratio as well.

Noise: for each series the half-range of the runs around their median, as a
fraction of the median. The change is called a regression only when it is
slower than the reference by more than the two series' noise added together
plus ``--margin`` (2% by default). Exit status: 0 no regression, 1 regression,
2 the node count differs from the reference's (the search changed: re-save
after checking that the change is intended), 3 the bench did not run.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import List, Optional, Sequence

from fianchetto.cli import engine_command

DEFAULT_REFERENCE = Path(__file__).resolve().parent / "reference_nps.json"


@dataclass
class Series:
    """The runs of one command."""

    nps: List[int]
    nodes: int

    @property
    def median(self) -> float:
        return statistics.median(self.nps)

    @property
    def noise(self) -> float:
        """Half the range of the runs, relative to the median."""
        if len(self.nps) < 2 or not self.median:
            return 0.0
        return (max(self.nps) - min(self.nps)) / 2 / self.median


@dataclass
class Verdict:
    change: float          # relative change of the median, negative = slower
    noise: float           # the two series' noise added
    regression: bool

    def describe(self, what: str) -> str:
        word = "REGRESSION" if self.regression else "within noise" if abs(self.change) <= self.noise else \
            ("faster" if self.change > 0 else "slower, but within the margin")
        return f"{what}: {100 * self.change:+.1f}% (noise +-{100 * self.noise:.1f}%): {word}"


def compare(reference: Series, current: Series, margin: float) -> Verdict:
    change = current.median / reference.median - 1.0
    noise = reference.noise + current.noise
    return Verdict(change, noise, change < -(noise + margin))


def parse_bench(output: str) -> tuple:
    """(nodes, nodes/second) from the last lines of a ``bench`` run (ours or Stockfish's)."""
    nodes = nps = None
    for line in output.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "Nodes searched":
            nodes = int(value.split()[0])
        elif key.strip() == "Nodes/second":
            nps = int(value.split()[0])
    if nodes is None or nps is None:
        raise ValueError("no 'Nodes searched' / 'Nodes/second' lines in the bench output")
    return nodes, nps


def run_once(command: Sequence[str]) -> tuple:
    done = subprocess.run(list(command), capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {done.returncode}: {done.stderr[-500:]}")
    return parse_bench(done.stdout + "\n" + done.stderr)


def measure(commands: Sequence[Sequence[str]], runs: int) -> List[Series]:
    """``runs`` runs of each command, taking turns run by run."""
    results: List[List[tuple]] = [[] for _ in commands]
    for _ in range(runs):
        for index, command in enumerate(commands):
            results[index].append(run_once(command))
    series = []
    for runs_of_one in results:
        counts = {nodes for nodes, _ in runs_of_one}
        if len(counts) != 1:
            raise RuntimeError(f"the node count changed between runs: {sorted(counts)}")
        series.append(Series([nps for _, nps in runs_of_one], counts.pop()))
    return series


def load_average() -> str:
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def fianchetto_command(depth: int) -> List[str]:
    return engine_command() + ["bench", str(depth)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--depth", type=int, help="bench depth (default: the reference's, else the engine's)")
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--stockfish", help="also run this engine's bench, alternating, and compare ratios")
    parser.add_argument("--margin", type=float, default=0.02, help="slowdown tolerated beyond the noise")
    parser.add_argument("--save", action="store_true", help="write the reference instead of comparing")
    args = parser.parse_args(argv)

    reference = None
    if not args.save:
        if not args.reference.exists():
            print(f"no reference at {args.reference}: run with --save first")
            return 3
        reference = json.loads(args.reference.read_text())
    depth = args.depth or (reference or {}).get("depth") or 13
    commands = [fianchetto_command(depth)]
    if args.stockfish:
        commands.append([args.stockfish, "bench"])
    print(f"load average before: {load_average()}")
    try:
        series = measure(commands, max(1, args.runs))
    except (RuntimeError, ValueError, OSError, subprocess.TimeoutExpired) as error:
        print(f"bench failed: {error}")
        return 3
    print(f"load average after: {load_average()}")
    ours = series[0]
    theirs = series[1] if len(series) > 1 else None
    print(f"fianchetto bench {depth}: nodes {ours.nodes}, nodes/second median {ours.median:.0f} "
          f"(runs {ours.nps}, noise +-{100 * ours.noise:.1f}%)")
    if theirs is not None:
        print(f"stockfish bench: nodes/second median {theirs.median:.0f} (runs {theirs.nps}), "
              f"ratio {ours.median / theirs.median:.3f}")

    if args.save:
        record = {"depth": depth, "machine": platform.platform(), "python": platform.python_version(),
                  "load_average": load_average(), "fianchetto": asdict(ours)}
        if theirs is not None:
            record["stockfish"] = asdict(theirs)
        args.reference.write_text(json.dumps(record, indent=1) + "\n")
        print(f"saved {args.reference}")
        return 0

    saved = Series(**reference["fianchetto"])
    if saved.nodes != ours.nodes:
        print(f"node count {ours.nodes} differs from the reference's {saved.nodes}: the search changed")
        return 2
    verdict = compare(saved, ours, args.margin)
    print(verdict.describe("nodes/second against the reference"))
    regression = verdict.regression
    if theirs is not None and "stockfish" in reference:
        saved_theirs = Series(**reference["stockfish"])
        ratio_now = Series([round(1e6 * o / t) for o, t in zip(ours.nps, theirs.nps)], ours.nodes)
        ratio_then = Series([round(1e6 * o / t) for o, t in zip(saved.nps, saved_theirs.nps)], saved.nodes)
        ratio_verdict = compare(ratio_then, ratio_now, args.margin)
        print(ratio_verdict.describe("ratio to stockfish against the reference's"))
        regression = ratio_verdict.regression  # the machine-independent figure decides
    return 1 if regression else 0


if __name__ == "__main__":
    sys.exit(main())
