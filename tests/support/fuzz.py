"""Seeded random inputs for the fuzz tests.

A :class:`Fuzz` is a ``random.Random`` with the few draws the fuzzers need.
Every example is made from one integer seed, so a failure names the seed (and
the input) that reproduces it; nothing beyond the standard library is needed.
"""
from __future__ import annotations

import random
from typing import Callable, List, Sequence, TypeVar

T = TypeVar("T")

#: Code points for arbitrary text: ASCII, Latin-1, general Unicode and the planes
#: above, never a surrogate (which no str read from a pipe or file can hold).
_CODE_POINT_RANGES = ((0x00, 0x7F), (0x80, 0xFF), (0x100, 0xD7FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF))


class Fuzz:
    """Draws for one example, all from a generator seeded by ``seed``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high]; the ends come up more often than by chance."""
        roll = self.rng.random()
        if roll < 0.05:
            return low
        if roll < 0.10:
            return high
        return self.rng.randint(low, high)

    def boolean(self) -> bool:
        return self.rng.random() < 0.5

    def choice(self, items: Sequence[T]) -> T:
        return items[self.rng.randrange(len(items))]

    def one_of(self, *makers: Callable[["Fuzz"], T]) -> T:
        """The value of one of the makers, chosen uniformly."""
        return self.choice(makers)(self)

    def list_of(self, maker: Callable[["Fuzz"], T], min_size: int, max_size: int) -> List[T]:
        return [maker(self) for _ in range(self.integer(min_size, max_size))]

    def text(self, max_size: int, alphabet: str = "", exclude: str = "") -> str:
        """Up to max_size characters from `alphabet`, or from all of Unicode
        (no surrogates, nothing in `exclude`) when the alphabet is empty."""
        size = self.integer(0, max_size)
        if alphabet:
            return "".join(self.choice(alphabet) for _ in range(size))
        chars = []
        while len(chars) < size:
            low, high = self.choice(_CODE_POINT_RANGES)
            char = chr(self.rng.randint(low, high))
            if char not in exclude:
                chars.append(char)
        return "".join(chars)

    def binary(self, max_size: int) -> bytes:
        return bytes(self.rng.randrange(256) for _ in range(self.integer(0, max_size)))
