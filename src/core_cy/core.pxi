# Fianchetto's compiled core, one translation unit, included by each variant's
# module (_core_baseline.pyx, _core_avx2.pyx, _core_native.pyx; variants.py).
#
# The concepts live in separate include files so that the C compiler sees all of
# them at once and inlines across them (calls between separately compiled Cython
# modules would go through pointers). The folders are the layers; a file uses
# only its own layer and the ones above it in this list (docs/architecture.md):
#
#     platform/    bitops.h (popcount, lsb, clock, allocation), cpu_features.h,
#                  simd*.h (the network's vector kernels, one header per ISA)
#     board/       magic_numbers.pxi  rook and bishop magic multipliers (generated)
#                  bitboard.pxi       square helpers, leaper and slider attacks, between/line
#                  zobrist.pxi        Zobrist keys (the Polyglot array, from zobrist_keys.pxi)
#                  psq.pxi            the material+square sum and phase that make/unmake keep
#                  position.pxi       Position, state stack, make/unmake, repetition
#                  movegen.pxi        legal move generation, move validation, perft
#                  fen.pxi            FEN in and out with validation
#     eval/        weights.pxi        evaluation weight table and the material+square table
#                  evaluate.pxi       hand-crafted static evaluation (and its trace for tuning)
#                  nnue.pxi           the network: accumulators, output layer; evaluate() chooses
#     tablebases/  tb_tables.pxi      Syzygy WDL/DTZ reader: file structures, index tables
#                  tb_load.pxi        the loaded tables, parsing a file (file access in tbfile.h)
#                  tb_index.pxi       position -> index -> value
#                  syzygy.pxi         probes with captures and en passant resolved
#     search/      tt.pxi             transposition table
#                  movepick.pxi       static exchange evaluation, staged move picker
#                  tunables.pxi       the search's tunable constants (generated from tunables.py)
#                  thread.pxi         values, constants, frames, root moves, the search thread
#                  timeman.pxi        the time decisions between iterations
#                  search.pxi         quiescence, PVS in numbered steps, the root, iterative deepening
#                  report.pxi         reports to Python, a search thread's life
#     learn/       datagen.pxi        self-play games for training data, packed records
#                  learn_simd.h       the trainer's gradient kernels
#     api/         api_board.pxi      Python face: Board
#                  api_network.pxi    Python face: network files loaded as shared values
#                  api_search.pxi     Python face: Search
#                  api_tables.pxi     Python face: weights, magic numbers, Syzygy tables
#                  api_learn.pxi      Python face: self-play worker, evaluation traces, trainer kernels
#                  buildinfo.pxi      how this build was compiled, for `fianchetto doctor`
#
# The include order below follows the layers, except that the tablebase
# reader comes before the evaluation (neither uses the other), and
# api_tables.pxi before the other faces, which take its SyzygyTables.
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

include "board/magic_numbers.pxi"
include "board/bitboard.pxi"
include "board/zobrist.pxi"
include "board/psq.pxi"
include "board/position.pxi"
include "board/movegen.pxi"
include "board/perft.pxi"
include "board/fen.pxi"
include "eval/weights.pxi"
include "tablebases/tb_tables.pxi"
include "tablebases/tb_load.pxi"
include "tablebases/tb_index.pxi"
include "tablebases/syzygy.pxi"
include "eval/evaluate.pxi"
include "eval/nnue.pxi"
include "search/tt.pxi"
include "search/movepick.pxi"
include "search/tunables.pxi"
include "search/thread.pxi"
include "search/timeman.pxi"
include "search/search.pxi"
include "search/report.pxi"
include "learn/datagen.pxi"
include "api/api_tables.pxi"
include "api/api_board.pxi"
include "api/api_network.pxi"
include "api/api_search.pxi"
include "api/api_learn.pxi"
include "api/buildinfo.pxi"

init_bitboards()
init_zobrist()
init_default_weights()
init_eval_masks()
init_search_tables()
