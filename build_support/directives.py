"""The Cython directives the core is compiled with, declared once.

``setup.py`` compiles every variant with them; ``tools/annotate.py`` (and its
test) annotates the core with the same ones, so the report shows the code the
build makes. Plain Python without imports from the package: ``setup.py`` reads
this file before anything is built.
"""
from typing import Dict, Union


def compiler_directives(checked: bool) -> Dict[str, Union[int, bool]]:
    """The directives of an optimised build, or of the checked build
    (FIANCHETTO_DEBUG=1), which keeps bounds, wraparound and initialisation checks."""
    return {
        "language_level": 3,
        "boundscheck": checked,
        "wraparound": checked,
        "cdivision": True,
        "initializedcheck": checked,
        "infer_types": True,
    }
