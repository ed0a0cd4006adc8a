# cython: language_level=3
"""Fianchetto's compiled core, the AVX-512 variant: x86-64-v3 with AVX-512 F and BW.

Every variant compiles the same source (core.pxi) with other compiler flags
(variants.py); import ``core_cy.core``, which loads the best one this CPU runs.
"""
include "core.pxi"
