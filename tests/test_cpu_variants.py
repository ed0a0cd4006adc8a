"""The core's CPU variants: the same engine whichever variant runs, and a safe choice.

Every variant of the compiled core that this machine can run is imported side by
side in one process (each is a module of its own, with its own tables and
network) and compared with the baseline: the network's evaluation of 1,000
positions, the incremental accumulators along whole games, perft, and the bench
signature of the engine started with ``FIANCHETTO_CPU`` set. Then the choice
itself: an unsupported or unknown variant is refused with a message and the
baseline runs.
"""
from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from core_cy import core, cpu, dispatch, variants
from fianchetto.evaluation import default_network_path
from support.networks import random_network_bytes, saturated_network_bytes
from test_bench_signature import SIGNATURE_DEPTH, SIGNATURE_NODES

#: Positions whose evaluation every variant must reproduce exactly.
EVAL_POSITIONS = 1000
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def variant_module(name):
    return importlib.import_module(f"core_cy._core_{name}")


def random_games(module, rng, games, shortest, longest):
    """Seeded random games (captures, promotions, castling, en passant): for each,
    the board after every move, the last one the game's end."""
    for _ in range(games):
        board, boards = module.Board(), []
        for _ in range(rng.randrange(shortest, longest)):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))
            boards.append(board.fen())
        yield board, boards


def random_positions(module, count, seed=7):
    """FENs along seeded random games."""
    fens = []
    for _board, boards in random_games(module, random.Random(seed), count, 10, 120):
        fens.extend(boards)
        if len(fens) >= count:
            break
    return fens[:count]


def evaluations(module, network: bytes, fens):
    loaded = module.load_network(network)
    return [loaded.evaluate(module.Board(fen)) for fen in fens]


@pytest.fixture(scope="module")
def others():
    names = [name for name in dispatch.runnable_variants() if name != "baseline"]
    if not names or "baseline" not in [v.name for v in dispatch.built_variants()]:
        pytest.skip("this machine runs only one variant of the core")
    return names


@pytest.fixture(scope="module")
def fens():
    return random_positions(variant_module("baseline"), EVAL_POSITIONS)


def test_the_loaded_core_is_the_best_variant_this_cpu_runs():
    if os.environ.get(dispatch.ENV_CHOICE):
        pytest.skip("FIANCHETTO_CPU chooses the variant in this run")
    assert core.CPU_VARIANT == dispatch.runnable_variants()[0]
    assert core.build_info()["variant"] == core.CPU_VARIANT
    assert core.CPU_WARNING is None


def test_x86_64_installs_hold_avx512_avx2_and_baseline_variants():
    if core.build_info()["arch"] != "x86-64" or core.build_info()["native"]:
        pytest.skip("an x86-64 build without FIANCHETTO_NATIVE")
    assert core.CPU_VARIANTS == ("avx512", "avx2", "baseline")
    assert variant_module("baseline").build_info()["simd"] == "SSE2"
    assert variant_module("baseline").build_info()["popcount"].startswith("portable")


@pytest.mark.parametrize("name, kernels", [("avx512", "AVX-512"), ("avx2", "AVX2")])
def test_each_x86_64_variant_runs_its_own_kernels(name, kernels):
    if name not in dispatch.runnable_variants():
        pytest.skip(f"this CPU does not run the {name} variant")   # importing it could crash
    info = variant_module(name).build_info()
    assert info["simd"] == kernels and info["popcount"].startswith("hardware")


NETWORKS = {
    "shipped": lambda: default_network_path().read_bytes(),
    "random": lambda: random_network_bytes(hidden=256),
    "random-padded": lambda: random_network_bytes(hidden=48, seed=4),   # rows padded to 64 lanes
    "random-widest": lambda: random_network_bytes(hidden=core.NETWORK_MAX_HIDDEN, seed=2),
    "saturated-widest": lambda: saturated_network_bytes(core.NETWORK_MAX_HIDDEN),
}


