"""Time management: turn the clock into soft and hard limits for one search.

Two limits, both in milliseconds from the moment the search starts:

* **soft**: do not start another iteration after this much time. Most moves end
  here, a little after it (the iteration in flight is finished).
* **hard**: abort the search, whatever it is doing. This is the safety net and
  is never more than a fixed fraction of the clock that is left after the
  ``Move Overhead`` is taken off.

:func:`plan` is a pure function of the ``go`` parameters, so it is unit-tested
without an engine. The search itself (the core, after every iteration) stretches
the planned soft limit while the root is unstable (the best move keeps changing)
or failing (the score is dropping), never past the hard limit, and scales it by
the node effort: shorter when the best move took nearly all of the search's
nodes, longer when it took few. Its constants are the ``TM_*`` rows of the
tunables table (``core_cy/tunables.py``); ``core.TimeManagerState`` runs that
decision alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


# --- Constants: each one a single idea -------------------------------------------------
#: Moves we expect still to play when the GUI does not say (sudden death).
DEFAULT_MOVES_TO_GO = 30
#: Never plan for more moves than this, even when ``movestogo`` says more.
MAX_MOVES_TO_GO = 50
#: The soft limit never exceeds this share of the clock this move can use.
SOFT_CLOCK_SHARE = 0.40
#: The hard limit: this many times the soft limit ...
HARD_FACTOR = 4.0
#: ... but never more than this share of the clock this move can use (the safety margin).
HARD_CLOCK_SHARE = 0.75
#: With ``movestogo 1`` (the last move before the control) the clock may be used
#: more freely: the next control refills it.
LAST_MOVE_SOFT_SHARE = 0.60
LAST_MOVE_HARD_SHARE = 0.85
#: The clock kept in reserve: limits are planned as if it were not on the clock.
#: Latency spikes are paid from it, and when the clock falls to it the engine
#: moves at once until increments rebuild it. It has two parts (see
#: docs/time.md for the measurements behind them):
#:
#: * a fixed part, in Move Overheads. Measured under fastchess and python-chess,
#:   the time between ``go`` and ``bestmove`` beyond the search's own time is a
#:   millisecond or two at the median, about 10 ms at the 99th percentile and up
#:   to 20 ms at the worst, idle or loaded; the per-move overhead pays the
#:   common case and two overheads of the default 10 ms pay the worst spike;
#: * a share of the clock, so that long games keep a proportionate cushion
#:   (2 s of 100 s) while bullet games are not starved: at 1+0.01 the reserve is
#:   40 ms, not the whole second that ten overheads of 100 ms used to hold back.
RESERVE_OVERHEADS = 2
RESERVE_CLOCK_SHARE = 0.02
#: Limits below 1 ms would read as "no limit" in the core (0 = unlimited).
MIN_LIMIT_MS = 1

@dataclass(frozen=True)
class TimeLimits:
    """Limits for one search, in milliseconds; 0 means "no limit"."""

    soft_ms: int = 0
    hard_ms: int = 0

    @property
    def unlimited(self) -> bool:
        return self.soft_ms == 0 and self.hard_ms == 0


NO_LIMITS = TimeLimits(0, 0)


def reserve(time_left: int, overhead: int) -> int:
    """The clock (ms) never planned for: a few overheads plus a share of the clock."""
    return RESERVE_OVERHEADS * max(0, overhead) + int(RESERVE_CLOCK_SHARE * max(0, time_left))


def plan(
    *,
    time_left: Optional[int] = None,
    increment: int = 0,
    movestogo: int = 0,
    movetime: int = 0,
    overhead: int = 0,
) -> TimeLimits:
    """Soft and hard limits (ms) for a move.

    ``time_left``/``increment`` are the mover's clock and increment (``wtime``/``winc``
    or ``btime``/``binc``), ``None`` when the GUI gave no clock for the side to move.
    ``movetime`` (if positive) wins over the clock. ``overhead`` is ``Move Overhead``:
    the time lost per move between the GUI's clock and the search; it is taken off
    this move's clock, charged again for every move of the planning horizon, and
    :func:`reserve` is kept back.
    Zero or negative clocks are treated as empty: the limits fall to 1 ms (the core
    still returns a legal move). Without ``movetime`` and clock the result is
    :data:`NO_LIMITS` (search until ``stop`` or another limit).
    """
    overhead = max(0, overhead)
    if movetime and movetime > 0:
        budget = max(MIN_LIMIT_MS, movetime - overhead)
        return TimeLimits(budget, budget)
    if time_left is None:
        return NO_LIMITS

    # The clock this move can use: what is left once this move's overhead is paid
    # and the reserve is set aside.
    usable = max(0, time_left - overhead - reserve(time_left, overhead))
    if usable <= MIN_LIMIT_MS:
        return TimeLimits(MIN_LIMIT_MS, MIN_LIMIT_MS)
    increment = max(0, increment)
    if movestogo and movestogo > 0:
        mtg = min(movestogo, MAX_MOVES_TO_GO)
    else:
        mtg = DEFAULT_MOVES_TO_GO

    # Time for the next `mtg` moves (as Stockfish plans it): the clock, plus the
    # increments still to come, minus the overhead every one of those moves will
    # cost. Charging the overhead per move is what keeps a fast game from draining
    # the clock when the GUI's latency eats most of the increment.
    horizon = max(0, time_left + increment * (mtg - 1) - overhead * (mtg + 2))
    ideal = horizon / mtg

    if mtg == 1:
        soft_cap, hard_cap = LAST_MOVE_SOFT_SHARE * usable, LAST_MOVE_HARD_SHARE * usable
    else:
        soft_cap, hard_cap = SOFT_CLOCK_SHARE * usable, HARD_CLOCK_SHARE * usable
    soft = min(ideal, soft_cap)
    hard = min(soft * HARD_FACTOR, hard_cap)
    soft_ms = max(MIN_LIMIT_MS, int(soft))
    hard_ms = max(soft_ms, int(hard))
    return TimeLimits(soft_ms, hard_ms)


def plan_for_side(
    white_to_move: bool,
    *,
    wtime: Optional[int] = None,
    btime: Optional[int] = None,
    winc: int = 0,
    binc: int = 0,
    movestogo: int = 0,
    movetime: int = 0,
    overhead: int = 0,
) -> TimeLimits:
    """:func:`plan` with the mover's clock picked out of the ``go`` parameters."""
    if white_to_move:
        time_left, increment = wtime, winc
    else:
        time_left, increment = btime, binc
    if time_left is None and (wtime is not None or btime is not None):
        time_left = 0  # a clock for the opponent only: ours is taken as empty, not unlimited
    return plan(
        time_left=time_left,
        increment=increment or 0,
        movestogo=movestogo,
        movetime=movetime,
        overhead=overhead,
    )
