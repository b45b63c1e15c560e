"""Errors that reach the user as located messages, never as tracebacks."""

from __future__ import annotations

from typing import NamedTuple


class Location(NamedTuple):
    """A place in a file; line and column are 1-based, 0 when unknown.

    A NamedTuple rather than a dataclass: every command imports this module, and importing
    dataclasses imports inspect (see :mod:`sandkit.lint.model`).
    """

    path: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}:{self.column or 1}"
        return self.path


class Problem(NamedTuple):
    """One thing wrong with an input, where it is, and (optionally) what to do about it."""

    location: Location
    message: str
    hint: str = ""

    def __str__(self) -> str:
        text = f"{self.location}: error: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


def long_integer_at(text: str) -> tuple[int, int]:
    """(line, column) where ``text`` holds an integer longer than Python converts (4,300 decimal
    digits, a bound against quadratic-time conversion), for parsers that stop on one; (0, 0) if
    none is found."""
    import re

    match = re.search(r"\d[\d_]{4300,}", text)
    if match is None:
        return 0, 0
    start = match.start()
    return text.count("\n", 0, start) + 1, start - (text.rfind("\n", 0, start) + 1) + 1


class SandkitError(Exception):
    """Base of every error sandkit reports to the user; the CLI prints it and exits non-zero."""

    exit_code = 1


class UsageError(SandkitError):
    """The command line itself is wrong (exit code 2)."""

    exit_code = 2


class KitError(SandkitError):
    """A kit (or one of its parents) is invalid; carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.location, p.message))
        super().__init__("\n".join(str(p) for p in self.problems))