@pytest.mark.parametrize("network", sorted(NETWORKS))
def test_every_variant_evaluates_like_the_baseline(others, fens, network):
    data = NETWORKS[network]()
    expected = evaluations(variant_module("baseline"), data, fens)
    if network != "saturated-widest":       # that one scores every position alike
        assert len(set(expected)) > 100, "the positions should be varied"
    for name in others:
        assert evaluations(variant_module(name), data, fens) == expected, name


def test_every_variant_keeps_its_accumulators_equal_to_a_refresh(others):
    data = random_network_bytes(hidden=256, seed=3)
    for name in others:
        module = variant_module(name)
        loaded = module.load_network(data)
        for board, _fens in random_games(module, random.Random(11), 20, 20, 100):
            assert loaded.accumulator_mismatch(board) == -1, (name, board.fen())


def test_every_variant_counts_perft_like_the_baseline(others):
    base = variant_module("baseline")
    expected = [base.Board().perft(4), base.Board(KIWIPETE).perft(3)]
    for name in others:
        module = variant_module(name)
        assert [module.Board().perft(4), module.Board(KIWIPETE).perft(3)] == expected, name


#: Rooks and a king in open lines: the slider tables' edges and x-rays.
ROOK_ENDGAME = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"


def slider_perfts(module):
    return [module.Board().perft(4), module.Board(KIWIPETE).perft(3), module.Board(ROOK_ENDGAME).perft(4)]


def test_pext_and_magic_slider_lookups_count_perft_alike(others):
    """The variants with BMI2 fill their slider tables either way; both give the
    known counts, whichever the CPU chose at import."""
    for name in others:
        module = variant_module(name)
        chosen = module.slider_lookup()
        try:
            for lookup in ("magic", "pext"):
                module.set_slider_lookup(lookup)
                assert module.slider_lookup() == lookup
                assert slider_perfts(module) == [197281, 97862, 43238], (name, lookup)
        finally:
            module.set_slider_lookup(chosen)
        assert module.slider_lookup() == chosen


def test_the_baseline_looks_sliders_up_by_magic_and_refuses_pext():
    base = variant_module("baseline")
    assert base.slider_lookup() == "magic"
    assert base.build_info()["sliders"] == "magic"
    with pytest.raises(ValueError, match="PEXT"):
        base.set_slider_lookup("pext")
    with pytest.raises(ValueError, match="slider lookup"):
        base.set_slider_lookup("rotated")
    assert base.slider_lookup() == "magic"


def cpuinfo_fields() -> dict:
    """The first processor's fields in /proc/cpuinfo ({} when there is none)."""
    path = Path("/proc/cpuinfo")
    fields = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        if not line.strip():
            break
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def test_pext_is_chosen_where_the_cpu_runs_it_fast():
    """PEXT where the CPU has BMI2 and is not an AMD before Zen 3 (family 25),
    whose microcoded PEXT is slower than the magic multiplication."""
    info = cpuinfo_fields()
    if "flags" not in info or "avx2" not in dispatch.runnable_variants():
        pytest.skip("needs Linux on x86-64 and the avx2 variant")
    amd = info.get("vendor_id") in ("AuthenticAMD", "HygonGenuine")
    fast = "bmi2" in info["flags"].split() and (not amd or int(info["cpu family"]) >= 25)
    assert variant_module("avx2").build_info()["sliders"] == ("pext" if fast else "magic")


