"""The search's tunable constants from Python: UCI options in the tune build, and
the parameter list for SPSA tuners (``fianchetto tune-params``).

The table is ``core_cy.tunables``. In a tune build (``FIANCHETTO_TUNE=1 pip install
.``) every row is a UCI spin option of the same name, range and default: a core
row sets the compiled search's value (``core_cy.core.set_tunable``), the time
manager's included. The default build declares no such option; its
constants are compiled in.
"""
from __future__ import annotations

import json
from typing import Dict, List, Sequence

from core_cy import tunables
from fianchetto.options import Option

_CORE_INDEX: Dict[str, int] = {t.name.lower(): i for i, t in enumerate(tunables.TUNABLES)}


def tune_build() -> bool:
    import core_cy.core as core

    return bool(core.TUNE_BUILD)


def tunable_options() -> List[Option]:
    """One spin option per tunable in the tune build; none in the default build."""
    if not tune_build():
        return []
    return [Option(t.name, "spin", t.value, t.minimum, t.maximum, help="tunable (SPSA)")
            for t in tunables.TUNABLES]


def is_tunable(name: str) -> bool:
    try:
        tunables.by_name(name)
    except KeyError:
        return False
    return tune_build()


def apply(name: str, value: int) -> None:
    """Give tunable `name` the value `value` (tune build; between searches)."""
    import core_cy.core as core

    core.set_tunable(_CORE_INDEX[tunables.by_name(name).name.lower()], int(value))


def current_values() -> Dict[str, int]:
    """Every tunable's value as the running engine has it (the defaults, unless a tune
    build's options changed them)."""
    import core_cy.core as core

    return dict(zip((t.name for t in tunables.TUNABLES), core.tunable_values()))


def openbench_text(values: Dict[str, int]) -> str:
    """OpenBench's SPSA input: one ``name, int, value, min, max, c_end, r_end`` line each."""
    return "\n".join(tunables.openbench_line(t, values[t.name]) for t in tunables.TUNABLES)


def json_text(values: Dict[str, int]) -> str:
    rows = [dict(t._asdict(), value=values[t.name], default=t.value) for t in tunables.TUNABLES]
    return json.dumps(rows, indent=1)


def main_tune_params(argv: Sequence[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="fianchetto tune-params",
                                     description="the search's tunable constants, for SPSA tuners")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--openbench", action="store_true", help="OpenBench's SPSA input format (the default)")
    form.add_argument("--json", action="store_true", help="JSON, for tools")
    args = parser.parse_args(list(argv))
    values = current_values()
    print(json_text(values) if args.json else openbench_text(values))
    return 0
