"""Regular expressions compiled on first use.

The linter's modules hold a few hundred patterns, and compiling them all was a good part of a
pre-commit run's start, though most only matter for files that run never sees. A module writes
``NAME = lazy(r"...")`` instead of ``re.compile``; the pattern compiles when first searched.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_compile = re.compile


class LazyPattern:
    """The methods of :class:`re.Pattern` that the linter uses, compiling on the first call."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0) -> None:
        self.pattern: str = pattern
        self.flags = int(flags)
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = _compile(self.pattern, self.flags)
        return self._compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def sub(
        self,
        repl: str | Callable[[re.Match[str]], str],
        string: str,
        count: int = 0,
    ) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(
        self,
        repl: str | Callable[[re.Match[str]], str],
        string: str,
        count: int = 0,
    ) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)

    @property
    def groups(self) -> int:
        return self.compiled.groups

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self.flags})"


#: What a function that searches with a pattern given to it takes.
AnyPattern = re.Pattern[str] | LazyPattern


#: The characters Python's case-insensitive matching equates with an ASCII letter, beyond its
#: upper-case form (tests/lint/test_shortcuts.py checks every code point).
_FOLDS = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
_FOLD_TABLE = str.maketrans(_FOLDS)


def case_folded(text: str) -> str:
    """``text`` lower-cased so that wherever a case-insensitive pattern (``re.IGNORECASE``) matches
    an ASCII word, the lower-case word occurs here (lengths may differ: only ask whether)."""
    if not text.isascii() and any(char in text for char in _FOLDS):
        text = text.translate(_FOLD_TABLE)
    return text.lower()


def lazy(pattern: str, flags: int | re.RegexFlag = 0) -> LazyPattern:
    """A pattern compiled on first use (see the module docstring)."""
    return LazyPattern(pattern, flags)
