"""Whole-game self-play data (FIANGAME): reproducible, resumable, recorded in a
manifest, filtered when read, and the same positions as the 32-byte records."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import chess
import numpy as np
import pytest

from core_cy.core import Board
from fianchetto.learn import games, manifest
from fianchetto.learn.data import RECORD_DTYPE, Dataset, decode_boards, write_records
from fianchetto.learn.selfplay import (FINGERPRINT_DEPTH, Adjudication, GameSettings, dfrc_fen, generate, generate_games,
                                       search_id, start_position)

SETTINGS = GameSettings(nodes=300, random_plies=8, tablebases=False)
#: A score limit above any search score, so that only the in-core rules filter.
NO_SCORE_LIMIT = 32767


def test_the_same_seed_gives_the_same_file_whatever_the_threads(tmp_path):
    one, two, other = tmp_path / "one.fgame", tmp_path / "two.fgame", tmp_path / "other.fgame"
    generate_games(str(one), 500, SETTINGS, threads=1, seed=11)
    generate_games(str(two), 500, SETTINGS, threads=2, seed=11)
    generate_games(str(other), 500, SETTINGS, threads=1, seed=12)
    assert one.read_bytes() == two.read_bytes()
    assert one.read_bytes() != other.read_bytes()
    stored = games.read_games(str(one))
    assert sum(g.scored_plies() for g in stored if g.result is not None) >= 500


def test_a_resumed_run_writes_what_one_run_writes(tmp_path):
    whole, pieces = tmp_path / "whole.fgame", tmp_path / "pieces.fgame"
    generate_games(str(whole), 900, SETTINGS, seed=5)
    generate_games(str(pieces), 300, SETTINGS, seed=5)
    with pytest.raises(FileExistsError):
        generate_games(str(pieces), 900, SETTINGS, seed=5)
    generate_games(str(pieces), 900, SETTINGS, seed=5, resume=True)
    assert pieces.read_bytes() == whole.read_bytes()


def test_a_partial_game_left_by_an_interruption_is_cut_off_on_resume(tmp_path):
    whole, cut = tmp_path / "whole.fgame", tmp_path / "cut.fgame"
    generate_games(str(whole), 600, SETTINGS, seed=8)
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) - 37])             # a game broken off mid-write
    with pytest.raises(ValueError, match="partial game"):
        games.read_games(str(cut))
    generate_games(str(cut), 600, SETTINGS, seed=8, resume=True)
    assert cut.read_bytes() == data


def test_the_manifest_records_the_settings_and_counts_and_guards_a_resume(tmp_path):
    path = tmp_path / "m.fgame"
    progress = generate_games(str(path), 300, SETTINGS, seed=3, network="hce")
    entry = json.loads((tmp_path / manifest.NAME).read_text())["files"]["m.fgame"]
    assert entry["seed"] == 3 and entry["nodes"] == 300 and entry["random_plies"] == 8
    assert entry["network"] == "hce" and entry["complete"] is True
    assert entry["positions"] == progress.positions >= 300
    assert entry["games"] == progress.games and sum(entry["results"]) == progress.games
    with pytest.raises(ValueError, match="nodes was 300, now 400"):
        generate_games(str(path), 600, GameSettings(nodes=400, random_plies=8, tablebases=False), seed=3,
                       resume=True, network="hce")
    assert "m.fgame" in manifest.table(str(tmp_path / manifest.NAME))


def test_a_file_goes_on_only_with_the_search_that_began_it(tmp_path):
    path = tmp_path / "s.fgame"
    generate_games(str(path), 300, SETTINGS, seed=4, network="hce", search="bench8:1000")
    with pytest.raises(ValueError, match="search was 'bench8:1000', now 'bench8:2000'"):
        generate_games(str(path), 600, SETTINGS, seed=4, resume=True, network="hce", search="bench8:2000")
    # An entry from before the manifest named the search still goes on, and gains it.
    where = tmp_path / manifest.NAME
    old = json.loads(where.read_text())
    del old["files"]["s.fgame"]["search"]
    where.write_text(json.dumps(old))
    generate_games(str(path), 600, SETTINGS, seed=4, resume=True, network="hce", search="bench8:2000")
    assert manifest.entry(str(path))["search"] == "bench8:2000"


def test_a_file_goes_on_only_with_the_hash_size_and_tablebases_that_began_it(tmp_path):
    """The table's size changes what a node budget finds, and the tablebases end
    games early, so both change a seed's games: a resume with another --hash or
    --syzygy-path would mix two kinds of games under one seed."""
    path = tmp_path / "h.fgame"
    generate_games(str(path), 300, SETTINGS, seed=4, hash_mb=4, network="hce")
    assert manifest.entry(str(path))["hash"] == 4
    with pytest.raises(ValueError, match="hash was 4, now 8"):
        generate_games(str(path), 600, SETTINGS, seed=4, hash_mb=8, resume=True, network="hce")
    with_tables = GameSettings(nodes=300, random_plies=8, tablebases=True)
    with pytest.raises(ValueError, match="tablebases was False, now True"):
        generate_games(str(path), 600, with_tables, seed=4, hash_mb=4, resume=True, network="hce")
    # An entry from before the manifest named the hash still goes on, and gains it.
    where = tmp_path / manifest.NAME
    old = json.loads(where.read_text())
    del old["files"]["h.fgame"]["hash"]
    where.write_text(json.dumps(old))
    generate_games(str(path), 600, SETTINGS, seed=4, hash_mb=4, resume=True, network="hce")
    assert manifest.entry(str(path))["hash"] == 4


def test_a_file_goes_on_only_with_the_adjudication_that_began_it(tmp_path):
    """The adjudication rules end games, so they name a seed's games like the node
    budget does; an entry from before the manifest named them still goes on."""
    path = tmp_path / "a.fgame"
    generate_games(str(path), 300, SETTINGS, seed=4, network="hce")
    assert manifest.entry(str(path))["adjudication"] == Adjudication().as_dict()
    sooner = GameSettings(nodes=300, random_plies=8, tablebases=False, adjudication=Adjudication(win_score=400))
    with pytest.raises(ValueError, match="adjudication was"):
        generate_games(str(path), 600, sooner, seed=4, resume=True, network="hce")
    where = tmp_path / manifest.NAME
    old = json.loads(where.read_text())
    del old["files"]["a.fgame"]["adjudication"]
    where.write_text(json.dumps(old))
    generate_games(str(path), 600, SETTINGS, seed=4, resume=True, network="hce")
    assert manifest.entry(str(path))["adjudication"] == Adjudication().as_dict()


def test_the_adjudication_settings_reach_the_games(tmp_path):
    """A lower win threshold and a shorter game limit end the same seed's games sooner."""
    default, brisk = tmp_path / "d.fgame", tmp_path / "b.fgame"
    generate_games(str(default), 400, SETTINGS, seed=6)
    generate_games(str(brisk), 400, GameSettings(nodes=300, random_plies=8, tablebases=False,
                                                 adjudication=Adjudication(win_score=200, win_plies=2,
                                                                           max_plies=60)), seed=6)
    longest = max(g.ply_count for g in games.read_games(str(brisk)))     # the 8 random plies too
    assert longest <= 8 + 60 < max(g.ply_count for g in games.read_games(str(default)))
    assert default.read_bytes() != brisk.read_bytes()


