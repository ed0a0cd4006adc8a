"""The network in the core: file checks, incremental accumulators, the integer
forward pass, and the search running on it."""
from __future__ import annotations

import random
import struct

import chess
import numpy as np
import pytest

from core_cy import core
from fianchetto.board import Board

from fianchetto.learn.network import fnv1a32
from fianchetto.learn.network import QA, QB, SCALE, FloatNetwork, QuantNetwork
from support.networks import (CORRUPTIONS, integer_eval, random_network_bytes, reference_eval, reference_evals,
                              saturated_network_bytes)


@pytest.fixture()
def network():
    """A random network file's bytes; tests load it with core.load_network."""
    return random_network_bytes()


def evaluated(data: bytes, board: Board) -> int:
    """The network in ``data``'s evaluation of board (loaded once while it lives)."""
    return core.load_network(data).evaluate(board)


def random_game(rng: random.Random, board: Board, plies: int) -> Board:
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


SPECIAL_POSITIONS = [
    ("r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1",
     ["e1g1", "e8c8", "d4e5", "d5e4"], False),
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", ["e5f6", "e7f6"], False),
    ("r1n1k3/1P6/8/8/8/8/4K1p1/7R b - - 0 1", ["g2h1q", "b7a8n", "h1h2"], False),
    ("3k4/1P6/8/8/8/8/8/4K3 w - - 0 1", ["b7b8r"], False),
    ("nrkbrqbn/pppppppp/8/8/8/8/PPPPPPPP/NRKBRQBN w EBeb - 0 1",
     ["d2d4", "d7d5", "c1d2", "c8d7", "e2e4", "e7e5"], True),
    ("rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1", ["b1a1", "b8a8"], True),
]


@pytest.mark.parametrize("fen,moves,chess960", SPECIAL_POSITIONS)
def test_accumulator_through_special_moves(network, fen, moves, chess960):
    board = Board(fen, chess960=chess960)
    for uci in moves:
        board.push(uci)
    assert core.load_network(network).accumulator_mismatch(board) == -1
    assert evaluated(network, board) == reference_eval(network, board.to_python_chess())


@pytest.mark.parametrize("chess960", [False, True])
def test_incremental_accumulator_equals_refresh_in_random_games(network, chess960):
    rng = random.Random(42 + chess960)
    for _ in range(40):
        if chess960:
            start = chess.Board.from_chess960_pos(rng.randrange(960)).fen()
            board = Board(start, chess960=True)
        else:
            board = Board()
        random_game(rng, board, rng.randrange(20, 160))
        assert core.load_network(network).accumulator_mismatch(board) == -1, board.fen()


def test_network_eval_matches_the_integer_reference(network):
    rng = random.Random(5)
    checked = 0
    while checked < 200:
        board = random_game(rng, Board(), rng.randrange(0, 80))
        assert evaluated(network, board) == reference_eval(network, board.to_python_chess())
        checked += 1


def test_a_network_of_another_quantisation_is_evaluated_with_its_own():
    """The usual quantisation has its divisions by constants; any other that a
    file may declare takes the general path and must give the same arithmetic."""
    quantisations = [(181, 50, 290), (QA, QB, SCALE), (QA, 32, SCALE), (200, QB, 333)]
    rng = random.Random(12)
    boards = [random_game(rng, Board(), rng.randrange(0, 80)) for _ in range(60)]
    for qa, qb, scale in quantisations:
        data = random_network_bytes(seed=qa + qb, qa=qa, qb=qb, scale=scale)
        loaded = core.load_network(data)
        for board in boards:
            assert loaded.evaluate(board) == integer_eval(data, board.to_python_chess(), qa, qb, scale), \
                (qa, qb, scale)


@pytest.mark.parametrize("hidden", [256, 512])
def test_output_sums_past_32_bits_are_exact(hidden):
    """A saturated network's output sum passes 2^32 (and each view's 2^31 with
    512 lanes); the bias brings the score back to 793 cp."""
    data = saturated_network_bytes(hidden)
    board = Board()
    expected = integer_eval(data, board.to_python_chess(), QA, QB, SCALE)
    assert expected == QA * 127 * SCALE // (QA * QB)       # one lane: QA^2 * 127 / QA, in cp
    loaded = core.load_network(data)
    assert loaded.evaluate(board) == expected
    assert loaded.evaluate(random_game(random.Random(hidden), board, 40)) == expected


def test_the_widest_network_the_engine_loads_evaluates_like_the_reference():
    data = random_network_bytes(hidden=core.NETWORK_MAX_HIDDEN, seed=5)
    rng = random.Random(21)
    boards = [random_game(rng, Board(), rng.randrange(0, 80)) for _ in range(100)]
    expected = reference_evals(data, [board.to_python_chess() for board in boards])
    loaded = core.load_network(data)
    assert [loaded.evaluate(board) for board in boards] == expected
    with pytest.raises(ValueError, match="hidden layer"):
        core.load_network(random_network_bytes(hidden=core.NETWORK_MAX_HIDDEN + 16))
    assert loaded.evaluate(boards[-1]) == expected[-1]


