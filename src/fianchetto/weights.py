"""Evaluation weights as a JSON file, for tuners: ``{"group": [[mg, eg], ...], ...}``.

    python -m fianchetto.weights dump weights.json     # write the built-in table
    python -m fianchetto.weights check weights.json    # validate a file

``load`` applies a file to the running core (a tuner's use); ``reset`` returns
to the built-in table, which is what the engine plays with.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Dict, List, Tuple

from core_cy.core import reset_weight_table, set_weight_table, weight_table

Table = Dict[str, List[Tuple[int, int]]]


def dump(path: Path) -> None:
    table = weight_table()
    path.write_text(json.dumps({k: [list(p) for p in v] for k, v in table.items()}, indent=1) + "\n")


def load(path: Path) -> None:
    """Apply the weights in `path`; ValueError (nothing changed) if the file is not valid."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read weights from {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError("a weights file holds a JSON object of groups")
    try:
        set_weight_table(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"invalid weights in {path}: {exc}") from exc


def reset() -> None:
    reset_weight_table()


def main(argv: List[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("dump", "check"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if argv[0] == "dump":
        dump(Path(argv[1]))
        return 0
    try:
        load(Path(argv[1]))
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        reset()
    print("ok")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
