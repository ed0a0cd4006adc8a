"""The documents' links: every ``[text](#anchor)`` names a heading of its own file
and every relative ``[text](path)`` a file of the tree (a renamed heading or a
moved file breaks no reader's link unnoticed)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import List, Set

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md",
                    *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def prose_lines(text: str) -> List[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchor_of(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's rule) gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(lines: List[str]) -> Set[str]:
    return {anchor_of(m.group(1)) for m in (re.match(r"#+ (.*)$", line) for line in lines) if m}


def test_the_anchor_rule():
    assert anchor_of("The win/draw/loss model: `fianchetto wdl-fit`") == "the-windrawloss-model-fianchetto-wdl-fit"
    assert anchor_of("Generation 2: learned from generation 1's games") == "generation-2-learned-from-generation-1s-games"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_reach_a_heading_or_a_file(document):
    lines = prose_lines(document.read_text(encoding="utf-8"))
    headings = anchors(lines)
    broken = []
    for line in lines:
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):          # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            if not path:
                if anchor not in headings:
                    broken.append(target)
            elif not (document.parent / path).exists():
                broken.append(target)
    assert not broken, f"{document.name}: links to nothing: {broken}"
