"""Build one executable file that starts the engine: what ``make EXE=path`` runs.

The file is a self-extracting Python zip application:

    #!/bin/sh
    exec '/path/to/python3' -E -s "$0" "$@"
    <zip: __main__.py, build.json, payload/...>

``payload/`` is Fianchetto installed with ``pip install --target`` (the compiled
core, the Python packages, the book and network, python-chess and the other
runtime dependencies), built by the same interpreter that the header names. A
compiled extension cannot be imported from inside a zip, so on its first run the
launcher (``__main__.py``) extracts the payload into a cache folder named after
its hash (in ``$FIANCHETTO_EXE_CACHE``, else ``$XDG_CACHE_HOME/fianchetto/exe``,
else ``~/.cache/fianchetto/exe``) and runs the engine from there; later runs find it
extracted. The file can be moved or copied anywhere, and keeps working after the
source tree that built it is deleted (OpenBench builds in a temporary folder and
keeps only the executable). It needs the Python that built it.

Usage (the Makefile passes these): ``python3 tools/make_exe.py --out PATH
[--work build/make] [--evalfile FILE]``. Everything it builds goes to the work
folder and PATH; the source tree is copied first, so no build products are left
in it.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What the build needs from the source tree (the files the sdist is made of, less the tests).
SOURCE_ENTRIES = ("pyproject.toml", "setup.py", "README.md", "MANIFEST.in", "CHANGELOG.md",
                  "build_support", "src", "books", "networks")
#: Never copied: build products of an in-tree build and caches.
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.pyd", "*.c", "*.html", "*.egg-info")

LAUNCHER = r'''"""Fianchetto: a self-extracting launcher (built by tools/make_exe.py)."""
import json
import os
import shutil
import sys
import sysconfig
import tempfile
import zipfile


def _cache_root():
    explicit = os.environ.get("FIANCHETTO_EXE_CACHE")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "fianchetto", "exe")


def _extract(archive, build):
    """The folder holding this archive's payload, extracted once per payload hash."""
    user = "fianchetto-exe-%d" % os.getuid() if hasattr(os, "getuid") else "fianchetto-exe"
    roots = [_cache_root(), os.path.join(tempfile.gettempdir(), user)]
    last_error = None
    for root in roots:
        target = os.path.join(root, build["payload_sha256"][:16])
        if os.path.isfile(os.path.join(target, ".complete")):
            return target
        try:
            os.makedirs(root, exist_ok=True)
            scratch = tempfile.mkdtemp(prefix=".extract-", dir=root)
            with zipfile.ZipFile(archive) as zf:
                for name in zf.namelist():
                    if name.startswith("payload/") and not name.endswith("/"):
                        zf.extract(name, scratch)
            payload = os.path.join(scratch, "payload")
            open(os.path.join(payload, ".complete"), "w").close()
            try:
                os.rename(payload, target)          # atomic: a concurrent run may have won
            except OSError:
                if not os.path.isfile(os.path.join(target, ".complete")):
                    raise
            shutil.rmtree(scratch, ignore_errors=True)
            return target
        except OSError as exc:
            last_error = exc
    sys.stderr.write("fianchetto: cannot extract the engine: %s\n" % last_error)
    sys.exit(1)


def main():
    archive = os.path.dirname(os.path.abspath(__file__))
    with zipfile.ZipFile(archive) as zf:
        build = json.loads(zf.read("build.json").decode("utf-8"))
    here = sysconfig.get_config_var("EXT_SUFFIX")
    if here != build["ext_suffix"]:
        sys.stderr.write("fianchetto: this executable was built for %s (extension suffix %s) and runs "
                         "under %s (%s): run it with that Python or build it again with make\n"
                         % (build["python"], build["ext_suffix"], sys.executable, here))
        sys.exit(1)
    folder = _extract(archive, build)
    sys.path[:] = [folder] + [p for p in sys.path if os.path.abspath(p) != archive]
    from fianchetto.cli import main as engine_main

    sys.exit(engine_main())


main()
'''


def run(command, **kwargs) -> None:
    print("+ " + " ".join(str(part) for part in command), flush=True)
    subprocess.run([str(part) for part in command], check=True, **kwargs)


def copy_sources(stage: Path, evalfile: str | None) -> None:
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    for entry in SOURCE_ENTRIES:
        source = ROOT / entry
        if source.is_dir():
            shutil.copytree(source, stage / entry, ignore=IGNORED)
        elif source.is_file():
            shutil.copy2(source, stage / entry)
    if evalfile:
        networks = stage / "networks"
        if not networks.is_dir():
            raise SystemExit("EVALFILE given, but this source tree ships no networks/ folder")
        shutil.copy2(evalfile, networks / "fianchetto.nnue")


def install(stage: Path, site: Path) -> None:
    if site.exists():
        shutil.rmtree(site)
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    run([sys.executable, "-m", "pip", "install", "--quiet", "--no-warn-script-location",
         "--target", site, stage], env=env)
    # Console scripts written by --target name this machine's paths; the launcher replaces them.
    shutil.rmtree(site / "bin", ignore_errors=True)


def payload_hash(site: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in site.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(site).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    digest.update(LAUNCHER.encode())
    return digest.hexdigest()


def write_executable(site: Path, out: Path) -> str:
    build = {
        "python": f"{sys.implementation.name} {sys.version.split()[0]}",
        "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
        "payload_sha256": payload_hash(site),
    }
    header = "#!/bin/sh\nexec '{}' -E -s \"$0\" \"$@\"\n".format(sys.executable.replace("'", "'\\''"))
    partial = out.with_name(out.name + ".partial")
    with open(partial, "wb") as handle:
        handle.write(header.encode())
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("__main__.py", LAUNCHER)
            zf.writestr("build.json", json.dumps(build, indent=1))
            for path in sorted(site.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    zf.write(path, "payload/" + path.relative_to(site).as_posix())
    partial.chmod(0o755)
    os.replace(partial, out)
    return build["payload_sha256"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="the executable to write")
    parser.add_argument("--work", default=str(ROOT / "build" / "make"), help="folder for everything else")
    parser.add_argument("--evalfile", default=None, help="a network file to ship instead of networks/'s")
    args = parser.parse_args()
    if os.name == "nt":
        raise SystemExit("make_exe.py writes a POSIX executable; on Windows install the wheel (README)")
    work = Path(args.work).resolve()
    out = Path(args.out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    copy_sources(work / "src", args.evalfile)
    install(work / "src", work / "site")
    digest = write_executable(work / "site", out)
    print(f"built {out} ({out.stat().st_size // 1024} KiB, payload {digest[:16]}, "
          f"for {sys.executable})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