def test_the_search_fingerprint_is_the_bench_signature_of_the_evaluation():
    from fianchetto.evaluation import for_tool
    from test_bench_signature import SIGNATURE_DEPTH, SIGNATURE_NODES

    assert FINGERPRINT_DEPTH == SIGNATURE_DEPTH
    assert for_tool("none") is None
    assert search_id(for_tool(None)) == f"bench{SIGNATURE_DEPTH}:{SIGNATURE_NODES}"
    assert search_id(None) != f"bench{SIGNATURE_DEPTH}:{SIGNATURE_NODES}"


def test_positions_from_games_are_the_records_the_core_keeps(tmp_path):
    """With no extra filter, replaying the stored games gives exactly the 32-byte
    records the core writes for the same seed (the same games, kept whole)."""
    records_file, games_file = tmp_path / "r.bin", tmp_path / "g.fgame"
    generate(str(records_file), 400, SETTINGS, seed=21)
    generate_games(str(games_file), 1000, SETTINGS, seed=21)     # scored plies: more than 400 kept
    direct = records_file.read_bytes()[16:]
    replayed = b"".join(games.game_records(g, skip_plies=0, max_score=NO_SCORE_LIMIT)
                        for g in games.read_games(str(games_file)))
    assert len(replayed) >= len(direct) > 0
    assert replayed[: len(direct)] == direct


