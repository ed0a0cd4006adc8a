"""Which lines of the core's GIL-free code call into Python (``cython -a``, read).

    python tools/annotate.py [--keep DIR]

Cython's annotation scores each source line by the Python C-API calls it
generated for it; 0 is plain C ("white"). The core's hot path (search, move
generation, evaluation, the network, the table) runs with the GIL released,
in ``nogil`` functions and ``with nogil:`` blocks, so every line there must
score 0: a yellow line is an exception check after a call that may raise, a
Python division or a bounds check, paid on every call. The only exceptions are
``with gil:`` blocks (where the search prints its info lines) and the header of
a function that holds one.

This tool annotates ``src/core_cy/_core_baseline.pyx`` (which includes every
``.pxi``) with the build's own directives (``build_support/directives.py``), prints each
yellow line of GIL-free code as ``file:line score source`` and exits 1 if there
is one. ``--keep DIR`` leaves the HTML pages there to look at.
"""
from __future__ import annotations

import argparse
import html
import importlib.util
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

CORE = Path(__file__).resolve().parents[1] / "src" / "core_cy"
ROOT = CORE.parents[1]
ENTRY = "_core_baseline.pyx"

HEADER_START = re.compile(r"^(cdef|cpdef|def)\s")
SCORED_LINE = re.compile(r'<pre class="cython line score-(\d+)"[^>]*>[^<]*<span class="">(\d+)</span>:')


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    score: int
    source: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line} score {self.score}  {self.source.strip()}"


@dataclass
class GilFreeLines:
    """The lines of one source file that run without the GIL."""
    lines: Set[int]
    regions: int          # nogil functions and with-nogil blocks


def build_directives() -> Dict[str, object]:
    """The optimised build's directives, read by path as setup.py reads them."""
    spec = importlib.util.spec_from_file_location("fianchetto_directives", ROOT / "build_support" / "directives.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.compiler_directives(checked=False)


def code_of(line: str) -> str:
    """The line without its comment (a # inside a string is rare enough here to
    be read as a comment: it only ends a header early)."""
    return line.split("#", 1)[0].rstrip()


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def read_header(lines: List[str], start: int) -> Tuple[str, int]:
    """A def/cdef line and its continuations while parentheses are open:
    (the header's code, the index of its last line)."""
    text, depth, end = "", 0, start
    for end in range(start, len(lines)):
        code = code_of(lines[end])
        text += " " + code.strip()
        depth += code.count("(") - code.count(")")
        if depth <= 0:
            break
    return text, end


def gil_free_lines(source: str) -> GilFreeLines:
    """Line numbers (1-based) of the bodies of ``nogil`` functions with a body and
    of ``with nogil:`` blocks, less ``with gil:`` blocks; a nogil function's
    header counts too unless the function takes the GIL somewhere."""
    lines = source.splitlines()
    found: Set[int] = set()
    blocks: List[Tuple[int, bool, Optional[Set[int]]]] = []  # (indent, gil-free, header lines)
    regions, i = 0, 0
    while i < len(lines):
        code = code_of(lines[i])
        if not code.strip():
            i += 1
            continue
        indent = indent_of(code)
        while blocks and indent <= blocks[-1][0]:
            blocks.pop()
        inside = bool(blocks) and blocks[-1][1]
        stripped = code.strip()
        if HEADER_START.match(stripped) and "(" in stripped:
            header, end = read_header(lines, i)
            has_body = header.endswith(":")
            header_lines = set(range(i + 1, end + 2))
            if has_body and re.search(r"\bnogil\b", header):
                regions += 1
                found |= header_lines
                blocks.append((indent, True, header_lines))
            elif has_body:
                blocks.append((indent, False, None))
            elif inside:
                found |= header_lines
            i = end + 1
            continue
        if stripped in ("with nogil:", "with gil:"):
            if stripped == "with gil:":
                for _, _, header_lines in reversed(blocks):  # the enclosing function's header
                    if header_lines is not None:
                        found -= header_lines
                        break
            else:
                regions += 1
            blocks.append((indent, stripped == "with nogil:", None))
        elif inside:
            found.add(i + 1)
        i += 1
    return GilFreeLines(found, regions)


def line_scores(page: str) -> Dict[int, int]:
    """Line number -> score from one of Cython's annotation pages."""
    return {int(line): int(score) for score, line in SCORED_LINE.findall(page)}


def run_cython(entry: Path, out_dir: Path, directives: Dict[str, object]) -> None:
    command = [sys.executable, "-m", "cython", "-3", "-a", "-I", str(entry.parent),
               "-o", str(out_dir / (entry.stem + ".c"))]
    for name, value in directives.items():
        command += ["-X", f"{name}={value}"]
    done = subprocess.run(command + [str(entry)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"cython failed:\n{done.stdout}{done.stderr}")


def findings_in(sources: Iterable[Path], out_dir: Path, base: Path) -> Tuple[List[Finding], int, int]:
    """The yellow GIL-free lines of each source under base that has an annotation
    page in out_dir (at the same relative path), with the number of GIL-free
    lines and regions read."""
    findings: List[Finding] = []
    checked = regions = 0
    for path in sources:
        page = (out_dir / path.relative_to(base)).with_suffix(".html")
        if not page.exists():
            continue
        source = path.read_text()
        region = gil_free_lines(source)
        scores = line_scores(page.read_text())
        text = source.splitlines()
        checked += len(region.lines)
        regions += region.regions
        for line in sorted(region.lines):
            if scores.get(line, 0) > 0:
                findings.append(Finding(str(path.relative_to(base)), line, scores[line], html.unescape(text[line - 1])))
    return findings, checked, regions


def annotate(entry: Path, out_dir: Path, directives: Optional[Dict[str, object]] = None
             ) -> Tuple[List[Finding], int, int]:
    """Annotate entry (a .pyx with its .pxi beside it and in folders below) into
    out_dir and read it."""
    run_cython(entry, out_dir, build_directives() if directives is None else directives)
    sources = sorted(entry.parent.rglob("*.pxi")) + [entry]
    return findings_in(sources, out_dir, entry.parent)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="write the annotation pages here and keep them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        out_dir = args.keep or Path(scratch)
        out_dir.mkdir(parents=True, exist_ok=True)
        findings, checked, regions = annotate(CORE / ENTRY, out_dir)
    for finding in findings:
        print(finding)
    print(f"{checked} GIL-free lines in {regions} nogil functions and with-nogil blocks read; "
          f"{len(findings)} call into Python")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
