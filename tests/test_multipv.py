"""MultiPV reports a GUI can show: whenever a search stops, its closing report
names each root move at most once, in rank order, and its first line starts with
the move played and goes on with the ponder move. While it runs, it reports whole
sets of lines (multipv 1 to N, each root move once), never one line alone.

Searches are stopped at many points of an iteration with node limits (the same
stops on every machine), in the core, in ``fianchetto.Engine`` and over UCI."""
from __future__ import annotations

import dataclasses
import random
from contextlib import contextmanager
from typing import Dict, List, Tuple

import chess
import chess.engine
import pytest

from core_cy import core
from fianchetto import Engine
from fianchetto.benchmark import BENCH_FENS
from fianchetto.board import START_FEN, Board
from fianchetto.evaluation import for_tool
from fianchetto.score import Score, SearchInfo
from fianchetto.session import GoParams, _Job
from fianchetto.timeman import NO_LIMITS
from support.uci_pipe import parse_info, ready_engine

LINES = 3
#: Node limits that stop the bench positions' searches at every stage of an iteration.
NODE_LIMITS = (300, 1_100, 2_900, 7_300, 19_000, 41_000)


def positions(count: int, seed: int = 8) -> List[str]:
    """Bench positions and positions a few random plies from them."""
    rng = random.Random(seed)
    fens = []
    for fen in BENCH_FENS:
        board = chess.Board(fen)
        for _ in range(rng.randrange(0, 4)):
            moves = list(board.legal_moves)
            if len(moves) < LINES + 1 or board.is_game_over():
                break
            board.push(rng.choice(moves))
        if board.legal_moves.count() > LINES and not board.is_game_over():
            fens.append(board.fen())
    return fens[:count]


def closing_report(fen: str, nodes: int, network) -> Tuple[str, str, List[object]]:
    """best, ponder and the closing reports of a MultiPV search stopped at `nodes`."""
    reports: List[object] = []
    search = core.Search(hash_mb=4, network=network)
    best, ponder = search.go(core.Board(fen), nodes=nodes, multipv=LINES, info=reports.append)
    return best, ponder, [r for r in reports if isinstance(r, core.SearchReport) and r.final]


def assert_consistent(fen: str, best: str, ponder, lines: List[Tuple[int, List[str]]]) -> None:
    """lines: (multipv, pv) of one closing report."""
    numbers = [k for k, _pv in lines]
    assert numbers == sorted(numbers) and numbers[0] == 1, (fen, numbers)
    firsts = [pv[0] for _k, pv in lines]
    assert len(firsts) == len(set(firsts)), (fen, lines)
    main = lines[0][1]
    assert main[0] == best, (fen, best, main)
    if ponder is not None:
        assert main[1:2] == [ponder], (fen, ponder, main)
    board = chess.Board(fen)
    for _k, pv in lines:
        line = board.copy()
        for move in pv:
            assert chess.Move.from_uci(move) in line.legal_moves, (fen, pv)
            line.push_uci(move)


@pytest.fixture(scope="module")
def shipped():
    return for_tool(None)


@pytest.mark.parametrize("nodes", NODE_LIMITS)
def test_a_stopped_core_search_reports_each_root_move_once(shipped, nodes):
    checked = 0
    for fen in positions(12):
        best, ponder, final = closing_report(fen, nodes, shipped)
        assert_consistent(fen, best, ponder, [(r.multipv, list(r.pv)) for r in final])
        assert len(final) == LINES or nodes < 2_000, (fen, nodes, final)
        checked += 1
    assert checked >= 10


