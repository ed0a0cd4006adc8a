# Fianchetto's compiled core, one translation unit, included by each variant's
# module (_core_baseline.pyx, _core_avx2.pyx, _core_native.pyx; variants.py).
#
# The concepts live in separate include files so that the C compiler sees all of
# them at once and inlines across them (calls between separately compiled Cython
# modules would go through pointers). In dependency order:
#
#     magic_numbers.pxi  rook and bishop magic multipliers (generated)
#     bitboard.pxi       square helpers, leaper and slider attacks, between/line
#     zobrist.pxi        Zobrist keys (the Polyglot array, from zobrist_keys.pxi)
#     weights.pxi        evaluation weight table and the material+square table
#     position.pxi       Position, state stack, make/unmake, repetition
#     movegen.pxi        legal move generation, move validation, perft
#     fen.pxi            FEN in and out with validation
#     syzygy.pxi         Syzygy WDL/DTZ reader (file access in tbfile.h)
#     evaluate.pxi       hand-crafted static evaluation (and its trace for tuning)
#     nnue.pxi           the network: accumulators, output layer; evaluate() chooses
#     tt.pxi             transposition table
#     movepick.pxi       static exchange evaluation, staged move picker
#     tunables.pxi       the search's tunable constants (generated from tunables.py)
#     search.pxi         iterative deepening, PVS, quiescence, pruning, limits
#     datagen.pxi        self-play games for training data, packed records
#     api_board.pxi      Python face: Board
#     api_search.pxi     Python face: Search
#     api_tables.pxi     Python face: weights, magic numbers, Syzygy folders
#     api_learn.pxi      Python face: network files, self-play worker, evaluation traces
#
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.math cimport log
from libc.string cimport memset, memcpy, memcmp
from core_cy.types cimport *
cimport cython
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA

import logging
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
include "nnue.pxi"
include "tt.pxi"
include "movepick.pxi"
include "tunables.pxi"
include "search.pxi"
include "datagen.pxi"
include "api_board.pxi"
include "api_search.pxi"
include "api_tables.pxi"
include "api_learn.pxi"
include "buildinfo.pxi"

init_bitboards()
init_zobrist()
init_default_weights()
init_eval_masks()
init_search_tables()
