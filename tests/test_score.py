"""Typed scores and search reports (fianchetto.score)."""
from __future__ import annotations

import doctest

import core_cy.core as core

from fianchetto import score as score_module
from fianchetto.score import MATE_CP, TB_WIN_CP, CurrMove, Score, SearchInfo, event_from_core
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
    raw = {"depth": 3, "seldepth": 5, "multipv": 1, "score": core.SCORE_MATE - 3, "bound": "lowerbound",
           "nodes": 120, "nps": 6000, "time": 20, "hashfull": 1, "tbhits": 0, "pv": ["e2e4"], "final": False}
    event = event_from_core(raw)
    assert isinstance(event, SearchInfo) and event.is_main_line and event.score == Score.mate(2)
    assert format_info(event) == ("info depth 3 seldepth 5 multipv 1 score mate 2 lowerbound nodes 120 "
                                  "nps 6000 hashfull 1 tbhits 0 time 20 pv e2e4")
    current = event_from_core({"currmove": "g1f3", "currmovenumber": 4, "depth": 9})
    assert current == CurrMove(9, "g1f3", 4)
    assert format_info(current) == "info depth 9 currmove g1f3 currmovenumber 4"
    assert format_info(SearchInfo(depth=0, score=Score.mate(0), nodes=0, time=0)) == \
        "info depth 0 score mate 0 nodes 0 tbhits 0 time 0"
