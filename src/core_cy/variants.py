"""The variants of the compiled core: one source (core.pxi), several instruction sets.

Each variant is the same Cython code compiled with other flags into a module of
its own (``core_cy._core_<name>``). ``setup.py`` builds the variants that the target
architecture has; ``core_cy.core`` loads the best one the running CPU supports (or
the one ``FIANCHETTO_CPU`` names). Declared here once, read by both: to add a
variant, add a row (and its ``_core_<name>.pyx`` stub) and, if it has a kernel
header of its own, a branch in ``simd.h``.

Plain Python without imports from the package: ``setup.py`` reads this file
before anything is built.
"""
from typing import NamedTuple, Tuple


class Variant(NamedTuple):
    name: str
    arch: str                     # "x86-64" or "arm64": the architectures it is built for
    requires: Tuple[str, ...]     # CPU features (names of core_cy.cpu.features()) it needs
    gcc_flags: Tuple[str, ...]    # gcc and clang
    msvc_flags: Tuple[str, ...]
    summary: str


# Best first: the loader takes the first variant the CPU can run.
VARIANTS = (
    # AVX-512 Foundation and Byte/Word on top of x86-64-v3, as Skylake-SP (2017),
    # Ice Lake and Zen 4 (2022) and later have it: the network's and the
    # trainer's kernels on 512-bit registers. Only their intrinsics need it; the
    # compiler is asked to keep its own vectorised loops at 256 bits, where wider
    # ones would cost clock speed on some Intel CPUs for little gain.
    Variant("avx512", "x86-64",
            ("sse2", "popcnt", "lzcnt", "bmi1", "bmi2", "avx", "avx2", "fma", "f16c", "movbe",
             "avx512f", "avx512bw"),
            ("-mavx2", "-mavx", "-mfma", "-mf16c", "-mbmi", "-mbmi2", "-mpopcnt", "-mlzcnt", "-mmovbe",
             "-mavx512f", "-mavx512bw", "-mprefer-vector-width=256"),
            ("/arch:AVX512",),
            "x86-64-v3 with AVX-512 F/BW: 512-bit network kernels"),
    # x86-64-v3, as Haswell (2013) and Zen (2017) and later have it; every flag
    # named here is checked in `requires`, so the compiler cannot use an
    # instruction the loader did not see.
    Variant("avx2", "x86-64",
            ("sse2", "popcnt", "lzcnt", "bmi1", "bmi2", "avx", "avx2", "fma", "f16c", "movbe"),
            ("-mavx2", "-mavx", "-mfma", "-mf16c", "-mbmi", "-mbmi2", "-mpopcnt", "-mlzcnt", "-mmovbe"),
            ("/arch:AVX2",),
            "x86-64-v3: AVX2 network kernels, hardware popcount, BMI1/2, LZCNT"),
    Variant("baseline", "x86-64", ("sse2",), (), (),
            "baseline x86-64: SSE2 network kernels, portable popcount"),
    Variant("baseline", "arm64", (), (), (),
            "arm64: compiler-vectorised network kernels, hardware popcount"),
)

# FIANCHETTO_NATIVE=1 builds this one alone, for the building CPU.
NATIVE = Variant("native", "any", (), ("-march=native",), ("/arch:AVX2",),
                 "native: compiled with -march=native for the CPU that built it")

# The file setup.py writes beside the variants: the names of the ones a profile
# guided, or "none (why)" (core_cy.dispatch.build_profile reads it).
PROFILE_STAMP = "build-profile.txt"


def arch_of(machine: str) -> str:
    """The architecture name of a platform.machine() value ("x86-64", "arm64", ...)."""
    machine = machine.lower()
    if machine in ("x86_64", "amd64"):
        return "x86-64"
    if machine in ("arm64", "aarch64"):
        return "arm64"
    return machine


def for_arch(arch: str) -> Tuple[Variant, ...]:
    """The variants built for an architecture ("x86-64", "arm64"), best first; any
    other architecture gets one portable variant."""
    rows = tuple(v for v in VARIANTS if v.arch == arch)
    return rows or (Variant("baseline", arch, (), (), (), f"portable C for {arch}"),)
