"""Every tunable constant of the search and its time manager, declared once.

Each row names a constant, its value, the range a tuner may move it in, and the
SPSA step (``c_end``) and learning rate (``r_end``) at the end of a tune, in the
sense of OpenBench's SPSA workloads. Integers only: a fraction is stored scaled
(``LMR_BASE_X100 = 80`` is 0.80).

Each row becomes a C constant of the compiled search (``tools/gen_tunables.py``
writes ``tunables.h`` and ``tunables.pxi`` from this table): the default build
compiles them in as literals, the tune build, ``FIANCHETTO_TUNE=1``, reads them
from an array the UCI options write.

Plain Python without imports from the package: the build and the tools read it
before anything is compiled.
"""
from typing import Iterable, NamedTuple, Optional, Tuple


class Tunable(NamedTuple):
    name: str
    value: int
    minimum: int
    maximum: int
    c_end: float
    r_end: float


def row(name: str, value: int, minimum: int, maximum: int, c_end: float = 0.0, r_end: float = 0.002) -> Tunable:
    """A row whose SPSA step defaults to a twentieth of its value (at least 0.5)."""
    return Tunable(name, value, minimum, maximum, c_end or max(value / 20, 0.5), r_end)


TUNABLES: Tuple[Tunable, ...] = (
    # Aspiration windows.
    row("ASPIRATION_MIN_DEPTH", 5, 2, 9, 0.5),
    row("ASPIRATION_DELTA", 16, 5, 60),
    # Reverse futility pruning and razoring.
    row("RFP_MAX_DEPTH", 7, 4, 12, 0.5),
    row("RFP_MARGIN", 108, 40, 250),
    row("RAZOR_MAX_DEPTH", 1, 0, 5, 0.5),           # 0: no razoring
    row("RAZOR_MARGIN", 378, 150, 700),
    # Null move pruning.
    row("NMP_MIN_DEPTH", 2, 1, 6, 0.5),
    row("NMP_BASE_REDUCTION", 4, 1, 6, 0.5),
    row("NMP_DEPTH_DIVISOR_X100", 400, 200, 800, 30),
    row("NMP_EVAL_DIVISOR", 298, 100, 600),
    row("NMP_MAX_EVAL_REDUCTION", 3, 1, 6, 0.5),
    # Internal iterative reduction.
    row("IIR_MIN_DEPTH", 4, 2, 8, 0.5),
    # Late move pruning: (LMP_BASE + depth^2) quiets, halved when not improving.
    row("LMP_MAX_DEPTH", 8, 4, 12, 0.5),
    row("LMP_BASE", 3, 0, 10, 0.5),
    # Futility pruning.
    row("FUTILITY_MAX_DEPTH", 6, 3, 10, 0.5),
    row("FUTILITY_BASE", 119, 0, 300),
    row("FUTILITY_MARGIN", 136, 50, 300),
    # SEE pruning of quiet moves and captures.
    row("SEE_QUIET_MAX_DEPTH", 8, 3, 12, 0.5),
    row("SEE_QUIET_MARGIN", 25, 5, 80, 2),
    row("SEE_CAPTURE_MAX_DEPTH", 6, 3, 10, 0.5),
    row("SEE_CAPTURE_MARGIN", 86, 30, 200),
    # Late move reductions: LMR_BASE + log(depth) log(moves) / LMR_DIVISOR.
    row("LMR_MIN_DEPTH", 3, 2, 5, 0.5),
    row("LMR_BASE_X100", 79, 0, 200, 6),
    row("LMR_DIVISOR_X100", 215, 130, 400, 10),
    row("LMR_HISTORY_DIVISOR", 9013, 3000, 30000, 600),
    row("ROOT_LMR_MIN_MOVES", 3, 1, 8, 0.5),
    row("ROOT_LMR_PERCENT", 100, 25, 150, 8),      # of the table's reduction
    # Quiescence delta pruning.
    row("QS_DELTA_MARGIN", 329, 100, 600),
    # History bonus (and malus) per cut-off: min(SCALE * depth - OFFSET, MAX).
    row("HISTORY_BONUS_SCALE", 385, 100, 800),
    row("HISTORY_BONUS_OFFSET", 199, 0, 600),
    row("HISTORY_BONUS_MAX", 2545, 800, 4800, 120),
    # Time manager (search.pxi): how much instability, a falling score (in the
    # network's units) and node effort stretch the soft limit.
    row("TM_BEST_MOVE_CHANGE_WEIGHT_X100", 49, 0, 150, 5),
    row("TM_BEST_MOVE_CHANGE_DECAY_X100", 52, 10, 90, 4),
    row("TM_SCORE_DROP_SCALE_CP", 97, 30, 300, 8),
    row("TM_MAX_SCORE_DROP_FACTOR_X100", 152, 100, 250, 8),
    row("TM_NODE_EFFORT_BASE_X100", 148, 100, 250, 8),
    row("TM_NODE_EFFORT_SLOPE_X100", 107, 0, 200, 8),
)



def by_name(name: str, rows: Optional[Iterable[Tunable]] = None) -> Tunable:
    """The row called `name` (any case) in `rows`, by default this table."""
    for t in TUNABLES if rows is None else rows:
        if t.name.lower() == name.lower():
            return t
    raise KeyError(name)


def openbench_line(t: Tunable, value: int) -> str:
    """One line of OpenBench's SPSA input: name, int, value, min, max, c_end, r_end."""
    return f"{t.name}, int, {value}, {t.minimum}, {t.maximum}, {t.c_end:g}, {t.r_end:g}"
