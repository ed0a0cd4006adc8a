"""What a build of the compiled core makes, decided once from the environment.

``FIANCHETTO_DEBUG=1`` builds one variant, the baseline, with bounds and
wraparound checks on, C assertions enabled and ``-O0 -g``; ``FIANCHETTO_NATIVE=1``
builds one variant, ``native``, with ``-march=native`` (``-mcpu=native`` on
arm64, ``/arch:AVX2`` with MSVC on x64), which runs only on CPUs like the
builder's. ``FIANCHETTO_VARIANTS=baseline`` (names, comma separated) builds only
those variants. ``FIANCHETTO_TUNE=1`` builds the search's tunable constants
(``src/core_cy/tunables.py``) as values the UCI options set, for SPSA tuning.
``FIANCHETTO_PGO=0`` builds in one pass instead of two around a profile
(``pgo.py``).
"""
import importlib.util
import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import List, Mapping, Tuple

from setuptools import Extension

MSVC = sys.platform == "win32"


def load_module(path: Path) -> ModuleType:
    """A plain Python file read by path: the packages it belongs to are not built yet."""
    spec = importlib.util.spec_from_file_location(f"fianchetto_build_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # NamedTuple needs its module registered
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class BuildPlan:
    """The flavour of one build and where its sources are."""

    root: Path
    debug: bool = False
    native: bool = False
    tune: bool = False
    pgo: bool = True
    only: Tuple[str, ...] = ()       # FIANCHETTO_VARIANTS: build only these

    @classmethod
    def from_environment(cls, root: Path, environ: Mapping[str, str] = os.environ) -> "BuildPlan":
        return cls(root=root,
                   debug=environ.get("FIANCHETTO_DEBUG") == "1",
                   native=environ.get("FIANCHETTO_NATIVE") == "1",
                   tune=environ.get("FIANCHETTO_TUNE") == "1",
                   pgo=environ.get("FIANCHETTO_PGO", "1") != "0",
                   only=tuple(environ.get("FIANCHETTO_VARIANTS", "").replace(",", " ").split()))

    @property
    def core(self) -> Path:
        return self.root / "src" / "core_cy"

    @property
    def flavour(self) -> str:
        """What distinguishes this build's compiled variants from another's."""
        return f"debug={self.debug} native={self.native} tune={self.tune} " + ",".join(self.only)

    def variants(self) -> ModuleType:
        """core_cy/variants.py, the table of variants the loader reads too."""
        return load_module(self.core / "variants.py")

    def arch(self) -> str:
        """x86-64, arm64 or the machine's own name. On macOS, ARCHFLAGS (set by
        cibuildwheel when it builds for the other architecture) wins; a universal
        build gets the portable variant alone, whose flags suit both."""
        archflags = os.environ.get("ARCHFLAGS", "").split()
        targets = {archflags[i + 1] for i in range(len(archflags) - 1) if archflags[i] == "-arch"}
        if len(targets) > 1:
            return "universal"
        return self.variants().arch_of(targets.pop() if targets else platform.machine())

    def builds_for_this_machine(self) -> bool:
        return self.arch() == self.variants().arch_of(platform.machine())

    def chosen_variants(self) -> list:
        """The variants to build: native alone, the baseline alone when checked,
        else every variant of the architecture that FIANCHETTO_VARIANTS keeps."""
        variants = self.variants()
        if self.native:
            return [variants.NATIVE]
        rows = list(variants.for_arch(self.arch()))
        rows = rows[-1:] if self.debug else rows
        return [v for v in rows if v.name in self.only] if self.only else rows

    def base_args(self) -> List[str]:
        """Optimisation flags, after Python's own CFLAGS. Python compiles itself with
        -fwrapv; the core never relies on signed overflow wrapping (its wrapping sums
        are unsigned or vector lanes), and without the flag the compiler keeps loop
        indexes in 64-bit registers and folds more comparisons (bench 1.02x)."""
        if MSVC:
            return ["/Od", "/Zi"] if self.debug else ["/O2"]
        if self.debug:
            return ["-O0", "-g", "-UNDEBUG"]
        return ["-O3", "-DNDEBUG", "-fno-strict-aliasing", "-fno-wrapv"]

    def variant_flags(self, variant) -> List[str]:
        if variant.name == "native" and not MSVC and self.arch() == "arm64":
            return ["-mcpu=native"]        # arm64 compilers (Apple clang among them) take -mcpu
        return list(variant.msvc_flags if MSVC else variant.gcc_flags)

    def macros(self, variant) -> List[Tuple[str, str]]:
        flags = [("FIANCHETTO_DEBUG", self.debug), ("FIANCHETTO_NATIVE", self.native),
                 ("FIANCHETTO_TUNE", self.tune)]
        return [(name, "1") for name, on in flags if on] + [("FIANCHETTO_VARIANT", variant.name)]

    def core_extension(self, variant) -> Extension:
        return Extension(f"core_cy._core_{variant.name}", [f"src/core_cy/_core_{variant.name}.pyx"],
                         include_dirs=["src/core_cy"],
                         extra_compile_args=self.base_args() + self.variant_flags(variant),
                         define_macros=self.macros(variant))

    def extensions(self) -> List[Extension]:
        """core_cy.cpu (baseline flags: it runs before a variant is chosen), then the variants."""
        cpu = Extension("core_cy.cpu", ["src/core_cy/cpu.pyx"], include_dirs=["src/core_cy"],
                        extra_compile_args=self.base_args())
        return [cpu] + [self.core_extension(v) for v in self.chosen_variants()]

    def directives(self) -> dict:
        return load_module(self.root / "build_support" / "directives.py").compiler_directives(checked=self.debug)

    def shipped_network(self) -> Path:
        """networks/<DEFAULT_NETWORK_NAME>, the name read from fianchetto/options.py
        without importing the package (it needs the core being built)."""
        literals = load_module(self.root / "build_support" / "literals.py")
        return self.root / "networks" / literals.module_constant(
            self.root / "src" / "fianchetto" / "options.py", "DEFAULT_NETWORK_NAME")

    def stale_core_files(self) -> List[Path]:
        """What an in-place build of the old single-module core left beside core.py;
        Python would import it in place of the dispatcher."""
        return list(self.core.glob("core.*.so")) + list(self.core.glob("core.*.pyd")) + list(self.core.glob("core.c"))
