"""FIANDATA files: encoding, vectorised decoding, feature indices and header checks.

python-chess is the oracle: every record decodes to the board it was encoded
from, and the feature indices agree with a per-piece reference written
straight from the definition.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import List

import chess
import numpy as np
import pytest

from support.reference import KIWIPETE_FEN, POSITION3_FEN, POSITION4_MIRROR_FEN, POSITION5_FEN
from fianchetto.learn.data import (
    HEADER_SIZE,
    KING_BUCKET_LAYOUTS,
    PAD_FEATURE,
    RECORD_DTYPE,
    Dataset,
    decode,
    decode_boards,
    encode_boards,
    header_bytes,
    open_records,
    write_positions,
)
from fianchetto.learn.network import board_features
from fianchetto.learn.synthetic import random_boards

FIXED_FENS = [
    chess.STARTING_FEN,
    KIWIPETE_FEN,
    POSITION3_FEN,
    POSITION4_MIRROR_FEN,
    POSITION5_FEN,
    "8/8/8/8/8/8/8/K6k b - - 0 1",
    "QQQQQQQK/QQQQQQQQ/8/8/8/8/qqqqqqqq/kqqqqqqq w - - 0 1",  # 32 pieces, no pawns
]


def sample_boards() -> List[chess.Board]:
    boards = [chess.Board(fen) for fen in FIXED_FENS] + random_boards(400, seed=11)
    assert {b.turn for b in boards} == {chess.WHITE, chess.BLACK}
    return boards


def reference_features(board: chess.Board, perspective: chess.Color) -> List[int]:
    """Feature indices from the definition, one piece at a time."""
    p = 0 if perspective == chess.WHITE else 1
    indices = []
    for square, piece in board.piece_map().items():
        c = 0 if piece.color == chess.WHITE else 1
        s = square if p == 0 else square ^ 56
        indices.append(384 * (c != p) + 64 * (piece.piece_type - 1) + s)
    return sorted(indices)


def active(row: np.ndarray) -> List[int]:
    return sorted(int(f) for f in row if f != PAD_FEATURE)


def test_records_decode_to_the_encoded_boards() -> None:
    boards = sample_boards()
    rng = random.Random(5)
    scores = [rng.randint(-3000, 3000) for _ in boards]
    results = [rng.randint(0, 2) for _ in boards]
    records = encode_boards(boards, scores, results)
    for board, back, record, score, result in zip(boards, decode_boards(records), records, scores, results):
        assert back.board_fen() == board.board_fen()
        assert back.turn == board.turn
        assert back.fullmove_number == board.fullmove_number
        assert back.halfmove_clock == board.halfmove_clock
        assert (int(record["score"]), int(record["result"]), int(record["reserved"])) == (score, result, 0)
    batch = decode(records)
    assert batch.score.tolist() == scores
    assert batch.result.tolist() == results


def test_feature_indices_match_the_per_piece_reference() -> None:
    boards = sample_boards()
    batch = decode(encode_boards(boards, [0] * len(boards), [1] * len(boards)))
    for i, board in enumerate(boards):
        assert active(batch.stm[i]) == reference_features(board, board.turn)
        assert active(batch.nstm[i]) == reference_features(board, not board.turn)
        stm, nstm = board_features(board)
        assert active(stm) == active(batch.stm[i])
        assert active(nstm) == active(batch.nstm[i])


def test_a_mirrored_position_has_swapped_views() -> None:
    """Colour-flipping the board and the side to move leaves each view unchanged."""
    for board in random_boards(50, seed=3):
        mirrored = board.mirror()
        a, b = decode(encode_boards([board, mirrored], [0, 0], [1, 1])).stm
        assert active(a) == active(b)


def test_file_round_trip_and_several_files(tmp_path: Path) -> None:
    boards = random_boards(60, seed=8)
    first, second = tmp_path / "a.dat", tmp_path / "b.dat"
    assert write_positions(first, [(b, i, i % 3) for i, b in enumerate(boards[:25])]) == 25
    write_positions(second, [(b, -i, 1) for i, b in enumerate(boards[25:])])
    assert first.stat().st_size == HEADER_SIZE + 25 * 32
    assert first.read_bytes()[:16] == b"FIANDATA" + (1).to_bytes(4, "little") + (32).to_bytes(4, "little")
    dataset = Dataset([first, second])
    assert len(dataset) == 60
    everything = np.concatenate([open_records(first), open_records(second)])
    picks = np.array([59, 0, 24, 25, 30, 3])
    assert dataset.take(picks).tobytes() == everything[picks].tobytes()
    back = decode_boards(dataset.take(np.arange(60)))
    assert [b.board_fen() for b in back] == [b.board_fen() for b in boards]


def test_empty_file_has_no_records(tmp_path: Path) -> None:
    path = tmp_path / "empty.dat"
    path.write_bytes(header_bytes())
    assert len(open_records(path)) == 0


@pytest.mark.parametrize(
    "content, message",
    [
        (b"FIANDA", "shorter than the 16-byte header"),
        (b"FIANDATX" + bytes(8), "magic"),
        (b"FIANDATA" + (2).to_bytes(4, "little") + (32).to_bytes(4, "little"), "version 2"),
        (b"FIANDATA" + (1).to_bytes(4, "little") + (24).to_bytes(4, "little"), "record size 24"),
        (header_bytes() + bytes(33), r"not 16 \+ k \* 32 \(a partial record of 1 bytes"),
        (header_bytes() + bytes(31), r"not 16 \+ k \* 32 \(a partial record of 31 bytes"),
    ],
    ids=["short", "magic", "version", "record-size", "one-byte-too-many", "partial-record"],
)
def test_bad_data_files_are_refused(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.dat"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        open_records(path)


def test_invalid_records_are_refused() -> None:
    record = encode_boards([chess.Board()], [0], [1])
    bad_code = record.copy()
    bad_code["pieces"][0, 0] = 0x07  # type 7 does not exist
    with pytest.raises(ValueError, match="piece code"):
        decode(bad_code)
    bad_empty_code = record.copy()
    bad_empty_code["pieces"][0, 15] = 0x08  # the last two pieces: black and white of type 0
    with pytest.raises(ValueError, match="piece code"):
        decode(bad_empty_code)
    bad_stm = record.copy()
    bad_stm["stm"] = 2
    with pytest.raises(ValueError, match="side to move"):
        decode(bad_stm)
    bad_result = record.copy()
    bad_result["result"] = 3
    with pytest.raises(ValueError, match="result"):
        decode(bad_result)


def test_a_record_with_more_than_32_pieces_is_refused_by_its_count() -> None:
    records = encode_boards([chess.Board(), chess.Board()], [0, 0], [1, 1])
    records["occupancy"][1] |= 0x0000_FFFF_0000_0000 & ~int(chess.Board().occupied)  # 16 more: 48 squares
    with pytest.raises(ValueError, match="48 occupied squares"):
        decode(records)


@pytest.mark.parametrize("king_buckets", [0, 1, 4])
def test_decoded_rows_are_the_boards_features_in_square_order(king_buckets) -> None:
    """Each row, padding included, is board_features' list (pieces by increasing
    square, from feature_index), whatever the batch around the record."""
    boards = sample_boards()
    records = encode_boards(boards, [0] * len(boards), [1] * len(boards))
    batch = decode(records, king_buckets)
    for i, board in enumerate(boards):
        stm, nstm = board_features(board, king_buckets)
        assert np.array_equal(batch.stm[i], stm) and np.array_equal(batch.nstm[i], nstm)
    alone = decode(records[7:8], king_buckets)
    assert np.array_equal(alone.stm[0], batch.stm[7]) and np.array_equal(alone.nstm[0], batch.nstm[7])
    assert len(decode(records[:0], king_buckets)) == 0


def test_encoding_refuses_out_of_range_labels() -> None:
    with pytest.raises(ValueError, match="int16"):
        encode_boards([chess.Board()], [40000], [1])
    with pytest.raises(ValueError, match="result"):
        encode_boards([chess.Board()], [0], [3])


def test_record_layout_is_32_bytes_little_endian() -> None:
    record = encode_boards([chess.Board()], [-2], [2])
    raw = record.tobytes()
    assert RECORD_DTYPE.itemsize == len(raw) == 32
    assert int.from_bytes(raw[:8], "little") == int(chess.Board().occupied)
    # a1 white rook (4), b1 white knight (2): low nibble first.
    assert raw[8] == 0x24
    assert raw[24:26] == (-2).to_bytes(2, "little", signed=True)
    assert raw[26:28] == bytes([2, 0])


# --- king buckets (architecture 3) ---------------------------------------------------

def test_king_bucket_features_by_hand() -> None:
    """White: king g1 (files e-h: the view mirrors), pawn e2 -> seen on d2 (11), bucket
    of b1 = 0. Black: king d7, seen from black's side on d2 (no mirror), bucket of
    the second rank = 2 with four buckets; its pawn e7 is seen on e2 (12) as its own."""
    board = chess.Board("8/3kp3/8/8/8/8/4P3/6K1 w - - 0 1")
    records = encode_boards([board], [0], [1])
    one = decode(records, king_buckets=1)
    four = decode(records, king_buckets=4)
    # White to move: stm is white's view. Squares in increasing order: e2, g1... sorted by square.
    assert sorted(int(f) for f in four.stm[0] if f != PAD_FEATURE) == sorted([
        0 * 768 + 0 * 384 + 0 * 64 + (12 ^ 7),          # own pawn e2 -> d2
        0 * 768 + 0 * 384 + 5 * 64 + (6 ^ 7),           # own king g1 -> b1
        0 * 768 + 1 * 384 + 0 * 64 + ((52 ^ 7)),        # enemy pawn e7 -> d7
        0 * 768 + 1 * 384 + 5 * 64 + ((51 ^ 7)),        # enemy king d7 -> e7
    ])
    assert sorted(int(f) for f in four.nstm[0] if f != PAD_FEATURE) == sorted([
        2 * 768 + 0 * 384 + 0 * 64 + (52 ^ 56),         # own pawn e7 -> e2
        2 * 768 + 0 * 384 + 5 * 64 + (51 ^ 56),         # own king d7 -> d2
        2 * 768 + 1 * 384 + 0 * 64 + (12 ^ 56),         # enemy pawn e2 -> e7
        2 * 768 + 1 * 384 + 5 * 64 + (6 ^ 56),          # enemy king g1 -> g8
    ])
    assert np.array_equal(one.stm, np.where(four.stm == PAD_FEATURE, PAD_FEATURE, four.stm % 768))
    assert np.array_equal(one.nstm, np.where(four.nstm == PAD_FEATURE, PAD_FEATURE, four.nstm % 768))


def test_the_king_bucket_layouts_cover_files_a_to_d() -> None:
    for count, layout in KING_BUCKET_LAYOUTS.items():
        assert len(layout) == 32 and set(layout) == set(range(count))


def test_king_bucketed_features_do_not_see_left_and_right() -> None:
    boards = [chess.Board(fen) for fen in ("r3k3/ppp2p2/2n5/8/3P4/2N5/PP3PPP/4K2R w - - 0 1",
                                           "6k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1")]
    mirrored = [b.transform(chess.flip_horizontal) for b in boards]
    plain = [decode(encode_boards(bs, [0, 0], [1, 1])) for bs in (boards, mirrored)]
    bucketed = [decode(encode_boards(bs, [0, 0], [1, 1]), king_buckets=4) for bs in (boards, mirrored)]
    as_sets = lambda batch: [sorted(row.tolist()) for row in np.concatenate([batch.stm, batch.nstm])]  # noqa: E731
    assert as_sets(bucketed[0]) == as_sets(bucketed[1])
    assert as_sets(plain[0]) != as_sets(plain[1])


@pytest.mark.parametrize("king_buckets", [1, 4])
def test_training_and_evaluation_features_agree_with_king_buckets(king_buckets) -> None:
    """The trainer's decode and the reference evaluation's board_features give each
    position the same king-bucketed inputs; colour-flipping the board keeps each view."""
    boards = sample_boards() + random_boards(200, seed=9)
    batch = decode(encode_boards(boards, [0] * len(boards), [1] * len(boards)), king_buckets)
    for i, board in enumerate(boards):
        stm, nstm = board_features(board, king_buckets)
        assert active(stm) == active(batch.stm[i]) and active(nstm) == active(batch.nstm[i])
    mirrored = decode(encode_boards([b.mirror() for b in boards], [0] * len(boards), [1] * len(boards)),
                      king_buckets)
    assert [active(row) for row in mirrored.stm] == [active(row) for row in batch.stm]
