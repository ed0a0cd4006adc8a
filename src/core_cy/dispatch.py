"""Which variant of the compiled core to load: the CPU's features against the variants.

``core_cy.core`` calls :func:`load` on import. ``FIANCHETTO_CPU`` (``baseline``,
``avx2``, ...) forces a variant: one that this CPU cannot run, or that the build
does not hold, is refused with a message on stderr naming the CPU's features,
and the baseline is loaded instead (never an illegal-instruction crash).
``FIANCHETTO_DISABLE_CPU_FEATURES`` (comma or space separated names) hides
features from the check, to test the fallback on any machine.
"""
import importlib
import importlib.machinery
import os
import platform
import sys
from pathlib import Path
from typing import List, Optional, Tuple

from core_cy import cpu, variants

ENV_CHOICE = "FIANCHETTO_CPU"
ENV_DISABLE = "FIANCHETTO_DISABLE_CPU_FEATURES"


def cpu_features() -> Tuple[str, ...]:
    """The CPU's features, less any that FIANCHETTO_DISABLE_CPU_FEATURES hides."""
    hidden = set(os.environ.get(ENV_DISABLE, "").replace(",", " ").lower().split())
    return tuple(name for name in cpu.features() if name not in hidden)


def built_variants() -> List[variants.Variant]:
    """The variants this installation holds, best first: the extension modules
    beside this file (not elsewhere on the path: a checked build in a folder of
    its own must not pick up an optimised variant installed for development)."""
    folder = Path(__file__).resolve().parent
    present = {path.name[len("_core_"):-len(suffix)]
               for suffix in importlib.machinery.EXTENSION_SUFFIXES
               for path in folder.glob(f"_core_*{suffix}")}
    rows = variants.for_arch(variants.arch_of(platform.machine())) + (variants.NATIVE,)
    return [row for row in rows if row.name in present]


def runnable(have: Tuple[str, ...], built: List[variants.Variant]) -> List[variants.Variant]:
    """The variants of ``built`` a CPU with the features ``have`` can run, best first."""
    return [v for v in built if set(v.requires) <= set(have)]


def runnable_variants() -> List[str]:
    """The names of the installed variants this CPU runs, best first."""
    return [v.name for v in runnable(cpu_features(), built_variants())]


def choose(forced: Optional[str], have: Tuple[str, ...],
           built: List[variants.Variant]) -> Tuple[variants.Variant, Optional[str]]:
    """The variant to load and, when the forced choice is refused, why."""
    runnable_here = runnable(have, built)
    if not runnable_here:
        raise ImportError("no variant of the compiled core can run on this CPU "
                          f"(built: {', '.join(v.name for v in built) or 'none'})")
    if not forced:
        return runnable_here[0], None
    fallback = runnable_here[-1]      # the least demanding: the baseline
    named = {v.name: v for v in built}
    if forced not in named:
        known = ", ".join(v.name for v in built)
        return fallback, (f"{ENV_CHOICE}={forced}: this build has no such variant (it has: {known}); "
                          f"using {fallback.name}")
    wanted = named[forced]
    missing = [f for f in wanted.requires if f not in have]
    if missing:
        return fallback, (f"{ENV_CHOICE}={forced}: this CPU cannot run it (lacks {' '.join(missing)}; "
                          f"has: {' '.join(have) or 'no extensions'}); using {fallback.name}")
    return wanted, None


PROFILE_STAMP = variants.PROFILE_STAMP


def build_profile(folder: Optional[Path] = None) -> Optional[str]:
    """What guided the last build of the variants beside this file, as setup.py
    stamped it in ``build-profile.txt``: the names of the profiled variants
    (``"avx2 baseline"``), ``"none (why)"``, or None for a build without a stamp."""
    stamp = (folder or Path(__file__).resolve().parent) / PROFILE_STAMP
    try:
        text = stamp.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


def load():
    """Import the chosen variant and label it (CPU_VARIANT and friends)."""
    have = cpu_features()
    built = built_variants()
    forced = os.environ.get(ENV_CHOICE, "").strip().lower() or None
    chosen, warning = choose(forced, have, built)
    if warning:
        print(f"fianchetto: {warning}", file=sys.stderr, flush=True)
    module = importlib.import_module(f"core_cy._core_{chosen.name}")
    module.CPU_VARIANT = chosen.name
    module.CPU_VARIANT_SUMMARY = chosen.summary
    module.CPU_FEATURES = have
    module.CPU_VARIANTS = tuple(v.name for v in built)
    module.CPU_WARNING = warning
    return module

