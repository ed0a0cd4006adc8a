"""The stored magic multipliers (src/core_cy/board/magic_numbers.pxi, written by
tools/gen_magics.py) are the ones the core runs with: none of them failed and
sent the import back to searching. Perft everywhere else proves the tables."""
import re
from pathlib import Path

import pytest

from core_cy.core import magic_numbers

PXI = Path(__file__).resolve().parents[1] / "src" / "core_cy" / "board" / "magic_numbers.pxi"


def stored(name: str) -> list:
    text = PXI.read_text()
    body = text.split(f"{name}[:] = [", 1)[1].split("]", 1)[0]
    return [int(number, 16) for number in re.findall(r"0x([0-9A-F]{16})ULL", body)]


@pytest.mark.skipif(not PXI.exists(), reason="needs the source tree")
def test_the_core_uses_the_stored_magics():
    rook, bishop = magic_numbers()
    assert stored("ROOK_MAGIC_NUMBERS") == rook and len(rook) == 64
    assert stored("BISHOP_MAGIC_NUMBERS") == bishop and len(bishop) == 64
    assert all(rook) and all(bishop)
