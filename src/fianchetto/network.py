"""The evaluation network: where the shipped one lives, and loading a file into the core.

The core keeps one network (``core_cy.core.load_network``); this module reads the
file, turns every refusal into a message, and remembers which file is loaded, so
that a bad ``EvalFile`` leaves the working network in place. numpy is not needed.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import List, Optional

from core_cy import core

from fianchetto.options import DEFAULT_NETWORK_NAME


def default_network_path() -> Optional[Path]:
    """The shipped network: in the installed data package ``fianchetto.networks``,
    else in ``networks/`` of a source checkout; None when there is none."""
    for candidate in _package_files("fianchetto.networks", DEFAULT_NETWORK_NAME) + [
            Path(__file__).resolve().parent.parent.parent / "networks" / DEFAULT_NETWORK_NAME]:
        if candidate.is_file():
            return candidate
    return None


def _package_files(package: str, name: str) -> List[Path]:
    """Where file `name` of an installed (possibly data-only, namespace) package would be."""
    found: List[Path] = []
    try:
        from importlib.resources import files

        # A namespace package gives a MultiplexedPath: join first, then take the path.
        found.append(Path(str(files(package).joinpath(name))))
    except (ImportError, TypeError, AttributeError, ValueError, OSError):
        pass   # absent, or a namespace package that this Python's files() cannot read
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        found.extend(Path(location) / name for location in spec.submodule_search_locations)
    return found


class NetworkError(ValueError):
    """A network file that cannot be used; the message names the file and the problem."""


def load_file(path: str) -> dict:
    """Load the network at ``path`` into the core; :class:`NetworkError` if refused
    (the network loaded before stays in use)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise NetworkError(f"cannot read network file {path}: {exc.strerror or exc}") from None
    try:
        return core.load_network(data)
    except (ValueError, MemoryError) as exc:
        raise NetworkError(f"network file {path} refused: {exc}") from None


def resolve(eval_file: str) -> Optional[str]:
    """The path an ``EvalFile`` value names: empty or 'default' mean the shipped network."""
    if eval_file.strip().lower() in ("", "default", "<default>", DEFAULT_NETWORK_NAME):
        path = default_network_path()
        return str(path) if path else None
    return eval_file


def select_for_tool(eval_file: Optional[str]) -> Optional[str]:
    """For command-line tools: load ``eval_file`` (None: the shipped network, 'none':
    the hand-crafted evaluation) and switch it on. Returns an error message or None."""
    if eval_file is not None and eval_file.lower() == "none":
        core.set_network_active(False)
        return None
    path = resolve(eval_file or "")
    if path is None:
        core.set_network_active(False)
        return None
    try:
        load_file(path)
    except NetworkError as exc:
        return str(exc)
    core.set_network_active(True)
    return None


class EvaluationChoice:
    """What the ``EvalFile`` and ``Use NNUE`` options ask for, applied to the core.

    A file that cannot be used is refused whole: the network that was working
    stays loaded and the option keeps its old value."""

    def __init__(self) -> None:
        self.loaded: Optional[str] = None     # the file whose network the core holds
        self._wdl_key: Optional[str] = None   # the network whose (model, problem) _wdl is
        self._wdl = None

    def load(self, eval_file: str) -> None:
        """Load the network ``eval_file`` names; :class:`NetworkError` if refused."""
        path = resolve(eval_file)
        if path is None:
            raise NetworkError("no network is shipped with this build")
        if path != self.loaded:
            load_file(path)
            self.loaded = path

    def activate(self, use_network: bool) -> Optional[str]:
        """Switch between the network and the hand-crafted evaluation; a message
        when the network was asked for but none is loaded."""
        active = core.set_network_active(use_network)
        if use_network and not active:
            return "no network loaded; using the hand-crafted evaluation"
        return None

    def wdl_model(self):
        """The win/draw/loss model of the evaluation in use: the loaded network's
        (the file beside it), or the default model (fianchetto.wdl)."""
        return self._wdl_of(self.loaded if core.network_active() else None)[0]

    def wdl_problem(self) -> Optional[str]:
        """Why the loaded network's scores use the default WDL model (no model file
        beside it, or a bad one), or None when it has its own."""
        return self._wdl_of(self.loaded)[1]

    def _wdl_of(self, network: Optional[str]):
        """(model, problem) of ``network`` (wdl.load_model), its file read once per network."""
        from fianchetto import wdl

        if network is None:
            return wdl.load_model(None)
        if self._wdl is None or self._wdl_key != network:
            self._wdl_key, self._wdl = network, wdl.load_model(network)
        return self._wdl

    def describe(self) -> str:
        if core.network_active():
            kings = core.network_king_buckets()
            shape = f"{core.network_hidden()} hidden" + (f", {kings} king bucket{'s' * (kings > 1)}" if kings else "")
            return f"network {self.loaded} ({shape})"
        return "hand-crafted evaluation"
