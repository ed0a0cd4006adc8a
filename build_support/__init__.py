"""What building the compiled core needs and an install does not: read by
``setup.py`` (and ``tools/annotate.py``) from the source tree, never installed.

* ``plan.py``: the build's settings from the environment and the extension
  modules they make (one per core variant);
* ``pgo.py``: the ``build_ext`` command that compiles twice around a profile;
* ``profile_workload.py``: what the instrumented core runs between the two;
* ``directives.py``: the Cython directives of the optimised and checked builds;
* ``literals.py``: constants of the ``fianchetto`` package read from its source,
  which the build needs before that package can be imported.

Plain Python that imports nothing from the package being built.
"""
