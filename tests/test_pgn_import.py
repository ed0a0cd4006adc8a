"""``fianchetto datagen --from-pgn``: PGNs with scores in their comments, as training data.

The round trip is OpenBench's datagen workload in miniature: ``genfens``
openings, fixed-node games written as a PGN with the comments a tournament
manager writes, the conversion, one epoch of training, and the new network
loaded and searching.
"""
from __future__ import annotations

import bz2
import struct
from pathlib import Path
from typing import List

import chess
import chess.engine
import chess.pgn
import pytest

from support.cli import run_cli
from fianchetto import Engine
from fianchetto.cli import main as cli_main
from fianchetto.learn import games as game_files
from fianchetto.learn import manifest
from fianchetto.learn.pgn import MATE_BASE, parse_score
from fianchetto.wdl import DEFAULT_MODEL

GAME = """[Event "datagen"]
[FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]
[SetUp "1"]
[Result "1-0"]

1... e5 {book} 2. Nf3 {+0.35/12 0.123s, n=5012, sd=15} Nc6 {-0.20/11} 3. Bb5 {unknown} a6
{-M3/9} 4. Ba4 1-0

"""
DRAW = """[Event "datagen"]
[Result "1/2-1/2"]

1. d4 {+0.10/10} d5 {-0.05/10 0.010s} 1/2-1/2

"""


def scores_of(game: game_files.Game) -> List[int]:
    return list(struct.unpack(f"<{game.ply_count * 2}h", game.plies)[1::2])


def convert(tmp_path: Path, text: str, name: str = "games.pgn", compress: bool = False):
    source = tmp_path / (name + (".bz2" if compress else ""))
    data = text.encode()
    source.write_bytes(bz2.compress(data) if compress else data)
    out = tmp_path / "data" / "imported.fgame"
    code = cli_main(["datagen", "--from-pgn", str(source), "--out", str(out)])
    return code, out, source


# --- scores --------------------------------------------------------------------------------
@pytest.mark.parametrize("comment, sign", [("+0.35/12", 1), ("-1.20/15 0.123s, n=5012, sd=15", -1),
                                           ("0.00/1", 0)])
def test_scores_in_pawns_become_search_units(comment, sign):
    score = parse_score(comment, DEFAULT_MODEL, 60)
    pawns = float(comment.split("/")[0])
    assert score == round(pawns * DEFAULT_MODEL.midpoint(60))
    assert (score > 0) - (score < 0) == sign


def test_mates_become_mate_scores_and_other_comments_none():
    assert parse_score("+M5/20", DEFAULT_MODEL, 60) == MATE_BASE - 9
    assert parse_score("-M3/9 0.1s", DEFAULT_MODEL, 60) == -(MATE_BASE - 5)
    for comment in ("book", "unknown", "", "White mates", "adjudication"):
        assert parse_score(comment, DEFAULT_MODEL, 60) is None


@pytest.mark.parametrize("comment", ["+0.3x/12", "+M/3", "+0.35/", "+1..2/5"])
def test_a_malformed_score_is_refused(comment):
    with pytest.raises(ValueError, match="malformed score"):
        parse_score(comment, DEFAULT_MODEL, 60)


# --- the conversion -------------------------------------------------------------------------
@pytest.mark.parametrize("compress", [False, True])
def test_games_and_scores_are_kept_with_their_provenance(tmp_path, compress):
    code, out, source = convert(tmp_path, GAME + DRAW, compress=compress)
    assert code == 0
    first, second = game_files.read_games(str(out))
    assert first.fen.startswith("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b")
    assert first.result == 2 and second.result == 1
    unscored = game_files.UNSCORED
    scores = scores_of(first)
    assert scores[0] == unscored and scores[3] == unscored and scores[5] == unscored   # book, unknown, none
    assert scores[1] > 0 > scores[2] and scores[4] == -(MATE_BASE - 5)
    assert first.scored_plies() == 3 and second.scored_plies() == 2
    entry = manifest.entry(str(out))
    assert entry["source"] == "pgn" and entry["games"] == 2 and entry["positions"] == 5
    assert entry["pgn"][0]["name"] == source.name and len(entry["pgn"][0]["sha256"]) == 64


