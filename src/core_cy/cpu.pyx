# cython: language_level=3
"""The running CPU's instruction-set features, read with CPUID (cpu_features.h).

A module of its own, compiled with baseline flags only: it runs on any CPU,
before ``core_cy.core`` chooses which variant of the compiled core to load.
"""
from libc.stdint cimport uint32_t

cdef extern from "platform/cpu_features.h":
    uint32_t fc_cpu_features() noexcept nogil
    const char* const FC_CPU_NAMES[]
    const int FC_CPU_NAME_COUNT


def features():
    """The features this CPU and operating system support, as lower-case names
    (``sse2``, ``popcnt``, ``lzcnt``, ``bmi1``, ``bmi2``, ``avx``, ``avx2``, ``fma``,
    ``f16c``, ``movbe``, ``avx512f``, ``avx512bw``, ``avx512vnni``, ``neon``)."""
    cdef uint32_t mask = fc_cpu_features()
    return tuple(FC_CPU_NAMES[i].decode("ascii") for i in range(FC_CPU_NAME_COUNT) if mask >> i & 1)
