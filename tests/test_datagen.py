"""Self-play data generation in the core: reproducible bytes, sound records."""
from __future__ import annotations

import io
import struct
import subprocess
import sys
import threading
import time

import chess
import pytest

from core_cy.core import DATA_HEADER, DATA_MAGIC, Board, SelfPlayWorker
from fianchetto.learn.progress import ProgressLine
from fianchetto.learn.selfplay import GameSettings, game_seed, generate, wait_for_workers

RECORD = struct.Struct("<Q16shBBHBB")
SETTINGS = GameSettings(nodes=400, random_plies=8, tablebases=False)


def decode(record: bytes):
    occupancy, nibbles, score, result, stm, fullmove, rule50, reserved = RECORD.unpack(record)
    board = chess.Board(None)
    i = 0
    for square in range(64):
        if occupancy >> square & 1:
            code = nibbles[i // 2] >> (4 * (i % 2)) & 15
            board.set_piece_at(square, chess.Piece(code & 7, chess.WHITE if code < 8 else chess.BLACK))
            i += 1
    board.turn = chess.WHITE if stm == 0 else chess.BLACK
    return board, score, result, fullmove, rule50, reserved


def records(path):
    data = open(path, "rb").read()
    assert DATA_HEADER.unpack_from(data, 0) == (DATA_MAGIC, 1, 32)
    body = data[DATA_HEADER.size:]
    assert len(body) % 32 == 0
    return [body[i:i + 32] for i in range(0, len(body), 32)]


def test_same_seed_gives_the_same_bytes_whatever_the_threads(tmp_path):
    one, two, other = tmp_path / "one.bin", tmp_path / "two.bin", tmp_path / "other.bin"
    generate(str(one), 600, SETTINGS, threads=1, seed=11)
    generate(str(two), 600, SETTINGS, threads=2, seed=11)
    generate(str(other), 600, SETTINGS, threads=1, seed=12)
    assert one.read_bytes() == two.read_bytes()
    assert one.read_bytes() != other.read_bytes()
    assert len(records(one)) == 600


def test_records_are_quiet_legal_positions_with_results(tmp_path):
    path = tmp_path / "d.bin"
    generate(str(path), 800, SETTINGS, threads=1, seed=3)
    results = set()
    for raw in records(path):
        board, score, result, fullmove, rule50, reserved = decode(raw)
        assert board.is_valid() or board.status() == chess.STATUS_BAD_CASTLING_RIGHTS
        assert not board.is_check()
        assert result in (0, 1, 2) and reserved == 0
        assert abs(score) < 20000
        assert fullmove >= 5            # 8 random plies come first
        assert rule50 <= 100
        results.add(result)
    assert results == {0, 1, 2} or len(results) >= 2


def test_a_game_is_named_by_its_seed_and_results_agree_with_the_side_to_move():
    worker = SelfPlayWorker(hash_mb=4)
    first = worker.play(Board(), game_seed(5, 0), nodes=300)
    again = SelfPlayWorker(hash_mb=4).play(Board(), game_seed(5, 0), nodes=300)
    assert first == again
    recs, white_result, plies = first
    if white_result is not None:
        for i in range(0, len(recs), 32):
            board, _score, result, *_ = decode(recs[i:i + 32])
            expected = white_result if board.turn == chess.WHITE else 2 - white_result
            assert result == expected
        assert plies > 8


def test_decided_games_end_by_rule_or_adjudication():
    worker = SelfPlayWorker(hash_mb=4)
    results = [worker.play(Board(), game_seed(9, g), nodes=300, max_plies=60)[1:] for g in range(6)]
    for result, plies in results:
        assert result is None or plies <= 60 + 8 + 1


def test_progress_ticks_at_its_pace_while_the_last_worker_finishes():
    """Once the first worker is done, the progress loop must still wait between its
    ticks (it once spun, writing its line thousands of times while another played)."""
    done = threading.Thread(target=lambda: None)
    playing = threading.Thread(target=time.sleep, args=(0.3,))
    done.start()
    done.join()
    playing.start()
    ticks = []
    started = time.monotonic()
    wait_for_workers([done, playing], every=0.05, tick=lambda: ticks.append(1))
    assert not playing.is_alive()
    assert 1 <= len(ticks) <= 2 + (time.monotonic() - started) / 0.05


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_line_is_rewritten_in_place_on_a_terminal():
    terminal = Terminal()
    report = ProgressLine(terminal, every=60)
    for line in ("one", "two", "three"):
        report(line)
    report.close()
    assert terminal.getvalue() == "\rone\rtwo\rthree\n"
    untouched = Terminal()
    ProgressLine(untouched).close()
    assert untouched.getvalue() == ""


def test_a_log_gets_a_whole_progress_line_now_and_then_and_the_last_one():
    log = io.StringIO()
    report = ProgressLine(log, every=60)
    for line in ("one", "two", "three"):
        report(line)
    report.close()
    assert log.getvalue() == "one\nthree\n"
    quiet = io.StringIO()
    ProgressLine(quiet, every=60).close()
    assert quiet.getvalue() == ""


def test_the_rate_is_the_recent_pace_once_a_pause_is_a_window_behind():
    """A run paused for an hour (a match beside it) shows its pace again: the rate is
    measured over about the last RATE_WINDOW seconds, not since the run began."""
    from fianchetto.learn.selfplay import RATE_WINDOW, Progress

    progress = Progress(target=10 ** 6, started=0.0, resumed=500, positions=500)
    now = 0.0

    def play(seconds: int) -> float:
        nonlocal now
        for _ in range(seconds):
            now += 1.0
            progress.positions += 10          # 10 positions a second
            rate = progress.rate(now)
        return rate

    assert play(60) == pytest.approx(10.0)    # since the start, before a window has passed
    assert play(900) == pytest.approx(10.0)
    now += 3600                               # paused
    assert play(60) < 2                       # the window still spans the pause
    assert play(int(RATE_WINDOW)) == pytest.approx(10.0, rel=0.01)
    assert (progress.positions - progress.resumed) / now < 5     # what the whole run averages
    assert len(progress.samples) <= RATE_WINDOW + 2


def test_datagen_command_line(tmp_path):
    out = tmp_path / "cli.bin"
    proc = subprocess.run(
        [sys.executable, "-m", "fianchetto", "datagen", "--format", "fiandata", "--out", str(out), "--positions", "150",
         "--nodes", "300", "--seed", "4", "--eval-file", "none"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "positions 150/150" in proc.stderr and "/s" in proc.stderr and "eta" in proc.stderr
    assert len(records(out)) == 150


@pytest.mark.parametrize("argv", [["--positions", "0"], ["--nodes", "-5"], ["--threads", "0"]])
def test_datagen_refuses_bad_numbers(tmp_path, argv):
    args = ["--out", str(tmp_path / "x.bin"), "--positions", "10", "--eval-file", "none"]
    proc = subprocess.run([sys.executable, "-m", "fianchetto", "datagen", *args, *argv],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
