"""The core's folders are its layers, and a file uses only its own layer and the
layers below it (docs/architecture.md): a scan of every name each folder's
.pxi files define, and of the names every file uses."""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Dict, Set, Tuple

import pytest

CORE = Path(__file__).resolve().parents[1] / "src" / "core_cy"
#: Each layer and the layers it may use. platform/ holds C headers only, which
#: the files declare where they use them; types.pxd and the network format are
#: shared declarations below every layer.
MAY_USE: Dict[str, Set[str]] = {
    "board": set(),
    "eval": {"board"},
    "tablebases": {"board"},
    "search": {"board", "eval", "tablebases"},
    "learn": {"board", "eval", "tablebases", "search"},
    "api": {"board", "eval", "tablebases", "search", "learn"},
}
MAX_LINES = 800

FUNCTION = re.compile(r"^cdef\s+(?:inline\s+)?[\w\s\*]*?\b(\w+)\s*\(", re.M)
NAMED = re.compile(r"^(?:ctypedef\s+(?:packed\s+)?struct|cdef\s+class|def|cdef\s+enum)\s+(\w+)", re.M)
TYPEDEF = re.compile(r"^ctypedef\s+(?!packed\b|struct\b)\w+\s+(\w+)\s*(?:#|$)", re.M)
GLOBAL = re.compile(r"^cdef\s+(?:const\s+)?\w+\**\s+(\w+)\s*(?:\[|=|#|$)", re.M)
ENUM_BLOCK = re.compile(r"^cdef enum[^\n]*:\n((?:[ \t]+.*\n|[ \t]*\n)+)", re.M)
ENUM_MEMBER = re.compile(r"^\s+(\w+)\s*(?:=|#|$)", re.M)
CALLBACK = re.compile(r"^ctypedef\s+\w+\s+\(\*(\w+)\)", re.M)


def sources(layer: str):
    return sorted((CORE / layer).glob("*.pxi"))


def definitions() -> Dict[str, Tuple[str, str]]:
    """Every top-level name a layer's files define -> (layer, file)."""
    found: Dict[str, Tuple[str, str]] = {}
    for layer in MAY_USE:
        for path in sources(layer):
            text = path.read_text()
            names = [m.group(1) for pattern in (FUNCTION, NAMED, TYPEDEF, GLOBAL, CALLBACK) for m in pattern.finditer(text)]
            names += [m.group(1) for block in ENUM_BLOCK.finditer(text)
                      for m in ENUM_MEMBER.finditer(block.group(1))]
            for name in names:
                found.setdefault(name, (layer, path.name))
    return found


def used_names(path: Path) -> Set[str]:
    text = re.sub(r'"""[\s\S]*?"""', "", path.read_text())
    text = re.sub(r"#.*", "", text)
    return set(re.findall(r"\b[A-Za-z_]\w*\b", text))


def test_every_layer_is_a_folder_with_files():
    for layer in MAY_USE:
        assert sources(layer), f"src/core_cy/{layer}/ has no .pxi files"
    assert list((CORE / "platform").glob("*.h"))


def test_the_scan_finds_the_core_s_names():
    found = definitions()
    for name, layer in (("do_move", "board"), ("evaluate", "eval"), ("tb_probe_wdl", "tablebases"),
                        ("iterative_deepening", "search"), ("play_selfplay_game", "learn"),
                        ("Search", "api"), ("SearchThread", "search"), ("NNUE_MAX_CHAIN", "eval"),
                        ("PackedScore", "board"), ("PSQ", "board"), ("LineCallback", "search")):
        assert found.get(name, ("?",))[0] == layer, name


def test_each_layer_uses_only_the_layers_below_it():
    found = definitions()
    wrong = defaultdict(set)
    for layer, allowed in MAY_USE.items():
        for path in sources(layer):
            for name in used_names(path):
                owner = found.get(name, (layer,))[0]
                if owner != layer and owner not in allowed:
                    wrong[f"{layer}/{path.name}"].add(f"{name} ({owner}/{found[name][1]})")
    assert not wrong, dict(wrong)


@pytest.mark.parametrize("layer", ["platform", *MAY_USE])
def test_no_core_file_is_longer_than_800_lines(layer):
    for path in sorted((CORE / layer).iterdir()):
        if path.suffix in (".pxi", ".h"):
            assert len(path.read_text().splitlines()) <= MAX_LINES, path.name
