"""EvalFile and Use NNUE through the engine process: good files load, bad files are
refused with an info string and the working evaluation stays."""
from __future__ import annotations

import pytest

from fianchetto.wdl import WdlModel
from support.networks import CORRUPTIONS, random_network_bytes
from support.uci_pipe import UciPipe, ready_engine

FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


@pytest.fixture(scope="module")
def good_net(tmp_path_factory):
    path = tmp_path_factory.mktemp("nets") / "good.nnue"
    path.write_bytes(random_network_bytes(hidden=32, seed=4))
    return path


@pytest.fixture()
def engine():
    yield from ready_engine()


def eval_lines(pipe: UciPipe):
    pipe.send(f"position fen {FEN}")
    pipe.send("eval")
    return pipe.read_until(lambda l: l.startswith("Final evaluation:"))


def search_uses(lines) -> str:
    """The line of ``eval`` that names the evaluation the search uses."""
    return next(l for l in lines if l.startswith("Search uses:"))


def test_options_are_declared():
    pipe = UciPipe()
    lines = pipe.handshake()
    pipe.close()
    assert any(l.startswith("option name EvalFile type string default ") for l in lines)
    assert "option name Use NNUE type check default true" in lines


def test_a_network_file_is_used_by_eval_and_search(engine, good_net):
    engine.send(f"setoption name EvalFile value {good_net}")
    assert not [l for l in engine.sync() if "refused" in l or "cannot" in l]
    lines = eval_lines(engine)
    assert any(l.startswith("NNUE evaluation:") for l in lines)
    assert "good.nnue" in search_uses(lines)
    _, best, _ = engine.go("go depth 4")
    assert best and best != "(none)"
    engine.send("setoption name Use NNUE value false")
    engine.sync()
    assert search_uses(eval_lines(engine)) == "Search uses: hand-crafted evaluation"


def test_a_network_without_its_wdl_model_says_which_model_scores_it(engine, good_net, tmp_path):
    engine.send(f"setoption name EvalFile value {good_net}")
    answer = engine.sync()
    assert any(l.startswith("info string no win/draw/loss model beside") and "good.nnue" in l for l in answer)
    bad_model = tmp_path / "own.nnue"
    bad_model.write_bytes(good_net.read_bytes())
    (tmp_path / "own.nnue.wdl.json").write_text("{not json")
    engine.send(f"setoption name EvalFile value {bad_model}")
    answer = engine.sync()
    assert any(l.startswith("info string ") and "own.nnue.wdl.json refused" in l for l in answer)
    lines = eval_lines(engine)
    assert "own.nnue" in search_uses(lines)          # the network is used all the same
    engine.send("setoption name EvalFile value default")
    assert not [l for l in engine.sync() if "win/draw/loss" in l or "refused" in l]


def test_the_same_file_named_again_reads_its_mended_wdl_model(engine, good_net, tmp_path):
    """A model file put right beside the network is read when EvalFile names the
    network again (a GUI resends it each game): its weights are kept, its model is not."""
    own = tmp_path / "own.nnue"
    own.write_bytes(good_net.read_bytes())
    model = tmp_path / "own.nnue.wdl.json"
    model.write_text("{not json")
    engine.send(f"setoption name EvalFile value {own}")
    assert any("own.nnue.wdl.json refused" in l for l in engine.sync())
    model.write_text(WdlModel((200.0,), (70.0,), "test").to_json())
    engine.send(f"setoption name EvalFile value {own}")
    assert not [l for l in engine.sync() if "win/draw/loss" in l or "refused" in l]


