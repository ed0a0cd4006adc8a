"""The engine agrees with python-chess on random reachable positions.

Positions come from deterministic, biased random play (see ``support/reference.py``):
standard games, games from the published tricky positions, and games from
random Chess960 starting positions, handed to the engine as X-FEN or
Shredder-FEN, with and without clocks, with en-passant squares shown even when
no capture is possible.
"""
from __future__ import annotations

import random
from collections import Counter

import chess
import chess.polyglot
import pytest

from support.reference import (
    SEED,
    SEED_FENS,
    Sample,
    assert_matches_python_chess,
    chess_divide,
    chess_perft_many,
    chess_uci_moves,
    engine_board,
    random_move,
)
from fianchetto import Board

MIN_SAMPLES = 500


def test_sample_set_covers_the_tricky_rules(samples):
    """The generator must actually reach the situations we claim to test."""
    boards = [s.board for s in samples]
    assert len(samples) >= MIN_SAMPLES
    assert sum(s.chess960 for s in samples) >= 100
    assert sum(s.chess960 and s.fen_text.split()[2] != s.parsed().fen().split()[2] for s in samples) >= 10, "Shredder spelling"
    assert sum(b.has_legal_en_passant() for b in boards) >= 10
    assert sum(b.has_pseudo_legal_en_passant() and not b.has_legal_en_passant() for b in boards) >= 3
    assert sum(b.ep_square is not None and not b.has_pseudo_legal_en_passant() for b in boards) >= 10
    assert sum(b.is_check() for b in boards) >= 15
    assert sum(any(b.is_castling(m) for m in b.legal_moves) for b in boards) >= 8
    assert sum(any(b.is_castling(m) for m in b.legal_moves) for b in boards if b.chess960) >= 3
    assert sum(any(m.promotion for m in b.legal_moves) for b in boards) >= 5


def test_perft3_matches_python_chess(samples):
    expected = chess_perft_many([s.board for s in samples], 3)
    failures = []
    for sample, want in zip(samples, expected):
        got = engine_board(sample).perft(3)
        if got != want:
            failures.append((sample, got, want))
    if failures:
        sample, got, want = failures[0]
        # Narrow the first failure down to the root moves that disagree.
        engine = dict(engine_board(sample).divide(3))
        oracle = chess_divide(sample.parsed(), 3)
        diff = {
            m: (engine.get(m), oracle.get(m))
            for m in sorted(set(engine) | set(oracle))
            if engine.get(m) != oracle.get(m)
        }
        pytest.fail(
            f"{len(failures)} of {len(samples)} positions differ; first: {sample!r} "
            f"perft(3) engine={got} python-chess={want}; divide (engine, python-chess): {diff}"
        )


def test_legal_moves_match_python_chess(samples):
    for sample in samples:
        board = engine_board(sample)
        moves = board.legal_moves()
        assert len(moves) == len(set(moves)), f"duplicate moves in {sample!r}"
        assert sorted(moves) == chess_uci_moves(sample.parsed()), sample


def test_checking_moves_match_python_chess(samples):
    """The search's check test (a per-position CheckInfo, then a few bit tests per
    move) against python-chess on every legal move: direct and discovered
    checks, castling, promotions and en passant, standard and Chess960."""
    checks = 0
    for sample in samples:
        reference = sample.parsed()
        expected = sorted(reference.uci(m, chess960=reference.chess960)
                          for m in reference.legal_moves if reference.gives_check(m))
        assert sorted(engine_board(sample).checking_moves()) == expected, sample
        checks += len(expected)
    assert checks >= 300, checks  # the samples do exercise the rule


def test_construction_matches_python_chess(samples):
    """fen(), shredder fen, Zobrist key, side to move and check status."""
    for sample in samples:
        board = engine_board(sample)
        assert_matches_python_chess(board, sample.parsed(), repr(sample))
        assert board.chess960 == sample.chess960
        assert board.move_stack == []


def test_xfen_and_shredder_fen_are_the_same_position(samples):
    for sample in samples:
        if not sample.chess960:
            continue
        pc = sample.parsed()
        a = Board(pc.fen(), chess960=True)
        b = Board(pc.shredder_fen(), chess960=True)
        assert a.fen() == b.fen() == pc.fen(), sample
        assert a.key == b.key, sample
        assert sorted(a.legal_moves()) == sorted(b.legal_moves()), sample


def _walk(sample: Sample, rng: random.Random, plies: int) -> Counter:
    """Push random moves, then pop them all, comparing after every step.

    Returns how many castlings, en-passant captures and promotions were played.
    """
    played: Counter = Counter()
    board = engine_board(sample)
    pc = sample.parsed()
    root_state = (board.fen(), board.key)
    pushed = []
    for _ in range(plies):
        move = random_move(rng, pc)
        if move is None:
            break
        played["castling"] += pc.is_castling(move)
        played["en passant"] += pc.is_en_passant(move)
        played["promotion"] += move.promotion is not None
        uci = pc.uci(move, chess960=board.chess960)
        # Castling is accepted in the other spelling too (e1g1 <-> e1h1).
        spelled = pc.uci(move, chess960=not board.chess960) if rng.random() < 0.3 else uci
        board.push(spelled)
        pc.push(move)
        pushed.append(uci)
        where = f"{sample!r} after {pushed}"
        assert_matches_python_chess(board, pc, where)
        assert board.move_stack == pushed, where
        assert sorted(board.legal_moves()) == chess_uci_moves(pc, board.chess960), where
        assert board._check_invariants(), where     # incremental key, checkers, material-and-square sum
    while pushed:
        expected = pushed.pop()
        assert board.pop() == expected, f"{sample!r} popping {expected}"
        pc.pop()
        where = f"{sample!r} after popping back to {pushed}"
        assert_matches_python_chess(board, pc, where)
        assert board._check_invariants(), where
        assert board.move_stack == pushed, where
    assert (board.fen(), board.key) == root_state
    with pytest.raises(IndexError):
        board.pop()
    return played


def test_push_pop_sequences_keep_key_fen_and_check_in_sync(samples):
    rng = random.Random(SEED + 1)
    played: Counter = Counter()
    walks = 0
    for sample in samples[::3]:
        played += _walk(sample, rng, rng.randrange(6, 24))
        walks += 1
    assert walks >= 150
    assert played["en passant"] >= 5 and played["promotion"] >= 10, played


def test_push_pop_sequences_from_the_published_positions():
    """Castling-rich standard positions (Kiwipete, positions 4 and 5, ...)."""
    rng = random.Random(SEED + 3)
    played: Counter = Counter()
    for fen, chess960 in SEED_FENS:
        for _ in range(4):
            board = chess.Board(fen, chess960=chess960)
            played += _walk(Sample(board, fen, "published"), rng, 30)
    assert played["castling"] >= 10, played


def test_push_pop_sequences_from_chess960_starting_positions():
    rng = random.Random(SEED + 2)
    played: Counter = Counter()
    for index in range(3, 960, 19):
        board = chess.Board.from_chess960_pos(index)
        text = board.shredder_fen() if index % 2 else board.fen()
        played += _walk(Sample(board, text, f"chess960 #{index}"), rng, 40)
    assert played["castling"] >= 20, played