def test_the_filters_apply_when_the_data_is_read(tmp_path):
    path = tmp_path / "f.fgame"
    generate_games(str(path), 600, SETTINGS, seed=13)
    stored = [g for g in games.read_games(str(path)) if g.result is not None]
    every = sum(len(games.game_records(g, 0, NO_SCORE_LIMIT)) for g in stored) // 32
    later = sum(len(games.game_records(g, 8, NO_SCORE_LIMIT)) for g in stored) // 32
    calm = np.frombuffer(b"".join(games.game_records(g, 0, 300) for g in stored), dtype=RECORD_DTYPE)
    assert later < every
    assert len(calm) and np.abs(calm["score"].astype(int)).max() < 300
    # The trainer's reader takes the file as it is, with the default filters.
    dataset = Dataset([str(path)])
    assert len(dataset) == len(games.file_records(str(path))) // 32
    for board in decode_boards(dataset.take(np.arange(min(50, len(dataset))))):
        assert not board.is_check()


def games_with_records(path, at_least: int, step: int = 400) -> list:
    """Each stored game's kept records, from a file grown (resumed) until at least
    `at_least` games keep some: how many positions that takes depends on the search."""
    positions = 0
    while True:
        positions += step
        generate_games(str(path), positions, SETTINGS, seed=21, resume=positions > step)
        per_game = [games.game_records(g, games.DEFAULT_SKIP_PLIES, games.DEFAULT_MAX_SCORE)
                    for g in games.read_games(str(path))]
        if sum(1 for r in per_game if r) >= at_least or positions >= 10 * step:
            return per_game


