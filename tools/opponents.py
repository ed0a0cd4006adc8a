#!/usr/bin/env python3
"""Build the opponents that strength claims name, as the rating lists build them.

    python3 tools/opponents.py build ethereal12 [--source URL_OR_DIR]
    python3 tools/opponents.py path ethereal13

Debian's ``ethereal-chess`` is compiled for generic x86-64 without POPCNT, about
1.5x slower than Ethereal built from its source with ``make pext``. ``build``
clones Ethereal's public repository (or ``--source``, a URL or a local clone)
into ``~/.cache/fianchetto/opponents/<name>-src``, checks out the release's
tag, runs ``make pext`` in its ``src`` folder, copies the binary to
``~/.cache/fianchetto/opponents/<name>`` and checks that its ``bench`` searches
the release's node count (the same program, whatever the machine). Nothing is
written inside the project. ``path`` prints the binary's path (exit 1 when it
is not built); ``tools/gauntlet.py --opponent ethereal12`` uses it.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

CACHE = Path(os.environ.get("FIANCHETTO_CACHE", Path.home() / ".cache" / "fianchetto")) / "opponents"
ETHEREAL_REPOSITORY = "https://github.com/AndyGrant/Ethereal"


class Release(NamedTuple):
    """One opponent build: where its source is, which tag, how to make it, its bench."""

    repository: str
    tag: str
    make: List[str]
    binary: str                 # the file make leaves in src/
    bench_nodes: int            # what `<binary> bench` counts
    options: Dict[str, str]     # settings a 10+0.1 match needs beyond the fair ones


RELEASES: Dict[str, Release] = {
    # Ethereal 12's classical evaluation; MoveOverhead defaults to 100 ms.
    "ethereal12": Release(ETHEREAL_REPOSITORY, "V12.00", ["make", "pext"], "Ethereal", 5_132_900,
                          {"MoveOverhead": "50"}),
    # Ethereal 13, classical build; MoveOverhead defaults to 300 ms, a twentieth
    # of each move's time at 10+0.1.
    "ethereal13": Release(ETHEREAL_REPOSITORY, "v13.00", ["make", "pext"], "Ethereal", 3_721_244,
                          {"MoveOverhead": "50"}),
}

NODES = re.compile(r"(?:Nodes\s*:\s*|OVERALL:\s+)(\d+)(?: nodes)?")


def binary_path(name: str) -> Path:
    return CACHE / name


def bench_nodes(binary: Path, timeout: float = 600) -> Optional[int]:
    """The node count `binary bench` prints last, or None."""
    done = subprocess.run([str(binary), "bench"], capture_output=True, text=True, timeout=timeout)
    found = NODES.findall(done.stdout + done.stderr)
    return int(found[-1]) if found else None


def checkout(release: Release, source: str, folder: Path) -> None:
    """`folder` holds the release's tag of `source`'s repository."""
    if not (folder / ".git").exists():
        subprocess.run(["git", "clone", "--quiet", source, str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "fetch", "--quiet", "--tags"], check=False)
    subprocess.run(["git", "-C", str(folder), "checkout", "--quiet", "--force", release.tag], check=True)


def build(name: str, source: Optional[str] = None) -> Path:
    """Build `name` (a key of RELEASES) and check its bench; the binary's path."""
    release = RELEASES[name]
    folder = CACHE / f"{name}-src"
    CACHE.mkdir(parents=True, exist_ok=True)
    checkout(release, source or release.repository, folder)
    made = subprocess.run(release.make, cwd=folder / "src", capture_output=True, text=True)
    if made.returncode != 0:
        raise RuntimeError(f"{' '.join(release.make)} failed:\n{made.stderr[-2000:]}")
    target = binary_path(name)
    shutil.copy2(folder / "src" / release.binary, target)
    nodes = bench_nodes(target)
    if nodes != release.bench_nodes:
        raise RuntimeError(f"{name}: bench counted {nodes} nodes, the release counts {release.bench_nodes}")
    return target


def resolve(spec: str) -> Optional[str]:
    """The command of a built opponent named `spec` (a key of RELEASES), else None."""
    if spec in RELEASES and binary_path(spec).is_file():
        return str(binary_path(spec))
    return None


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    building = commands.add_parser("build", help="clone, make and check an opponent")
    building.add_argument("name", choices=sorted(RELEASES))
    building.add_argument("--source", help="the repository to clone (a URL or a local clone)")
    where = commands.add_parser("path", help="print a built opponent's path")
    where.add_argument("name", choices=sorted(RELEASES))
    args = parser.parse_args(argv)
    if args.command == "path":
        found = resolve(args.name)
        print(found or f"{args.name} is not built: python3 tools/opponents.py build {args.name}",
              file=sys.stdout if found else sys.stderr)
        return 0 if found else 1
    try:
        print(build(args.name, args.source))
    except (subprocess.CalledProcessError, RuntimeError, OSError) as error:
        print(f"{args.name}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
