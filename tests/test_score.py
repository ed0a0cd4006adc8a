"""Typed scores and search reports (fianchetto.score)."""
from __future__ import annotations

import doctest

import core_cy.core as core

from fianchetto import score as score_module
from fianchetto.score import (MATE_CP, TB_WIN_CP, CurrMove, Score, SearchInfo, event_from_core,
                              last_main_line_keeper)
from fianchetto.uci import format_info


def test_doctests():
    failures, tried = doctest.testmod(score_module)
    assert tried >= 5 and failures == 0


def test_core_scores_read_as_centipawns_and_mates():
    assert Score.from_core(37) == Score.cp(37)
    assert Score.from_core(-core.SCORE_MATE + 4) == Score.mate(-2)    # mated in 4 plies
    assert Score.from_core(core.SCORE_MATE - 1) == Score.mate(1)
    assert Score.from_core(TB_WIN_CP - 5) == Score.cp(TB_WIN_CP - 5)  # a tablebase win is not a mate
    assert TB_WIN_CP == core.SCORE_TB_WIN


def test_as_cp_orders_every_score():
    ordered = [Score.mate(0), Score.mate(-1), Score.mate(-5), Score.cp(-900), Score.cp(0),
               Score.cp(900), Score.mate(3), Score.mate(1)]
    values = [s.as_cp() for s in ordered]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert Score.mate(1).as_cp() == MATE_CP - 1


def test_events_from_the_core_and_their_uci_text():
    report = core.SearchReport(depth=3, seldepth=5, score=core.SCORE_MATE - 3, bound=core.REPORT_LOWER,
                               nodes=120, time_ms=20, hashfull=1, pv=["e2e4"])
    event = event_from_core(report)
    assert isinstance(event, SearchInfo) and event.is_main_line and event.score == Score.mate(2)
    assert format_info(event) == ("info depth 3 seldepth 5 multipv 1 score mate 2 lowerbound nodes 120 "
                                  "nps 6000 hashfull 1 tbhits 0 time 20 pv e2e4")
    exact = event_from_core(core.SearchReport(depth=1, score=-12, nodes=5, time_ms=0, multipv=2))
    assert exact.bound is None and exact.multipv == 2 and exact.nps == 5000 and exact.score == Score.cp(-12)
    assert event_from_core(core.SearchReport(depth=1, score=0, nodes=1, time_ms=1,
                                             bound=core.REPORT_UPPER)).bound == "upperbound"
    current = event_from_core(core.CurrentMoveReport(move="g1f3", number=4, depth=9))
    assert current == CurrMove(9, "g1f3", 4)
    assert format_info(current) == "info depth 9 currmove g1f3 currmovenumber 4"
    assert format_info(SearchInfo(depth=0, score=Score.mate(0), nodes=0, time=0)) == \
        "info depth 0 score mate 0 nodes 0 tbhits 0 time 0"


def test_a_search_reports_typed_lines_and_its_closing_line_last():
    reports = []
    best, _ponder = core.Search(hash_mb=1).go(core.Board(), depth=5, info=reports.append)
    lines = [r for r in reports if isinstance(r, core.SearchReport)]
    assert [r.depth for r in lines if r.bound == core.REPORT_EXACT and not r.final] == [1, 2, 3, 4, 5]
    assert lines[-1].final and reports[-1] is lines[-1] and lines[-1].pv[0] == best
    assert all(r.nodes > 0 and 0.0 <= r.effort <= 1.0 and r.pv for r in lines)


def test_a_failing_info_callback_is_logged_and_the_search_goes_on(caplog):
    def broken(report):
        raise RuntimeError("listener gone")

    with caplog.at_level("ERROR", logger="fianchetto.core"):
        best, _ponder = core.Search(hash_mb=1).go(core.Board(), depth=4, info=broken)
    assert best in core.Board().legal_moves()
    failures = [r for r in caplog.records if r.name == "fianchetto.core"]
    assert len(failures) == 5 and "listener gone" in caplog.text    # four iterations and the closing line


def test_a_proven_score_replaces_centipawns_but_never_a_mate_or_a_missing_score():
    line = SearchInfo(depth=9, score=Score.cp(83), multipv=2, pv=["e2e4"])
    drawn = line.with_proven_score(0)
    assert drawn.score == Score.cp(0) and drawn.proven
    assert (drawn.depth, drawn.multipv, drawn.pv) == (9, 2, ["e2e4"])
    assert line.with_proven_score(None) is line
    mating = SearchInfo(depth=9, score=Score.mate(3), pv=["a1a8"])
    assert mating.with_proven_score(0) is mating
    unscored = SearchInfo(depth=9, pv=["e2e4"])
    assert unscored.with_proven_score(0) is unscored


def test_last_main_line_keeper_keeps_the_last_first_line_only():
    last, on_info = last_main_line_keeper()
    assert last == []
    first = core.SearchReport(depth=1, score=10, nodes=5, time_ms=1, pv=["e2e4"])
    second_line = core.SearchReport(depth=2, score=-40, nodes=9, time_ms=1, multipv=2, pv=["d2d4"])
    deeper = core.SearchReport(depth=2, score=25, nodes=9, time_ms=1, pv=["g1f3"])
    on_info(first)
    assert [info.score for info in last] == [Score.cp(10)]
    on_info(second_line)                                    # a second line is not the main line
    on_info(core.CurrentMoveReport(depth=2, move="d2d4", number=2))  # nor a current move
    assert [info.score for info in last] == [Score.cp(10)]
    on_info(deeper)
    assert [(info.depth, info.pv) for info in last] == [(2, ["g1f3"])]