def test_the_reader_knows_which_positions_belong_to_which_game(tmp_path):
    """The trainer holds out whole games: the data set must say where each game's
    positions are, game by game, and a FIANDATA file (no games) counts positions."""
    path, flat = tmp_path / "g.fgame", tmp_path / "flat.dat"
    per_game = games_with_records(path, at_least=6)
    expected = [len(r) // 32 for r in per_game if r]
    assert len(expected) >= 6 and max(expected) > 1
    write_records(flat, np.frombuffer(per_game[0] + per_game[1], dtype=RECORD_DTYPE))
    dataset = Dataset([str(path), str(flat)])
    sizes = dataset.game_sizes()
    assert list(sizes) == expected + [1] * (len(flat.read_bytes()) // 32)
    assert sizes.sum() == len(dataset)
    # The records of the third game are where its size says they are.
    third = int(sizes[:2].sum())
    assert dataset.take(np.arange(third, third + sizes[2])).tobytes() == \
        [r for r in per_game if r][2]


def test_double_chess960_starts(tmp_path):
    assert dfrc_fen(518, 518).split()[0] == chess.STARTING_BOARD_FEN
    white, black = dfrc_fen(0, 959).split()[0].split("/")[7], dfrc_fen(0, 959).split()[0].split("/")[0]
    assert white != black.upper()
    starts = [start_position(4, g, 0.5) for g in range(40)]
    assert 5 < sum(chess960 for _fen, chess960 in starts) < 35
    assert starts == [start_position(4, g, 0.5) for g in range(40)]     # named by the seed
    path = tmp_path / "dfrc.fgame"
    generate_games(str(path), 300, GameSettings(nodes=300, random_plies=4, tablebases=False, dfrc=1.0), seed=2)
    stored = [g for g in games.read_games(str(path)) if g.result is not None]
    assert stored and all(g.chess960 for g in stored)
    for g in stored:
        Board(g.fen, chess960=True)          # a legal start
        games.game_records(g)                # every ply replays legally


def test_a_corrupt_ply_is_refused(tmp_path):
    path = tmp_path / "c.fgame"
    generate_games(str(path), 100, SETTINGS, seed=6)
    game = next(g for g in games.read_games(str(path)) if g.result is not None)
    broken = games.Game(game.fen, game.chess960, game.result, b"\x00\x00\x00\x00" + game.plies[4:])
    with pytest.raises(ValueError, match="ply 1"):
        games.game_records(broken)


def test_datagen_command_line_resumes_and_lists(tmp_path):
    out = tmp_path / "cli.fgame"
    base = [sys.executable, "-m", "fianchetto", "datagen", "--out", str(out), "--nodes", "300", "--seed", "4",
            "--eval-file", "none"]
    first = subprocess.run(base + ["--positions", "120"], capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    again = subprocess.run(base + ["--positions", "240"], capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "--resume" in again.stderr
    resumed = subprocess.run(base + ["--positions", "240", "--resume"], capture_output=True, text=True,
                             timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    listing = subprocess.run(base + ["--list"], capture_output=True, text=True, timeout=60)
    assert "cli.fgame" in listing.stdout and "complete" in listing.stdout
    assert json.loads((tmp_path / manifest.NAME).read_text())["files"]["cli.fgame"]["positions"] >= 240


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_run_stopped_by_a_signal_keeps_its_games_and_writes_its_manifest(tmp_path, stop):
    """SIGTERM, or SIGINT to a run started with SIGINT ignored (as nohup and a
    shell's ``&`` start it), ends the run like Ctrl-C: the manifest counts every
    game the file holds, and --resume goes on."""
    out = tmp_path / "stopped.fgame"
    proc = subprocess.Popen([sys.executable, "-m", "fianchetto", "datagen", "--out", str(out), "--nodes", "300",
                             "--seed", "6", "--eval-file", "none", "--positions", "100000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    deadline = time.monotonic() + 60
    while (not out.exists() or out.stat().st_size < 2000) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(stop)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in stderr
    stored = [g for g in games.read_games(str(out)) if g.result is not None]
    entry = manifest.entry(str(out))
    assert entry["games"] == len(stored) > 0 and entry["complete"] is False


def test_the_listing_tells_a_file_being_written_from_a_stopped_one(tmp_path):
    path = tmp_path / "w.fgame"
    generate_games(str(path), 300, SETTINGS, seed=4, network="hce")
    manifest.record(str(path), {"complete": False})
    where = str(tmp_path / manifest.NAME)
    assert "partial" in manifest.table(where, writing=games.being_written)
    handle, _ = games.open_for_append(str(path))          # a run holds it
    try:
        assert games.being_written(str(path))
        assert "writing" in manifest.table(where, writing=games.being_written)
    finally:
        handle.close()
    assert not games.being_written(str(path)) and not games.being_written(str(tmp_path / "none.fgame"))


def test_a_second_run_on_a_file_being_written_is_refused(tmp_path):
    path = tmp_path / "busy.fgame"
    first, _ = games.open_for_append(str(path))
    try:
        if sys.platform == "win32":
            pytest.skip("no advisory file locks on Windows")
        with pytest.raises(FileExistsError, match="another run"):
            games.open_for_append(str(path))
    finally:
        first.close()
    again, count = games.open_for_append(str(path))        # free again once the first is closed
    again.close()
    assert count == 0 and path.read_bytes() == games.header_bytes()


@pytest.mark.parametrize("block", [16, 4099, 1 << 22])
def test_a_file_opened_to_append_hands_over_its_games_and_loses_a_partial_end(tmp_path, monkeypatch, block):
    """A resume reads the games already there a block at a time, gives each in
    order (keeping none), and cuts a partial game at the end, so the next game
    written follows the last complete one."""
    path = tmp_path / "resume.fgame"
    stored = synthetic_games(40)
    data = games.header_bytes() + b"".join(games.encode_game(game) for game in stored)
    path.write_bytes(data + games.encode_game(stored[1])[:-7])
    monkeypatch.setattr(games, "READ_BLOCK", block)
    seen = []
    handle, count = games.open_for_append(str(path), seen.append)
    handle.write(games.encode_game(stored[2]))
    handle.close()
    assert count == len(stored) and seen == stored
    assert path.read_bytes() == data + games.encode_game(stored[2])


def test_a_corrupt_file_is_refused_for_append_and_left_unlocked(tmp_path):
    path = tmp_path / "bad.fgame"
    good = games.header_bytes() + games.encode_game(synthetic_games(1)[0])
    path.write_bytes(good + bytes([7, 0, 1, 0, 0, 0, 65]))       # result 7: no such result
    with pytest.raises(ValueError, match="game 2 at byte"):
        games.open_for_append(str(path))
    assert not games.being_written(str(path)) and path.read_bytes().startswith(good)


def synthetic_games(count: int) -> list:
    """Games of many lengths (and some discarded), with arbitrary plies: enough
    for the file's framing, which does not read the moves."""
    rng = np.random.default_rng(4)
    made = []
    for number in range(count):
        if number % 5 == 3:
            made.append(games.Game("", False, None, b""))
            continue
        plies = rng.integers(0, 2**16, size=2 * int(rng.integers(1, 300)), dtype=np.uint16).tobytes()
        made.append(games.Game(chess.STARTING_FEN, bool(number % 2), int(number % 3), plies))
    return made


@pytest.mark.parametrize("block", [16, 17, 100, 4099, 1 << 22])
def test_a_file_read_a_block_at_a_time_gives_every_game_in_order(tmp_path, monkeypatch, block):
    """iter_games reads a file in blocks (here as small as its header), so games
    straddle blocks; it gives what reading the whole file gives, and a partial
    game at the end is refused after the games before it, or left out."""
    path = tmp_path / "games.fgame"
    stored = synthetic_games(40)
    data = games.header_bytes() + b"".join(games.encode_game(game) for game in stored)
    path.write_bytes(data)
    monkeypatch.setattr(games, "READ_BLOCK", block)
    assert list(games.iter_games(str(path))) == stored == games.parse_games(data, games.HEADER.size, str(path))[0]
    path.write_bytes(data[:-5])
    read = []
    with pytest.raises(ValueError, match="partial game"):
        for game in games.iter_games(str(path)):
            read.append(game)
    assert read == stored[:-1]
    assert games.read_games(str(path), partial_end=True) == stored[:-1]


def test_a_corrupt_game_is_named_by_its_number_and_byte_whatever_the_block(tmp_path, monkeypatch):
    stored = synthetic_games(12)
    head = games.header_bytes() + b"".join(games.encode_game(game) for game in stored[:9])
    corrupt = bytearray(games.encode_game(stored[9]))
    corrupt[0] = 7                                       # no such result
    (tmp_path / "bad.fgame").write_bytes(head + corrupt + games.encode_game(stored[10]))
    for block in (16, 50, 1 << 22):
        monkeypatch.setattr(games, "READ_BLOCK", block)
        with pytest.raises(ValueError, match=f"game 10 at byte {len(head)} is corrupt"):
            games.read_games(str(tmp_path / "bad.fgame"))
