"""Time management as pure functions: the clock in, soft and hard limits out."""
from __future__ import annotations

import itertools

import pytest

from fianchetto.options import DEFAULT_MOVE_OVERHEAD_MS
from fianchetto.timeman import (
    MAX_STRETCH,
    NODE_EFFORT_MIN_DEPTH,
    NO_LIMITS,
    TimeLimits,
    TimeManager,
    effort_factor,
    plan,
    plan_for_side,
    reserve,
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


def spendable(time_left, overhead):
    """The clock a move may plan for: this move's overhead and the reserve are off it."""
    return time_left - overhead - reserve(time_left, overhead)


def test_reserve_is_a_few_overheads_plus_a_share_of_the_clock():
    assert reserve(1000, 10) == 20 + 20
    assert reserve(100_000, 10) == 20 + 2000
    # it grows with both, and never goes negative on garbage
    assert reserve(60_000, 10) > reserve(1000, 10)
    assert reserve(1000, 100) > reserve(1000, 10)
    assert reserve(-5, -5) == 0


def test_reserve_is_never_planned():
    """The reserve stays on the clock: the limits are capped as if it were not there."""
    for time_left in (600, 1000, 2000, 5000):
        limits = plan(time_left=time_left, increment=1000, overhead=OVERHEAD)
        room = spendable(time_left, OVERHEAD)
        assert limits.soft_ms <= max(1, 0.40 * room) and limits.hard_ms <= max(1, 0.75 * room)
    assert plan(time_left=150, increment=1000, overhead=OVERHEAD) == TimeLimits(1, 1)


def test_increment_adds_to_the_plan():
    without = plan(time_left=10_000, overhead=OVERHEAD)
    with_inc = plan(time_left=10_000, increment=100, overhead=OVERHEAD)
    assert with_inc.soft_ms - without.soft_ms == pytest.approx(100 * 29 / 30, abs=1)


def test_bullet_plays_fast_when_overhead_eats_the_increment():
    """1+0.01 with 30 ms overhead per move: short moves at first, minimal ones later."""
    start = plan(time_left=1000, increment=10, overhead=30)
    assert 5 <= start.soft_ms <= 30 and start.hard_ms <= 4 * start.soft_ms
    assert plan(time_left=100, increment=10, overhead=30) == TimeLimits(1, 1)
    # 10+0.1 keeps a healthy budget
    assert 300 <= plan(time_left=10_000, increment=100, overhead=30).soft_ms <= 450


def play_clock(time_left, increment, overhead, latency, moves, use_hard=False):
    """A simulated game for one side: each move spends its soft (or, worst case,
    its hard) limit plus the GUI's latency, then earns the increment. Returns
    the clock after each move; a negative entry is a loss on time."""
    clock, history = time_left, []
    for _ in range(moves):
        limits = plan(time_left=clock, increment=increment, overhead=overhead)
        clock -= (limits.hard_ms if use_hard else limits.soft_ms) + latency
        history.append(clock)
        clock += increment
    return history


def test_default_overhead_uses_most_of_a_bullet_clock():
    """At 1+0.01 with the default overhead and the worst latency measured under
    fastchess (10 ms), the engine spends most of its second over a long game."""
    overhead = DEFAULT_MOVE_OVERHEAD_MS
    assert overhead <= 20
    clocks = play_clock(1000, 10, overhead, latency=10, moves=80)
    assert min(clocks) > 0
    assert clocks[39] < 500  # more than half the base time spent by move 40
    assert plan(time_left=1000, increment=10, overhead=overhead).soft_ms >= 25


def test_bullet_clock_survives_a_run_of_hard_limits():
    """Even when every move runs to its hard limit and pays a latency of 5 ms (the
    loaded machine's 99th percentile is under 8 ms), the clock never empties at
    1+0.01 or 10+0.1. (A latency as large as the increment on every move would
    drain any clock: that is what Move Overhead is raised for.)"""
    for time_left, increment in ((1000, 10), (10_000, 100)):
        clocks = play_clock(time_left, increment, DEFAULT_MOVE_OVERHEAD_MS, latency=5, moves=150, use_hard=True)
        assert min(clocks) > 0, (time_left, increment, min(clocks))


def test_default_overhead_at_10_plus_0_1_spends_the_base_time():
    overhead = DEFAULT_MOVE_OVERHEAD_MS
    start = plan(time_left=10_000, increment=100, overhead=overhead)
    assert 300 <= start.soft_ms <= 450
    for time_left in range(300, 3000, 100):
        limits = plan(time_left=time_left, increment=100, overhead=overhead)
        assert time_left - limits.hard_ms - overhead >= reserve(time_left, overhead) or limits == TimeLimits(1, 1)


def test_increment_larger_than_clock_never_plans_past_the_clock():
    limits = plan(time_left=900, increment=5000, overhead=OVERHEAD)
    usable = spendable(900, OVERHEAD)
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
    room = spendable(10_000, OVERHEAD)
    assert limits.soft_ms == int(0.60 * room)
    assert limits.hard_ms == int(0.85 * room)


def test_never_plans_past_the_clock():
    for time_left, increment, movestogo, overhead in itertools.product(
        [1, 7, 60, 100, 999, 1000, 5000, 60_000, 3_600_000], [0, 10, 100, 2000], [0, 1, 2, 10, 40], [0, 10, 50, 1000]
    ):
        limits = plan(time_left=time_left, increment=increment, movestogo=movestogo, overhead=overhead)
        case = (time_left, increment, movestogo, overhead, limits)
        assert 1 <= limits.soft_ms <= limits.hard_ms, case
        room = spendable(time_left, overhead)
        assert limits.hard_ms <= max(1, 0.85 * room), case
        assert limits.soft_ms <= max(1, 0.60 * room), case


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


def test_node_effort_shortens_a_clear_best_move_and_lengthens_a_contested_one():
    assert effort_factor(None, 20) == 1.0
    assert effort_factor(0.99, NODE_EFFORT_MIN_DEPTH - 1) == 1.0  # too shallow to tell
    clear, contested = effort_factor(0.95, 12), effort_factor(0.2, 12)
    assert clear < 1.0 < contested
    assert effort_factor(7.0, 12) == effort_factor(1.0, 12)  # out-of-range shares are clamped


def test_manager_applies_the_node_effort_to_soft():
    clear = TimeManager(TimeLimits(100, 400))
    clear.on_iteration("e2e4", Score.cp(20), 0.9, 10)
    changed = clear.on_iteration("e2e4", Score.cp(20), 0.95, 11)
    assert changed is not None and changed.soft_ms < 100
    contested = TimeManager(TimeLimits(100, 400))
    changed = contested.on_iteration("e2e4", Score.cp(20), 0.25, 11)
    assert changed is not None and 100 < changed.soft_ms <= 400
