"""The ``build_ext`` command of the core: one pass, or two around a profile.

With gcc, optimised builds for the machine's own architecture are guided by a
profile: the variants are compiled with ``-fprofile-generate``, the ones this
CPU runs search the bench positions (``profile_workload.py``), and all are
compiled again with ``-fprofile-use`` (a variant the CPU cannot run gets no
profile and is optimised as before). Same results, about 1.04x the speed, twice
the compile time. ``FIANCHETTO_PGO=0`` builds in one pass. Either way the build
leaves ``core_cy/build-profile.txt`` beside the variants, naming the ones a
profile guided, or ``none (why)`` (``fianchetto doctor`` reports it).

The interface is :func:`build_ext_command`: a ``build_ext`` class for one
:class:`~plan.BuildPlan`. Nothing happens until setuptools runs the command, so
``setup.py`` asked for metadata or an sdist compiles and writes nothing.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

from Cython.Build import cythonize
from setuptools.command.build_ext import build_ext

GENERATE = (["-fprofile-generate"], ["-fprofile-generate"])


def c_compiler() -> str:
    """The command that compiles C here, as distutils chooses it (CC first)."""
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shlex.split(command)[0]


def is_recent_gcc(command: str) -> bool:
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


def flavour_changed(plan) -> bool:
    """True when the last build in this tree was of another flavour (checked,
    native, tune, a subset of variants): setuptools compares only timestamps and
    would keep compiled variants whose macros differ. The flavour is stamped in
    build/."""
    stamp = plan.root / "build" / "fianchetto-flavour"
    previous = stamp.read_text() if stamp.exists() else None
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(plan.flavour)
    return previous is not None and previous != plan.flavour


def build_ext_command(plan) -> type:
    """The build_ext class that builds `plan`'s extensions."""

    class CoreBuildExt(build_ext):
        """build_ext in one pass, or two around a profile (module docstring)."""

        def finalize_options(self) -> None:
            """Cython runs here, when the command runs: asking setup.py for its
            metadata or an sdist generates no C."""
            self.distribution.ext_modules = cythonize(
                self.distribution.ext_modules, include_path=["src"], compiler_directives=plan.directives(),
                nthreads=os.cpu_count() or 1,
                # The checked build generates its C into its own folder, so it never
                # reuses (or leaves behind) the optimised build's C files.
                build_dir="build/checked-c" if plan.debug else None)
            super().finalize_options()

        def run(self) -> None:
            for stale in plan.stale_core_files():
                print(f"removing {stale.name}, left by an older build", file=sys.stderr)
                stale.unlink()
            self.force = self.force or flavour_changed(plan)
            reason = self.why_not_profiled()
            if reason is not None:
                stale = self.core_is_stale()
                super().run()
                if stale:
                    self.write_profile_stamp(f"none ({reason})")
                return
            self.build_profiled()

        def build_profiled(self) -> None:
            """Compile instrumented, run the workload, compile again with its profile."""
            profile_dir = Path(self.build_temp).resolve() / "pgo"
            shutil.rmtree(profile_dir, ignore_errors=True)
            self.force = True
            self.set_profile_flags(["-fprofile-generate", f"-fprofile-dir={profile_dir}"], ["-fprofile-generate"])
            super().run()
            profiled = self.run_workload()
            if profiled:
                self.set_profile_flags(["-fprofile-use", "-fprofile-partial-training", "-Wno-missing-profile",
                                        f"-fprofile-dir={profile_dir}"], [])
            else:
                self.set_profile_flags([], [])          # no profile: one ordinary build
            self.build_extensions()                     # the compiler is set up by the first pass
            if self.inplace:
                self.copy_extensions_to_source()
            self.write_profile_stamp(" ".join(profiled) if profiled else "none (the profile workload failed)")

        def core_extensions(self) -> list:
            return [ext for ext in self.extensions if ext.name.startswith("core_cy._core_")]

        def why_not_profiled(self) -> Optional[str]:
            """None for an optimised gcc build for this machine's architecture with a
            core variant to (re)build; otherwise why it builds in one pass."""
            if not plan.pgo:
                return "FIANCHETTO_PGO=0"
            if plan.debug:
                return "checked build"
            if sys.platform == "win32" or not is_recent_gcc(c_compiler()):
                return "the compiler is not gcc 10 or later"
            if not plan.builds_for_this_machine():
                return f"built for {plan.arch()} on this machine's other architecture"
            if not self.core_is_stale():
                return "nothing to rebuild"
            return None

        def core_is_stale(self) -> bool:
            """True when a core variant will be compiled: forced, or out of date."""
            return self.force or any(self.out_of_date(ext) for ext in self.core_extensions())

        def out_of_date(self, ext) -> bool:
            """True when an extension's module is missing or older than a source."""
            built = Path(self.get_ext_fullpath(ext.name))
            return not built.exists() or any(Path(src).stat().st_mtime > built.stat().st_mtime
                                             for src in ext.sources)

        def set_profile_flags(self, compile_flags: List[str], link_flags: List[str]) -> None:
            """The plan's own flags of each core variant, then these."""
            for ext in self.core_extensions():
                base = self.base_flags.setdefault(ext.name, (list(ext.extra_compile_args),
                                                             list(ext.extra_link_args)))
                ext.extra_compile_args = base[0] + compile_flags
                ext.extra_link_args = base[1] + link_flags

        @property
        def base_flags(self) -> Dict[str, tuple]:
            if not hasattr(self, "_base_flags"):
                self._base_flags: Dict[str, tuple] = {}
            return self._base_flags

        def write_profile_stamp(self, profiled: str) -> None:
            """core_cy/build-profile.txt beside the variants: the variants a profile
            guided, or ``none (why)`` (core_cy.dispatch.build_profile reads it)."""
            extensions = self.core_extensions()
            if extensions:
                folder = Path(self.get_ext_fullpath(extensions[0].name)).parent
                (folder / plan.variants().PROFILE_STAMP).write_text(profiled + "\n")

        def run_workload(self) -> List[str]:
            """Run the instrumented variants on the bench (profile_workload.py) from a
            scratch copy of the package: the names of the variants it ran, or an
            empty list when it could not run."""
            network = plan.shipped_network()
            if not network.is_file():
                return []
            with tempfile.TemporaryDirectory() as scratch:
                package = Path(scratch) / "core_cy"
                package.mkdir()
                for source in plan.core.glob("*.py"):
                    shutil.copy(source, package)
                for ext in self.extensions:
                    shutil.copy(self.get_ext_fullpath(ext.name), package)
                report = Path(scratch) / "report.json"
                done = subprocess.run(
                    [sys.executable, "-m", "build_support.profile_workload", str(network),
                     str(plan.root / "src" / "fianchetto" / "benchmark.py"), "--report", str(report)],
                    cwd=scratch, env=dict(os.environ, PYTHONPATH=os.pathsep.join([scratch, str(plan.root)])))
                ran = json.loads(report.read_text(encoding="utf-8"))["variants"] if done.returncode == 0 else {}
            if done.returncode != 0:
                print("the profile workload failed; building without a profile", file=sys.stderr)
            return list(ran)

    return CoreBuildExt