def bench_nodes(env) -> int:
    done = subprocess.run([sys.executable, "-m", "fianchetto", "bench", str(SIGNATURE_DEPTH)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split("Nodes searched:")[1].split()[0])


def test_every_variant_gives_the_bench_signature(others):
    for name in ["baseline"] + others:
        assert bench_nodes(dict(os.environ, FIANCHETTO_CPU=name)) == SIGNATURE_NODES, name


def forced(choice: str, hidden: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, FIANCHETTO_CPU=choice, FIANCHETTO_DISABLE_CPU_FEATURES=hidden)
    code = "import core_cy.core as c; print(c.CPU_VARIANT); print(c.Board().perft(3))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_a_variant_the_cpu_cannot_run_is_refused_and_the_baseline_runs():
    # Hiding avx2 makes any x86-64 CPU one that cannot run the avx2 variant.
    done = forced("avx2", hidden="avx2,bmi2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["baseline", "8902"]
    assert "FIANCHETTO_CPU=avx2" in done.stderr and "cannot run it" in done.stderr
    assert "lacks bmi2 avx2" in done.stderr          # what is missing
    assert "has: " in done.stderr and "avx2" not in done.stderr.split("has: ")[1]


def test_an_unknown_variant_is_refused_and_the_baseline_runs():
    done = forced("avx9000")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == dispatch.built_variants()[-1].name
    assert "no such variant" in done.stderr and "avx9000" in done.stderr


def test_the_engine_names_its_variant_before_the_first_search():
    env = dict(os.environ, FIANCHETTO_CPU="avx2", FIANCHETTO_DISABLE_CPU_FEATURES="avx2")
    done = subprocess.run([sys.executable, "-m", "fianchetto"], input="uci\nisready\ngo depth 1\nquit\n",
                          capture_output=True, text=True, env=env, timeout=120)
    lines = done.stdout.splitlines()
    first_info = next(i for i, line in enumerate(lines) if line.startswith("info "))
    assert lines[first_info].startswith("info string core baseline (")
    assert "evaluation: network" in lines[first_info]
    assert "cannot run it" in lines[first_info + 1]
    assert sum(line.startswith("bestmove ") for line in lines) == 1


# --- the choice, without a CPU: dispatch.choose on made-up feature sets ---------------

X86 = variants.for_arch("x86-64")
V3 = next(v for v in X86 if v.name == "avx2").requires
V4 = next(v for v in X86 if v.name == "avx512").requires


@pytest.mark.parametrize("have, forced_name, expected, refused", [
    (("sse2",), None, "baseline", False),
    (("sse2", "avx2"), None, "baseline", False),        # avx2 alone is not x86-64-v3
    (V3, None, "avx2", False),
    (V3 + ("avx512f",), None, "avx2", False),           # AVX-512 without BW: no 16-bit lanes
    (V4, None, "avx512", False),
    (V4, "avx2", "avx2", False),
    (V3, "baseline", "baseline", False),
    (V3, "avx2", "avx2", False),
    (V3, "avx512", "baseline", True),
    (("sse2", "popcnt"), "avx2", "baseline", True),
    (V3, "native", "baseline", True),                    # not in this list of built variants
])
def test_choose(have, forced_name, expected, refused):
    chosen, warning = dispatch.choose(forced_name, tuple(have), list(X86))
    assert chosen.name == expected
    assert (warning is not None) == refused


def test_choose_refuses_when_nothing_can_run():
    with pytest.raises(ImportError):
        dispatch.choose(None, (), list(X86))


#: The gcc flags that allow instructions, and the CPU feature each needs.
FLAG_FEATURE = {"-mavx2": "avx2", "-mavx": "avx", "-mfma": "fma", "-mf16c": "f16c", "-mbmi": "bmi1",
                "-mbmi2": "bmi2", "-mpopcnt": "popcnt", "-mlzcnt": "lzcnt", "-mmovbe": "movbe",
                "-mavx512f": "avx512f", "-mavx512bw": "avx512bw"}
#: Flags that tune code generation without allowing any instruction.
TUNING_FLAGS = {"-mprefer-vector-width=256"}


@pytest.mark.parametrize("variant", X86, ids=[v.name for v in X86])
def test_each_variant_asks_for_what_its_flags_allow(variant):
    """Every -m flag of an x86-64 variant is a feature the loader checks first
    (a flag this table does not know fails the test until it is added)."""
    allowing = [f for f in variant.gcc_flags if f not in TUNING_FLAGS]
    assert {FLAG_FEATURE[f] for f in allowing} <= set(variant.requires)


@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="Linux only")
def test_cpuid_agrees_with_the_kernel():
    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    if not flags:
        pytest.skip("no x86 flags in /proc/cpuinfo")
    have = set(cpu.features())
    for name in ("sse2", "popcnt", "avx", "avx2", "bmi1", "bmi2", "fma", "f16c", "movbe", "avx512f",
                 "avx512bw"):
        assert (name in have) == (name in flags), name
