#!/usr/bin/env python3
"""Run the default test suite several times and table every failure.

    python3 tools/flaky.py --runs 10 [--load 5] [--log runs.jsonl] [-- PYTEST ARGS]

Each run is ``python -m pytest -q -p no:cacheprovider`` (plus the given pytest
arguments) in a process of its own, with JUnit XML output, so that every failing
test is named with its message. ``--load N`` runs the first N runs with both
cores loaded by another process (a loop of ``fianchetto bench`` at normal
priority, one per core), the way a shared machine loads them;
``--external-load`` labels runs made while other work already loads the cores. Every run's
outcome is appended to ``--log`` (JSON lines), so runs made on different days
add up; the table at the end counts, per test, how many runs failed it, idle
and loaded, and quotes the first line of its first failure.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent


def failures_of(junit: Path) -> Dict[str, str]:
    """test id -> first line of its failure or error, from a JUnit XML report."""
    found: Dict[str, str] = {}
    if not junit.exists():
        return found
    for case in ET.parse(junit).getroot().iter("testcase"):
        for kind in ("failure", "error"):
            node = case.find(kind)
            if node is not None:
                name = f"{case.get('classname', '')}::{case.get('name', '')}"
                message = (node.get("message") or node.text or kind).strip().splitlines()
                found[name] = message[0][:200] if message else kind
    return found


class Load:
    """Both cores busy with `fianchetto bench` loops while the context is open."""

    def __init__(self, workers: int = 2) -> None:
        self.workers = workers
        self.procs: List[subprocess.Popen] = []

    def __enter__(self) -> "Load":
        loop = f"while true; do {sys.executable} -m fianchetto bench 13 >/dev/null 2>&1; done"
        self.procs = [subprocess.Popen(["bash", "-c", loop], start_new_session=True) for _ in range(self.workers)]
        return self

    def __exit__(self, *exc) -> None:
        for proc in self.procs:
            os.killpg(proc.pid, 9)
            proc.wait()


def one_run(pytest_args: List[str], loaded: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
                   *pytest_args]
        started = time.monotonic()
        if loaded:
            with Load():
                done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        else:
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        return {"when": time.strftime("%Y-%m-%dT%H:%M:%S"), "loaded": loaded, "exit": done.returncode,
                "seconds": round(time.monotonic() - started, 1), "summary": summary,
                "failures": failures_of(junit)}


def table(runs: List[dict]) -> str:
    counts: Dict[str, List[int]] = defaultdict(lambda: [0, 0])
    first: Dict[str, str] = {}
    for run in runs:
        for name, message in run["failures"].items():
            counts[name][1 if run["loaded"] else 0] += 1
            first.setdefault(name, message)
    idle = sum(not r["loaded"] for r in runs)
    lines = [f"{len(runs)} run{'' if len(runs) == 1 else 's'} ({idle} idle, {len(runs) - idle} loaded); "
             f"{sum(1 for r in runs if r['exit'] != 0)} with a failure"]
    if not counts:
        lines.append("no test failed")
    for name in sorted(counts, key=lambda n: -sum(counts[n])):
        lines.append(f"{name}: failed {counts[name][0]}/{idle} idle, {counts[name][1]}/{len(runs) - idle} loaded"
                     f" -- {first[name]}")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ours, pytest_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--load", type=int, default=0, help="how many of the runs with both cores loaded")
    parser.add_argument("--external-load", action="store_true",
                        help="count every run as loaded: the cores are busy with other work already")
    parser.add_argument("--log", default=None, help="append every run to this JSON-lines file")
    parser.add_argument("--table-only", action="store_true", help="print the table of --log and stop")
    args = parser.parse_args(ours)
    previous: List[dict] = []
    if args.log and os.path.exists(args.log):
        previous = [json.loads(line) for line in open(args.log, encoding="utf-8") if line.strip()]
    if args.table_only:
        print(table(previous))
        return 0
    runs = []
    for i in range(args.runs):
        run = one_run(pytest_args, loaded=i < args.load)
        run["loaded"] = run["loaded"] or args.external_load
        runs.append(run)
        print(f"run {i + 1}/{args.runs} ({'loaded' if run['loaded'] else 'idle'}): {run['summary']} "
              f"in {run['seconds']} s", flush=True)
        if args.log:
            with open(args.log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(run) + "\n")
    print(table(previous + runs))
    return 0 if all(r["exit"] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
