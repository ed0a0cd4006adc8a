"""The transposition table as the engine reports it: hashfull counts the entries
written by the current search, whatever their bound."""
from __future__ import annotations

import pytest

from core_cy.core import transposition_entry_age
from support.uci_pipe import info_lines, ready_engine

MIDDLEGAME = "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16"


@pytest.fixture
def engine():
    yield from ready_engine()


def hashfulls(lines):
    return [int(m.group("hashfull")) for m in info_lines(lines)]


def test_hashfull_grows_through_a_search_that_fills_the_table(engine):
    """1 MB holds 64k entries: a search of a few hundred thousand nodes fills most
    of them, and the report says so as it goes."""
    engine.send("setoption name Hash value 1")
    engine.send("ucinewgame")
    engine.send(f"position fen {MIDDLEGAME}")
    lines, _, _ = engine.go("go nodes 400000")
    reported = hashfulls(lines)
    assert reported[0] < 100 and reported[-1] >= 500, reported


def test_hashfull_counts_only_the_current_search(engine):
    """After a search that filled the table, a search of a handful of nodes in
    another position reports almost nothing: the old entries are not its own."""
    engine.send("setoption name Hash value 1")
    engine.send("ucinewgame")
    engine.send(f"position fen {MIDDLEGAME}")
    engine.go("go nodes 400000")
    engine.send("position startpos moves g1f3")
    lines, _, _ = engine.go("go depth 2")
    assert hashfulls(lines)[-1] <= 20, hashfulls(lines)


@pytest.mark.parametrize("bound", [1, 2, 3])
def test_an_entry_ages_by_the_searches_since_it_was_written_whatever_its_bound(bound):
    assert transposition_entry_age(5, 5, bound) == 0
    assert transposition_entry_age(6, 5, bound) == 1
    assert transposition_entry_age(9, 5, bound) == 4
    assert transposition_entry_age(64, 63, bound) == 1   # the generation byte wraps
