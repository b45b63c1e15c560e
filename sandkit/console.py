"""What a person at a terminal sees besides the report: colour and progress.

Colour follows the conventions other tools share (the order is CPython's): ``--no-color``
and a non-empty ``NO_COLOR`` turn it off, a non-empty ``FORCE_COLOR`` turns it on where the
output is not a terminal (CI logs), ``TERM=dumb`` turns it off, and otherwise a terminal gets
colour. Progress appears only on a terminal, only after a run has taken
:data:`PROGRESS_AFTER_SECONDS`, and is erased before the report is printed.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TextIO

PROGRESS_AFTER_SECONDS = 2.0
_REDRAW_SECONDS = 0.1


def color_enabled(stream: TextIO, *, no_color: bool = False) -> bool:
    """Whether to write ANSI colour to ``stream`` (see the module docstring)."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return _is_terminal(stream)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


class Progress:
    """A one-line counter on standard error that shows up only when a run is slow.

    ``enabled`` is the caller's decision (a person reads the output, not --quiet); the
    terminal check and the delay are made here.
    """

    def __init__(self, stream: TextIO, what: str, *, enabled: bool = True) -> None:
        self.stream = stream
        self.what = what
        self.enabled = enabled and _is_terminal(stream)
        self.started = time.monotonic()
        self.drawn_at = 0.0
        self.shown = False

    def update(self, done: int, total: int | None = None) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started < PROGRESS_AFTER_SECONDS or now - self.drawn_at < _REDRAW_SECONDS:
            return
        self.drawn_at = now
        count = f"{done}/{total}" if total is not None else str(done)
        self.stream.write(f"\r\x1b[Ksandkit: {self.what} {count} ({now - self.started:.0f} s)")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        """Erase the line, so the report starts on a clean one."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
