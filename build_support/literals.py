"""Module constants read from Python source without importing it.

The build (setup.py) and the profile workload it runs need a few constants of
the ``fianchetto`` package (the shipped network's name, the bench positions)
before that package can be imported: it needs the core being built.
"""
import ast
from pathlib import Path
from typing import Any


def module_constant(source: Path, name: str) -> Any:
    """The literal assigned to ``name`` at the top level of ``source`` (plain or
    annotated assignment); ValueError when there is none or it is not a literal."""
    for node in ast.parse(Path(source).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        elif isinstance(node, ast.Assign):
            targets = node.targets
        else:
            continue
        if any(isinstance(target, ast.Name) and target.id == name for target in targets):
            return ast.literal_eval(node.value)
    raise ValueError(f"{source} assigns no {name} at its top level")
