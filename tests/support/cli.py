"""Running the installed ``fianchetto`` command from the tests."""
from __future__ import annotations

import os
import subprocess
from typing import Optional, Sequence

from fianchetto.cli import engine_command


def run_cli(args: Sequence[str], input_text: Optional[str] = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return subprocess.run(
        engine_command() + list(args),
        input=input_text,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