def test_lines_not_searched_again_keep_their_depth_and_whole_line(shipped):
    """Some stops land in the middle of an iteration: there each line after the
    first is the one its move completed last: the line an iteration reported, or
    one completed in the iteration that was stopped (one deeper), never shorter
    than its move's line before."""
    mixed = 0
    for fen in positions(12):
        for nodes in NODE_LIMITS[2:]:
            reports: List[object] = []
            search = core.Search(hash_mb=4, network=shipped)
            search.go(core.Board(fen), nodes=nodes, multipv=LINES, info=reports.append)
            lines = [r for r in reports if isinstance(r, core.SearchReport)]
            final = [r for r in lines if r.final]
            completed: Dict[Tuple[int, str], Tuple[str, ...]] = {}
            for r in lines:
                if not r.final and r.bound == core.REPORT_EXACT:
                    completed[(r.depth, r.pv[0])] = r.pv
            last_depth = max(depth for depth, _move in completed)
            for r in final[1:]:
                if (r.depth, r.pv[0]) in completed:
                    assert completed[(r.depth, r.pv[0])] == r.pv, (fen, nodes, r)
                    continue
                assert r.depth == last_depth + 1, (fen, nodes, r)
                before = [pv for (depth, move), pv in completed.items() if move == r.pv[0]]
                assert all(len(r.pv) >= len(pv) for pv in before[-1:]), (fen, nodes, r, before)
            mixed += len({r.depth for r in final}) > 1
    assert mixed >= 3, "the node limits should stop some searches mid-iteration"


def test_the_python_engine_never_repeats_a_move(shipped):
    with Engine(hash_mb=4) as engine:
        for fen in positions(8):
            for nodes in NODE_LIMITS:
                result = engine.analyse(chess.Board(fen), nodes=nodes, multipv=LINES)
                moves = [line.move for line in result.lines]
                assert len(moves) == len(set(moves)), (fen, nodes, moves)
                assert [line.multipv for line in result.lines] == list(range(1, len(moves) + 1))


