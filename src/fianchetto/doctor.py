"""``fianchetto doctor``: what is installed, and how it was built.

The first thing to ask for in a bug report. It prints, one ``name: value`` per
line: the version, Python and the platform, where the package and the compiled
core were loaded from, which variant of the core runs (``avx512``, ``avx2``
or ``baseline``, chosen for the CPU at import) and which are installed, how it was
compiled (portable or native, optimised or checked, compiler, the CPU features
it may use, which popcount, which network kernels), the CPU and its features,
the default opening book and evaluation network it finds, and the Syzygy
folders given with ``--syzygy`` (the engine itself starts with none: the GUI
sets ``SyzygyPath``).
"""
from __future__ import annotations

import hashlib
import os
import platform
import sys
from pathlib import Path
from typing import Callable, Iterator, Optional, Tuple

from fianchetto.options import DEFAULT_NETWORK_NAME

def find_network() -> Optional[Path]:
    """The default network file (see :func:`fianchetto.evaluation.default_network_path`)."""
    from fianchetto.evaluation import default_network_path

    return default_network_path()


def _file_line(path: Path) -> str:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    return f"{path} ({path.stat().st_size} bytes, sha256 {digest})"


def _cpu_name() -> str:
    if sys.platform.startswith("linux"):
        try:
            for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                    return value.strip()
        except OSError:
            pass
    elif sys.platform == "darwin":
        import subprocess

        try:
            done = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                                  text=True, timeout=5)
            if done.returncode == 0 and done.stdout.strip():
                return done.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or "unknown"


def _version_of(distribution: str) -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:   # pragma: no cover - Python < 3.8
        return "unknown"
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "not installed"


# How the core looks up slider attacks (core_cy build_info()["sliders"]).
SLIDER_NAMES = {"pext": "PEXT (BMI2, fast on this CPU)", "magic": "magic multiplication"}


def describe_variant(core) -> str:
    """``avx2 (x86-64-v3: ...); built: avx2 baseline``: the core variant running,
    what it is, and every variant the installation holds."""
    return f"{core.CPU_VARIANT} ({core.CPU_VARIANT_SUMMARY}); installed: {' '.join(core.CPU_VARIANTS)}; " \
           f"FIANCHETTO_CPU={os.environ.get('FIANCHETTO_CPU', '') or '(automatic)'}"


def describe_profile(stamp: Optional[str]) -> str:
    """The build stamp in words: which variants a profile of the bench guided."""
    if stamp is None:
        return "unknown (the build left no core_cy/build-profile.txt)"
    if stamp.startswith("none"):
        return "no" + stamp[len("none"):]
    return f"yes, variants {stamp} (by a search of the bench positions)"


def report(syzygy: Optional[str] = None) -> Iterator[Tuple[str, str]]:
    """The doctor's lines as (name, value) pairs."""
    import core_cy.core as core
    from core_cy import dispatch

    from fianchetto import __version__
    from fianchetto.book import default_book_path

    yield "Fianchetto", __version__
    yield "python", f"{platform.python_version()} ({platform.python_implementation()}) {sys.executable}"
    libc = " ".join(part for part in platform.libc_ver() if part)
    yield "platform", platform.platform() + (f" ({libc})" if libc else "")
    yield "package", str(Path(__file__).resolve().parent)
    yield "core", str(Path(core.__file__).resolve())
    yield "core variant", describe_variant(core)
    if core.CPU_WARNING:
        yield "core variant problem", core.CPU_WARNING

    info = core.build_info()
    kind = "native (FIANCHETTO_NATIVE=1: runs only on CPUs like the one that built it)" if info["native"] \
        else "portable (no -march=native)"
    checked = "checked (FIANCHETTO_DEBUG=1: bounds and invariant checks, slow)" if info["checked"] \
        else "not checked"
    yield "core build", f"{kind}; {checked}; optimised: {'yes' if info['optimized'] else 'no'}"
    yield "profile-guided", describe_profile(dispatch.build_profile())
    yield "compiler", info["compiler"]
    yield "architecture", info["arch"]
    features = " ".join(info["features"])
    yield "CPU features used", (features if features else f"baseline {info['arch']} only") \
        + f"; popcount: {info['popcount']}; network kernels: {info['simd']}" \
        + f"; slider lookups: {SLIDER_NAMES[info['sliders']]}"
    yield "CPU", f"{_cpu_name()} (has: {' '.join(core.CPU_FEATURES) or 'no extensions'})"

    book = default_book_path()
    yield "book", _file_line(book) if book.is_file() else f"none (expected at {book})"
    network = find_network()
    yield "network", _file_line(network) if network else f"none (no {DEFAULT_NETWORK_NAME} in fianchetto.networks)"
    yield "python-chess", _version_of("chess")
    yield "numpy", _version_of("numpy")

    if not syzygy:
        yield "Syzygy paths", "none given (the engine starts with SyzygyPath empty; " \
                              "check folders with: fianchetto doctor --syzygy PATH)"
        return
    from fianchetto.tablebase import TablebaseError, Tablebases

    tables = Tablebases()
    try:
        problems = tables.configure(syzygy)
    except TablebaseError as exc:
        problems = [str(exc)]
    try:
        yield "Syzygy paths", syzygy
        yield "Syzygy tables", f"up to {tables.max_pieces} pieces" if tables.max_pieces else "none found"
        for problem in problems:
            yield "Syzygy problem", problem
    finally:
        tables.close()


def run_doctor(syzygy: Optional[str], out: Callable[[str], None] = print) -> int:
    for name, value in report(syzygy):
        out(f"{name}: {value}" if name != "Fianchetto" else f"Fianchetto {value}")
    return 0
