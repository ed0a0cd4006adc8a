"""The network format is declared once (src/core_cy/network_format.py): the core's
C constants are generated from it, and both sides read the same table."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core_cy import core, network_format

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "gen_network_format.py"


@pytest.mark.skipif(not TOOL.exists(), reason="needs the source tree (tools/)")
def test_the_generated_constants_are_current():
    done = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_built_core_was_generated_from_this_table():
    """The compiled constants are the table's (a stale build would differ)."""
    assert core.NETWORK_MAX_HIDDEN == network_format.MAX_HIDDEN
    assert core.NETWORK_INPUTS == network_format.INPUTS
    assert core.NETWORK_HEADER_BYTES == network_format.HEADER_BYTES == core.NETWORK_HEADER.size
    assert core.NETWORK_QUANTISATION == (network_format.QA, network_format.QB, network_format.SCALE)


def test_the_trainer_reads_the_same_table():
    pytest.importorskip("numpy")
    from fianchetto.learn import data, network

    assert network.OUTPUT_BUCKETS == network_format.output_buckets() == core.NETWORK_OUTPUT_BUCKETS
    assert data.KING_BUCKET_LAYOUTS is network_format.KING_BUCKET_LAYOUTS
    assert network.HEADER_DTYPE.itemsize == network_format.HEADER_BYTES
    assert network.MAX_HIDDEN == network_format.MAX_HIDDEN