def test_the_core_knows_the_trainers_quantisation():
    assert core.NETWORK_QUANTISATION == (QA, QB, SCALE)


def test_mirrored_position_scores_the_same(network):
    rng = random.Random(9)
    for _ in range(50):
        board = random_game(rng, Board(), rng.randrange(1, 60))
        py = board.to_python_chess()
        mirrored = Board(py.mirror().fen())
        assert evaluated(network, Board(py.fen())) == evaluated(network, mirrored)




@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_corrupt_network_is_refused_and_nothing_else_changes(network, kind):
    board = random_game(random.Random(3), Board(), 30)
    loaded = core.load_network(network)
    before, stats = loaded.evaluate(board), core.network_stats()
    with pytest.raises(ValueError):
        core.load_network(CORRUPTIONS[kind](network))
    assert core.network_stats() == stats
    assert loaded.evaluate(board) == before


def test_out_of_range_weights_are_refused(network):
    data = bytearray(random_network_bytes())
    hidden = 32
    offset = 48 + 2 * (768 * hidden + hidden)          # first output weight
    struct.pack_into("<h", data, offset, 2000)
    payload = bytes(data[48:])
    struct.pack_into("<I", data, 40, fnv1a32(payload))
    with pytest.raises(ValueError, match="range"):
        core.load_network(bytes(data))


def test_search_uses_its_network_and_stays_deterministic(network):
    board = Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    loaded = core.load_network(network)
    first = core.Search(hash_mb=8, network=loaded)
    best1 = first.go(board, depth=7)
    nodes_net = first.nodes
    second = core.Search(hash_mb=8, network=loaded)
    assert second.go(board, depth=7) == best1 and second.nodes == nodes_net
    hce = core.Search(hash_mb=8)
    hce.go(board, depth=7)
    assert hce.nodes != nodes_net          # a different evaluation searches a different tree
    first.set_network(None)
    first.clear()
    first.go(board, depth=7)
    assert first.nodes == hce.nodes
    assert core.evaluate_hand_crafted(board) == board.evaluate()


def test_without_a_network_the_hand_crafted_evaluation_is_used():
    board = Board()
    assert board.evaluate() == board.evaluate(None) == core.evaluate_hand_crafted(board)
    assert core.Search(hash_mb=1).evaluation is None


# --- king buckets (architecture 3) ---------------------------------------------------

KING_WALKS = ["4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1", "8/2k5/8/3p4/3P4/8/5K2/8 w - - 0 1",
              "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1"]


@pytest.fixture()
def king_network():
    """A random network with 4 king buckets (mirrored inputs), loaded for one test."""
    rng = np.random.default_rng(21)
    net = FloatNetwork.initial(32, rng, 8, 4)
    net.ft_w += rng.normal(0.0, 0.15, net.ft_w.shape).astype(np.float32)
    net.out_w *= 20.0
    net.clip_weights()
    return QuantNetwork.quantise(net)


def king_walk(rng: random.Random, fen: str, plies: int) -> Board:
    """A random game that moves a king whenever it can, more often than not."""
    board = Board(fen)
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        king = board.to_python_chess().king(board.turn)
        kings = [m for m in moves if chess.parse_square(m[:2]) == king]
        board.push(rng.choice(kings if kings and rng.random() < 0.6 else moves))
    return board


@pytest.mark.parametrize("stride", [1, 2, 3, 5])
def test_king_bucket_updates_equal_refresh_over_chains_of_moves(king_network, stride):
    """Kings cross the d/e files and the buckets' ranks inside chains of moves that
    one lazy update replays: the accumulator must equal a refresh at the end of each."""
    rng = random.Random(stride)
    for fen in KING_WALKS:
        for _ in range(6):
            board = king_walk(rng, fen, rng.randrange(30, 120))
            assert core.load_network(king_network.to_bytes()).accumulator_mismatch(board, stride) == -1, board.fen()


def test_a_search_with_king_buckets_is_deterministic_and_legal(king_network):
    """(Under the checked build every accumulator the search evaluates is compared with a refresh.)"""
    for fen in KING_WALKS[1:]:
        board = Board(fen)
        loaded = core.load_network(king_network.to_bytes())
        first, second = core.Search(hash_mb=8, network=loaded), core.Search(hash_mb=8, network=loaded)
        best, _ponder = first.go(board, depth=8)
        assert second.go(board, depth=8)[0] == best and second.nodes == first.nodes
        assert best in board.legal_moves()


def test_the_same_file_loads_once_and_is_freed_with_its_last_holder(network):
    before = core.network_stats()
    first, again = core.load_network(network), core.load_network(bytearray(network))
    assert first is again
    assert core.network_stats() == {"networks": before["networks"] + 1, "bytes": before["bytes"] + first.bytes}
    other = core.load_network(random_network_bytes(seed=77))
    assert core.network_stats()["networks"] == before["networks"] + 2
    search = core.Search(hash_mb=1, network=first)
    del first, again, other
    assert core.network_stats()["networks"] == before["networks"] + 1     # the search still holds one
    search.go(Board(), depth=3)
    del search
    assert core.network_stats() == before
