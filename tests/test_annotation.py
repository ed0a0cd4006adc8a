"""The core's GIL-free code compiles to plain C (tools/annotate.py, `cython -a`)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("Cython")

TOOL = Path(__file__).resolve().parents[1] / "tools" / "annotate.py"
spec = importlib.util.spec_from_file_location("annotate_tool", TOOL)
annotate_tool = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = annotate_tool     # dataclasses look their module up
spec.loader.exec_module(annotate_tool)

SAMPLE = '''\
cdef int may_raise(int x) nogil:
    return x + 1

cdef int calls_one_that_may_raise(int x) noexcept nogil:
    return may_raise(x) * 2

cdef int plain(int x) noexcept nogil:
    return x * 3

cdef void says_something(int x) noexcept nogil:
    x += 1
    with gil:
        print(x)

cdef extern from *:
    int declared_only "abs"(int x) noexcept nogil

def entry(int x):
    items = [x]
    with nogil:
        x = calls_one_that_may_raise(x) + plain(x)
        says_something(declared_only(x))
    return items, x
'''


def test_the_core_s_gil_free_lines_are_all_white(tmp_path: Path) -> None:
    findings, checked, regions = annotate_tool.annotate(annotate_tool.CORE / annotate_tool.ENTRY, tmp_path)
    assert checked > 3000 and regions > 300      # the search, movegen, network and table were read
    assert findings == [], "\n".join(str(f) for f in findings)


def test_gil_free_lines_are_the_bodies_of_nogil_code() -> None:
    region = annotate_tool.gil_free_lines(SAMPLE)
    lines = SAMPLE.splitlines()
    numbered = {lines[n - 1].strip() for n in region.lines}
    assert "return may_raise(x) * 2" in numbered and "return x * 3" in numbered
    assert "x = calls_one_that_may_raise(x) + plain(x)" in numbered
    assert "x += 1" in numbered
    assert "print(x)" not in numbered and "with gil:" not in numbered
    assert "cdef void says_something(int x) noexcept nogil:" not in numbered  # takes the GIL
    assert "cdef int plain(int x) noexcept nogil:" in numbered
    assert "items = [x]" not in numbered and "return items, x" not in numbered
    assert region.regions == 5                  # four nogil functions with a body, one block


def test_a_declaration_without_a_body_opens_no_region() -> None:
    source = "cdef int ahead(int x) noexcept nogil\n\ncdef int after(int x):\n    return x\n"
    region = annotate_tool.gil_free_lines(source)
    assert region.lines == set() and region.regions == 0


def test_a_call_that_may_raise_is_found_in_gil_free_code(tmp_path: Path) -> None:
    entry = tmp_path / "sample.pyx"
    entry.write_text(SAMPLE)
    out = tmp_path / "out"
    out.mkdir()
    findings, _, _ = annotate_tool.annotate(entry, out, {"language_level": 3})
    found = {f.source.strip() for f in findings}
    assert "return may_raise(x) * 2" in found
    assert "return x * 3" not in found and "print(x)" not in found
