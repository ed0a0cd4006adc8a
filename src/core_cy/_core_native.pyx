# cython: language_level=3
"""Fianchetto's compiled core, built with FIANCHETTO_NATIVE=1 for the CPU that compiled it.

Every variant compiles the same source (core.pxi) with other compiler flags
(variants.py); import ``core_cy.core``, which loads the best one this CPU runs.
"""
include "core.pxi"
