"""The linter's vocabulary: severities, categories, findings and what a rule yields.

The linter's records are NamedTuples (immutable, hashable, ordered by their fields, changed with
``_replace``), or plain classes with ``__slots__`` where a reader fills one in as it goes; none is
a dataclass. Building a dataclass costs about half a millisecond at import (it generates and
compiles its methods) and importing dataclasses imports inspect: with the few dozen records a
pre-commit run loads, that was a fifth of its budget. ``tests/lint/test_architecture.py`` holds it.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from sandkit.config import SEVERITIES as SEVERITIES
from sandkit.lint.syntax.tree import Pos

SEVERITY_RANK = {name: rank for rank, name in enumerate(reversed(SEVERITIES))}

CATEGORIES = (
    "runtime-socket",
    "privileged",
    "host-credentials",
    "plaintext-secret",
    "image-secret",
    "ci-secret-exposure",
    "ci-permissions",
    "agent-autorun",
    "agent-mcp",
    "hidden-unicode",
    "agent-instructions",
    "egress",
    "parse-error",
    "suppression",
)


def at_least(severity: str, threshold: str) -> bool:
    """True when ``severity`` is as severe as ``threshold`` or more."""
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[threshold]


def clip(value: object, limit: int = 80) -> str:
    """``value`` as one line of at most ``limit`` characters, for a finding's message (the text
    comes from the scanned file and may be long)."""
    flat = " ".join(str(value or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class Hit(NamedTuple):
    """What a rule function yields: where, what, and optionally how to fix it.

    ``fix`` defaults to the rule's documented fix; ``severity`` to its default severity. A hit
    whose severity differs from the rule's documented one says ``why``: the engine adds it to
    the message, so the printed severity and ``sandkit rules`` never disagree unexplained.
    """

    pos: Pos
    message: str
    fix: str = ""
    severity: str = ""
    why: str = ""


class Finding(NamedTuple):
    """One reported problem; the JSON reporter writes exactly these fields."""

    path: str
    line: int
    column: int
    rule: str
    category: str
    severity: str
    message: str
    fix: str
    fingerprint: str = ""
    base_severity: str = ""  # before the repository passes (escalation); "" when unchanged

    @property
    def severity_before_passes(self) -> str:
        return self.base_severity or self.severity

    def regraded(self, severity: str, message: str) -> Finding:
        """The finding as a repository pass grades it, remembering the severity the rule gave."""
        return self._replace(severity=severity, base_severity=self.severity_before_passes, message=message)

    def as_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "category": self.category,
            "severity": self.severity,
            "base_severity": self.severity_before_passes,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "fix": self.fix,
        }


class Edit(NamedTuple):
    """Replace characters ``start:end`` of a file's text with ``text`` (offsets, not positions)."""

    start: int
    end: int
    text: str = ""


class FixContext(Protocol):
    """What a fixer may ask beyond its file: versions the repository locks, and a way to say why not."""

    def locked_version(self, ecosystem: str, name: str, near: str) -> str | None:
        """The one version of package ``name`` (ecosystem "npm" or "pypi") that lockfiles or
        registry metadata near ``near`` (a scanned path) name, or None (after a note saying why)."""
        ...

    def note(self, message: str) -> None:
        """Tell the user something about a fix that was not made."""
        ...


def size_text(size: int) -> str:
    """A byte count as people say it: ``2 MB`` for 2000000, else the exact number of bytes."""
    if size % 1_000_000 == 0:
        return f"{size // 1_000_000} MB"
    if size % 1000 == 0:
        return f"{size // 1000} kB"
    return f"{size} bytes"
