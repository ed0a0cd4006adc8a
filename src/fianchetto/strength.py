"""Playing strength limited to a rating: ``UCI_LimitStrength`` and ``UCI_Elo``.

A weaker player is modelled in two ways, both growing with the rating:

* it **sees less**: the search gets a node budget that doubles every
  :data:`ELO_PER_DOUBLING` points, from :data:`NODES_AT_MIN_ELO` at the bottom of
  the range;
* it **judges less precisely**: the search reports its best
  :data:`CANDIDATES` moves (MultiPV), each score is blurred by Gaussian noise
  whose spread falls from :data:`NOISE_AT_MIN_ELO` to :data:`NOISE_AT_MAX_ELO`
  centipawns, and the move with the best blurred score is played.

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
MAX_ELO = 2600
DEFAULT_ELO = 1500
#: Moves the limited search considers (its MultiPV).
CANDIDATES = 4
#: The node budget at MIN_ELO, and how many rating points double it.
NODES_AT_MIN_ELO = 200
ELO_PER_DOUBLING = 200
#: Standard deviation (centipawns) of the noise on each candidate's score.
NOISE_AT_MIN_ELO = 160.0
NOISE_AT_MAX_ELO = 10.0


def clamp_elo(elo: int) -> int:
    return max(MIN_ELO, min(MAX_ELO, int(elo)))


def node_budget(elo: int) -> int:
    """Nodes per move at this rating."""
    return int(NODES_AT_MIN_ELO * 2 ** ((clamp_elo(elo) - MIN_ELO) / ELO_PER_DOUBLING))


def noise_cp(elo: int) -> float:
    """Spread of the judgement error at this rating, in centipawns."""
    share = (clamp_elo(elo) - MIN_ELO) / (MAX_ELO - MIN_ELO)
    return NOISE_AT_MIN_ELO + share * (NOISE_AT_MAX_ELO - NOISE_AT_MIN_ELO)


def choose(scores: Sequence[Score], elo: int, rng: Optional[random.Random] = None) -> int:
    """Index of the candidate to play, given the candidates' scores (best first)."""
    if not scores:
        raise ValueError("no candidate moves")
    rng = rng or random.Random()
    spread = noise_cp(elo)
    blurred = [score.as_cp() + rng.gauss(0.0, spread) for score in scores]
    return max(range(len(scores)), key=blurred.__getitem__)
