"""Build the compiled core, in one variant per instruction set.

The core's source (``src/core_cy/core.pxi``) is compiled once per variant that the
target architecture has (``src/core_cy/variants.py``): on x86-64 a baseline that
runs on every x86-64 CPU and an AVX2 (x86-64-v3) variant; on arm64 one. A small
module, ``core_cy.cpu``, reads the CPU's features at import, and ``core_cy.core``
loads the best variant it can run (docs/architecture.md, "CPU variants").

``FIANCHETTO_DEBUG=1`` builds one variant, the baseline, with bounds and wraparound
checks on, C assertions enabled and ``-O0 -g``; ``FIANCHETTO_NATIVE=1`` builds one
variant, ``native``, with ``-march=native`` (``-mcpu=native`` on arm64,
``/arch:AVX2`` with MSVC on x64), which runs only on CPUs like the builder's.
``FIANCHETTO_VARIANTS=baseline`` (names, comma separated) builds only those variants.
``FIANCHETTO_TUNE=1`` builds the search's tunable constants (``src/core_cy/tunables.py``)
as values the UCI options set, for SPSA tuning. ``fianchetto doctor`` says which
variants are installed and which one runs.

With gcc, optimised builds for the machine's own architecture are guided by a
profile: the variants are compiled with ``-fprofile-generate``, the ones this
CPU runs search the bench positions (``core_cy/profile_workload.py``), and all
are compiled again with ``-fprofile-use`` (a variant the CPU cannot run gets no
profile and is optimised as before). Same results, about 1.04x the speed, twice
the compile time. ``FIANCHETTO_PGO=0`` builds in one pass. Either way the build
leaves ``core_cy/build-profile.txt`` beside the variants, naming the ones a
profile guided (``fianchetto doctor`` reports it).
"""
import importlib.util
import os
import platform
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
CORE = ROOT / "src" / "core_cy"
DEBUG = os.environ.get("FIANCHETTO_DEBUG") == "1"
NATIVE = os.environ.get("FIANCHETTO_NATIVE") == "1"
TUNE = os.environ.get("FIANCHETTO_TUNE") == "1"
MSVC = sys.platform == "win32"
PGO = os.environ.get("FIANCHETTO_PGO", "1") != "0"


