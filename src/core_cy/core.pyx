# cython: language_level=3
"""Fianchetto's compiled core, one translation unit.

The concepts live in separate include files (bitboard, zobrist, position, movegen,
fen, api) so that the C compiler sees all of them at once and inlines across them;
Cython calls between separately compiled modules would go through pointers.
"""
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset, memcpy
from core_cy.types cimport *

include "bitboard.pxi"
include "zobrist.pxi"
include "position.pxi"
include "movegen.pxi"
include "fen.pxi"
include "api.pxi"

init_bitboards()
init_zobrist()
