# Build the engine the way C chess engines are built, for OpenBench and friends:
#
#   make                  builds ./fianchetto
#   make EXE=path         builds one executable file at `path` that starts the engine
#   path bench            prints "Nodes searched: N" and "Nodes/second: M"
#   make clean            removes what make built (give the same EXE=path)
#
# Needs Python 3.9+ with pip, a C compiler and the Python headers, and access
# to the package index (pip fetches Cython for the build and python-chess for
# the engine). The file is a self-extracting zip application over a private
# install of the engine (tools/make_exe.py; docs/distribution.md); it runs
# under the Python that built it: PYTHON=python3.12 make picks another one.
# The build is portable; FIANCHETTO_NATIVE=1 make compiles for this CPU only.
# EVALFILE=file make ships that network instead of networks/fianchetto.nnue.

PYTHON ?= python3
EXE ?= fianchetto
BUILD_DIR ?= build/make

SOURCES := $(wildcard pyproject.toml setup.py build_support/*.py README.md MANIFEST.in \
	src/core_cy/*.pyx src/core_cy/*.pxd src/core_cy/*.pxi src/core_cy/*/*.pxi src/core_cy/*/*.h src/core_cy/*.py \
	src/fianchetto/*.py src/fianchetto/*/*.py books/* networks/*) tools/make_exe.py

.PHONY: all clean

all: $(EXE)

$(EXE): $(SOURCES)
	$(PYTHON) tools/make_exe.py --out "$(EXE)" --work "$(BUILD_DIR)" $(if $(EVALFILE),--evalfile "$(EVALFILE)")

clean:
	rm -rf "$(BUILD_DIR)"
	rm -f "$(EXE)" "$(EXE).partial"
