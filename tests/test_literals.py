"""Constants the build reads from the package's source without importing it
(build_support/literals.py)."""
import pytest

from support import source_tree  # noqa: F401  (puts build_support on the path)
from build_support.literals import module_constant
from fianchetto import benchmark, options


def test_it_reads_the_constants_the_build_needs():
    assert module_constant(benchmark.__file__, "BENCH_FENS") == benchmark.BENCH_FENS
    assert module_constant(options.__file__, "DEFAULT_NETWORK_NAME") == options.DEFAULT_NETWORK_NAME


def test_plain_and_annotated_assignments_are_read(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("A = (1, 'b')\nB: int = 3\nC = D = 'both'\ndef f():\n    E = 1\n")
    assert module_constant(source, "A") == (1, "b")
    assert module_constant(source, "B") == 3
    assert module_constant(source, "C") == module_constant(source, "D") == "both"


@pytest.mark.parametrize("text", ["def f():\n    E = 1\n", "B: int\n", "E = len('x')\n"])
def test_a_missing_or_computed_constant_is_an_error(tmp_path, text):
    source = tmp_path / "m.py"
    source.write_text(text)
    with pytest.raises(ValueError):
        module_constant(source, "E" if "E" in text else "B")
