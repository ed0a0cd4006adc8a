"""Playing strength limited to a rating: ``UCI_LimitStrength`` and ``UCI_Elo``.

A weaker player is modelled in two ways, both growing with the rating:

* it **sees less**: the search gets a node budget that doubles every
  :data:`ELO_PER_DOUBLING` points, from :data:`NODES_AT_MIN_ELO` at the bottom of
  the range;
* it **judges less precisely**: the search reports its best few moves
  (MultiPV: :data:`MAX_CANDIDATES` at the bottom of the range, falling to one
  at :data:`SINGLE_LINE_ELO`), each score is blurred by Gaussian noise whose
  spread falls from :data:`NOISE_AT_MIN_ELO` centipawns to none there, and the
  move with the best blurred score is played.

Every extra candidate costs the search depth (each line is searched in full), so
the number of candidates falls with the rating: at the top the node budget is
the only limit.

Moves of nearly equal value are then chosen almost at random, a move a pawn
worse now and then at low ratings, and a move that loses a piece almost never:
the errors of a player who misjudges, not of one who moves at random.
docs/strength.md records how the levels score against Stockfish's own
``UCI_Elo``, which is what the constants are set by.
"""
from __future__ import annotations

import random
from typing import Optional, Sequence

from fianchetto.score import Score

MIN_ELO = 1000
MAX_ELO = 2500
DEFAULT_ELO = 1500
#: Where the judgement is clean: the noise is gone from here up, and the
#: candidates, falling linearly towards one here, round to one from 2042.
#: Above it only the node budget (and the clock) holds the search back.
SINGLE_LINE_ELO = 2250
#: Moves the limited search considers (its MultiPV) at MIN_ELO.
MAX_CANDIDATES = 4
#: The node budget at MIN_ELO, and how many rating points double it.
NODES_AT_MIN_ELO = 333
ELO_PER_DOUBLING = 114
#: Standard deviation (centipawns) of the noise on each candidate's score at
#: MIN_ELO; it falls linearly to none at SINGLE_LINE_ELO.
NOISE_AT_MIN_ELO = 80.0


def clamp_elo(elo: int) -> int:
    return max(MIN_ELO, min(MAX_ELO, int(elo)))


def judgement_share(elo: int) -> float:
    """How far the rating is from the noisiest judgement to a single clean line:
    0 at MIN_ELO, 1 from SINGLE_LINE_ELO up."""
    return min(1.0, (clamp_elo(elo) - MIN_ELO) / (SINGLE_LINE_ELO - MIN_ELO))


def node_budget(elo: int) -> int:
    """Nodes per move at this rating."""
    return int(NODES_AT_MIN_ELO * 2 ** ((clamp_elo(elo) - MIN_ELO) / ELO_PER_DOUBLING))


def noise_cp(elo: int) -> float:
    """Spread of the judgement error at this rating, in centipawns."""
    return NOISE_AT_MIN_ELO * (1.0 - judgement_share(elo))


def candidates(elo: int) -> int:
    """How many moves the limited search reports (its MultiPV) at this rating."""
    return max(1, round(MAX_CANDIDATES - (MAX_CANDIDATES - 1) * judgement_share(elo)))


def choose(scores: Sequence[Score], elo: int, rng: Optional[random.Random] = None) -> int:
    """Index of the candidate to play, given the candidates' scores (best first)."""
    if not scores:
        raise ValueError("no candidate moves")
    rng = rng or random.Random()
    spread = noise_cp(elo)
    blurred = [score.as_cp() + rng.gauss(0.0, spread) for score in scores]
    return max(range(len(scores)), key=blurred.__getitem__)
