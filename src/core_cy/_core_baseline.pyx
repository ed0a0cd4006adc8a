# cython: language_level=3
"""Fianchetto's compiled core, the baseline variant: any x86-64 (SSE2) or arm64 CPU.

Every variant compiles the same source (core.pxi) with other compiler flags
(variants.py); import ``core_cy.core``, which loads the best one this CPU runs.
"""
include "core.pxi"
