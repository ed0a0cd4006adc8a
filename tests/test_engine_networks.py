"""Networks as values: every ``fianchetto.Engine`` evaluates with its own choice
(the shipped network, another file, or the hand-crafted evaluation), Engines
that name one file share one copy of it, and no Engine's choice or lifetime
changes what another finds, even while both search at once."""
from __future__ import annotations

import random
import threading
import time
from typing import Optional, Tuple

import chess
import pytest

from core_cy import core
from fianchetto import Engine
from support.networks import random_network_bytes

KRK = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"
MIDDLEGAME = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
NODES = 30_000


pytestmark = pytest.mark.filterwarnings("ignore:no win/draw/loss model")


@pytest.fixture(scope="module")
def other_network(tmp_path_factory) -> str:
    """A second, random network file (64 hidden units)."""
    path = tmp_path_factory.mktemp("networks") / "other.nnue"
    path.write_bytes(random_network_bytes(hidden=64, seed=3))
    return str(path)


@pytest.fixture()
def modelled_network(other_network, tmp_path) -> str:
    """The second network with a WDL model of its own beside it, far from the default."""
    from fianchetto.wdl import MODEL_SUFFIX, WdlModel

    network = tmp_path / "modelled.nnue"
    network.write_bytes(open(other_network, "rb").read())
    own = WdlModel(a=(300.0,), b=(60.0,), source="modelled")
    (tmp_path / ("modelled.nnue" + MODEL_SUFFIX)).write_text(own.to_json())
    return str(network)


def outcome(engine: Engine, fen: str, nodes: int = NODES) -> Tuple[str, object, int]:
    result = engine.analyse(chess.Board(fen), nodes=nodes)
    return result.best_move, result.score, result.nodes


def alone(eval_file: Optional[str], fen: str) -> Tuple[str, object, int]:
    """What a fresh Engine with this evaluation finds on its own."""
    with Engine(hash_mb=8, eval_file=eval_file) as engine:
        return outcome(engine, fen)


def test_an_engines_evaluation_is_its_own(other_network):
    by_choice = {choice: alone(choice, KRK) for choice in (None, "none", other_network)}
    assert len({score for _move, score, _nodes in by_choice.values()}) == 3   # three evaluations
    first = Engine(hash_mb=8)
    others = [Engine(hash_mb=8, eval_file="none"), Engine(hash_mb=8, eval_file=other_network)]
    assert outcome(first, KRK) == by_choice[None]
    assert outcome(others[0], KRK) == by_choice["none"]
    assert outcome(others[1], KRK) == by_choice[other_network]
    for engine in [first] + others:
        engine.close()


def test_two_engines_searching_at_once_find_what_each_finds_alone(other_network):
    choices = (None, other_network)
    expected = [alone(choice, MIDDLEGAME) for choice in choices]
    engines = [Engine(hash_mb=8, eval_file=choice) for choice in choices]
    found: list = [None, None]
    spans: list = [None, None]
    barrier = threading.Barrier(2)

    def run(i: int) -> None:
        barrier.wait()
        started = time.perf_counter()
        found[i] = outcome(engines[i], MIDDLEGAME)
        spans[i] = (started, time.perf_counter())

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == expected
    assert max(s for s, _e in spans) < min(e for _s, e in spans)    # the searches overlapped
    for engine in engines:
        engine.close()


def test_engines_of_one_file_share_one_copy_freed_with_the_last():
    before = core.network_stats()
    engines = [Engine(hash_mb=1) for _ in range(5)]
    during = core.network_stats()
    assert during["networks"] - before["networks"] <= 1
    assert during["networks"] >= 1
    for engine in engines:
        engine.close()
    del engines
    assert core.network_stats()["networks"] <= before["networks"]


