"""Release metadata and ``fianchetto doctor``: one version everywhere, a report of the build.

The packaging run itself (``make``, the wheel, ``auditwheel``, a compiler-free
venv) is ``test_distribution.py``, marked slow.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import core_cy.core as core
from support.cli import run_cli
from fianchetto import __version__
from core_cy import dispatch
from fianchetto.doctor import SLIDER_NAMES, describe_profile

ROOT = Path(__file__).resolve().parents[1]
VERSION = re.compile(r"^\d+\.\d+\.\d+([ab]\d+|rc\d+)?(\.post\d+)?(\.dev\d+)?$")


def test_the_version_is_a_release_number():
    assert VERSION.match(__version__), __version__


def test_the_version_is_written_in_one_place():
    pyproject = (ROOT / "pyproject.toml").read_text()
    if "[project]" not in pyproject:
        pytest.skip("no source tree")
    project = pyproject.split("[project]", 1)[1].split("\n[", 1)[0]
    assert re.search(r'^dynamic\s*=\s*\[[^]]*"version"', project, re.M), "version must be dynamic"
    assert not re.search(r"^version\s*=", project, re.M), "a second version in pyproject.toml"
    assert 'version = { attr = "fianchetto.__version__" }' in pyproject


def test_the_installed_distribution_has_the_same_version():
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("fianchetto")
    except PackageNotFoundError:
        pytest.skip("fianchetto is not installed as a distribution")
    assert installed == __version__


def test_version_option_and_uci_name_agree():
    done = run_cli(["--version"], timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"Fianchetto {__version__} (core {core.CPU_VARIANT})"
    uci = run_cli([], input_text="uci\nquit\n", timeout=60)
    assert f"id name Fianchetto {__version__}" in uci.stdout.splitlines()


def test_python_dash_m_runs_the_same_command_line():
    done = subprocess.run([sys.executable, "-m", "fianchetto", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"Fianchetto {__version__} (core {core.CPU_VARIANT})"


def test_changelog_has_this_release():
    changelog = ROOT / "CHANGELOG.md"
    if not changelog.exists():
        pytest.skip("no source tree")
    text = changelog.read_text()
    assert "Keep a Changelog" in text
    assert re.search(rf"^## \[{re.escape(__version__)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", text, re.M)


def test_build_info_describes_the_core():
    info = core.build_info()
    assert set(info) == {"native", "checked", "optimized", "compiler", "arch", "features", "popcount",
                         "variant", "simd", "sliders", "tune"}
    assert info["variant"] == core.CPU_VARIANT
    assert info["checked"] is core.CHECKED_BUILD
    assert info["arch"] in ("x86-64", "arm64", "x86", "other")
    assert info["compiler"] and info["compiler"] != "unknown"
    if info["arch"] == "x86-64":
        # The portable x86-64 build may not assume popcnt; a native one says what it uses.
        hardware = info["popcount"].startswith("hardware")
        assert hardware == ("popcnt" in info["features"] or "avx" in info["features"]), info
        if info["variant"] == "baseline":
            assert info["popcount"].startswith("portable") and info["simd"] == "SSE2", info
            assert info["sliders"] == "magic", info
        if info["variant"] == "avx2":
            assert hardware and info["simd"] == "AVX2" and "bmi2" in info["features"], info
        if info["variant"] == "avx512":
            assert hardware and info["simd"] == "AVX-512" and "avx512bw" in info["features"], info


def test_doctor_reports_version_build_book_network_and_syzygy(tmp_path):
    done = run_cli(["doctor", "--syzygy", str(tmp_path / "missing")], timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"Fianchetto {__version__}"
    fields = dict(line.split(": ", 1) for line in lines[1:])
    info = core.build_info()
    assert fields["core build"].startswith("native" if info["native"] else "portable")
    assert ("not checked" in fields["core build"]) != info["checked"]
    assert fields["CPU features used"].endswith(f"popcount: {info['popcount']}; network kernels: {info['simd']}"
                                                f"; slider lookups: {SLIDER_NAMES[info['sliders']]}")
    assert fields["core variant"].startswith(f"{core.CPU_VARIANT} (")
    assert fields["profile-guided"] == describe_profile(dispatch.build_profile())
    assert f"installed: {' '.join(core.CPU_VARIANTS)}" in fields["core variant"]
    assert fields["book"].split(" (")[0].endswith("fianchetto.bin") and "bytes" in fields["book"]
    assert fields["network"].startswith("none") or "fianchetto.nnue" in fields["network"]
    assert fields["Syzygy paths"] == str(tmp_path / "missing")
    assert "not found" in done.stdout


def test_the_build_profile_stamp_is_read_as_written(tmp_path):
    assert dispatch.build_profile(tmp_path) is None
    assert describe_profile(None).startswith("unknown")
    (tmp_path / dispatch.PROFILE_STAMP).write_text("avx2 baseline\n")
    assert dispatch.build_profile(tmp_path) == "avx2 baseline"
    assert describe_profile("avx2 baseline").startswith("yes, variants avx2 baseline")
    (tmp_path / dispatch.PROFILE_STAMP).write_text("none (FIANCHETTO_PGO=0)\n")
    assert describe_profile(dispatch.build_profile(tmp_path)) == "no (FIANCHETTO_PGO=0)"
    (tmp_path / dispatch.PROFILE_STAMP).write_bytes(b"\xff\xfe")
    assert dispatch.build_profile(tmp_path) is None


def test_the_build_names_only_installed_variants_as_profiled():
    stamp = dispatch.build_profile()
    if stamp is None or stamp.startswith("none"):
        pytest.skip(f"this build was not profile-guided ({stamp})")
    assert set(stamp.split()) <= set(core.CPU_VARIANTS)


def test_doctor_without_syzygy_says_none():
    done = run_cli(["doctor"], timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Syzygy paths: none given" in done.stdout


def test_find_network_is_none_or_a_file():
    from fianchetto.doctor import find_network

    network = find_network()
    assert network is None or network.is_file()


def test_find_network_looks_in_the_networks_package(tmp_path, monkeypatch):
    """A network in a folder of the data package fianchetto.networks (no __init__.py) is found."""
    import importlib

    import fianchetto
    from fianchetto.evaluation import _package_files
    from fianchetto.options import DEFAULT_NETWORK_NAME

    (tmp_path / "networks").mkdir()
    network = tmp_path / "networks" / DEFAULT_NETWORK_NAME
    network.write_bytes(b"\0" * 64)
    monkeypatch.setattr(fianchetto, "__path__", list(fianchetto.__path__) + [str(tmp_path)])
    monkeypatch.delitem(sys.modules, "fianchetto.networks", raising=False)
    importlib.invalidate_caches()
    try:
        assert network in _package_files("fianchetto.networks", DEFAULT_NETWORK_NAME)
    finally:
        sys.modules.pop("fianchetto.networks", None)


def test_sdist_and_installs_carry_the_shipped_network_and_no_candidates(tmp_path):
    """What MANIFEST.in and pyproject.toml put in the source distribution and in a
    build: the shipped network, its WDL model and README, and neither a network
    trained into networks/candidates/ (MANIFEST.in prunes it; a build takes its
    package data from the same file list) nor a patch in candidates/. The build's
    own modules (build_support/) are in the sdist, which builds, and in no install."""
    import shutil
    import tarfile

    if not (ROOT / "MANIFEST.in").exists() or not (ROOT / "networks").is_dir():
        pytest.skip("no source tree")
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("pyproject.toml", "MANIFEST.in", "README.md"):
        shutil.copy(ROOT / name, tree)
    # setup() alone: the same package tables, without compiling the core.
    (tree / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    for folder in ("src", "books", "networks", "build_support"):
        shutil.copytree(ROOT / folder, tree / folder,
                        ignore=shutil.ignore_patterns("*.so", "*.c", "*.html", "__pycache__", "*.egg-info"))
    (tree / "networks" / "candidates").mkdir(exist_ok=True)
    (tree / "networks" / "candidates" / "probe.nnue").write_bytes(b"\0" * 64)
    (tree / "candidates").mkdir()
    (tree / "candidates" / "probe.patch").write_text("a change waiting for its test\n")
    out = tmp_path / "out"
    for command in (["sdist", "-d", str(out / "dist")], ["build_py", "-d", str(out)]):
        subprocess.run([sys.executable, "setup.py", "-q", *command], cwd=tree,
                       check=True, capture_output=True, timeout=120)
    (sdist,) = (out / "dist").glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    assert not [name for name in names if "candidates" in name]
    assert any(name.endswith("build_support/pgo.py") for name in names)
    installed = {p.relative_to(out).as_posix() for p in out.rglob("*.py")}
    assert "core_cy/dispatch.py" in installed
    assert not [name for name in installed if name.startswith("build_support/")
                or name.rsplit("/", 1)[-1] in ("profile_workload.py", "literals.py", "directives.py", "pgo.py")]
    assert any(name.endswith("networks/fianchetto.nnue") for name in names)
    shipped = sorted(p.relative_to(out / "fianchetto" / "networks").as_posix()
                     for p in (out / "fianchetto" / "networks").rglob("*") if p.is_file())
    expected = sorted(p.name for p in (ROOT / "networks").iterdir() if p.is_file())
    assert shipped == expected
    assert "fianchetto.nnue" in shipped


def test_ci_runs_exactly_the_readme_test_command_in_a_fresh_venv():
    readme, ci = ROOT / "README.md", ROOT / ".ci" / "run"
    if not readme.exists() or not ci.exists():
        pytest.skip("no source tree")
    section = readme.read_text().split("Install and test", 1)[1]
    command = section.split("```sh\n", 1)[1].split("\n```", 1)[0].strip()
    assert command.startswith("python3 -m venv ") and "pytest" in command
    assert command in ci.read_text().splitlines()


# --- the README's option table --------------------------------------------------------------
OPTION_ROW = re.compile(r"\| `([^`]+)` \| (\w+)(?: (-?\d+)\.\.(-?\d+))? \|([^|]*)\|")


def readme_option_rows() -> dict:
    """name -> (type, min, max, default) of each row of the README's "Options" table."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Options\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = OPTION_ROW.match(line)
        if match:
            assert match.group(1) not in rows, f"{match.group(1)} has two rows"
            rows[match.group(1)] = (match.group(2), match.group(3), match.group(4), match.group(5).strip())
    return rows


def test_the_readme_documents_every_uci_option_as_the_engine_declares_it():
    from fianchetto.options import OPTION_TABLE

    rows = readme_option_rows()
    assert set(rows) == {option.name for option in OPTION_TABLE}
    for option in OPTION_TABLE:
        kind, low, high, default = rows[option.name]
        assert kind == option.type, option.name
        if option.type == "spin":
            assert (int(low), int(high), int(default)) == (option.min, option.max, option.default), option.name
        elif option.type == "check":
            assert default == ("true" if option.default else "false"), option.name
        elif option.type == "string":
            assert default == (option.default or "empty"), option.name
        else:
            assert default == "", option.name
