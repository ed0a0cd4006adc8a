"""tools/flaky.py: failures read from pytest's JUnit XML and counted per test,
idle and loaded (docs/testing.md)."""
from __future__ import annotations

import json

import flaky

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" tests="3">
<testcase classname="tests.test_a" name="test_passes" time="0.1"/>
<testcase classname="tests.test_a" name="test_fails" time="0.2">
<failure message="assert 3 == 4&#10;second line">traceback</failure></testcase>
<testcase classname="tests.test_b" name="test_errors" time="0.3">
<error>fixture broke
more</error></testcase>
</testsuite></testsuites>
"""


def test_failures_and_errors_are_named_with_their_first_line(tmp_path):
    junit = tmp_path / "junit.xml"
    junit.write_text(JUNIT)
    assert flaky.failures_of(junit) == {
        "tests.test_a::test_fails": "assert 3 == 4",
        "tests.test_b::test_errors": "fixture broke",
    }
    assert flaky.failures_of(tmp_path / "missing.xml") == {}


def run(loaded, failures, exit_code=None):
    return {"loaded": loaded, "exit": 1 if failures else 0 if exit_code is None else exit_code,
            "failures": failures}


def test_the_table_counts_each_test_idle_and_loaded_apart():
    runs = [run(False, {"t::a": "boom"}), run(False, {}), run(True, {"t::a": "later", "t::b": "slow"}),
            run(True, {})]
    lines = flaky.table(runs).splitlines()
    assert lines[0] == "4 runs (2 idle, 2 loaded); 2 with a failure"
    assert lines[1] == "t::a: failed 1/2 idle, 1/2 loaded -- boom"       # the most failing first
    assert lines[2] == "t::b: failed 0/2 idle, 1/2 loaded -- slow"


def test_a_run_that_failed_without_a_named_test_still_counts():
    table = flaky.table([run(False, {}, exit_code=5)])
    assert table.splitlines() == ["1 run (1 idle, 0 loaded); 1 with a failure", "no test failed"]


def test_table_only_reads_the_log_and_runs_nothing(tmp_path, capsys):
    log = tmp_path / "runs.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in [run(False, {"t::a": "boom"}), run(True, {})]) + "\n")
    assert flaky.main(["--table-only", "--log", str(log)]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["2 runs (1 idle, 1 loaded); 1 with a failure",
                                                        "t::a: failed 1/1 idle, 0/1 loaded -- boom"]
