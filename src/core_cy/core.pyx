# cython: language_level=3
"""Fianchetto's compiled core, one translation unit.

The concepts live in separate include files (bitboard, zobrist, weights, position,
movegen, fen, evaluate, tt, movepick, search, api) so that the C compiler sees all of them at once and inlines across them;
Cython calls between separately compiled modules would go through pointers.
"""
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.math cimport log, sqrt
from libc.string cimport memset, memcpy
from core_cy.types cimport *

import threading

include "magic_numbers.pxi"
include "bitboard.pxi"
include "zobrist.pxi"
include "weights.pxi"
include "position.pxi"
include "movegen.pxi"
include "fen.pxi"
include "syzygy.pxi"
include "evaluate.pxi"
include "tt.pxi"
include "movepick.pxi"
include "search.pxi"
include "api.pxi"
include "buildinfo.pxi"

init_bitboards()
init_zobrist()
init_default_weights()
init_eval_masks()
init_search_tables()
