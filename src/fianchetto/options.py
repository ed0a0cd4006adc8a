"""The UCI option table: every option the engine declares, in one place.

Each :class:`Option` knows its UCI type, default, range and how to read a value
from ``setoption`` text. The engine keeps the current values in an
:class:`Options` store and reacts to changes (resizing the hash, say); adding an
option (``OwnBook``, ``BookFile``, ``SyzygyPath``...) is one more entry in
:data:`OPTION_TABLE` plus, if it has an effect at set time, one branch in
``Engine.set_option``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple, Union

from fianchetto import strength

Value = Union[bool, int, str, None]


class OptionError(ValueError):
    """A ``setoption`` that cannot be applied; the message names the problem."""


@dataclass(frozen=True)
class Option:
    """One UCI option: ``check``, ``spin``, ``combo``, ``button`` or ``string``."""

    name: str
    type: str
    default: Value = None
    min: Optional[int] = None
    max: Optional[int] = None
    choices: Tuple[str, ...] = ()
    help: str = ""

    def uci_line(self) -> str:
        """The ``option name ... type ...`` line sent after ``uci``."""
        line = f"option name {self.name} type {self.type}"
        if self.type == "check":
            line += f" default {'true' if self.default else 'false'}"
        elif self.type == "spin":
            line += f" default {self.default} min {self.min} max {self.max}"
        elif self.type == "combo":
            line += f" default {self.default}" + "".join(f" var {c}" for c in self.choices)
        elif self.type == "string":
            line += f" default {self.default if self.default else '<empty>'}"
        return line

    def parse(self, text: Optional[str]) -> Value:
        """The typed value for ``setoption ... value <text>``; :class:`OptionError` if bad."""
        if self.type == "button":
            return None
        if text is None:
            if self.type == "string":
                return ""
            raise OptionError(f"option {self.name} needs a value")
        if self.type == "check":
            lowered = text.lower()
            if lowered not in ("true", "false"):
                raise OptionError(f"option {self.name} takes true or false, not {clip(text)!r}")
            return lowered == "true"
        if self.type == "spin":
            try:
                number = int(text)
            except ValueError:
                raise OptionError(f"option {self.name} takes an integer, not {clip(text)!r}") from None
            assert self.min is not None and self.max is not None
            if not self.min <= number <= self.max:
                raise OptionError(
                    f"option {self.name} value {number} out of range {self.min}..{self.max}"
                )
            return number
        if self.type == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise OptionError(f"option {self.name} takes one of {', '.join(self.choices)}, not {clip(text)!r}")
        # string
        return "" if text == "<empty>" else text


#: The core's thread limit (``MAX_THREADS`` in ``core_cy/types.pxd``).
MAX_THREADS = 256

#: Move Overhead default: the time lost per move between the GUI's clock and the
#: search. Measured (docs/time.md) under fastchess and python-chess, it is a
#: millisecond or two at the median and about 10 ms at the 99th percentile,
#: idle or loaded; the rarer spikes (up to 20 ms seen) are paid from the time
#: manager's reserve. Stockfish's default is also 10. A slow GUI or a network
#: connection (lichess-bot) wants it raised.
DEFAULT_MOVE_OVERHEAD_MS = 10

#: The shipped network's file name (``networks/`` in the source tree); as the
#: ``EvalFile`` value it means "the shipped network", as Stockfish's default does.
DEFAULT_NETWORK_NAME = "fianchetto.nnue"

OPTION_TABLE: List[Option] = [
    Option("Hash", "spin", 16, 1, 65536, help="transposition table size in MB"),
    Option("Threads", "spin", 1, 1, MAX_THREADS, help="search threads (Lazy SMP; 1 is deterministic)"),
    Option("Clear Hash", "button", help="empty the transposition table and history"),
    Option("Ponder", "check", False, help="the GUI may send go ponder"),
    Option("MultiPV", "spin", 1, 1, 256, help="number of principal variations reported"),
    Option("Move Overhead", "spin", DEFAULT_MOVE_OVERHEAD_MS, 0, 5000,
           help="ms kept back per move for communication delays"),
    Option("UCI_Chess960", "check", False, help="Chess960 castling rules and spelling"),
    Option("UCI_ShowWDL", "check", False, help="add win/draw/loss per mille (wdl W D L) to info lines"),
    Option("OwnBook", "check", False, help="play moves from the opening book"),
    Option("BookFile", "string", "", help="Polyglot book (.bin); empty = the bundled book"),
    Option("BookDepth", "spin", 20, 0, 1000, help="use the book up to this many plies into the game"),
    Option("BookVariety", "check", False, help="weighted random book moves instead of the best one"),
    Option("SyzygyPath", "string", "", help="folders of Syzygy tables, separated by ':' (';' on Windows)"),
    Option("SyzygyProbeLimit", "spin", 7, 0, 7, help="probe the tables only with at most this many pieces"),
    Option("SyzygyProbeDepth", "spin", 1, 1, 100,
           help="in the search, probe positions with the most pieces probed only from this depth on"),
    Option("Syzygy50MoveRule", "check", True, help="wins spoilt by the fifty-move rule count as draws"),
    Option("EvalFile", "string", DEFAULT_NETWORK_NAME,
           help="evaluation network file; empty or the default name = the shipped network"),
    Option("Use NNUE", "check", True, help="evaluate with the network (false: the hand-crafted evaluation)"),
    Option("UCI_LimitStrength", "check", False, help="play at the rating UCI_Elo instead of full strength"),
    Option("UCI_Elo", "spin", strength.DEFAULT_ELO, strength.MIN_ELO, strength.MAX_ELO,
           help="the rating UCI_LimitStrength plays at (docs/strength.md)"),
    Option("Skill Level", "spin", strength.MAX_SKILL_LEVEL, 0, strength.MAX_SKILL_LEVEL,
           help="0-19 play weaker on the UCI_Elo scale, 20 is full strength; UCI_LimitStrength wins"),
    Option("Debug Log File", "string", "",
           help="append every line read ('>> ') and written ('<< ') to this file; empty = no log"),
]


def clip(text: str, width: int = 60) -> str:
    """Echo of user text for an ``info string``: one line, bounded length."""
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= width else text[:width] + "..."


@dataclass
class Options:
    """Current option values, looked up case-insensitively as UCI asks."""

    table: Iterable[Option] = field(default_factory=lambda: OPTION_TABLE)

    def __post_init__(self) -> None:
        self._specs: Dict[str, Option] = {o.name.lower(): o for o in self.table}
        self._values: Dict[str, Value] = {o.name: o.default for o in self._specs.values()}

    def spec(self, name: str) -> Option:
        try:
            return self._specs[" ".join(name.split()).lower()]
        except KeyError:
            raise OptionError(f"unknown option {clip(name)!r}") from None

    def specs(self) -> List[Option]:
        return list(self._specs.values())

    def __getitem__(self, name: str) -> Value:
        return self._values[self.spec(name).name]

    def set(self, name: str, value: Value) -> None:
        self._values[self.spec(name).name] = value