def test_unfinished_games_are_left_out(tmp_path):
    code, out, _ = convert(tmp_path, DRAW + DRAW.replace("1/2-1/2", "*"))
    assert code == 0
    assert len(game_files.read_games(str(out))) == 1
    assert manifest.entry(str(out))["discarded"] == 1


@pytest.mark.parametrize("text, message", [
    (GAME + DRAW[:-30], "game 2 has no result"),                       # truncated
    (GAME.replace("3. Bb5", "3. Bb6"), "game 1"),                      # illegal move
    (DRAW + GAME.replace("{-0.20/11}", "{-0.2q/11}"), "game 2: malformed score"),   # bad comment
    (GAME.replace("4P3/8/PPPP1PPP", "4P3/8/PPPP1PPPP"), "game 1"),     # no position
])
def test_bad_input_names_the_file_and_game_and_writes_nothing(tmp_path, capsys, text, message):
    code, out, source = convert(tmp_path, text)
    assert code == 2
    error = capsys.readouterr().err
    assert str(source) in error and message in error
    assert not out.exists() and not Path(str(out) + ".part").exists()


def test_a_cut_bz2_stream_is_refused(tmp_path, capsys):
    source = tmp_path / "cut.pgn.bz2"
    source.write_bytes(bz2.compress(((GAME + DRAW) * 50).encode())[:-40])
    out = tmp_path / "cut.fgame"
    assert cli_main(["datagen", "--from-pgn", str(source), "--out", str(out)]) == 2
    assert "cut short" in capsys.readouterr().err and not out.exists()


def test_an_existing_output_is_not_overwritten(tmp_path):
    code, out, _ = convert(tmp_path, DRAW)
    assert code == 0
    before = out.read_bytes()
    assert cli_main(["datagen", "--from-pgn", str(tmp_path / "games.pgn"), "--out", str(out)]) == 2
    assert out.read_bytes() == before


# --- the round trip ---------------------------------------------------------------------------
def genfens(count: int, seed: int) -> List[str]:
    proc = run_cli([f"genfens {count} seed {seed} book None", "quit"])
    assert proc.returncode == 0, proc.stderr
    prefix = "info string genfens "
    return [line[len(prefix):] for line in proc.stdout.splitlines() if line.startswith(prefix)]


def comment(info: dict) -> str:
    """What a tournament manager writes after a move: the mover's score and depth."""
    score = info["score"].relative
    text = f"{'+' if score.mate() > 0 else '-'}M{abs(score.mate())}" if score.is_mate() \
        else f"{score.score() / 100:+.2f}"
    return f"{text}/{info['depth']} 0.001s, n={info['nodes']}"


def play_game(engine: Engine, fen: str, max_plies: int = 50) -> chess.pgn.Game:
    board = chess.Board(fen)
    notes = []
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        result = engine.play(board, chess.engine.Limit(nodes=300), info=chess.engine.INFO_ALL)
        notes.append("book" if len(notes) < 2 else comment(result.info))
        board.push(result.move)
    game = chess.pgn.Game.from_board(board)
    game.headers["Result"] = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "1/2-1/2"
    for node, note in zip(game.mainline(), notes):
        node.comment = note
    return game


def test_openbench_round_trip(tmp_path):
    fens = genfens(6, 71)
    assert len(fens) == 6
    with Engine(hash_mb=8) as engine:
        pgn = "\n\n".join(str(play_game(engine, fen)) for fen in fens) + "\n"
    (tmp_path / "workload.pgn").write_text(pgn)
    data = tmp_path / "data" / "workload.fgame"
    assert cli_main(["datagen", "--from-pgn", str(tmp_path / "workload.pgn"), "--out", str(data)]) == 0
    stored = game_files.read_games(str(data))
    assert [game.fen for game in stored] == fens
    assert sum(game.scored_plies() for game in stored) == manifest.entry(str(data))["positions"] > 100
    network = tmp_path / "roundtrip.nnue"
    assert cli_main(["train", "--data", str(data), "--out", str(network), "--epochs", "1", "--hidden", "16",
                     "--batch", "64"]) == 0
    with pytest.warns(UserWarning):                   # no win/draw/loss model beside a fresh network
        engine = Engine(eval_file=str(network))
    with engine:
        info = engine.analyse(chess.Board(fens[0]), chess.engine.Limit(depth=4))
        assert info["depth"] == 4 and info["pv"][0] in chess.Board(fens[0]).legal_moves
