"""Build the compiled core.

``FIANCHETTO_DEBUG=1`` builds with bounds and wraparound checks on, C assertions
enabled and ``-O0 -g``; ``FIANCHETTO_NATIVE=1`` adds ``-march=native``
(``-mcpu=native`` on arm64, ``/arch:AVX2`` with MSVC on x64). The default build
runs on any x86-64 or arm64 machine, and the wheels are built that way
(docs/distribution.md). ``fianchetto doctor`` says which build is installed.
"""
import os
import platform
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("FIANCHETTO_DEBUG") == "1"
NATIVE = os.environ.get("FIANCHETTO_NATIVE") == "1"
ARM64 = platform.machine().lower() in ("arm64", "aarch64")


def compile_args():
    if sys.platform == "win32":
        if DEBUG:
            return ["/Od", "/Zi"]
        return ["/O2", "/arch:AVX2"] if NATIVE and not ARM64 else ["/O2"]
    if DEBUG:
        return ["-O0", "-g", "-UNDEBUG"]
    args = ["-O3", "-DNDEBUG", "-fno-strict-aliasing"]
    if NATIVE:
        # arm64 compilers (Apple clang among them) take the CPU as -mcpu.
        args.append("-mcpu=native" if ARM64 else "-march=native")
    return args


directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": True,
    "initializedcheck": DEBUG,
    "infer_types": True,
}

extensions = [
    Extension(
        "core_cy.core",
        ["src/core_cy/core.pyx"],
        include_dirs=["src/core_cy"],
        extra_compile_args=compile_args(),
        define_macros=([("FIANCHETTO_DEBUG", "1")] if DEBUG else [])
        + ([("FIANCHETTO_NATIVE", "1")] if NATIVE else []),
    )
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["src"],
        compiler_directives=directives,
        # The checked build generates its C into its own folder, so it never
        # reuses (or leaves behind) the optimised build's core.c.
        build_dir="build/checked-c" if DEBUG else None,
    )
)