def test_the_network_line_of_eval_uses_the_networks_model_whether_searched_or_not(engine, good_net, tmp_path):
    """``eval`` shows the loaded network's score in the units of its own WDL model
    (the file beside it) with Use NNUE on or off; only the last line changes."""
    own = tmp_path / "own.nnue"
    own.write_bytes(good_net.read_bytes())
    (tmp_path / "own.nnue.wdl.json").write_text(WdlModel((200.0,), (70.0,), "test").to_json())
    engine.send(f"setoption name EvalFile value {own}")
    engine.sync()
    used = eval_lines(engine)
    engine.send("setoption name Use NNUE value false")
    engine.sync()
    unused = eval_lines(engine)
    network_line = [l for l in used if l.startswith("NNUE evaluation:")]
    assert network_line and "200 of them a pawn here" in network_line[0]
    assert [l for l in unused if l.startswith("NNUE evaluation:")] == network_line
    assert used[-1] != unused[-1] and search_uses(unused) == "Search uses: hand-crafted evaluation"


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_bad_network_files_are_refused(engine, good_net, tmp_path, kind):
    engine.send(f"setoption name EvalFile value {good_net}")
    engine.sync()
    bad = tmp_path / f"{kind.replace(' ', '_')}.nnue"
    bad.write_bytes(CORRUPTIONS[kind](good_net.read_bytes()))
    engine.send(f"setoption name EvalFile value {bad}")
    answer = engine.sync()
    assert answer and all(l.startswith("info string ") for l in answer)
    assert "refused" in " ".join(answer)
    assert "good.nnue" in search_uses(eval_lines(engine))
    _, best, _ = engine.go("go depth 3")
    assert best and best != "(none)"


def test_missing_network_file(engine):
    engine.send("setoption name EvalFile value /no/such/file.nnue")
    answer = engine.sync()
    assert answer and "cannot read" in " ".join(answer)
    _, best, _ = engine.go("go depth 3")
    assert best and best != "(none)"


def test_the_uci_path_does_not_import_numpy():
    import subprocess
    import sys

    code = ("import sys, fianchetto.cli, fianchetto.uci, fianchetto.session, fianchetto.learn.selfplay;"
            "from fianchetto.session import UciSession;"
            "UciSession(listener=None);"
            "sys.exit(1 if 'numpy' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0


def test_a_king_bucketed_network_is_loaded_named_and_searched(engine, tmp_path):
    import numpy as np

    from fianchetto.learn.network import FloatNetwork, QuantNetwork

    path = tmp_path / "kings.nnue"
    QuantNetwork.quantise(FloatNetwork.initial(32, np.random.default_rng(5), 8, 4)).save(path)
    engine.send(f"setoption name EvalFile value {path}")
    assert not [l for l in engine.sync() if "refused" in l or "cannot" in l]
    assert search_uses(eval_lines(engine)).endswith("kings.nnue (32 hidden, 4 king buckets)")
    _, best, _ = engine.go("go depth 5")
    assert best and best != "(none)"


def searched(pipe: UciPipe, nodes: int = 20_000) -> tuple:
    """What a node-limited search from FEN finds: its last score, line and bestmove."""
    pipe.send(f"position fen {FEN}")
    lines, best, _ = pipe.go(f"go nodes {nodes}")
    last = [l.split() for l in lines if l.startswith("info depth")][-1]
    return last[last.index("score"):last.index("score") + 3], last[last.index("pv"):], best


def after(settings, searches_before: int = 1) -> tuple:
    """A fresh engine's search after `searches_before` searches and then `settings`."""
    pipe = next(ready_engine())
    try:
        for _ in range(searches_before):
            searched(pipe)
        for setting in settings:
            pipe.send(setting)
        pipe.sync()
        return searched(pipe)
    finally:
        pipe.quit()


def test_a_change_of_evaluation_clears_the_table():
    off = ["setoption name Use NNUE value false"]
    assert after(off) == after(off, searches_before=0)
    assert after(off + ["setoption name Use NNUE value true"]) == after([], searches_before=0)


def test_the_same_evaluation_again_keeps_the_table():
    warm = after([])
    assert warm != after([], searches_before=0)                 # the table changes the search
    assert after(["setoption name Use NNUE value true", "setoption name EvalFile value default"]) == warm
