"""The evaluation weight table can be dumped, edited and loaded back."""
import json

import pytest

from fianchetto import Board
from fianchetto import weights

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9"


@pytest.fixture(autouse=True)
def default_weights():
    weights.reset()
    yield
    weights.reset()


def test_dump_then_load_keeps_the_evaluation(tmp_path):
    path = tmp_path / "w.json"
    before = Board(MIDDLEGAME).evaluate()
    weights.dump(path)
    weights.load(path)
    assert Board(MIDDLEGAME).evaluate() == before


def test_changed_material_changes_the_evaluation(tmp_path):
    path = tmp_path / "w.json"
    weights.dump(path)
    table = json.loads(path.read_text())
    table["material"][1] = [400, 400]          # pawns worth four times as much
    path.write_text(json.dumps(table))
    up_a_pawn = Board("4k3/8/8/8/8/8/P7/4K3 w - - 0 1")
    before = up_a_pawn.evaluate()
    weights.load(path)
    assert up_a_pawn.evaluate() > before + 200


@pytest.mark.parametrize("content", [
    "not json", "[1, 2]", '{"nonsense": [[1, 2]]}', '{"material": [[1, 2]]}',
    '{"tempo": [[99999, 0]]}', '{"tempo": [["a", "b"]]}',
])
def test_invalid_files_are_rejected_without_changes(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    before = Board(MIDDLEGAME).evaluate()
    with pytest.raises(ValueError):
        weights.load(path)
    assert Board(MIDDLEGAME).evaluate() == before


def test_evaluation_is_symmetric():
    white = Board(MIDDLEGAME)
    mirrored = Board(mirror_fen(MIDDLEGAME))
    assert white.evaluate() == mirrored.evaluate()


def mirror_fen(fen: str) -> str:
    placement, side, castling, ep, *rest = fen.split()
    rows = [row.swapcase() for row in reversed(placement.split("/"))]
    castling = "".join(sorted(castling.swapcase(), key="KQkq".index)) if castling != "-" else "-"
    return " ".join(["/".join(rows), "b" if side == "w" else "w", castling, ep, *rest])


def test_moves_taken_back_after_a_weight_change_leave_a_sound_board(tmp_path):
    """Moves on the stack, a weight change, then the moves taken back: the sums
    kept below the current state were made under the old weights. The board must
    come back sound (the checked build verifies every take-back) and evaluate
    with the new weights, as a board set up afresh does."""
    path = tmp_path / "w.json"
    weights.dump(path)
    table = json.loads(path.read_text())
    table["material"][2] = [500, 500]          # knights worth more
    path.write_text(json.dumps(table))
    knight_up = "r1bq1rk1/pp2bppp/4pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9"
    board = Board(knight_up)
    for _ in range(6):
        board.push(sorted(board.legal_moves())[0])
    before = board.evaluate()
    weights.load(path)
    assert board.evaluate() > before + 100     # the current state's sum refreshed
    while board.move_stack:
        board.pop()
        assert board.evaluate() == Board(board.fen()).evaluate()
    assert board.fen() == knight_up
