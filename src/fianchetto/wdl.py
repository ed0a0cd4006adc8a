"""Win/draw/loss from a score, and the centipawns people read.

The search's scores are in the network's units, which drift with every network
(the x1.5 of generation 6). A :class:`WdlModel`, fitted on the engine's own
self-play games (``fianchetto wdl-fit``, :mod:`fianchetto.learn.wdlfit`), says
how likely a score wins, as Stockfish's model does:

    P(win)  = c / (1 + exp((a - x) / b))
    P(loss) = c / (1 + exp((a + x) / b))
    P(draw) = 1 - P(win) - P(loss)

with ``x`` the score in the search's units and ``a``, ``b`` cubic polynomials in
the material on the board (pawn 1, knight and bishop 3, rook 5, queen 9, both
sides, clamped to 17..78, divided by 58). ``c`` is the plateau, the win rate of
an overwhelming score: 1 with much material, lower in the endgame, where even a
large advantage draws now and then (wrong-coloured bishops, rook endings):
``c = 1 - sigmoid(d) / 2`` with ``d`` a polynomial in the same material (a model
without ``d`` has ``c = 1``). The score that wins half the time, the midpoint,
is ``a - b ln(2c - 1)``; the engine reports ``100 * x / midpoint`` as
centipawns, so that ``score cp 100`` means a 50% chance to win, whatever the
network. Each network carries its model
in a file beside it (``<network>.wdl.json``); a network without one is reported
with the default model, fitted for the shipped network (the engine says
so in an ``info string`` when it loads such a network).

>>> model = DEFAULT_MODEL
>>> model.to_cp(0, 58), sum(model.wdl(123, 58))
(0, 1000)
>>> model.wdl(model.midpoint(58), 58)[0]  # the midpoint wins half the time
500
>>> model.wdl(model.midpoint(20), 20)[0]
500
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence, Tuple

#: Material is counted in pawns (both sides) and clamped to this range.
MATERIAL_MIN, MATERIAL_MAX, MATERIAL_REFERENCE = 17, 78, 58
PIECE_MATERIAL = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9}
MODEL_SUFFIX = ".wdl.json"


def material_of_fen(fen: str) -> int:
    """Pawns' worth of material on the board of a FEN (both sides)."""
    placement = fen.split()[0]
    return sum(PIECE_MATERIAL.get(ch.lower(), 0) for ch in placement)


def _material_share(material: int) -> float:
    return min(MATERIAL_MAX, max(MATERIAL_MIN, material)) / MATERIAL_REFERENCE


def _poly(coefficients: Sequence[float], m: float) -> float:
    return sum(c * m ** i for i, c in enumerate(coefficients))


@dataclass(frozen=True)
class WdlModel:
    """``a``, ``b`` and the plateau's ``d`` as polynomial coefficients (lowest
    power first) in material / 58 (no ``d``: no plateau); ``source`` says where
    the model came from."""

    a: Tuple[float, ...]
    b: Tuple[float, ...]
    source: str = "default"
    d: Tuple[float, ...] = ()

    def a_b(self, material: int) -> Tuple[float, float]:
        m = _material_share(material)
        return max(1.0, _poly(self.a, m)), max(1.0, _poly(self.b, m))

    def plateau(self, material: int) -> float:
        """The win rate of an overwhelming score, between 0.5 and 1."""
        if not self.d:
            return 1.0
        return 1.0 - 0.5 / (1.0 + math.exp(-max(-700.0, min(700.0, _poly(self.d, _material_share(material))))))

    def midpoint(self, material: int) -> float:
        """The score that wins half the time."""
        a, b = self.a_b(material)
        return a - b * math.log(max(2 * self.plateau(material) - 1, 1e-9))

    def to_cp(self, score: int, material: int) -> int:
        """The search's score as normalised centipawns: 100 = a 50% chance to win."""
        return int(round(100 * score / self.midpoint(material)))

    def wdl(self, score: int, material: int) -> Tuple[int, int, int]:
        """Win, draw and loss per mille for the side to move; they sum to 1000."""
        a, b = self.a_b(material)
        c = self.plateau(material)
        win = int(round(1000 * c / (1 + math.exp(min(700.0, (a - score) / b)))))
        loss = int(round(1000 * c / (1 + math.exp(min(700.0, (a + score) / b)))))
        return win, 1000 - win - loss, loss

    def to_json(self) -> str:
        data = {"a": list(self.a), "b": list(self.b), "d": list(self.d),
                "material_reference": MATERIAL_REFERENCE, "source": self.source}
        return json.dumps(data, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, source: str = "file") -> "WdlModel":
        """A model from its JSON; ValueError when it is not one."""
        try:
            data = json.loads(text)
            a, b = tuple(float(x) for x in data["a"]), tuple(float(x) for x in data["b"])
            d = tuple(float(x) for x in data.get("d", ()))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a WDL model ({exc})") from None
        if not a or not b or len(a) > 8 or len(b) > 8 or len(d) > 8:
            raise ValueError("a WDL model has 1 to 8 coefficients for a and for b, at most 8 for d")
        if not all(math.isfinite(x) for x in a + b + d):
            raise ValueError("a WDL model's coefficients are finite numbers")
        return cls(a, b, str(data.get("source", source)), d)


#: Fitted by ``fianchetto wdl-fit`` on the 1,717,689 filtered positions of 21,713
#: self-play games of the shipped network, generation 8 (docs/training.md);
#: networks/fianchetto.nnue.wdl.json holds the same model beside the network.
#: The midpoint runs from about 492 at the least material to 124 with every
#: piece on the board (148 at 58 pawns' worth); the plateau is 0.955 at 17
#: pawns' worth and 1 from about 35 up.
DEFAULT_MODEL = WdlModel(a=(646.3749, -552.0730, -141.3998, 195.4797),
                         b=(97.5613, 192.5080, 59.3484, -104.5771),
                         source="default", d=(0.1710, -6.1218, -8.1667))


def exact(score_sign: int) -> Tuple[int, int, int]:
    """The WDL of a proven result: a mate or a tablebase verdict."""
    return (1000, 0, 0) if score_sign > 0 else (0, 0, 1000) if score_sign < 0 else (0, 1000, 0)


def load_model(network: Optional[str]) -> Tuple[WdlModel, Optional[str]]:
    """The model beside a network file (``<file>.wdl.json``) and None; or, when
    there is none or it cannot be used, the default model and a sentence saying so."""
    if not network:
        return DEFAULT_MODEL, None
    path = Path(network + MODEL_SUFFIX)
    fallback = "scores are normalised with the shipped network's model"
    try:
        text = path.read_text()
    except FileNotFoundError:
        return DEFAULT_MODEL, f"no win/draw/loss model beside {network} ({path.name}); {fallback}"
    except (OSError, UnicodeDecodeError) as exc:
        return DEFAULT_MODEL, f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}; {fallback}"
    try:
        return WdlModel.from_json(text, source=str(path)), None
    except ValueError as exc:
        return DEFAULT_MODEL, f"{path} refused: {exc}; {fallback}"
