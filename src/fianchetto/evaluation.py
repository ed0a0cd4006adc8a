"""The evaluation network: where the shipped one lives, and loading a file into the core.

A loaded network is a value (``core_cy.core.LoadedNetwork``): each engine holds
its own reference and hands it to its searches, and the core shares the weights
of one file among all its holders. This module reads the file, turns every
refusal into a message, and keeps one engine's choice (:class:`EvaluationChoice`),
so that a bad ``EvalFile`` leaves that engine's working network in place and
changes no other engine. numpy is not needed.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import List, Optional

from core_cy import core
from core_cy.core import LoadedNetwork

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


def load_file(path: str) -> LoadedNetwork:
    """The network at ``path``, loaded in the core (shared with every other holder
    of the same file); :class:`NetworkError` if refused."""
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


def network_path(eval_file: Optional[str]) -> Optional[str]:
    """The file a tool's ``eval_file`` choice names (None: the shipped network);
    None for 'none' (the hand-crafted evaluation) or a build that ships no network."""
    if eval_file is not None and eval_file.lower() == "none":
        return None
    return resolve(eval_file or "")


def for_tool(eval_file: Optional[str]) -> Optional[LoadedNetwork]:
    """For command-line tools and the Python API: the network ``eval_file`` names
    (None: the shipped network, 'none': the hand-crafted evaluation, returned as
    None; so is a build that ships no network). :class:`NetworkError` if refused."""
    path = network_path(eval_file)
    return load_file(path) if path is not None else None


def evaluate_with(search, network: Optional[LoadedNetwork]) -> None:
    """Switch `search` (a core Search) to `network` (None: the hand-crafted
    evaluation). Its table and history are cleared when the evaluation changes,
    as their stored scores came from the other one; the same weights keep them."""
    before = search.evaluation
    search.set_network(network)
    if getattr(before, "sha256", None) != getattr(network, "sha256", None):
        search.clear()


class EvaluationChoice:
    """What one engine's ``EvalFile`` and ``Use NNUE`` options ask for: the network
    it loaded (its own reference) and whether its searches use it.

    A file that cannot be used is refused whole: the network that was working
    stays loaded and the option keeps its old value."""

    def __init__(self) -> None:
        self.loaded: Optional[str] = None               # the file of `network`
        self.network: Optional[LoadedNetwork] = None
        self.use_network = True
        self._wdl_key: Optional[str] = None   # the network whose (model, problem) _wdl is
        self._wdl = None

    def load(self, eval_file: str) -> None:
        """Load the network ``eval_file`` names (UCI's ``EvalFile``: empty or
        'default' the shipped one); :class:`NetworkError` if refused. The same
        file again keeps the loaded weights; its WDL model is read anew."""
        path = resolve(eval_file)
        if path is None:
            raise NetworkError("no network is shipped with this build")
        self._hold(path)

    def choose(self, eval_file: Optional[str]) -> None:
        """The Python API's and the tools' choice (:func:`network_path`): None the
        shipped network, 'none' the hand-crafted evaluation (no network loaded, as
        for a build that ships none), else a file; :class:`NetworkError` if refused."""
        self._hold(network_path(eval_file))

    def _hold(self, path: Optional[str]) -> None:
        """Hold the network at ``path`` (None: none), loading it unless it is the one
        held; its WDL model is read anew. A refused file changes nothing."""
        if path is None:
            self.network = None
        elif path != self.loaded or self.network is None:
            self.network = load_file(path)
        self.loaded = path
        self._wdl = None

    def activate(self, use_network: bool) -> Optional[str]:
        """Switch between the network and the hand-crafted evaluation; a message
        when the network was asked for but none is loaded."""
        self.use_network = use_network
        if use_network and self.network is None:
            return "no network loaded; using the hand-crafted evaluation"
        return None

    @property
    def active(self) -> Optional[LoadedNetwork]:
        """The network this engine's searches evaluate with, None for the hand-crafted evaluation."""
        return self.network if self.use_network else None

    def wdl_model(self):
        """The win/draw/loss model of the evaluation in use: the loaded network's
        (the file beside it), or the default model (fianchetto.wdl)."""
        return self._wdl_of(self.loaded if self.active is not None else None)[0]

    def network_wdl_model(self):
        """The loaded network's win/draw/loss model (the file beside it, or the
        default model when it has none), whether the search uses the network or not."""
        return self._wdl_of(self.loaded)[0]

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
        active = self.active
        if active is not None:
            kings = active.king_buckets
            shape = f"{active.hidden} hidden" + (f", {kings} king bucket{'s' * (kings > 1)}" if kings else "")
            return f"network {self.loaded} ({shape})"
        return "hand-crafted evaluation"