def churn(cycles: int, threads: int, other_network: str) -> int:
    """Engines created, used and closed from several threads with the evaluation
    switching at random; the number of analyses that returned a legal move."""
    done = []
    board = chess.Board(MIDDLEGAME)

    def run(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(cycles // threads):
            choice = rng.choice([None, "none", other_network])
            with Engine(hash_mb=1, eval_file=choice) as engine:
                move = engine.analyse(board, nodes=rng.randrange(50, 400)).best_move
            done.append(chess.Move.from_uci(move) in board.legal_moves)

    workers = [threading.Thread(target=run, args=(seed,)) for seed in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(done)


def test_engines_come_and_go_across_threads(other_network):
    assert churn(200, 4, other_network) == 200


@pytest.mark.slow
def test_a_thousand_engines_come_and_go_across_four_threads(other_network):
    assert churn(1000, 4, other_network) == 1000


def test_a_closed_engine_says_so():
    engine = Engine(hash_mb=1)
    engine.close()
    with pytest.raises(RuntimeError, match="closed"):
        engine.analyse(chess.Board(), depth=2)
    engine.stop()          # harmless


def test_use_nnue_switches_one_engine_to_the_hand_crafted_evaluation_and_back(other_network):
    hand_crafted, networked = alone("none", KRK), alone(other_network, KRK)
    with Engine(hash_mb=8, eval_file=other_network) as engine, \
            Engine(hash_mb=8, eval_file=other_network) as bystander:
        assert engine.options["Use NNUE"].default is True
        engine.configure({"Use NNUE": False})
        assert outcome(engine, KRK) == hand_crafted
        assert outcome(bystander, KRK) == networked              # its own switch, not shared
        engine.configure({"Use NNUE": True})
        assert outcome(engine, KRK) == networked   # as fresh: the switch cleared the table


def test_use_nnue_for_one_call_is_restored_after_it(other_network):
    limit = chess.engine.Limit(nodes=NODES)

    def seen(info) -> tuple:
        return info["pv"][0], info["score"], info["nodes"]

    with Engine(hash_mb=8, eval_file="none") as hand_crafted:
        expected = seen(hand_crafted.analyse(chess.Board(KRK), limit))
    with Engine(hash_mb=8, eval_file=other_network) as engine:
        assert seen(engine.analyse(chess.Board(KRK), limit, options={"Use NNUE": False})) == expected
        engine.configure({"Clear Hash": None})
        assert outcome(engine, KRK) == alone(other_network, KRK)       # the network again


def test_the_hand_crafted_evaluation_scores_with_the_default_wdl_model(modelled_network):
    from fianchetto.wdl import DEFAULT_MODEL

    with Engine(hash_mb=8, eval_file=modelled_network) as engine:
        own = engine.wdl_model
        assert own.a == (300.0,)                                 # the model beside it
        engine.configure({"Use NNUE": False})
        assert engine.wdl_model is DEFAULT_MODEL
        engine.configure({"Use NNUE": True})
        assert engine.wdl_model.a == own.a


def test_a_new_network_clears_the_table(other_network):
    with Engine(hash_mb=8, eval_file=other_network) as engine:
        outcome(engine, KRK)                                      # fills the table
        engine.configure({"EvalFile": "none"})
        assert outcome(engine, KRK) == alone("none", KRK)


def test_the_same_evaluation_again_keeps_the_table(other_network):
    with Engine(hash_mb=8, eval_file=other_network) as engine, \
            Engine(hash_mb=8, eval_file=other_network) as untouched:
        first = outcome(engine, KRK)
        assert outcome(untouched, KRK) == first
        engine.configure({"EvalFile": other_network, "Use NNUE": True})
        warm = outcome(untouched, KRK)
        assert warm != first                           # the table and history change the search
        assert outcome(engine, KRK) == warm            # and were kept


def shown(info) -> tuple:
    """A line as a caller reads it: move, normalised score, WDL and nodes."""
    return info["pv"][0], info["score"], info["wdl"], info["nodes"]


@pytest.mark.parametrize("call", ["analyse", "play", "analysis"])
@pytest.mark.parametrize("configured, per_call", [
    ("modelled", {"Use NNUE": False}),
    ("none", {"EvalFile": "modelled"}),
])
def test_options_for_one_call_score_with_that_calls_evaluation(modelled_network, call, configured, per_call):
    """A call's own evaluation normalises its scores with that evaluation's WDL
    model, not the configured one's (the two models differ here)."""
    named = {"modelled": modelled_network, "none": "none"}
    per_call = {name: named.get(value, value) for name, value in per_call.items()}
    as_called = "none" if per_call.get("Use NNUE") is False else per_call["EvalFile"]
    limit = chess.engine.Limit(nodes=NODES)

    def answer(engine: Engine, options: dict) -> tuple:
        board = chess.Board(MIDDLEGAME)
        if call == "analyse":
            return shown(engine.analyse(board, limit, options=options))
        if call == "play":
            return shown(engine.play(board, limit, info=chess.engine.INFO_ALL, options=options).info)
        with engine.analysis(board, limit, options=options) as stream:
            stream.wait()
            return shown(stream.info)

    with Engine(hash_mb=8, eval_file=as_called) as fresh:
        expected = answer(fresh, {})
    with Engine(hash_mb=8, eval_file=named[configured]) as engine:
        assert answer(engine, per_call) == expected


def test_the_same_file_configured_again_reads_its_wdl_model_anew(modelled_network):
    from fianchetto.wdl import MODEL_SUFFIX, WdlModel

    with Engine(hash_mb=8, eval_file=modelled_network) as engine:
        network = engine.network
        mended = WdlModel(a=(250.0,), b=(80.0,), source="mended")
        with open(modelled_network + MODEL_SUFFIX, "w") as model:
            model.write(mended.to_json())
        engine.configure({"EvalFile": modelled_network})
        assert engine.wdl_model.a == mended.a
        assert engine.network is network                 # the weights are not read again


def test_a_closed_engine_lets_its_network_go(other_network):
    engine = Engine(hash_mb=8, eval_file=other_network)
    assert engine.network is not None
    engine.close()
    assert engine.network is None
