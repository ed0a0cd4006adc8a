"""``Debug Log File``: every line the engine reads (``>> ``) and writes (``<< ``), as
Stockfish's option of that name keeps them, so that a user can see what a GUI
and the engine said to each other. The file is appended to; a file that cannot
be opened is refused with an ``info string`` and the log held before goes on."""
from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import chess

from fianchetto.uci import UciLoop
from support.uci_pipe import UciPipe


def logged(path: Path) -> List[Tuple[str, str]]:
    """(direction, line) of each line of a log: '>>' read, '<<' written."""
    return [(line[:2], line[3:]) for line in path.read_text(encoding="utf-8").splitlines()]


def run_loop(lines: List[str]) -> Tuple[UciLoop, List[str]]:
    out: List[str] = []
    loop = UciLoop(emit=out.append)
    for line in lines:
        loop.handle(line)
        loop.engine.finish_search()
    return loop, out


def test_the_option_is_declared_as_stockfish_declares_it():
    _, out = run_loop(["uci"])
    assert "option name Debug Log File type string default <empty>" in out


def test_the_log_holds_every_line_read_and_written_in_order(tmp_path):
    log = tmp_path / "io.log"
    commands = ["isready", "position startpos moves e2e4", "go depth 3", "d", "bogus words"]
    loop, out = run_loop([f"setoption name Debug Log File value {log}"] + commands)
    assert loop.engine.shutdown()
    entries = logged(log)
    assert [line for way, line in entries if way == ">>"] == commands
    assert [line for way, line in entries if way == "<<"] == out
    assert entries[:2] == [(">>", "isready"), ("<<", "readyok")]
    bestmove = entries.index(next(e for e in entries if e[1].startswith("bestmove")))
    assert entries.index((">>", "go depth 3")) < bestmove < entries.index((">>", "d"))
    assert ("<<", "info string unknown command: bogus words") in entries
    best = entries[bestmove][1].split()[1]
    assert chess.Move.from_uci(best) in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves


def test_an_empty_value_ends_the_log(tmp_path):
    log = tmp_path / "io.log"
    run_loop([f"setoption name Debug Log File value {log}", "isready",
              "setoption name Debug Log File value <empty>", "isready", "position startpos"])
    assert logged(log) == [(">>", "isready"), ("<<", "readyok"),
                           (">>", "setoption name Debug Log File value <empty>")]
    run_loop([f"setoption name Debug Log File value {log}", "setoption name debug log file", "isready"])
    assert logged(log)[-1] == (">>", "setoption name debug log file")


def test_the_log_is_appended_to(tmp_path):
    log = tmp_path / "io.log"
    log.write_text("<< an earlier session\n", encoding="utf-8")
    run_loop([f"setoption name Debug Log File value {log}", "isready"])
    run_loop([f"setoption name Debug Log File value {log}", "ucinewgame"])
    assert logged(log) == [("<<", "an earlier session"), (">>", "isready"), ("<<", "readyok"),
                           (">>", "ucinewgame")]


def test_a_file_that_cannot_be_opened_is_refused_and_the_log_goes_on(tmp_path):
    log = tmp_path / "io.log"
    for bad in (tmp_path, tmp_path / "no such folder" / "io.log"):
        loop, out = run_loop([f"setoption name Debug Log File value {log}",
                              f"setoption name Debug Log File value {bad}", "isready"])
        refusal = [line for line in out if line.startswith("info string") and "Debug Log File" in line]
        assert len(refusal) == 1 and "cannot open" in refusal[0] and str(log) in refusal[0], out
        assert out[-1] == "readyok" and loop.engine.options["Debug Log File"] == str(log)
        assert logged(log)[-2:] == [(">>", "isready"), ("<<", "readyok")]
        log.unlink()


class FullDisk:
    """A file whose writes fail, as on a full disk."""

    closed = False

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def test_a_log_that_stops_taking_lines_is_reported_once_and_closed(tmp_path):
    log = tmp_path / "io.log"
    out: List[str] = []
    loop = UciLoop(emit=out.append)
    loop.handle(f"setoption name Debug Log File value {log}")
    loop.handle("isready")
    loop.transcript._file.close()
    disk = loop.transcript._file = FullDisk()
    loop.handle("isready")
    loop.handle("isready")
    problems = [line for line in out if "Debug Log File" in line]
    assert len(problems) == 1 and "No space left on device" in problems[0], out
    assert out.count("readyok") == 3 and disk.closed and loop.engine.options["Debug Log File"] == ""
    assert logged(log) == [(">>", "isready"), ("<<", "readyok")]


def test_the_engine_process_logs_what_crossed_its_pipes(tmp_path):
    """Through real pipes: bytes that are not UTF-8 are logged as the engine read them."""
    log = tmp_path / "io.log"
    engine = UciPipe()
    try:
        engine.send(f"setoption name Debug Log File value {log}")
        engine.send(b"\xff\xfe garbage")
        engine.sync()
        lines, best, _ = engine.go("go depth 2")
        assert engine.quit() == 0
    finally:
        engine.close()
    entries = logged(log)
    assert entries[0] == (">>", "\ufffd\ufffd garbage")
    assert ("<<", "info string unknown command: \ufffd\ufffd garbage") in entries
    assert [line for way, line in entries if way == "<<"][-len(lines):] == lines
    assert entries[-1] == (">>", "quit") and best in {m.uci() for m in chess.Board().legal_moves}
