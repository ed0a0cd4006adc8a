"""UCI_LimitStrength and UCI_Elo: the rating model, and the engine playing by it."""
from __future__ import annotations

import random
from collections import Counter

import chess
import pytest

from fianchetto import strength
from fianchetto.score import Score
from support.uci_pipe import UciPipe, assert_pv_legal, info_lines, last_line_of_each_rank, ready_engine

# A middlegame with several reasonable moves and some bad ones.
FEN = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9"


def picks(scores, elo, draws=3000, seed=7):
    rng = random.Random(seed)
    return Counter(strength.choose(scores, elo, rng) for _ in range(draws))


def test_budget_and_noise_follow_the_rating():
    elos = range(strength.MIN_ELO, strength.MAX_ELO, 100)
    budgets = [strength.node_budget(e) for e in elos]
    noises = [strength.noise_cp(e) for e in elos]
    assert budgets == sorted(budgets) and budgets[0] < budgets[-1]
    assert noises == sorted(noises, reverse=True) and noises[-1] < noises[0]
    # out-of-range ratings are clamped, never extrapolated
    assert strength.node_budget(0) == strength.node_budget(strength.MIN_ELO)
    assert strength.noise_cp(10_000) == strength.noise_cp(strength.MAX_ELO)


def test_the_table_is_interpolated_between_its_anchors():
    for anchor in strength.ANCHORS:
        assert strength.node_budget(anchor.elo) == anchor.nodes
        assert strength.candidates(anchor.elo) == anchor.candidates
        assert strength.noise_cp(anchor.elo) == anchor.noise_cp
    low, high = strength.ANCHORS[0], strength.ANCHORS[1]
    middle = (low.elo + high.elo) // 2
    geometric = (low.nodes * high.nodes) ** 0.5
    assert abs(strength.node_budget(middle) - geometric) < 0.02 * geometric
    assert strength.node_budget(strength.MAX_ELO) == 0          # full strength: no budget
    # past the last anchor the budget keeps growing at the last step's rate
    last = strength.ANCHORS[-1]
    assert last.nodes < strength.node_budget(last.elo + 50) < strength.node_budget(last.elo + 90)


def test_skill_level_maps_onto_the_same_ratings():
    assert strength.skill_to_elo(0) == strength.MIN_ELO
    assert strength.skill_to_elo(20) == strength.MAX_ELO
    ratings = [strength.skill_to_elo(level) for level in range(21)]
    assert ratings == sorted(ratings) and len(set(ratings)) == 21
    assert strength.limited_elo(False, 1500, 20) is None                  # nothing set: full strength
    assert strength.limited_elo(False, 1500, 0) == strength.MIN_ELO
    assert strength.limited_elo(True, 1800, 0) == 1800                    # UCI_LimitStrength wins
    assert strength.limited_elo(True, strength.MAX_ELO, 5) is None        # the top is full strength


