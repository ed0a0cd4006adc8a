"""The manifest of a data folder: what every self-play file holds and how it was made.

``manifest.json`` sits beside the data files (``~/.cache/fianchetto/data/`` by
default) and has one entry per file, keyed by the file's name: the settings that
name its games (seed, node budget, random plies, share of Chess960 starts, the
network's SHA-256, the search's bench fingerprint), what it holds (games,
discarded games, positions, results) and whether the run that writes it
finished. ``fianchetto datagen`` updates it as it goes (written whole to a
temporary file, then renamed over the old one, so an interruption never leaves
it half written) and refuses to resume a file with other settings than the ones
it was started with. ``fianchetto datagen --list``
prints it as a table.
"""
from __future__ import annotations

import json
import os
import time
from typing import Any, Callable, Dict, Optional

NAME = "manifest.json"
FORMAT = 1
#: Settings that must agree for a run to resume a file: they name its games (the
#: hash size too: at a fixed node budget the table's size changes what a search
#: finds; the adjudication rules, which end games; the thread count does not,
#: each game being searched by one thread).
IDENTITY = ("format", "seed", "nodes", "random_plies", "dfrc", "network", "max_opening_score", "search",
            "hash", "tablebases", "adjudication")
#: Identity keys that entries written before the key existed lack: such a file
#: still resumes (and the entry gains the key).
ADDED_LATER = ("search", "hash", "adjudication")


def path_for(data_file: str) -> str:
    return os.path.join(os.path.dirname(os.path.abspath(data_file)), NAME)


def load(folder_manifest: str) -> Dict[str, Any]:
    """The manifest (an empty one when there is none); ValueError when unreadable."""
    if not os.path.exists(folder_manifest):
        return {"format": FORMAT, "files": {}}
    try:
        with open(folder_manifest, encoding="utf-8") as handle:
            manifest = json.load(handle)
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{folder_manifest}: unreadable manifest ({exc})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise ValueError(f"{folder_manifest}: not a data manifest")
    return manifest


def save(folder_manifest: str, manifest: Dict[str, Any]) -> None:
    temporary = folder_manifest + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=1, sort_keys=True)
        handle.write("\n")
    os.replace(temporary, folder_manifest)


def entry(data_file: str) -> Optional[Dict[str, Any]]:
    return load(path_for(data_file))["files"].get(os.path.basename(data_file))


def mismatch(old: Dict[str, Any], new: Dict[str, Any]) -> Optional[str]:
    """Why a file made with settings `old` cannot go on with settings `new`, or None."""
    for key in IDENTITY:
        if key in ADDED_LATER and key not in old:
            continue
        if old.get(key) != new.get(key):
            return f"{key} was {old.get(key)!r}, now {new.get(key)!r}"
    return None


def record(data_file: str, fields: Dict[str, Any]) -> None:
    """Create or update the entry of `data_file` with `fields` (and the time)."""
    where = path_for(data_file)
    manifest = load(where)
    current = manifest["files"].setdefault(os.path.basename(data_file), {})
    if "created" not in current:
        current["created"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    current.update(fields)
    current["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    save(where, manifest)


def state_of(entry: Dict[str, Any], path: str, writing: Callable[[str], bool]) -> str:
    if entry.get("complete"):
        return "complete"
    return "writing" if writing(path) else "partial"


def table(folder_manifest: str, writing: Callable[[str], bool] = lambda path: False) -> str:
    """The manifest as lines of text: one per file, and the totals. A file not
    complete is ``writing`` when `writing(path)` says a run writes it now, else
    ``partial`` (stopped; ``--resume`` goes on)."""
    files = load(folder_manifest)["files"]
    folder = os.path.dirname(folder_manifest)
    lines = [f"{'file':28} {'seed':>6} {'nodes':>6} {'dfrc':>5} {'games':>8} {'positions':>11}  "
             f"{'network':14} state"]
    total_games = total_positions = 0
    for name in sorted(files):
        f = files[name]
        total_games += int(f.get("games", 0))
        total_positions += int(f.get("positions", 0))
        lines.append(f"{name:28} {f.get('seed', '?'):>6} {f.get('nodes', '?'):>6} {f.get('dfrc', 0):>5} "
                     f"{f.get('games', 0):>8} {f.get('positions', 0):>11}  {str(f.get('network', '?'))[:14]:14} "
                     f"{state_of(f, os.path.join(folder, name), writing)}")
    lines.append(f"{'total':28} {'':>6} {'':>6} {'':>5} {total_games:>8} {total_positions:>11}")
    return "\n".join(lines)
