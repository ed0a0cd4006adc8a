"""``fianchetto.Engine`` answers as python-chess's ``SimpleEngine`` driving ``fianchetto``.

The same calls go to both: the engine over UCI (``SimpleEngine.popen_uci``)
and the engine in this process, each with Hash 16, one thread and a table
cleared for every position (a new ``game`` object, as ``ucinewgame``). The
results must carry the same keys with the same types, and a fixed-depth search
the same best move, score and node count.
"""
from __future__ import annotations

import random
import threading
from typing import Iterator, List

import chess
import chess.engine
import pytest

from support.reference import random_playout
from fianchetto import Engine
from fianchetto.cli import engine_command

REQUIRED = {"score": chess.engine.PovScore, "pv": list, "depth": int, "seldepth": int, "nodes": int,
            "nps": int, "time": float, "hashfull": int, "tbhits": int, "multipv": int,
            "wdl": chess.engine.PovWdl}
MATE_IN_TWO = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 0"


def positions(count: int = 6, seed: int = 74) -> List[chess.Board]:
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = random_playout(rng, chess.Board(), rng.randint(8, 30))
        if not board.is_game_over():
            boards.append(board)
    return boards


@pytest.fixture(scope="module")
def engines() -> Iterator[tuple]:
    uci = chess.engine.SimpleEngine.popen_uci(engine_command(), timeout=60)
    uci.configure({"Hash": 16, "Threads": 1, "UCI_ShowWDL": True, "OwnBook": False})
    ours = Engine(hash_mb=16, threads=1)
    yield uci, ours
    uci.quit()
    ours.close()


def assert_shaped(info: dict) -> None:
    missing = set(REQUIRED) - set(info)
    assert not missing, f"missing {missing} in {info}"
    for key, kind in REQUIRED.items():
        assert isinstance(info[key], kind), (key, type(info[key]))
    assert all(isinstance(move, chess.Move) for move in info["pv"])


@pytest.mark.parametrize("index", range(6))
def test_fixed_depth_analyse_matches_the_uci_engine(engines, index):
    uci, ours = engines
    board = positions()[index]
    theirs = uci.analyse(board, chess.engine.Limit(depth=7), game=object())
    mine = ours.analyse(board, chess.engine.Limit(depth=7), game=object())
    assert_shaped(theirs)
    assert_shaped(mine)
    assert mine["pv"][0] == theirs["pv"][0]
    assert mine["score"] == theirs["score"]
    assert mine["nodes"] == theirs["nodes"]
    assert mine["depth"] == theirs["depth"] == 7
    assert mine["score"].turn == board.turn


@pytest.mark.parametrize("limit", [chess.engine.Limit(nodes=3000), chess.engine.Limit(time=0.05),
                                   chess.engine.Limit(depth=40, nodes=4000),
                                   chess.engine.Limit(white_clock=2.0, black_clock=2.0, white_inc=0.01,
                                                      black_inc=0.01)])
def test_other_limits_give_the_same_shapes(engines, limit):
    uci, ours = engines
    board = positions()[0]
    for engine in engines:
        info = engine.analyse(board, limit, game=object())
        assert_shaped(info)
        if limit.nodes:
            assert info["depth"] < 40    # the node limit came first


def test_mate_limit(engines):
    board = chess.Board(MATE_IN_TWO)
    for engine in engines:
        info = engine.analyse(board, chess.engine.Limit(mate=2), game=object())
        assert info["score"].relative == chess.engine.Mate(2)
        assert info["pv"][0] == chess.Move.from_uci("d5f6")


def test_multipv_lists_distinct_moves_in_rank_order(engines):
    board = positions()[1]
    for engine in engines:
        infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3, game=object())
        assert isinstance(infos, list) and [info["multipv"] for info in infos] == [1, 2, 3]
        assert len({info["pv"][0] for info in infos}) == 3
        for info in infos:
            assert_shaped(info)
        scores = [info["score"].relative for info in infos]
        assert scores == sorted(scores, reverse=True)


def test_root_moves_restrict_the_search(engines):
    board = positions()[2]
    allowed = list(board.legal_moves)[-2:]
    for engine in engines:
        infos = engine.analyse(board, chess.engine.Limit(depth=5), multipv=3, root_moves=allowed, game=object())
        assert sorted(info["pv"][0].uci() for info in infos) == sorted(move.uci() for move in allowed)


