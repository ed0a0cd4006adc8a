"""Playing strength limited to a rating: ``UCI_LimitStrength``/``UCI_Elo`` and ``Skill Level``.

A weaker player is modelled in two ways, both growing with the rating:

* it **sees less**: the search gets a node budget;
* it **judges less precisely**: the search reports its best few moves (MultiPV),
  each score is blurred by Gaussian noise, and the move with the best blurred
  score is played.

Every extra candidate costs the search depth (each line is searched in full), so
the number of candidates falls with the rating: at the top the node budget is
the only limit. Moves of nearly equal value are then chosen almost at random, a
move a pawn worse now and then at low ratings, and a move that loses a piece
almost never: the errors of a player who misjudges, not of one who moves at
random.

The three quantities are a table, ``strength.json`` beside this module: at each
anchor rating a node budget, a number of candidates and a noise spread; between
anchors the budget is interpolated geometrically and the others linearly, and
above the last anchor the budget keeps growing at the last step's rate.
``full_strength_elo`` is the engine's own measured strength on the same scale,
the top of the ``UCI_Elo`` range, where nothing is limited. ``tools/calibrate.py
--fit`` refits the budgets from games against Stockfish's ``UCI_Elo`` levels;
docs/strength.md keeps the measurements.

``Skill Level`` (0-20, as in Stockfish) maps onto the same ratings: 20 is full
strength, 0 the bottom of the range, evenly spaced between. ``UCI_LimitStrength``
wins when both are set.
"""
from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, List, Mapping, Optional, Sequence, Tuple

from fianchetto.score import Score, SearchInfo

TABLE_PATH = Path(__file__).with_name("strength.json")
MAX_SKILL_LEVEL = 20


@dataclass(frozen=True)
class Anchor:
    elo: int
    nodes: int
    candidates: int
    noise_cp: float


def load_table(path: Path = TABLE_PATH) -> Tuple[int, List[Anchor]]:
    """(full-strength rating, anchors by rising rating) from a strength table file;
    ValueError when the table is not usable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        anchors = sorted((Anchor(int(a["elo"]), int(a["nodes"]), int(a["candidates"]), float(a["noise_cp"]))
                          for a in data["anchors"]), key=lambda a: a.elo)
        top = int(data["full_strength_elo"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a strength table ({exc})") from exc
    if len(anchors) < 2 or top <= anchors[-1].elo or len({a.elo for a in anchors}) != len(anchors) \
            or any(a.nodes < 1 or a.candidates < 1 or a.noise_cp < 0 for a in anchors):
        raise ValueError(f"{path}: anchors must be at least two distinct ratings below "
                         "full_strength_elo, with positive budgets and candidates")
    return top, anchors


def save_table(full_strength_elo: int, anchors: Sequence[Anchor], path: Path = TABLE_PATH) -> None:
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data["full_strength_elo"] = int(full_strength_elo)
    data["anchors"] = ["@%d@" % i for i in range(len(anchors))]       # one anchor per line
    text = json.dumps(data, indent=2)
    for i, a in enumerate(anchors):
        row = {"elo": a.elo, "nodes": a.nodes, "candidates": a.candidates, "noise_cp": a.noise_cp}
        text = text.replace(f'"@{i}@"', json.dumps(row))
    path.write_text(text + "\n", encoding="utf-8")


FULL_STRENGTH_ELO, ANCHORS = load_table()
MIN_ELO = ANCHORS[0].elo
#: The top of the UCI_Elo range: the engine's measured full strength, unlimited.
MAX_ELO = FULL_STRENGTH_ELO
DEFAULT_ELO = 1500
#: Moves the limited search considers (its MultiPV) at MIN_ELO.
MAX_CANDIDATES = ANCHORS[0].candidates


def clamp_elo(elo: int) -> int:
    return max(MIN_ELO, min(MAX_ELO, int(elo)))


def _segment(elo: int) -> Tuple[Anchor, Anchor, float]:
    """The anchors around a (clamped) rating and how far along it is, 0..1; past the
    last anchor, the last two anchors and a share above 1."""
    elo = clamp_elo(elo)
    for low, high in zip(ANCHORS, ANCHORS[1:]):
        if elo <= high.elo:
            return low, high, (elo - low.elo) / (high.elo - low.elo)
    low, high = ANCHORS[-2], ANCHORS[-1]
    return low, high, (elo - low.elo) / (high.elo - low.elo)


def node_budget(elo: int) -> int:
    """Nodes per move at this rating (0 at full strength: no budget)."""
    if clamp_elo(elo) >= MAX_ELO:
        return 0
    low, high, t = _segment(elo)
    return int(round(low.nodes * (high.nodes / low.nodes) ** t))


def noise_cp(elo: int) -> float:
    """Spread of the judgement error at this rating, in centipawns."""
    low, high, t = _segment(elo)
    return max(0.0, low.noise_cp + (high.noise_cp - low.noise_cp) * min(t, 1.0))


def candidates(elo: int) -> int:
    """How many moves the limited search reports (its MultiPV) at this rating."""
    low, high, t = _segment(elo)
    return max(1, round(low.candidates + (high.candidates - low.candidates) * min(t, 1.0)))


def skill_to_elo(level: int) -> int:
    """The rating of Skill Level 0..20 (20: full strength)."""
    level = max(0, min(MAX_SKILL_LEVEL, int(level)))
    return round(MIN_ELO + (MAX_ELO - MIN_ELO) * level / MAX_SKILL_LEVEL)


def limited_elo(limit_strength: bool, uci_elo: int, skill_level: int) -> Optional[int]:
    """The rating to play at, or None at full strength: UCI_Elo when
    UCI_LimitStrength is on, else the Skill Level's rating below 20."""
    elo = clamp_elo(uci_elo) if limit_strength else skill_to_elo(skill_level)
    return None if elo >= MAX_ELO else elo


