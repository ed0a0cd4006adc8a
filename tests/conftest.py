"""Fixtures for the Fianchetto test suite; the helpers live in ``tests/support/``."""
from __future__ import annotations

import os
from typing import List

import pytest

from support.reference import Sample, random_samples


@pytest.fixture(scope="session")
def samples() -> List[Sample]:
    """500+ deterministic random reachable positions (standard and Chess960)."""
    return random_samples(520)


@pytest.fixture(scope="session", autouse=True)
def expected_build():
    """Under ``FIANCHETTO_EXPECT_CHECKED=1`` (set by test_checked_build.py) the run
    must really be using the checked core, not silently the optimised one."""
    if os.environ.get("FIANCHETTO_EXPECT_CHECKED") == "1":
        import core_cy.core

        assert core_cy.core.CHECKED_BUILD, f"expected the checked core, got {core_cy.core.__file__}"