def test_play_returns_a_play_result(engines):
    board = positions()[3]
    results = [engine.play(board, chess.engine.Limit(depth=7), game=object(), info=chess.engine.INFO_ALL)
               for engine in engines]
    for result in results:
        assert isinstance(result, chess.engine.PlayResult)
        assert result.move in board.legal_moves
        board.push(result.move)
        assert result.ponder is None or result.ponder in board.legal_moves
        board.pop()
        assert_shaped(result.info)
    assert results[0].move == results[1].move and results[0].ponder == results[1].ponder
    quiet = engines[1].play(board, chess.engine.Limit(depth=3))
    assert quiet.info == {}


def test_analysis_streams_and_stops(engines):
    board = positions()[4]
    for engine in engines:
        with engine.analysis(board, multipv=2, game=object()) as stream:
            seen = []
            for info in stream:
                seen.append(info)
                if info.get("depth", 0) >= 6 and "pv" in info:
                    stream.stop()
            best = stream.wait()
        assert best.move in board.legal_moves
        assert any(info.get("depth", 0) >= 6 for info in seen)
        assert_shaped(stream.info)
        assert [line["multipv"] for line in stream.multipv] == [1, 2]
        assert stream.info["pv"][0] == best.move


def test_analysis_with_a_limit_ends_by_itself(engines):
    stream = engines[1].analysis(chess.Board(), chess.engine.Limit(depth=5))
    infos = list(stream)
    assert stream.wait().move in chess.Board().legal_moves
    assert infos and max(info.get("depth", 0) for info in infos) == 5
    assert stream.next() is None


def test_stop_from_another_thread_ends_an_analysis(engines):
    ours = engines[1]
    stream = ours.analysis(positions()[5])
    threading.Timer(0.2, stream.stop).start()
    assert stream.wait().move is not None


def test_a_new_search_ends_a_running_stream():
    with Engine() as engine:
        stream = engine.analysis(chess.Board())
        info = engine.analyse(chess.Board(), chess.engine.Limit(depth=3))
        assert info["depth"] == 3
        assert stream.wait().move is not None


