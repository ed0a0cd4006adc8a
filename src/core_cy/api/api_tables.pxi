# Module functions of the core's Python face: the evaluation weights (for tuners),
# the magic multipliers (for tools/gen_magics.py), the slider lookup, and the
# Syzygy tables (SyzygyTables, which the Board, Search and self-play faces take).


def magic_numbers():
    """The rook and bishop magic multipliers in use, square by square (for
    tools/gen_magics.py, which stores them in magic_numbers.pxi)."""
    return [ROOK_MAGICS[s].magic for s in range(64)], [BISHOP_MAGICS[s].magic for s in range(64)]


SLIDER_LOOKUPS = ("magic", "pext")


def slider_lookup():
    """How the rook and bishop attack tables are indexed: ``"pext"`` (BMI2's PEXT,
    chosen at import where the build has it and the CPU runs it fast) or
    ``"magic"`` (the magic multiplication). The attacks are the same either way."""
    return "pext" if PEXT_SLIDERS else "magic"


def set_slider_lookup(name):
    """Refill the slider tables for ``"magic"`` or ``"pext"``, for tests and
    measurements; never while a search runs. ValueError for an unknown name, or
    for ``"pext"`` in a build without BMI2 (the baseline variant)."""
    if name not in SLIDER_LOOKUPS:
        raise ValueError(f"slider lookup is one of {', '.join(SLIDER_LOOKUPS)}, not {name!r}")
    if name == "pext" and not FC_HAS_PEXT:
        raise ValueError("this build of the core has no PEXT (it needs the avx2 variant)")
    init_sliders(name == "pext")


def weight_table():
    """The evaluation weights as {group name: [(mg, eg), ...]} in table order."""
    return {name: [(mg_of(WEIGHTS[offset + i]), eg_of(WEIGHTS[offset + i])) for i in range(size)]
            for name, offset, size in WEIGHT_GROUPS}


def set_weight_table(table):
    """Replace weights by group name (any subset); ValueError on unknown names or sizes.

    Searches started afterwards use the new values (positions refresh their
    incremental material and square sums at the start of each search)."""
    groups = {name: (offset, size) for name, offset, size in WEIGHT_GROUPS}
    checked = []
    for name, values in table.items():
        if name not in groups:
            raise ValueError(f"unknown weight group {name!r}")
        offset, size = groups[name]
        if len(values) != size:
            raise ValueError(f"weight group {name!r} needs {size} pairs, got {len(values)}")
        pairs = [(int(mg), int(eg)) for mg, eg in values]
        if any(not -30000 <= v <= 30000 for pair in pairs for v in pair):
            raise ValueError(f"weight group {name!r} has a value outside -30000..30000")
        checked.append((offset, pairs))
    for offset, pairs in checked:
        for i, (mg, eg) in enumerate(pairs):
            WEIGHTS[offset + i] = S(mg, eg)
    build_psq()


def reset_weight_table():
    """Back to the built-in default weights."""
    init_default_weights()


# --- Syzygy tablebases (syzygy.pxi) -------------------------------------------------
cdef class SyzygyTables:
    """The Syzygy tables (.rtbw, .rtbz) of the folders in `paths`, separated by ':'
    (';' on Windows): a set of one's own, read-only once loaded. Searches and
    board probes given this object read it; any number of them at once, each
    holding the object while it runs. `largest` is the most pieces of any WDL
    table found (0: none), `files` the WDL and DTZ files loaded."""
    cdef TBSet* tables

    def __cinit__(self, paths=""):
        import os
        cdef bytes raw = os.fsencode(paths or "")
        cdef const char* text = raw
        self.tables = tb_set_new()
        if self.tables == NULL:
            raise MemoryError()
        with nogil:
            tb_set_load(self.tables, text)

    def __dealloc__(self):
        tb_set_free(self.tables)

    @property
    def largest(self):
        return self.tables.largest

    @property
    def files(self):
        return self.tables.files

    def __repr__(self):
        return f"SyzygyTables(largest={self.largest}, files={self.files})"


cdef inline const void* tables_pointer(SyzygyTables tables):
    """What a position points at to probe `tables` (None: no tables)."""
    return <const void*>tables.tables if tables is not None else NULL


cdef inline int tables_largest(SyzygyTables tables):
    return tables.tables.largest if tables is not None else 0
# --- end Syzygy -----------------------------------------------------------------------


def transposition_entry_age(int searches_done, int written_in_search, int bound):
    """The replacement rule's age of an entry written with `bound` during search
    number `written_in_search`, read when `searches_done` searches have started
    (for tests)."""
    cdef TranspositionTable tt
    tt.generation = <uint8_t>(searches_done * GENERATION_STEP)
    cdef uint64_t data = tt_pack(MOVE_NONE, 0, 0, 1, <uint8_t>(written_in_search * GENERATION_STEP) | bound)
    return entry_age(&tt, data)


# --- the search's tunable constants (tunables.py) ---------------------------------------

TUNE_BUILD = bool(FC_TUNE)


def tunable_values():
    """The compiled search's tunables, in the order of ``core_cy.tunables.CORE``: the
    defaults in the default build, the values set so far in the tune build."""
    return [fc_tunables[i] for i in range(FC_TUNABLE_COUNT)]


def set_tunable(int index, int value):
    """Set tunable number `index` (tune build only; between searches): the search
    reads it from now on, and the late move reduction table is recomputed."""
    if not FC_TUNE:
        raise ValueError("the search's constants are compiled in: build with FIANCHETTO_TUNE=1 to set them")
    if not 0 <= index < FC_TUNABLE_COUNT:
        raise IndexError(f"no tunable number {index}")
    fc_tunables[index] = value
    init_search_tables()