def load_core_module(name):
    """src/core_cy/<name>.py, read by path: the package is not built yet."""
    spec = importlib.util.spec_from_file_location(f"fianchetto_{name}", CORE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # NamedTuple needs its module registered
    spec.loader.exec_module(module)
    return module


def target_arch(variants):
    """x86-64, arm64 or the machine's own name. On macOS, ARCHFLAGS (set by
    cibuildwheel when it builds for the other architecture) wins; a universal
    build gets the portable variant alone, whose flags suit both."""
    archflags = os.environ.get("ARCHFLAGS", "").split()
    targets = {archflags[i + 1] for i in range(len(archflags) - 1) if archflags[i] == "-arch"}
    if len(targets) > 1:
        return "universal"
    return variants.arch_of(targets.pop() if targets else platform.machine())


def base_args():
    """Optimisation flags, after Python's own CFLAGS. Python compiles itself with
    -fwrapv; the core never relies on signed overflow wrapping (its wrapping sums
    are unsigned or vector lanes), and without the flag the compiler keeps loop
    indexes in 64-bit registers and folds more comparisons (bench 1.02x)."""
    if MSVC:
        return ["/Od", "/Zi"] if DEBUG else ["/O2"]
    if DEBUG:
        return ["-O0", "-g", "-UNDEBUG"]
    return ["-O3", "-DNDEBUG", "-fno-strict-aliasing", "-fno-wrapv"]


def variant_flags(variant, arch):
    if variant.name == "native" and not MSVC and arch == "arm64":
        return ["-mcpu=native"]        # arm64 compilers (Apple clang among them) take -mcpu
    return list(variant.msvc_flags if MSVC else variant.gcc_flags)


def chosen_variants(variants, arch):
    """The variants to build. FIANCHETTO_VARIANTS (names, comma separated) narrows
    the list, for a quicker build in development and tests."""
    if NATIVE:
        return [variants.NATIVE]
    rows = list(variants.for_arch(arch))
    rows = rows[-1:] if DEBUG else rows      # the checked build: the baseline alone
    only = os.environ.get("FIANCHETTO_VARIANTS", "").replace(",", " ").split()
    return [v for v in rows if v.name in only] if only else rows


def core_extension(variant, arch):
    macros = ([("FIANCHETTO_DEBUG", "1")] if DEBUG else []) + ([("FIANCHETTO_NATIVE", "1")] if NATIVE else []) \
        + ([("FIANCHETTO_TUNE", "1")] if TUNE else [])
    return Extension(
        f"core_cy._core_{variant.name}",
        [f"src/core_cy/_core_{variant.name}.pyx"],
        include_dirs=["src/core_cy"],
        extra_compile_args=base_args() + variant_flags(variant, arch),
        define_macros=macros + [("FIANCHETTO_VARIANT", variant.name)],
    )


def remove_stale_core():
    """An in-place build of the single-module core left core_cy/core.*.so beside
    core.py; Python would import it in place of the dispatcher."""
    for stale in list(CORE.glob("core.*.so")) + list(CORE.glob("core.*.pyd")) + list(CORE.glob("core.c")):
        print(f"removing {stale.name}, left by an older build", file=sys.stderr)
        stale.unlink()


def flavour_changed():
    """True when the last build in this tree was of another flavour (checked, native,
    tune): setuptools compares only timestamps, and would keep its compiled
    variants although their macros differ. The flavour is stamped in build/."""
    stamp = ROOT / "build" / "fianchetto-flavour"
    flavour = f"debug={DEBUG} native={NATIVE} tune={TUNE} " + os.environ.get("FIANCHETTO_VARIANTS", "")
    previous = stamp.read_text() if stamp.exists() else None
    stamp.parent.mkdir(exist_ok=True)
    stamp.write_text(flavour)
    return previous is not None and previous != flavour


def shipped_network():
    """networks/<DEFAULT_NETWORK_NAME>, the name read from fianchetto/options.py
    without importing the package (it needs the core being built)."""
    name = load_core_module("literals").module_constant(ROOT / "src" / "fianchetto" / "options.py",
                                                        "DEFAULT_NETWORK_NAME")
    return ROOT / "networks" / name


def c_compiler():
    """The command that compiles C here, as distutils chooses it (CC first)."""
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shlex.split(command)[0]


def is_recent_gcc(command):
    """True for gcc 10 or later (-fprofile-partial-training). Clang and MSVC keep
    their profiles in formats of their own, merged by tools of their own."""
    try:
        banner = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=30).stdout
        version = subprocess.run([command, "-dumpversion"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    major = version.strip().split(".")[0]
    return ("Free Software Foundation" in banner and "clang" not in banner.lower()
            and major.isdigit() and int(major) >= 10)


class ProfiledBuildExt(build_ext):
    """build_ext in two passes, guided by a profile of the bench (module docstring)."""

    def run(self):
        reason = self.why_not_profiled()
        if reason is not None:
            stale = self.core_is_stale()
            super().run()
            if stale:
                self.write_profile_stamp(f"none ({reason})")
            return
        profile_dir = Path(self.build_temp).resolve() / "pgo"
        shutil.rmtree(profile_dir, ignore_errors=True)
        self.force = True
        compiler = self.compiler         # a name (or None) that run() turns into an object
        self.add_profile_flags(["-fprofile-generate", f"-fprofile-dir={profile_dir}"], ["-fprofile-generate"])
        super().run()
        self.compiler = compiler
        profiled = self.run_workload()
        if not profiled:
            self.add_profile_flags([], [])          # no profile: one ordinary build
        else:
            self.add_profile_flags(["-fprofile-use", "-fprofile-partial-training", "-Wno-missing-profile",
                                    f"-fprofile-dir={profile_dir}"], [])
        super().run()
        self.write_profile_stamp(" ".join(profiled) if profiled else "none (the profile workload failed)")

    def core_extensions(self):
        return [ext for ext in self.extensions if ext.name.startswith("core_cy._core_")]

    def why_not_profiled(self):
        """None for an optimised gcc build for this machine's architecture with a
        core variant to (re)build; otherwise why it builds in one pass."""
        if not PGO:
            return "FIANCHETTO_PGO=0"
        if DEBUG:
            return "checked build"
        if MSVC or not is_recent_gcc(c_compiler()):
            return "the compiler is not gcc 10 or later"
        if ARCH != VARIANTS.arch_of(platform.machine()):
            return f"built for {ARCH} on {platform.machine()}"
        if not self.core_is_stale():
            return "nothing to rebuild"
        return None

    def write_profile_stamp(self, profiled):
        """core_cy/build-profile.txt beside the variants: the variants a profile
        guided, or ``none (why)`` (core_cy.dispatch.build_profile reads it)."""
        extensions = self.core_extensions()
        if extensions:
            stamp = Path(self.get_ext_fullpath(extensions[0].name)).parent / VARIANTS.PROFILE_STAMP
            stamp.write_text(profiled + "\n")

    def core_is_stale(self):
        """True when a core variant will be compiled: forced, or out of date."""
        return self.force or any(self.out_of_date(ext) for ext in self.core_extensions())

    def out_of_date(self, ext):
        """True when an extension's module is missing or older than a source."""
        built = Path(self.get_ext_fullpath(ext.name))
        return not built.exists() or any(Path(src).stat().st_mtime > built.stat().st_mtime
                                         for src in ext.sources)

    def add_profile_flags(self, compile_flags, link_flags):
        for ext in self.core_extensions():
            base = getattr(ext, "_fianchetto_base_args", None)
            if base is None:
                base = ext._fianchetto_base_args = (list(ext.extra_compile_args), list(ext.extra_link_args))
            ext.extra_compile_args = base[0] + compile_flags
            ext.extra_link_args = base[1] + link_flags

    def run_workload(self):
        """Run the instrumented variants on the bench (core_cy/profile_workload.py)
        from a scratch copy of the package: the names of the variants it ran, or
        an empty list when it could not run."""
        network = shipped_network()
        if not network.is_file():
            return []
        with tempfile.TemporaryDirectory() as scratch:
            package = Path(scratch) / "core_cy"
            package.mkdir()
            for source in CORE.glob("*.py"):
                shutil.copy(source, package)
            for ext in self.extensions:
                shutil.copy(self.get_ext_fullpath(ext.name), package)
            done = subprocess.run([sys.executable, "-m", "core_cy.profile_workload", str(network),
                                   str(ROOT / "src" / "fianchetto" / "benchmark.py")],
                                  cwd=scratch, env=dict(os.environ, PYTHONPATH=scratch),
                                  stdout=subprocess.PIPE, text=True)
        print(done.stdout, end="")
        if done.returncode != 0:
            print("the profile workload failed; building without a profile", file=sys.stderr)
            return []
        # Its lines read "profile workload: NAME: N nodes".
        return [line.split(":")[1].strip() for line in done.stdout.splitlines()
                if line.startswith("profile workload:")]


remove_stale_core()
directives = load_core_module("directives").compiler_directives(checked=DEBUG)
VARIANTS = load_core_module("variants")
ARCH = target_arch(VARIANTS)
extensions = [Extension("core_cy.cpu", ["src/core_cy/cpu.pyx"], include_dirs=["src/core_cy"],
                        extra_compile_args=base_args())]
extensions += [core_extension(v, ARCH) for v in chosen_variants(VARIANTS, ARCH)]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["src"],
        compiler_directives=directives,
        nthreads=os.cpu_count() or 1,
        # The checked build generates its C into its own folder, so it never
        # reuses (or leaves behind) the optimised build's C files.
        build_dir="build/checked-c" if DEBUG else None,
    ),
    # The variants compile side by side (setuptools' build_ext --parallel).
    options={"build_ext": {"parallel": os.cpu_count() or 1, "force": flavour_changed()}},
    cmdclass={"build_ext": ProfiledBuildExt},
)