def returns_within(seconds: float, call) -> object:
    """`call`'s result, failing (instead of hanging the run) if it has not returned in time."""
    result: list = []
    worker = threading.Thread(target=lambda: result.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "the call waited on the running analysis"
    return result[0]


def test_configure_ends_a_running_stream_as_python_chess_does():
    """python-chess's engines end a running analysis when any new command comes;
    configure waited instead for an analysis without a limit, that is forever."""
    with Engine(hash_mb=8) as engine:
        stream = engine.analysis(chess.Board())
        returns_within(10, lambda: engine.configure({"Hash": 16}))
        assert stream.wait().move is not None
        assert engine.analyse(chess.Board(), chess.engine.Limit(depth=2))["depth"] == 2


@pytest.mark.parametrize("call", ["analyse", "play"])
def test_a_search_with_its_own_options_ends_a_running_stream(call):
    with Engine(hash_mb=8) as engine:
        stream = engine.analysis(chess.Board())
        search = getattr(engine, call)
        answer = returns_within(10, lambda: search(chess.Board(), chess.engine.Limit(depth=3),
                                                   options={"Move Overhead": 5}))
        assert answer is not None
        assert stream.wait().move is not None


@pytest.mark.parametrize("call", ["analyse", "play"])
def test_a_search_by_keyword_limits_ends_a_running_stream(call):
    with Engine(hash_mb=8) as engine:
        stream = engine.analysis(chess.Board())
        answer = returns_within(10, lambda: getattr(engine, call)(chess.Board(), depth=3))
        assert answer is not None
        assert stream.wait().move is not None


QUIET_COMMANDS = {"ping": lambda engine: engine.ping(),
                  "send_opponent_information": lambda engine: engine.send_opponent_information(
                      opponent=chess.engine.Opponent("someone", None, 2000, False)),
                  "send_game_result": lambda engine: engine.send_game_result(chess.Board(), chess.WHITE)}


@pytest.mark.parametrize("command", sorted(QUIET_COMMANDS))
def test_commands_without_a_search_end_a_running_stream_too(command):
    """python-chess cancels a running analysis whatever the next command; these three
    left an endless analysis running, so waiting on it never returned."""
    with Engine(hash_mb=8) as engine:
        stream = engine.analysis(chess.Board())
        returns_within(10, lambda: QUIET_COMMANDS[command](engine))
        assert returns_within(10, stream.wait).move is not None


FINISHED = {"mated": ("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", chess.engine.Mate(0), (0, 0, 1000)),
            "stalemate": ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", chess.engine.Cp(0), (0, 1000, 0))}


@pytest.mark.parametrize("kind", sorted(FINISHED))
def test_a_finished_game_answers_as_python_chess_engines_answer(engines, kind):
    """As ``SimpleEngine`` with Stockfish: no move, depth 0 and the game's result
    (python-chess reads Stockfish's ``bestmove (none)`` as None), never an error, so
    that a loop over a game's positions may end on its last."""
    fen, score, wdl = FINISHED[kind]
    board = chess.Board(fen)
    ours = engines[1]
    info = ours.analyse(board, chess.engine.Limit(depth=5))
    assert (info["depth"], info["score"], info["wdl"]) == \
        (0, chess.engine.PovScore(score, chess.BLACK), chess.engine.PovWdl(chess.engine.Wdl(*wdl), chess.BLACK))
    assert "pv" not in info and info["nodes"] == 0
    assert ours.analyse(board, chess.engine.Limit(time=0.1), multipv=3) == [info]
    played = ours.play(board, chess.engine.Limit(depth=5), info=chess.engine.INFO_SCORE)
    assert (played.move, played.ponder, played.info["score"]) == (None, None, info["score"])
    stream = ours.analysis(board)
    best = stream.wait()
    assert list(stream) == [info] and (best.move, best.ponder) == (None, None)
    assert stream.info == info
    uci = engines[0].analyse(board, chess.engine.Limit(depth=5))         # the UCI engine says the same
    assert (uci["depth"], uci["score"], uci["wdl"]) == (info["depth"], info["score"], info["wdl"])
    assert engines[0].play(board, chess.engine.Limit(depth=5)).move is None    # bestmove (none), no null move
    with pytest.raises(ValueError, match="game is over"):
        ours.analyse(board, depth=5)                 # keyword limits ask for a best move: there is none


def test_the_rest_of_simple_engines_calls(engines):
    """``id``, ``ping``, ``send_opponent_information``, ``send_game_result`` and
    ``play``'s ``draw_offered`` and ``opponent``: code written for ``SimpleEngine``
    runs unchanged (a UCI engine without ``UCI_Opponent`` takes the opponent and the
    result and says nothing)."""
    uci, ours = engines
    assert ours.id == uci.id and ours.id["name"].startswith("Fianchetto")
    board = positions()[0]
    opponent = chess.engine.Opponent("someone", "BOT", 2400, True)
    for engine in engines:
        assert engine.ping() is None
        assert engine.send_opponent_information(opponent=opponent, engine_rating=2500) is None
        played = engine.play(board, chess.engine.Limit(depth=5), game=object(), draw_offered=True, opponent=opponent)
        assert played.move in board.legal_moves
        assert engine.send_game_result(board, chess.WHITE, "resignation") is None
    closed = Engine()
    closed.quit()
    with pytest.raises(chess.engine.EngineTerminatedError):
        closed.ping()
    with pytest.raises(chess.engine.EngineTerminatedError):
        closed.send_game_result(board)


def test_options_and_configure():
    with Engine() as engine:
        assert set(engine.options) == {"Hash", "Threads", "Clear Hash", "Move Overhead", "EvalFile", "Use NNUE",
                                       "SyzygyPath", "SyzygyProbeLimit", "SyzygyProbeDepth", "Syzygy50MoveRule",
                                       "UCI_LimitStrength", "UCI_Elo", "Skill Level"}
        assert engine.options["Hash"].default == 16
        engine.configure({"Hash": 32, "Threads": 2})
        assert engine.analyse(chess.Board(), chess.engine.Limit(depth=4))["depth"] == 4
        with pytest.raises(chess.engine.EngineError):
            engine.configure({"MultiPV": 3})
        with pytest.raises(chess.engine.EngineError):
            engine.configure({"Hash": 0})
        hce = engine.analyse(chess.Board(), chess.engine.Limit(depth=4), options={"EvalFile": "none"})
        net = engine.analyse(chess.Board(), chess.engine.Limit(depth=4), game=object())
        assert hce["score"] != net["score"] or hce["nodes"] != net["nodes"]
        assert engine._values["EvalFile"] == "default"        # a call's options do not stay


def test_clear_hash_empties_the_table_as_the_uci_button_does():
    """One thread searches deterministically: a repeated search finds the table
    it left and searches fewer nodes; after ``Clear Hash`` it searches exactly as
    the first did. A call's own ``Clear Hash`` clears before that search only."""
    board, limit = positions()[1], chess.engine.Limit(depth=9)
    with Engine() as engine:
        first = engine.analyse(board, limit)["nodes"]
        assert engine.analyse(board, limit)["nodes"] < first
        engine.configure({"Clear Hash": None})
        assert engine.analyse(board, limit)["nodes"] == first
        assert engine.analyse(board, limit, options={"Clear Hash": None})["nodes"] == first
        assert engine.analyse(board, limit)["nodes"] < first          # not cleared again after the call


def test_move_overhead_is_taken_off_the_clock_as_the_uci_engine_takes_it(monkeypatch):
    """In process there is no pipe, so the default is 0; a caller whose clock is
    kept elsewhere (a server's) raises it, and the clock is planned with it as
    ``go wtime`` is planned with the UCI option."""
    import fianchetto.analysis
    import fianchetto.shapes

    planned = []
    real_plan = fianchetto.shapes.plan
    for module in (fianchetto.shapes, fianchetto.analysis):
        monkeypatch.setattr(module, "plan", lambda **kw: planned.append(kw["overhead"]) or real_plan(**kw))
    with Engine() as engine:
        assert (engine.options["Move Overhead"].default, engine.options["Move Overhead"].max) == (0, 5000)
        engine.play(chess.Board(), chess.engine.Limit(white_clock=2.0, black_clock=2.0))
        engine.configure({"Move Overhead": 300})
        engine.play(chess.Board(), chess.engine.Limit(white_clock=2.0, black_clock=2.0))
        engine.play(chess.Board(), chess.engine.Limit(time=0.5))
        engine.play(chess.Board(), clock=2.0)
        engine.play(chess.Board(), chess.engine.Limit(white_clock=2.0), options={"Move Overhead": 50})
        with pytest.raises(chess.engine.EngineError):
            engine.configure({"Move Overhead": -1})
    assert planned == [0, 300, 300, 300, 50]


def test_a_clock_with_move_overhead_plans_the_uci_engines_limits():
    from fianchetto.shapes import core_limits
    from fianchetto.timeman import plan

    limits = core_limits(chess.engine.Limit(white_clock=10.0, white_inc=0.1), True, 1, overhead_ms=250)
    expected = plan(time_left=10_000, increment=100, overhead=250)
    assert (limits["soft_ms"], limits["hard_ms"]) == (expected.soft_ms, expected.hard_ms)
    assert limits["hard_ms"] < core_limits(chess.engine.Limit(white_clock=10.0, white_inc=0.1), True, 1)["hard_ms"]


def test_keyword_limits_still_return_an_analysis():
    from fianchetto.analysis import Analysis

    with Engine() as engine:
        result = engine.analyse(chess.Board(), depth=4)
        assert isinstance(result, Analysis) and result.depth == 4
        assert engine.play(chess.Board(), depth=3) in {m.uci() for m in chess.Board().legal_moves}


def test_a_closed_engine_says_so(engines):
    engine = Engine()
    engine.quit()
    for call in (lambda: engine.analyse(chess.Board(), chess.engine.Limit(depth=2)),
                 lambda: engine.analyse(chess.Board(), depth=2),
                 lambda: engine.play(chess.Board(), chess.engine.Limit(depth=2)),
                 lambda: engine.analysis(chess.Board()),
                 lambda: engine.configure({"Hash": 8})):
        with pytest.raises(chess.engine.EngineTerminatedError, match="closed"):
            call()


@pytest.mark.parametrize("limit", [chess.engine.Limit(), chess.engine.Limit(depth=-1),
                                   chess.engine.Limit(black_clock=3.0)])
def test_a_limit_that_limits_nothing_is_refused(limit):
    with Engine() as engine:
        with pytest.raises(ValueError):
            engine.analyse(chess.Board(), limit)


def test_fen_of_reads_python_chess_boards_as_python_chess_writes_them():
    from fianchetto.board import Board, fen_of

    rng = random.Random(960)
    for index in range(400):
        chess960 = index % 4 == 0
        board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
        random_playout(rng, board, rng.randrange(100))
        assert fen_of(board) == board.fen(shredder=chess960)
        ours = Board.from_python_chess(board)
        assert ours.fen() == board.fen()         # X-FEN castling, as python-chess writes by default
        assert len(ours.move_stack) == len(board.move_stack)