def rating_of(options: Mapping[str, Any]) -> Optional[int]:
    """:func:`limited_elo` of the current values of ``UCI_LimitStrength``,
    ``UCI_Elo`` and ``Skill Level`` (the UCI engine's options or an Engine's)."""
    return limited_elo(bool(options["UCI_LimitStrength"]), int(options["UCI_Elo"]), int(options["Skill Level"]))


def choose(scores: Sequence[Score], elo: int, rng: Optional[random.Random] = None) -> int:
    """Index of the candidate to play, given the candidates' scores (best first)."""
    if not scores:
        raise ValueError("no candidate moves")
    rng = rng or random.Random()
    spread = noise_cp(elo)
    blurred = [score.as_cp() + rng.gauss(0.0, spread) for score in scores]
    return max(range(len(scores)), key=blurred.__getitem__)


def limited_search(nodes: int, multipv: int, elo: int) -> Tuple[int, int]:
    """The search at this rating: (nodes, multipv) within its node budget (the
    smaller of the two when the caller limits nodes too) and with at least its
    candidates as lines."""
    budget = node_budget(elo)
    return (min(nodes, budget) if nodes else budget), max(multipv, candidates(elo))


def pick_line(lines: Sequence[SearchInfo], elo: int, rng: Optional[random.Random] = None) -> Optional[SearchInfo]:
    """The line to play at this rating among its candidates (`lines`, each root
    move's latest line, best first): the best ranked of the deepest iteration
    that offers the rating its candidates, as many as the rating has however
    many lines MultiPV shows. A budget that ends an iteration after its first
    lines leaves the others at the depth before: the choice then takes each
    move's deepest line. None when fewer than two are there to choose from (the
    search's own best move stands)."""
    scored = [line for line in lines if line.pv and line.score is not None]
    if len(scored) < 2:
        return None
    wanted = min(candidates(elo), len(scored))
    if wanted < 2:
        return None
    depth = sorted((line.depth for line in scored), reverse=True)[wanted - 1]   # the wanted-th deepest line's
    pool = [line for line in scored if line.depth >= depth][:wanted]
    return pool[choose([line.score for line in pool], elo, rng)]


def lines_to_show(lines: Sequence[SearchInfo], chosen: SearchInfo, shown: int) -> List[SearchInfo]:
    """The closing lines of a search at a rating: the ``chosen`` line as multipv 1,
    then the other root moves' ``lines`` in their order, ranked 2 on, ``shown``
    (the MultiPV asked for) in all. Each root move is named once, and a GUI that
    keeps each rank's last line shows the move played first."""
    others = [line for line in sorted(lines, key=lambda line: line.multipv or 1)
              if line.pv and line.pv[0] != chosen.pv[0]]
    return [replace(line, multipv=rank) for rank, line in enumerate([chosen] + others, start=1)][:shown]


def refit_budget(nodes: int, elo_difference: float, elo_per_doubling: float, damping: float = 0.8) -> int:
    """A node budget moved against a measured rating difference (positive: the level
    played too strongly), assuming each doubling of nodes is worth
    `elo_per_doubling` at this level; `damping` < 1 moves only part of the way."""
    return max(16, int(round(nodes * 2 ** (-damping * elo_difference / elo_per_doubling))))


def elo_per_doubling(elo: int) -> float:
    """Rating points per doubling of the budget, as the table has it around `elo`."""
    low, high, _ = _segment(elo)
    return (high.elo - low.elo) / max(1e-9, math.log2(high.nodes / low.nodes))
