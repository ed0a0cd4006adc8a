"""Build the compiled core, in one variant per instruction set.

The core's source (``src/core_cy/core.pxi``) is compiled once per variant that the
target architecture has (``src/core_cy/variants.py``): on x86-64 an AVX-512, an
AVX2 (x86-64-v3) and a baseline variant that runs on every x86-64 CPU; on arm64
one. A small module, ``core_cy.cpu``, reads the CPU's features at import, and
``core_cy.core`` loads the best variant it can run (docs/architecture.md, "CPU
variants"). ``fianchetto doctor`` says which variants are installed and which
one runs.

What a build makes is decided from the environment (``FIANCHETTO_DEBUG``,
``FIANCHETTO_NATIVE``, ``FIANCHETTO_VARIANTS``, ``FIANCHETTO_TUNE``,
``FIANCHETTO_PGO``: ``build_support/plan.py``), and how the variants are
compiled, once or twice around a profile of the bench, by the ``build_ext``
command of ``build_support/pgo.py``. Neither is installed.
"""
import os
import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from build_support.pgo import build_ext_command  # noqa: E402  (the source tree is on the path first)
from build_support.plan import BuildPlan  # noqa: E402

plan = BuildPlan.from_environment(ROOT)

setup(
    ext_modules=plan.extensions(),
    # The variants compile side by side (setuptools' build_ext --parallel).
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
    cmdclass={"build_ext": build_ext_command(plan)},
)
