# cython: language_level=3
"""Fianchetto's compiled core, the x86-64-v3 variant: AVX2, BMI1/2, POPCNT, LZCNT, FMA.

Every variant compiles the same source (core.pxi) with other compiler flags
(variants.py); import ``core_cy.core``, which loads the best one this CPU runs.
"""
include "core.pxi"
