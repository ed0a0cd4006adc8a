"""Build the compiled core.

``FIANCHETTO_DEBUG=1`` builds with bounds and wraparound checks on, C assertions
enabled and ``-O0 -g``; ``FIANCHETTO_NATIVE=1`` adds ``-march=native``. The default
build runs on any x86-64 or arm64 machine.
"""
import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("FIANCHETTO_DEBUG") == "1"
NATIVE = os.environ.get("FIANCHETTO_NATIVE") == "1"


def compile_args():
    if sys.platform == "win32":
        return ["/Od", "/Zi"] if DEBUG else ["/O2"]
    if DEBUG:
        return ["-O0", "-g", "-UNDEBUG"]
    args = ["-O3", "-DNDEBUG", "-fno-strict-aliasing"]
    if NATIVE:
        args.append("-march=native")
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
        define_macros=[("FIANCHETTO_DEBUG", "1")] if DEBUG else [],
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
