# What this build of the core is: for `fianchetto doctor` and bug reports.

cdef extern from "platform/bitops.h":
    const char* fc_build_compiler() noexcept nogil
    const char* fc_build_arch() noexcept nogil
    const char* fc_build_features() noexcept nogil
    const char* fc_build_popcount() noexcept nogil
    const char* fc_build_variant() noexcept nogil
    const bint FC_NATIVE
    const bint FC_OPTIMIZED


def build_info():
    """How the core was compiled, as the C preprocessor saw it.

    Keys: ``native`` (built with ``FIANCHETTO_NATIVE=1``: runs only on CPUs like the
    builder's), ``checked`` (``FIANCHETTO_DEBUG=1``), ``optimized`` (the C optimiser was
    on), ``compiler``, ``arch``, ``features`` (instruction-set extensions the compiler
    was allowed to use beyond the architecture's baseline), ``popcount`` (the
    hardware instruction or the portable routine), ``variant`` (the name this
    variant was built as, variants.py) and ``simd`` (the network's kernels:
    AVX-512, AVX2, SSE2 or generic C), ``sliders`` (how slider attacks are looked up, chosen for
    the running CPU: ``pext`` or ``magic``) and ``tune`` (``FIANCHETTO_TUNE=1``: the search's constants are
    UCI options).
    """
    features = fc_build_features().decode("ascii").split()
    return {
        "native": bool(FC_NATIVE),
        "checked": bool(FC_DEBUG),
        "optimized": bool(FC_OPTIMIZED),
        "compiler": fc_build_compiler().decode("utf-8", "replace"),
        "arch": fc_build_arch().decode("ascii"),
        "features": features,
        "popcount": fc_build_popcount().decode("ascii"),
        "variant": fc_build_variant().decode("ascii"),
        "simd": fc_simd_kind().decode("ascii"),
        "sliders": slider_lookup(),
        "tune": bool(FC_TUNE),
    }