def test_a_broken_table_is_refused(tmp_path):
    path = tmp_path / "strength.json"
    path.write_text('{"full_strength_elo": 1200, "anchors": [{"elo": 1000, "nodes": 5, '
                    '"candidates": 1, "noise_cp": 0}, {"elo": 1500, "nodes": 9, "candidates": 1, "noise_cp": 0}]}')
    with pytest.raises(ValueError, match="anchors"):
        strength.load_table(path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not a strength table"):
        strength.load_table(path)


def test_a_refit_table_round_trips(tmp_path):
    path = tmp_path / "strength.json"
    anchors = [strength.Anchor(1000, 100, 3, 50.0), strength.Anchor(1800, 20000, 1, 0.0)]
    strength.save_table(2200, anchors, path)
    assert strength.load_table(path) == (2200, anchors)


def test_refit_moves_the_budget_against_the_measured_difference():
    assert strength.refit_budget(8000, 0.0, 100) == 8000
    assert strength.refit_budget(8000, 200.0, 100, damping=1.0) == 2000   # too strong by two doublings
    assert strength.refit_budget(8000, -100.0, 100, damping=1.0) == 16000
    assert strength.refit_budget(8000, 100.0, 100, damping=0.5) < 8000
    assert strength.refit_budget(20, 1000.0, 100) == 16                   # never below a floor


def test_fewer_candidates_up_the_range_and_one_at_the_top():
    counts = [strength.candidates(e) for e in range(strength.MIN_ELO, strength.MAX_ELO + 1, 100)]
    assert counts == sorted(counts, reverse=True)
    assert counts[0] == strength.MAX_CANDIDATES and counts[-1] == 1


def test_equal_moves_are_shared_and_blunders_are_rare():
    scores = [Score.cp(40), Score.cp(35), Score.cp(-250), Score.mate(-2)]
    low = picks(scores, 1000)
    assert low[0] > 500 and low[1] > 500             # near-equal moves: both played
    assert low[2] < 0.05 * sum(low.values())          # a piece down: rarely
    assert low[3] == 0                                # walking into mate: never
    high = picks(scores, strength.MAX_ELO)
    assert high[2] == 0 and high[3] == 0


def test_a_higher_rating_finds_the_best_move_more_often():
    scores = [Score.cp(60), Score.cp(0), Score.cp(-20), Score.cp(-60)]
    shares = [picks(scores, elo)[0] for elo in (1000, 1500, 2000, 2500)]
    assert shares == sorted(shares) and shares[0] < shares[-1]


def test_a_winning_mate_is_never_given_up():
    scores = [Score.mate(3), Score.cp(900), Score.cp(850)]
    assert picks(scores, 1000)[0] == 3000


def test_no_candidates_is_an_error():
    with pytest.raises(ValueError):
        strength.choose([], 1500)


def test_a_limited_search_keeps_the_smaller_node_limit_and_at_least_its_candidates():
    elo = 1500
    budget, lines = strength.node_budget(elo), strength.candidates(elo)
    assert strength.limited_search(0, 1, elo) == (budget, lines)
    assert strength.limited_search(budget // 2, 1, elo) == (budget // 2, lines)
    assert strength.limited_search(budget * 2, lines + 2, elo) == (budget, lines + 2)


def test_the_line_is_picked_among_the_deepest_iteration_that_offers_the_candidates():
    from fianchetto.score import SearchInfo

    def line(depth, cp, move, rank):
        return SearchInfo(depth=depth, score=Score.cp(cp), pv=[move], multipv=rank)

    rng = random.Random(3)
    two = next(elo for elo in range(strength.MIN_ELO, strength.MAX_ELO) if strength.candidates(elo) == 2)
    shallow = line(5, 900, "a2a3", 3)                     # completed a depth less: not chosen at two candidates
    deep = [line(6, 20, "e2e4", 1), line(6, 10, "d2d4", 2)]
    chosen = {strength.pick_line(deep + [shallow], two, random.Random(s)).pv[0]
              for s in range(200)}
    assert chosen == {"e2e4", "d2d4"}
    # the budget ended depth 6 after its first line: the others stand at depth 5, and the choice takes them
    assert strength.candidates(strength.MIN_ELO) == 4
    started = [line(6, 30, "e2e4", 1), line(5, 20, "d2d4", 2), line(5, 10, "c2c4", 3), line(5, 0, "g1f3", 4)]
    chosen = {strength.pick_line(started, strength.MIN_ELO, random.Random(s)).pv[0] for s in range(200)}
    assert chosen == {"e2e4", "d2d4", "c2c4", "g1f3"}
    # the rating wants four: three lines at depth 6 and one at 5 choose among all four, not the three
    nearly = [line(6, 30, "e2e4", 1), line(6, 20, "d2d4", 2), line(6, 10, "c2c4", 3), line(5, 25, "g1f3", 4)]
    assert "g1f3" in {strength.pick_line(nearly, strength.MIN_ELO, random.Random(s)).pv[0] for s in range(200)}
    # MultiPV asked for more lines than the rating's candidates: the choice stays among the best two
    shown = deep + [line(6, 10, "c2c4", 3), line(6, 10, "g1f3", 4)]
    assert {strength.pick_line(shown, two, random.Random(s)).pv[0] for s in range(200)} == {"e2e4", "d2d4"}
    assert strength.pick_line([deep[0]], strength.MIN_ELO, rng) is None        # one line: no choice
    assert strength.pick_line([], strength.MIN_ELO, rng) is None


def test_the_played_line_heads_the_closing_lines_and_no_move_is_named_twice():
    from fianchetto.score import SearchInfo

    lines = [SearchInfo(depth=6, score=Score.cp(30 - rank), pv=[move, "e7e5"], multipv=rank)
             for rank, move in enumerate(["e2e4", "d2d4", "c2c4", "g1f3"], start=1)]
    shown = strength.lines_to_show(lines[::-1], lines[2], 3)
    assert [(line.pv[0], line.multipv) for line in shown] == [("c2c4", 1), ("e2e4", 2), ("d2d4", 3)]
    assert strength.lines_to_show(lines, lines[0], 1) == [lines[0]]


def test_options_are_declared():
    pipe = UciPipe()
    lines = pipe.handshake()
    pipe.close()
    assert "option name UCI_LimitStrength type check default false" in lines
    assert (f"option name UCI_Elo type spin default {strength.DEFAULT_ELO} "
            f"min {strength.MIN_ELO} max {strength.MAX_ELO}") in lines


@pytest.fixture()
def engine():
    yield from ready_engine()


@pytest.mark.parametrize("elo", [strength.MIN_ELO, 2000])
def test_limited_search_stays_in_its_budget_and_plays_a_legal_move(engine, elo):
    engine.send("setoption name UCI_LimitStrength value true")
    engine.send(f"setoption name UCI_Elo value {elo}")
    engine.send(f"position fen {FEN}")
    lines, best, _ = engine.go("go wtime 60000 btime 60000")
    assert chess.Move.from_uci(best) in chess.Board(FEN).legal_moves
    infos = info_lines(lines)
    # the candidates are searched, but only the lines MultiPV asks for are shown
    assert infos and max(int(m.group("multipv") or 1) for m in infos) == 1
    # the core checks its node limit between batches of nodes
    assert max(int(m.group("nodes")) for m in infos) <= strength.node_budget(elo) + 2048


def test_skill_level_limits_the_search_like_its_rating(engine):
    level = 6
    elo = strength.skill_to_elo(level)
    engine.send(f"setoption name Skill Level value {level}")
    engine.send(f"position fen {FEN}")
    lines, best, _ = engine.go("go wtime 60000 btime 60000")
    assert chess.Move.from_uci(best) in chess.Board(FEN).legal_moves
    infos = info_lines(lines)
    assert max(int(m.group("multipv") or 1) for m in infos) == 1
    assert max(int(m.group("nodes")) for m in infos) <= strength.node_budget(elo) + 2048


@pytest.mark.parametrize("multipv", [1, 3])
def test_a_limited_search_names_each_move_once_and_heads_its_lines_with_the_move_it_plays(engine, multipv):
    """The closing lines at a rating: the move played as multipv 1, the other root
    moves after it, as many lines as MultiPV asks for and none beyond (the extra
    candidates are the search's own). A GUI keeping each rank's last line then
    shows each move once, the move played first."""
    engine.send("setoption name UCI_LimitStrength value true")
    engine.send(f"setoption name UCI_Elo value {strength.MIN_ELO}")
    engine.send(f"setoption name MultiPV value {multipv}")
    played = []
    for _ in range(12):
        engine.send("ucinewgame")
        engine.send(f"position fen {FEN}")
        lines, best, _ = engine.go("go wtime 60000 btime 60000")
        assert_pv_legal(FEN, lines)
        shown = last_line_of_each_rank(lines)
        assert sorted(shown) == list(range(1, multipv + 1))
        first_moves = [shown[rank][0] for rank in sorted(shown)]
        assert len(set(first_moves)) == multipv, first_moves
        assert first_moves[0] == best
        played.append(best)
    assert len(set(played)) > 1          # the choice was blurred: not only the best move was played


def test_full_strength_again_when_the_limit_is_off(engine):
    engine.send("setoption name UCI_LimitStrength value true")
    engine.send("setoption name UCI_LimitStrength value false")
    engine.send(f"position fen {FEN}")
    lines, best, _ = engine.go("go depth 6")
    assert all(int(m.group("multipv") or 1) == 1 for m in info_lines(lines))
    assert max(int(m.group("depth")) for m in info_lines(lines)) == 6


# ---------------------------------------------------------------------------
# The in-process Engine plays by the same options
# ---------------------------------------------------------------------------
def test_the_in_process_engine_declares_the_uci_engines_strength_options():
    from fianchetto import Engine
    from fianchetto.options import OPTION_TABLE

    uci = {option.name: option for option in OPTION_TABLE}
    with Engine() as engine:
        for name in ("UCI_LimitStrength", "UCI_Elo", "Skill Level"):
            ours, theirs = engine.options[name], uci[name]
            assert (ours.type, ours.default, ours.min, ours.max) == \
                (theirs.type, theirs.default, theirs.min, theirs.max), name


def limited_plays(options, limit, count, **play):
    from fianchetto import Engine

    board = chess.Board(FEN)
    with Engine() as engine:
        engine.configure(options)
        return [engine.play(board, limit, game=object(), **play) for _ in range(count)]


def test_the_in_process_engine_at_a_rating_stays_in_its_budget_and_blurs_its_choice():
    elo = strength.MIN_ELO
    plays = limited_plays({"UCI_LimitStrength": True, "UCI_Elo": elo},
                          chess.engine.Limit(white_clock=60, black_clock=60), 30, info=chess.engine.INFO_ALL)
    legal = set(chess.Board(FEN).legal_moves)
    assert all(play.move in legal for play in plays)
    # the core checks its node limit between batches of nodes
    assert all(play.info["nodes"] <= strength.node_budget(elo) + 2048 for play in plays)
    assert all(play.info["pv"][0] == play.move and play.info["multipv"] == 1 for play in plays)
    assert len({play.move for play in plays}) > 1          # the same search at full strength plays one move
    full = limited_plays({}, chess.engine.Limit(nodes=strength.node_budget(elo)), 5)
    assert len({play.move for play in full}) == 1


def test_the_in_process_engine_searches_its_candidates_under_a_skill_level():
    from fianchetto import Engine

    level = 6
    elo = strength.skill_to_elo(level)
    with Engine() as engine:
        engine.configure({"Skill Level": level})
        with engine.analysis(chess.Board(FEN), chess.engine.Limit(white_clock=60, black_clock=60)) as stream:
            lines = list(stream)
        best = stream.wait().move
    assert max(line.get("multipv", 1) for line in lines) == 1             # the candidates are not shown
    assert max(line["nodes"] for line in lines) <= strength.node_budget(elo) + 2048
    assert best in chess.Board(FEN).legal_moves
    assert lines[-1]["pv"][0] == best and lines[-1]["multipv"] == 1   # the chosen line closes the stream


def test_the_in_process_engine_at_a_rating_answers_multipv_with_distinct_moves_the_played_one_first():
    from fianchetto import Engine

    board, limit = chess.Board(FEN), chess.engine.Limit(white_clock=60, black_clock=60)
    firsts = []
    with Engine() as engine:
        engine.configure({"UCI_LimitStrength": True, "UCI_Elo": strength.MIN_ELO})
        for _ in range(12):
            infos = engine.analyse(board, limit, multipv=3, game=object())
            assert [info["multipv"] for info in infos] == [1, 2, 3]
            assert len({info["pv"][0] for info in infos}) == 3
            firsts.append(infos[0]["pv"][0])
        with engine.analysis(board, limit, multipv=2, game=object()) as stream:
            streamed = list(stream)
        assert max(info.get("multipv", 1) for info in streamed) == 2
        assert stream.wait().move == stream.multipv[0]["pv"][0]
    assert len(set(firsts)) > 1
