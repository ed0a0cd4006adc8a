"""The progress line of the long learning commands (datagen, train)."""
from __future__ import annotations

import time
from typing import Optional, TextIO


class ProgressLine:
    """The progress line on a stream: rewritten in place on a terminal; elsewhere
    (a log file) written as a whole line at most every ``every`` seconds, and the
    last one at ``close``, so that a day's run leaves a readable log."""

    def __init__(self, stream: TextIO, every: float = 60.0) -> None:
        self.stream, self.every = stream, every
        self.terminal = stream.isatty()
        self.written_at: Optional[float] = None
        self.pending: Optional[str] = None
        self.shown = False           # a line stands on the terminal

    def __call__(self, line: str) -> None:
        if self.terminal:
            self.write("\r" + line)
            self.shown = True
            return
        now = time.monotonic()
        if self.written_at is None or now - self.written_at >= self.every:
            self.write(line + "\n")
            self.written_at, self.pending = now, None
        else:
            self.pending = line

    def close(self) -> None:
        """End the line (terminal) or write the last one not yet written (log)."""
        if self.terminal and self.shown:
            self.write("\n")
            self.shown = False
        elif self.pending is not None:
            self.write(self.pending + "\n")
            self.pending = None

    def write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
