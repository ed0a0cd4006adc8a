"""The compiled core, in the variant that runs best on this CPU.

The core is compiled several times from one source (``variants.py``): a baseline
that runs on every CPU of its architecture and, on x86-64, an AVX2 variant. On
import this module reads the CPU's features (``core_cy.cpu``), picks the first
variant the CPU can run (``core_cy.dispatch``; ``FIANCHETTO_CPU`` forces one) and
installs that module under this name, so that ``import core_cy.core`` and
``from core_cy.core import Board`` give the chosen variant itself.

The chosen module carries ``CPU_VARIANT`` (its name), ``CPU_VARIANT_SUMMARY``,
``CPU_FEATURES`` (what the CPU has), ``CPU_VARIANTS`` (what this build holds) and
``CPU_WARNING`` (why a forced choice was refused, or None).
"""
import sys

from core_cy import dispatch

sys.modules[__name__] = dispatch.load()
