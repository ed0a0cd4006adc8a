"""tools/latency.py, tools/pgnstats.py, tools/netstats.py and tools/train_speed.py: latency
from fastchess logs, clock use from PGNs, networks compared on data files, training speed."""
from __future__ import annotations


import numpy as np
import pytest

from fianchetto.learn.data import write_records
from fianchetto.learn.network import FloatNetwork, QuantNetwork
from fianchetto.learn.synthetic import material_records

import latency

LOG = """\
[Engine] [14:28:13.850293] <     140389219817152>  a <--- go wtime 1010 btime 1010 winc 10 binc 10
[Engine] [14:28:13.851000] <     140389219817152>  b <--- go wtime 1010 btime 1010 winc 10 binc 10
[Engine] [14:28:13.861907] <     140389219817152>  a ---> info depth 1 score cp 181 nodes 82 time 4 pv d1a4
[Engine] [14:28:13.862981] <     140389219817152>  a ---> info depth 2 score cp 181 nodes 90 time 10 pv d1a4
[Engine] [14:28:13.863293] <     140389219817152>  a ---> bestmove d1a4 ponder f6d7
[Engine] [14:28:13.881000] <     140389219817152>  b ---> bestmove c8d7
[Engine] [14:28:13.890000] <     140389219817152>  a ---> readyok
"""


def test_latency_is_the_wall_time_beyond_the_engines_own_time():
    found = latency.latencies_from_fastchess(LOG.splitlines())
    # a: 13.000 ms from go to bestmove, 10 ms of it its own search
    # b: 30.000 ms and no info line: all of it counts
    assert found == [pytest.approx(3.0), pytest.approx(30.0)]


def test_an_engine_reporting_more_than_the_wall_time_counts_as_zero():
    log = LOG.replace("time 10 pv", "time 50 pv")
    assert latency.latencies_from_fastchess(log.splitlines())[0] == 0.0


def test_the_summary_gives_median_p99_and_max():
    text = latency.summary([1.0, 2.0, 3.0, 100.0])
    assert "moves 4" in text and "median 2.5 ms" in text and "max 100.0 ms" in text
    assert latency.summary([]) == "no moves found"


PGN = """\
[Event "Fastchess Tournament"]
[Result "1-0"]
[Termination "normal"]

1. e4 {+0.40/13 0.046s} e5 {-0.61/11 0.080s} 2. Nf3 {+0.41/12 0.088s}
Nc6 {-0.33/14 0.030s} 1-0

[Event "Fastchess Tournament"]
[Result "0-1"]
[Termination "time forfeit"]

1. d4 {+0.10/10 0.010s} 0-1
"""


def test_pgn_stats_count_endings_and_average_depth():
    import pgnstats

    stats = pgnstats.pgn_stats(PGN.splitlines())
    assert stats["games"] == 2 and stats["results"] == {"1-0": 1, "0-1": 1}
    assert stats["terminations"] == {"normal": 1, "time forfeit": 1}
    assert stats["moves"] == 5
    assert stats["average_depth"] == pytest.approx((13 + 11 + 12 + 14 + 10) / 5)
    assert stats["average_seconds"] == pytest.approx((0.046 + 0.080 + 0.088 + 0.030 + 0.010) / 5)
    assert "time forfeit 1" in pgnstats.report(stats)


# --- tools/netstats.py ----------------------------------------------------------------

import netstats  # noqa: E402  (beside its tests)


def test_fit_recovers_a_known_slope_and_gap():
    scores = np.array([-200.0, -100.0, 0.0, 100.0, 200.0])
    stats = netstats.fit(0.5 * scores + 10.0, scores)
    assert stats.slope == pytest.approx(0.5)
    assert stats.mean == pytest.approx(10.0)
    assert stats.rms == pytest.approx(np.sqrt(np.mean((-0.5 * scores + 10.0) ** 2)))


def test_quantised_and_float_files_of_one_stem_are_paired():
    pairs = netstats.quantisation_pairs(["a/x.nnue", "a/x.npz", "a/y.nnue", "b/x.npz"])
    assert pairs == [("a/x.nnue", "a/x.npz")]


def test_netstats_compares_a_network_with_its_checkpoint(tmp_path, capsys):
    records, _ = material_records(300, seed=5)
    data = tmp_path / "d.bin"
    write_records(data, records)
    net = FloatNetwork.initial(16, np.random.default_rng(3))
    net.save_npz(tmp_path / "n.npz")
    QuantNetwork.quantise(net).save(tmp_path / "n.nnue")
    paths = [str(tmp_path / "n.nnue"), str(tmp_path / "n.npz")]
    assert netstats.main(["--data", str(data), "--every", "3", "--limit", "30000", *paths]) == 0
    out = capsys.readouterr().out
    assert out.startswith("100 positions")
    gap_line = [line for line in out.splitlines() if " - " in line]
    assert len(gap_line) == 1
    rms = float(gap_line[0].split("rms ")[1].split(" cp")[0])
    assert rms < 5.0  # a small untrained network quantises to within a few centipawns


def test_train_speed_writes_synthetic_data_once_and_times_one_epoch(tmp_path, capsys):
    import train_speed

    data = tmp_path / "synthetic.dat"
    args = ["--positions", "3000", "--data", str(data), "--hidden", "32", "--batch", "256"]
    assert train_speed.main(args) == 0
    first = capsys.readouterr().out
    assert data.exists() and "wrote 3000 records" in first
    assert train_speed.main(args) == 0    # the file is there now: only the epoch
    second = capsys.readouterr().out
    assert "wrote" not in second
    timed = [line for line in second.splitlines() if line.startswith("one epoch: ")]
    assert len(timed) == 1
    positions = int(timed[0].split()[2])
    assert 0 < positions < 3000           # the held-out share is not trained on
    assert timed[0].endswith("positions/s")
