"""Time management: the clock in, soft and hard limits out (pure functions), and the
core's stretch of the soft limit after each iteration (core.TimeManagerState)."""
from __future__ import annotations

import itertools

import pytest

from core_cy import tunables
from core_cy.core import TimeManagerState
from fianchetto.options import DEFAULT_MOVE_OVERHEAD_MS
from fianchetto.timeman import NO_LIMITS, TimeLimits, plan, plan_for_side, reserve

MAX_STRETCH = 2.5           # search.pxi's TM_MAX_STRETCH_X100
EFFORT_MIN_DEPTH = 6        # search.pxi's TM_EFFORT_MIN_DEPTH
E2E4, D2D4, C2C4 = 1, 2, 3  # any numbers name the moves

OVERHEAD = 50


def tuned(name: str) -> float:
    """A time-management constant of the table, as a factor when its unit is x100."""
    value = tunables.by_name(name).value
    return value / 100 if name.endswith("_X100") else value


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


def test_the_core_stretches_soft_on_best_move_changes():
    tm = TimeManagerState()
    assert tm.record(E2E4, 20) == 1.0 and tm.soft_limit(100, 400) == 100   # nothing to compare yet
    assert tm.record(E2E4, 22) == 1.0                                       # stable
    tm.record(D2D4, 25)                                                     # the best move changed
    once = tm.soft_limit(100, 400)
    assert once > 100
    assert once == int(100 * (1 + tuned("TM_BEST_MOVE_CHANGE_WEIGHT_X100")))   # one change, no score drop
    tm.record(C2C4, 25)
    assert tm.soft_limit(100, 400) > once
    for _ in range(8):                    # stability lets the stretch decay back toward the plan
        tm.record(C2C4, 25)
    assert tm.soft_limit(100, 400) <= 105


def test_the_core_stretches_soft_on_a_falling_score():
    tm = TimeManagerState()
    tm.record(E2E4, 50)
    tm.record(E2E4, 0)
    falling = min(tuned("TM_MAX_SCORE_DROP_FACTOR_X100"), 1 + 50 / tuned("TM_SCORE_DROP_SCALE_CP"))
    assert falling > 1
    assert tm.soft_limit(100, 400) == int(100 * falling)                       # no best-move change
    rising = TimeManagerState()           # a rising score does not stretch
    rising.record(E2E4, 0)
    rising.record(E2E4, 80)
    assert rising.soft_limit(100, 400) == 100


def test_the_core_never_stretches_past_the_hard_limit():
    tm = TimeManagerState()
    tm.record(0, 500)
    for move in range(1, 8):
        tm.record(move, -31_990)          # mated soon, and a new best move every time
        assert tm.soft_limit(300, 400) == 400
    assert tm.stretch <= MAX_STRETCH


def test_the_core_leaves_a_fixed_budget_and_no_limit_alone():
    for soft, hard in ((0, 0), (500, 500)):          # no clock; movetime (soft = hard)
        tm = TimeManagerState()
        tm.record(E2E4, 100)
        tm.record(D2D4, -300)
        assert tm.soft_limit(soft, hard) == soft
    fixed = TimeManagerState(adaptive=False)
    fixed.record(E2E4, 100)
    fixed.record(D2D4, -300)
    assert fixed.stretch > 1 and fixed.soft_limit(100, 400) == 100


def test_limits_shift_by_the_search_start_and_stay_positive():
    shifted = TimeManagerState.shifted_limit
    assert shifted(1, 3) == 1                       # the search started 3 ms after the go arrived
    assert (shifted(100, 30), shifted(400, 30)) == (70, 370)
    assert (shifted(100, -2500), shifted(400, -2500)) == (2600, 2900)   # 2.5 s of pondering before
    assert shifted(0, -100) == 0                    # no limit stays none


def test_a_clock_for_the_opponent_only_is_not_an_unlimited_search():
    """As Stockfish reads it: a clock was given, ours is missing, so ours is empty."""
    assert plan_for_side(False, wtime=60_000, overhead=0) == TimeLimits(1, 1)
    assert plan_for_side(True, btime=60_000, overhead=0) == TimeLimits(1, 1)
    assert plan_for_side(True, overhead=0) == NO_LIMITS


def test_node_effort_shortens_a_clear_best_move_and_lengthens_a_contested_one():
    def stretch(effort, depth):
        return TimeManagerState().record(E2E4, 20, effort, depth)

    assert stretch(0.99, EFFORT_MIN_DEPTH - 1) == 1.0          # too shallow to tell
    assert stretch(0.95, 12) < 1.0 < stretch(0.2, 12)
    assert stretch(7.0, 12) == stretch(1.0, 12)                # out-of-range shares are clamped
    clear = TimeManagerState()
    clear.record(E2E4, 20, 0.9, 10)
    clear.record(E2E4, 20, 0.95, 11)
    assert clear.soft_limit(100, 400) < 100
    contested = TimeManagerState()
    contested.record(E2E4, 20, 0.25, 11)
    assert 100 < contested.soft_limit(100, 400) <= 400