def assert_whole_sets(where: object, lines: List[Tuple[int, List[str]]], count: int) -> int:
    """lines: (multipv, pv) of the lines a search reported while it ran, in order.
    They must come in whole sets, multipv 1 to ``count``, each naming each root
    move once, so that a GUI showing the newest line of each number never shows a
    move twice once a set is through. Returns the number of sets."""
    numbers = [k for k, _pv in lines]
    assert numbers == list(range(1, count + 1)) * (len(numbers) // count), (where, numbers)
    for start in range(0, len(lines), count):
        firsts = [pv[0] for _k, pv in lines[start:start + count]]
        assert len(set(firsts)) == count, (where, lines[start:start + count])
    return len(numbers) // count


def test_a_running_core_search_reports_whole_sets_of_lines(shipped):
    sets = 0
    for fen in positions(10):
        reports: List[object] = []
        search = core.Search(hash_mb=4, network=shipped)
        search.go(core.Board(fen), depth=10, multipv=LINES, info=reports.append)
        running = [(r.multipv, list(r.pv)) for r in reports if isinstance(r, core.SearchReport) and not r.final]
        sets += assert_whole_sets(fen, running, LINES)
    assert sets >= 10 * 9


def test_a_long_iteration_reports_its_set_after_each_line(shipped):
    """Once the search has run `multipv_set_ms` (here from the start), each line of
    an iteration but the last is followed by the whole set: first the lines at the
    iteration's depth (those done, exact, and a move that already has a score from
    the search of one of them), then every other move's line as the last
    iteration that completed it reported it. Nothing else changes: the completed
    iterations' sets are the same as without."""
    depth, partial_sets = 7, 0

    def running(fen, **extra):
        reports: List[object] = []
        search = core.Search(hash_mb=4, network=shipped)
        search.go(core.Board(fen), depth=depth, multipv=LINES, info=reports.append, **extra)
        return [r for r in reports if isinstance(r, core.SearchReport) and not r.final]

    for fen in positions(8):
        lines = running(fen, multipv_set_ms=0)
        assert_whole_sets(fen, [(r.multipv, list(r.pv)) for r in lines], LINES)
        sets = [lines[i:i + LINES] for i in range(0, len(lines), LINES)]
        whole = {s[0].depth: {r.pv[0]: r.pv for r in s} for s in sets if not s[0].partial}
        assert [(r.depth, r.pv) for s in sets if not s[0].partial for r in s] == \
            [(r.depth, r.pv) for r in running(fen)], fen
        for s in sets:
            if not s[0].partial:
                continue
            assert all(r.partial for r in s), (fen, s)
            new = s[0].depth
            deeper = sum(r.depth == new for r in s)
            assert all(r.depth == new for r in s[:deeper]) and s[0].bound == core.REPORT_EXACT, (fen, s)
            for r in s[deeper:]:
                assert r.depth < new and r.bound == core.REPORT_EXACT, (fen, s)
                assert whole[r.depth].get(r.pv[0]) == r.pv, (fen, s)
            partial_sets += 1
        assert partial_sets % ((depth - 1) * (LINES - 1)) == 0, (fen, partial_sets)
    assert partial_sets == 8 * (depth - 1) * (LINES - 1)


def test_a_weaker_engine_chooses_among_the_lines_of_a_completed_iteration():
    """UCI_LimitStrength picks among the lines of the deepest completed iteration
    (session._Job.exact_lines): a set sent before its iteration completed, whose
    first lines are one ply deeper than the rest, must not replace that iteration."""
    job = _Job(GoParams(), Board(START_FEN), NO_LIMITS, 0.0)
    def line(depth, multipv, move, partial=False):
        return SearchInfo(depth=depth, multipv=multipv, score=Score.cp(10 - multipv), pv=[move], partial=partial)
    for k, move in enumerate(["e2e4", "d2d4", "g1f3"], start=1):
        job.record(line(6, k, move))
    job.record(line(7, 1, "c2c4", partial=True))
    job.record(line(6, 2, "e2e4", partial=True))
    job.record(line(6, 3, "d2d4", partial=True))
    assert [(l.depth, l.pv) for _k, l in sorted(job.exact_lines.items())] == \
        [(6, ["e2e4"]), (6, ["d2d4"]), (6, ["g1f3"])]
    assert job.last_exact_line.pv == ["c2c4"]       # the newest best line still counts


def test_a_repeated_first_line_is_skipped_only_when_it_is_the_only_line():
    """The UCI session skips a first line that repeats the one sent just before (a
    flood of trivial iterations); with several lines that would break a set."""
    first = SearchInfo(depth=9, multipv=1, score=Score.cp(5), pv=["e2e4"], time=1000)
    again = dataclasses.replace(first, depth=10, time=1010)
    for lines, sent in ((1, [True, False]), (3, [True, True])):
        job = _Job(GoParams(), Board(START_FEN), NO_LIMITS, 0.0)
        job.lines = lines
        assert [job.worth_sending(first), job.worth_sending(again)] == sent, lines


def test_over_uci_a_search_shows_whole_sets_of_lines():
    with contextmanager(ready_engine)() as engine:
        engine.send(f"setoption name MultiPV value {LINES}")
        engine.sync()
        for fen in positions(6):
            engine.send(f"position fen {fen}")
            lines, _best, _ponder = engine.go("go depth 10")
            shown = [parse_info(line) for line in lines if line.startswith("info depth") and " pv " in line]
            # the closing set, right before bestmove, is a whole set too
            running = [(int(info["multipv"]), list(info["pv"])) for info in shown]
            assert_whole_sets(fen, running, LINES)


@pytest.mark.slow
def test_over_uci_a_long_search_shows_sets_before_its_iterations_complete():
    """After three seconds, as Stockfish does, each line of an iteration is followed
    by the whole set (some lines one iteration older): a GUI sees a long
    iteration's progress, and still never a move on two lines."""
    with contextmanager(ready_engine)() as engine:
        engine.send(f"setoption name MultiPV value {LINES}")
        engine.send(f"position fen {BENCH_FENS[1]}")
        lines, _best, _ponder = engine.go("go movetime 12000")
        shown = [parse_info(line) for line in lines if line.startswith("info depth") and " pv " in line]
        running = [(int(info["multipv"]), list(info["pv"])) for info in shown]
        assert_whole_sets("over UCI", running, LINES)
        depths = [{int(info["depth"]) for info in shown[i:i + LINES]} for i in range(0, len(shown), LINES)]
        assert any(len(d) > 1 for d in depths[:-1]), depths     # the last: the closing set


def test_a_python_analysis_stream_shows_each_move_once_after_each_set_and_at_the_end():
    with Engine(hash_mb=4) as engine:
        for fen in positions(8):
            for nodes in NODE_LIMITS:
                with engine.analysis(chess.Board(fen), chess.engine.Limit(nodes=nodes), multipv=LINES) as stream:
                    # what a reader has seen of each line (stream.multipv may already
                    # hold lines of the next set: the search does not wait for readers)
                    seen: Dict[int, str] = {}
                    for info in stream:
                        if "pv" in info:
                            seen[info["multipv"]] = info["pv"][0]
                        if info.get("multipv") == LINES:
                            assert len(set(seen.values())) == len(seen), (fen, nodes, seen)
                    stream.wait()
                    firsts = [line["pv"][0] for line in stream.multipv]
                    assert len(firsts) == len(set(firsts)), (fen, nodes, stream.multipv)


def last_line_of_each_pv(lines: List[str]) -> List[Tuple[int, List[str]]]:
    """(multipv, pv) of the last ``info`` line shown for each multipv number, in order."""
    shown: Dict[int, List[str]] = {}
    for line in lines:
        if line.startswith("info depth") and " pv " in line and " multipv " in line:
            info = parse_info(line)
            shown[int(info["multipv"])] = list(info["pv"])
    return sorted(shown.items())


def test_over_uci_the_last_lines_before_bestmove_name_each_move_once():
    with contextmanager(ready_engine)() as engine:
        engine.send(f"setoption name MultiPV value {LINES}")
        engine.sync()
        for fen in positions(8):
            for nodes in NODE_LIMITS:
                engine.send(f"position fen {fen}")
                lines, best, ponder = engine.go(f"go nodes {nodes}")
                assert_consistent(fen, best, ponder, last_line_of_each_pv(lines))


def many_positions(count: int, seed: int = 31) -> List[str]:
    """Positions along seeded random games, with more than LINES legal moves."""
    rng = random.Random(seed)
    fens: List[str] = []
    while len(fens) < count:
        board = chess.Board()
        for _ in range(rng.randrange(4, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.legal_moves.count() > LINES and not board.is_game_over():
            fens.append(board.fen())
    return fens


def stop_times(count: int) -> List[int]:
    """Milliseconds spread evenly on a log scale from 5 ms to 1 s."""
    return [round(5 * 200 ** (i / (count - 1))) for i in range(count)]


@pytest.mark.slow
def test_timed_stops_over_uci_and_in_python_never_repeat_a_move():
    fens, times = many_positions(100), stop_times(100)
    with contextmanager(ready_engine)() as engine:
        engine.send(f"setoption name MultiPV value {LINES}")
        engine.sync()
        for fen, ms in zip(fens, times):
            engine.send("ucinewgame")
            engine.send(f"position fen {fen}")
            lines, best, ponder = engine.go(f"go movetime {ms}")
            assert_consistent(fen, best, ponder, last_line_of_each_pv(lines))
    with Engine(hash_mb=16) as python_engine:
        for fen, ms in zip(fens, times):
            result = python_engine.analyse(chess.Board(fen), movetime=ms / 1000, multipv=LINES)
            moves = [line.move for line in result.lines]
            assert len(moves) == len(set(moves)), (fen, ms, moves)
            infos = python_engine.analyse(chess.Board(fen), chess.engine.Limit(time=ms / 1000), multipv=LINES)
            firsts = [info["pv"][0] for info in infos]
            assert len(firsts) == len(set(firsts)), (fen, ms, firsts)
