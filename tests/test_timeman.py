"""Time management as pure functions: the clock in, soft and hard limits out."""
from __future__ import annotations

import itertools

import pytest

from fianchetto.options import DEFAULT_MOVE_OVERHEAD_MS
from fianchetto.timeman import (
    MAX_STRETCH,
    NO_LIMITS,
    RESERVE_OVERHEADS,
    TimeLimits,
    TimeManager,
    plan,
    plan_for_side,
)
from fianchetto.score import Score

OVERHEAD = 50


def test_no_clock_means_no_limits():
    assert plan() == NO_LIMITS
    assert plan(overhead=OVERHEAD) == NO_LIMITS
    assert NO_LIMITS.unlimited


def test_movetime_is_a_fixed_budget_minus_overhead():
    assert plan(movetime=1000, overhead=OVERHEAD) == TimeLimits(950, 950)
    # movetime wins over the clock
    assert plan(movetime=500, time_left=60_000, increment=1000, overhead=0) == TimeLimits(500, 500)
    # a movetime below the overhead still gives a (tiny, nonzero) budget
    assert plan(movetime=10, overhead=OVERHEAD) == TimeLimits(1, 1)


@pytest.mark.parametrize("time_left", [-5000, -1, 0, 1, 10, 49, 50, 51, 700, 801])
def test_empty_or_tiny_clock_gives_one_millisecond(time_left):
    limits = plan(time_left=time_left, overhead=OVERHEAD)
    assert limits == TimeLimits(1, 1)
    assert not limits.unlimited  # 0 would mean "no limit" to the core


def test_sudden_death_shares():
    limits = plan(time_left=60_000, overhead=OVERHEAD)
    # 30 moves planned; the overhead is charged for each of them (and two more).
    assert limits.soft_ms == pytest.approx((60_000 - OVERHEAD * 32) / 30, abs=1)
    assert limits.soft_ms < limits.hard_ms <= 0.75 * (60_000 - OVERHEAD)
    assert limits.hard_ms == pytest.approx(4 * limits.soft_ms, abs=4)


def test_reserve_is_never_planned():
    """Ten overheads stay on the clock: the limits are capped as if they were not there."""
    for time_left in (600, 1000, 2000, 5000):
        spendable = time_left - 11 * OVERHEAD
        limits = plan(time_left=time_left, increment=1000, overhead=OVERHEAD)
        assert limits.soft_ms <= max(1, 0.40 * spendable) and limits.hard_ms <= max(1, 0.75 * spendable)
    assert plan(time_left=550, increment=1000, overhead=OVERHEAD) == TimeLimits(1, 1)


def test_increment_adds_to_the_plan():
    without = plan(time_left=10_000, overhead=OVERHEAD)
    with_inc = plan(time_left=10_000, increment=100, overhead=OVERHEAD)
    assert with_inc.soft_ms - without.soft_ms == pytest.approx(100 * 29 / 30, abs=1)


def test_bullet_plays_fast_when_overhead_eats_the_increment():
    """1+0.01 with 30 ms overhead per move: short moves at first, minimal ones later."""
    start = plan(time_left=1000, increment=10, overhead=30)
    assert 5 <= start.soft_ms <= 20 and start.hard_ms <= 4 * start.soft_ms
    assert plan(time_left=330, increment=10, overhead=30) == TimeLimits(1, 1)
    # 10+0.1 keeps a healthy budget
    assert 350 <= plan(time_left=10_000, increment=100, overhead=30).soft_ms <= 450


def test_default_overhead_keeps_a_second_in_reserve_at_10_plus_0_1():
    """The default overhead (100 ms) spends the base time, not the increment, and
    never plans into the last second of the clock."""
    overhead = DEFAULT_MOVE_OVERHEAD_MS
    assert overhead * RESERVE_OVERHEADS >= 1000
    start = plan(time_left=10_000, increment=100, overhead=overhead)
    assert 250 <= start.soft_ms <= 350
    for time_left in range(1000, 3000, 100):
        limits = plan(time_left=time_left, increment=100, overhead=overhead)
        assert time_left - limits.hard_ms - overhead >= 1000 or limits == TimeLimits(1, 1)


def test_increment_larger_than_clock_never_plans_past_the_clock():
    limits = plan(time_left=900, increment=5000, overhead=OVERHEAD)
    usable = 900 - 11 * OVERHEAD
    assert limits.hard_ms <= 0.75 * usable
    assert limits.soft_ms <= 0.40 * usable


def test_movestogo_spreads_the_clock():
    many = plan(time_left=60_000, movestogo=40, overhead=0)
    few = plan(time_left=60_000, movestogo=5, overhead=0)
    assert few.soft_ms > many.soft_ms
    assert many.soft_ms == 1500
    # movestogo above the cap is planned as the cap
    assert plan(time_left=60_000, movestogo=500, overhead=0) == plan(time_left=60_000, movestogo=50, overhead=0)


