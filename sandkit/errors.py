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
