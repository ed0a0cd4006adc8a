"""A tool stopped by SIGTERM while its fastchess plays: a fake fastchess that
notes its process id and waits, and the stop, watched from outside."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, NamedTuple, Sequence

FAKE_FASTCHESS = """\
import os, sys, time
open(os.path.join(os.environ["FAKE_FASTCHESS_PIDS"], str(os.getpid())), "w").close()
time.sleep(120)
"""


class Stop(NamedTuple):
    status: int
    stderr: str
    started: List[int]      # the fake fastchess processes the tool had started
    left: List[int]         # those still alive once the tool had exited


def fake_fastchess(folder: Path) -> Path:
    """An executable in `folder` that stands for fastchess: it writes a file named
    by its process id into ``FAKE_FASTCHESS_PIDS`` and sleeps two minutes."""
    fake = folder / "fake-fastchess"
    fake.write_text(f"#!{sys.executable}\n" + FAKE_FASTCHESS)
    fake.chmod(0o755)
    return fake


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, ended but not reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def stop_while_playing(command: Sequence[str], folder: Path, playing: int, env: Dict[str, str]) -> Stop:
    """Run `command` (a tool given `fake_fastchess(folder)`), send it SIGTERM once
    `playing` fake fastchess have started, and wait for it to exit."""
    pids = folder / "fake-fastchess-pids"
    pids.mkdir()
    proc = subprocess.Popen(list(command), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(env, FAKE_FASTCHESS_PIDS=str(pids)))
    try:
        deadline = time.monotonic() + 60
        while len(list(pids.iterdir())) < playing and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        started = [int(p.name) for p in pids.iterdir()]
        if len(started) < playing:
            raise AssertionError(f"{len(started)} of {playing} fastchess started: {proc.communicate(timeout=5)}")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        return Stop(proc.returncode, err, started, [pid for pid in started if alive(pid)])
    finally:
        proc.kill()
        for name in pids.iterdir():         # nothing left behind, whatever the outcome
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(name.name), signal.SIGKILL)
