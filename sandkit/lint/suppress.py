"""Inline suppressions: a comment ``sandkit: ignore[KEY,...] reason`` on the finding's line
or the line above it.

The comment may start with ``#``, ``//``, ``/*``, ``<!--`` or ``;`` (YAML, shell, Dockerfile,
TOML, JSONC, Markdown, INI-like files). Keys may be rule IDs, rule names or whole categories.
"""

from __future__ import annotations

from typing import NamedTuple

from sandkit.lazy_regex import lazy

SUPPRESSION_MARK = "sandkit:"  # in every suppression: a text without it has none
_MARK = lazy(r"(?:#|//|<!--|;|/\*)[ \t]*sandkit:[ \t]*ignore\[([^\]\n]*)\]([^\n]*)")
_CLOSERS = lazy(r"\s*(?:-->|\*/)\s*$")


class Suppression(NamedTuple):
    line: int
    column: int
    keys: tuple[str, ...]
    reason: str


def find_suppressions(text: str) -> list[Suppression]:
    if SUPPRESSION_MARK not in text:
        return []
    found: list[Suppression] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if SUPPRESSION_MARK not in line:
            continue
        for match in _MARK.finditer(line):
            keys = tuple(k.strip() for k in match.group(1).split(",") if k.strip())
            reason = _CLOSERS.sub("", match.group(2)).strip(" \t-:—")
            found.append(Suppression(number, match.start() + 1, keys, reason))
    return found


def covers(suppression: Suppression, line: int, keys: tuple[str, ...]) -> bool:
    """True when the suppression sits on ``line`` or the line above and names one of ``keys``."""
    return (
        suppression.line in (line, line - 1)
        and bool(suppression.reason)
        and any(k in suppression.keys or k.upper() in suppression.keys for k in keys)
    )
