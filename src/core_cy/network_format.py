"""The evaluation network's file format and architectures, declared once.

Everything the trainer (``fianchetto.learn``, numpy), the file and the compiled
core must agree on: the architectures and their output buckets, the inputs, the
king-bucket layouts, the quantisation, the header's fields and the hidden sizes
each side accepts. The numpy side imports this module; the core's C constants
(``network_format.pxi``, included by ``types.pxd``) are generated from it by
``tools/gen_network_format.py``, and a test fails when they are stale. The core
builds its Python-level tables (``NETWORK_OUTPUT_BUCKETS`` and the rest) from
this module at import.

Plain Python without imports from the package: the build and the tools read it
before anything is compiled.
"""
from typing import Dict, NamedTuple, Tuple


class Architecture(NamedTuple):
    number: int            # the header's `architecture` field
    name: str              # the C enum's suffix: NNUE_ARCH_<name>
    output_buckets: int    # output layers, chosen by the number of pieces
    king_bucketed: bool    # inputs in K sets by king square, mirrored (else one set of INPUTS)
    description: str


ARCHITECTURES: Tuple[Architecture, ...] = (
    Architecture(1, "SCRELU", 1, False, "768 -> H perspective, SCReLU, -> 1"),
    Architecture(2, "BUCKETS", 8, False, "the same, -> 8 output layers by piece count"),
    Architecture(3, "KING_BUCKETS", 8, True, "768 x K king buckets, mirrored -> H, -> 8 output layers"),
)

MAGIC = b"FIANNUE\0"
VERSION = 1
#: The header: little-endian, these fields in order (struct codes), 48 bytes.
HEADER_FIELDS: Tuple[Tuple[str, str], ...] = (
    ("magic", "8s"), ("version", "I"), ("architecture", "I"), ("inputs", "I"), ("hidden", "I"),
    ("qa", "I"), ("qb", "I"), ("scale", "I"), ("payload_bytes", "I"), ("checksum", "I"),
    ("king_buckets", "I"),
)
HEADER_BYTES = 48

#: Inputs per king bucket: 2 colours x 6 piece types x 64 squares, per perspective.
INPUTS = 768
#: King buckets (architecture 3): the bucket of each square of files a-d (index
#: rank * 4 + file) where a view's own king stands, seen from its side; the
#: board is mirrored left to right when that king stands on files e-h.
KING_BUCKET_LAYOUTS: Dict[int, Tuple[int, ...]] = {
    1: (0,) * 32,
    4: (0, 0, 1, 1,       # first rank: a/b (castled), c/d
        2, 2, 2, 2,       # second rank
        *(3,) * 24),      # further up
}

#: The trainer's quantisation: activations clipped to QA, output weights in
#: units of 1/QB, network units times SCALE / (QA * QB) give centipawns. A file
#: may declare others (within the ranges the core checks).
QA = 255
QB = 64
SCALE = 400

#: Hidden sizes: a multiple of HIDDEN_STEP from MIN_HIDDEN up to MAX_HIDDEN, the
#: largest the file format holds, the trainer makes and the core loads (its
#: accumulators' size; each 32-bit lane of the output sum stays under 2^31 up to
#: it, platform/simd_kernels.h).
HIDDEN_STEP = 16
MIN_HIDDEN = 16
MAX_HIDDEN = 1024

#: The largest |output weight|: with activations <= 255, v * w fits 16 bits.
MAX_OUT_WEIGHT = 127
#: Network scores are clamped to this many centipawns, clear of tablebase and mate scores.
VALUE_NETWORK_MAX = 15000


def max_output_buckets() -> int:
    return max(a.output_buckets for a in ARCHITECTURES)


def output_buckets() -> Dict[int, int]:
    """Architecture number -> output buckets."""
    return {a.number: a.output_buckets for a in ARCHITECTURES}


def header_struct_format() -> str:
    """The header as a ``struct`` format (little-endian)."""
    return "<" + "".join(code for _name, code in HEADER_FIELDS)