def test_last_move_before_the_control_uses_more_but_keeps_a_margin():
    limits = plan(time_left=10_000, movestogo=1, overhead=OVERHEAD)
    spendable = 10_000 - 11 * OVERHEAD
    assert limits.soft_ms == int(0.60 * spendable)
    assert limits.hard_ms == int(0.85 * spendable)


def test_never_plans_past_the_clock():
    for time_left, increment, movestogo, overhead in itertools.product(
        [1, 7, 60, 100, 999, 1000, 5000, 60_000, 3_600_000], [0, 10, 100, 2000], [0, 1, 2, 10, 40], [0, 10, 50, 1000]
    ):
        limits = plan(time_left=time_left, increment=increment, movestogo=movestogo, overhead=overhead)
        case = (time_left, increment, movestogo, overhead, limits)
        assert 1 <= limits.soft_ms <= limits.hard_ms, case
        spendable = time_left - (RESERVE_OVERHEADS + 1) * overhead
        assert limits.hard_ms <= max(1, 0.85 * spendable), case
        assert limits.soft_ms <= max(1, 0.60 * spendable), case


def test_plan_for_side_picks_the_movers_clock():
    white = plan_for_side(True, wtime=10_000, btime=1_000, winc=100, binc=0, overhead=0)
    black = plan_for_side(False, wtime=10_000, btime=1_000, winc=100, binc=0, overhead=0)
    assert white == plan(time_left=10_000, increment=100)
    assert black == plan(time_left=1_000)


def test_manager_stretches_soft_on_best_move_changes():
    base = TimeLimits(100, 400)
    tm = TimeManager(base)
    assert tm.on_iteration("e2e4", Score.cp(20)) is None  # first iteration: nothing to compare
    assert tm.on_iteration("e2e4", Score.cp(22)) is None  # stable
    changed = tm.on_iteration("d2d4", Score.cp(25))  # best move changed
    assert changed is not None and changed.soft_ms == 150 and changed.hard_ms == 400
    again = tm.on_iteration("c2c4", Score.cp(25))
    assert again is not None and again.soft_ms > 150
    # stability lets the stretch decay back toward the plan
    for _ in range(8):
        tm.on_iteration("c2c4", Score.cp(25))
    assert tm.current.soft_ms <= 105


def test_manager_stretches_soft_on_a_falling_score():
    tm = TimeManager(TimeLimits(100, 400))
    tm.on_iteration("e2e4", Score.cp(50))
    changed = tm.on_iteration("e2e4", Score.cp(0))
    assert changed is not None and changed.soft_ms == 150
    # a rising score does not stretch
    tm2 = TimeManager(TimeLimits(100, 400))
    tm2.on_iteration("e2e4", Score.cp(0))
    assert tm2.on_iteration("e2e4", Score.cp(80)) is None


def test_manager_never_passes_the_hard_limit():
    tm = TimeManager(TimeLimits(300, 400))
    tm.on_iteration("a", Score.cp(500))
    for move in "bcdefgh":
        changed = tm.on_iteration(move, Score.mate(-2))
        assert tm.current.soft_ms <= 400 and tm.current.hard_ms == 400
    assert tm.stretch() <= MAX_STRETCH
    del changed


def test_manager_is_inert_without_a_clock_or_with_movetime():
    for limits in (NO_LIMITS, TimeLimits(500, 500)):
        tm = TimeManager(limits)
        tm.on_iteration("e2e4", Score.cp(100))
        assert tm.on_iteration("d2d4", Score.cp(-300)) is None
    tm = TimeManager(TimeLimits(100, 400), adaptive=False)
    tm.on_iteration("e2e4", Score.cp(100))
    assert tm.on_iteration("d2d4", Score.cp(-300)) is None


def test_core_limits_shift_by_the_core_start_and_stay_positive():
    tm = TimeManager(TimeLimits(1, 1))
    # the search started 3 ms after the go arrived
    assert tm.core_limits(3) == TimeLimits(1, 1)
    tm = TimeManager(TimeLimits(100, 400))
    assert tm.core_limits(30) == TimeLimits(70, 370)
    # after ponderhit: 2.5 s of pondering already on the core's clock
    assert tm.core_limits(-2500) == TimeLimits(2600, 2900)
    assert tm.core_limits(-2500) == tm.core_limits(-2500), "a pure function"
    tm = TimeManager(NO_LIMITS)
    assert tm.core_limits(-100) == NO_LIMITS


def test_a_clock_for_the_opponent_only_is_not_an_unlimited_search():
    """As Stockfish reads it: a clock was given, ours is missing, so ours is empty."""
    assert plan_for_side(False, wtime=60_000, overhead=0) == TimeLimits(1, 1)
    assert plan_for_side(True, btime=60_000, overhead=0) == TimeLimits(1, 1)
    assert plan_for_side(True, overhead=0) == NO_LIMITS
