"""``fianchetto.Engine`` with Syzygy tables, each user with its own.

An Engine given ``syzygy_path`` decides a covered root as the UCI engine does
(python-chess's prober is the oracle); each user (an Engine, a UCI session)
loads its own set, so users of other folders, or of none, never see each
other's tables.
"""
from __future__ import annotations

import gc

import chess
import chess.engine
import chess.syzygy
import pytest

from fianchetto import Engine
from fianchetto.cli import engine_command
from fianchetto.tablebase import TablebaseError, Tablebases

from support.tables import SYZYGY

WON = "8/8/8/8/8/3k4/4R3/7K w - - 0 1"          # KRvK, white wins
DRAWN = "8/8/8/3k4/8/8/1R2K3/7r w - - 0 1"      # KRvKR, a draw
NODES = chess.engine.Limit(nodes=20_000)

pytestmark = pytest.mark.skipif(not SYZYGY.is_dir(), reason=f"Syzygy test tables not found at {SYZYGY}")


@pytest.fixture(scope="module")
def oracle():
    with chess.syzygy.open_tablebase(str(SYZYGY)) as tables:
        yield tables


@pytest.fixture(autouse=True)
def no_other_users():
    gc.collect()            # users dropped by earlier tests let go of their tables
    yield
    gc.collect()


def outcome_after(oracle, fen: str, move: chess.Move) -> int:
    """The tables' outcome for the side that played ``move`` (2 win .. -2 loss)."""
    board = chess.Board(fen)
    board.push(move)
    return -oracle.probe_wdl(board)


def other_folder(tmp_path, *materials: str):
    """A second folder holding some of the test tables (links)."""
    for material in materials:
        for suffix in (".rtbw", ".rtbz"):
            (tmp_path / (material + suffix)).symlink_to(SYZYGY / (material + suffix))
    return str(tmp_path)


def test_a_won_root_is_played_from_the_tables_as_the_uci_engine_plays_it(oracle):
    with Engine(syzygy_path=str(SYZYGY)) as ours:
        played = ours.play(chess.Board(WON), NODES, info=chess.engine.INFO_ALL)
    uci = chess.engine.SimpleEngine.popen_uci(engine_command(), timeout=60)
    try:
        uci.configure({"SyzygyPath": str(SYZYGY)})
        theirs = uci.play(chess.Board(WON), NODES, info=chess.engine.INFO_ALL)
    finally:
        uci.quit()
    assert outcome_after(oracle, WON, played.move) == 2
    assert played.move == theirs.move
    assert played.info["score"] == theirs.info["score"]
    assert played.info["score"].white().score() > 10_000
    assert played.info["wdl"].white() == chess.engine.Wdl(1000, 0, 0)
    assert played.info["tbhits"] > 0 and played.info["nodes"] == 0


def test_a_drawn_root_is_searched_among_the_drawing_moves_with_a_draw_score(oracle):
    with Engine(syzygy_path=str(SYZYGY)) as engine:
        lines = engine.analyse(chess.Board(DRAWN), NODES, multipv=3)
    for line in lines:
        assert outcome_after(oracle, DRAWN, line["pv"][0]) == 0
        assert line["score"].white() == chess.engine.Cp(0)
        assert line["wdl"].white() == chess.engine.Wdl(0, 1000, 0)
    assert max(line["tbhits"] for line in lines) > 0


def test_searchmoves_that_give_up_the_win_get_the_searchs_own_score(oracle):
    blunder = chess.Move.from_uci("e2e3")               # the king takes the rook
    assert outcome_after(oracle, WON, blunder) == 0
    with Engine(syzygy_path=str(SYZYGY)) as engine:
        played = engine.play(chess.Board(WON), NODES, root_moves=[blunder], info=chess.engine.INFO_ALL)
    assert played.move == blunder
    assert abs(played.info["score"].white().score()) <= 10


def test_an_engine_without_tables_never_probes_anothers():
    with Engine(syzygy_path=str(SYZYGY)) as with_tables, Engine() as without:
        assert with_tables.analyse(chess.Board(DRAWN), NODES)["tbhits"] > 0
        info = without.analyse(chess.Board(DRAWN), NODES)
        assert info["tbhits"] == 0


def test_a_bad_syzygy_path_is_refused_and_the_tables_held_before_stay(tmp_path):
    with Engine(syzygy_path=str(SYZYGY)) as engine:
        for bad in (str(tmp_path / "missing"), str(tmp_path)):
            with pytest.raises(chess.engine.EngineError, match="Syzygy"):
                engine.configure({"SyzygyPath": bad})
            assert engine.analyse(chess.Board(DRAWN), NODES)["tbhits"] > 0
        engine.configure({"SyzygyPath": ""})
        assert engine.analyse(chess.Board(DRAWN), NODES, game=object())["tbhits"] == 0
    with pytest.raises(chess.engine.EngineError, match="not found"):
        Engine(syzygy_path=str(tmp_path / "missing"))


def test_one_user_letting_go_of_its_tables_leaves_anothers():
    first, second = Tablebases(), Tablebases()
    assert first.configure(str(SYZYGY)) == [] and second.configure(str(SYZYGY)) == []
    assert first.max_pieces == second.max_pieces == 4
    first.close()
    gc.collect()
    assert first.max_pieces == 0 and first.probe_limit(7) == 0
    assert second.root(chess_board(WON), 7, True) is not None
    assert Tablebases().configure("") == []


def test_users_of_other_folders_each_use_their_own_tables(tmp_path):
    everything, krvk_only = Tablebases(), Tablebases()
    assert everything.configure(str(SYZYGY)) == []
    assert krvk_only.configure(other_folder(tmp_path, "KRvK")) == [] and krvk_only.max_pieces == 3
    assert everything.max_pieces == 4
    assert everything.root(chess_board(DRAWN), 7, True) is not None          # KRvKR
    assert krvk_only.root(chess_board(DRAWN), 7, True) is None               # not in its folder
    assert krvk_only.root(chess_board(WON), 7, True).move is not None        # KRvK


def test_engines_of_other_folders_search_side_by_side(oracle, tmp_path):
    elsewhere = other_folder(tmp_path, "KRvK")
    with Engine(syzygy_path=str(SYZYGY)) as everything, Engine(syzygy_path=elsewhere) as krvk_only:
        drawn = everything.analyse(chess.Board(DRAWN), NODES)
        won = krvk_only.play(chess.Board(WON), NODES, info=chess.engine.INFO_ALL)
        assert drawn["score"].white() == chess.engine.Cp(0) and drawn["tbhits"] > 0
        assert outcome_after(oracle, WON, won.move) == 2 and won.info["nodes"] == 0


def test_files_the_core_cannot_read_are_refused_and_the_tables_held_before_stay(tmp_path):
    (tmp_path / "KQvK.rtbw").write_bytes(b"not a table")      # a table's name, not its magic
    (tmp_path / "notes.rtbw").write_bytes(b"")                   # not a table's name
    user = Tablebases()
    try:
        assert user.configure(str(SYZYGY)) == []
        with pytest.raises(TablebaseError, match="no Syzygy tables"):
            user.configure(str(tmp_path))
        assert user.max_pieces == 4 and user.root(chess_board(DRAWN), 7, True) is not None
    finally:
        user.close()


def chess_board(fen: str):
    from fianchetto import Board

    return Board(fen)
