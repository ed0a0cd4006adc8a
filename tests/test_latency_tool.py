"""tools/latency.py reads fastchess engine logs into per-move latencies."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import latency  # noqa: E402

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
