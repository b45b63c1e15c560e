"""Regular expressions compiled on first use.

The linter's modules hold a few hundred patterns, and compiling them all was a good part of a
pre-commit run's start, though most only matter for files that run never sees. A module writes
``NAME = lazy(r"...")`` instead of ``re.compile``; the pattern compiles when first searched.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic

_compile = re.compile  # the real one, even while a caller stands a LazyPattern in for it


class LazyPattern(Generic[AnyStr]):
    """The methods of :class:`re.Pattern` that the linter uses, compiling on the first call."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: AnyStr, flags: int | re.RegexFlag = 0) -> None:
        self.pattern: AnyStr = pattern
        self.flags = int(flags)
        self._compiled: re.Pattern[AnyStr] | None = None

    @property
    def compiled(self) -> re.Pattern[AnyStr]:
        if self._compiled is None:
            self._compiled = _compile(self.pattern, self.flags)
        return self._compiled

    def search(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[AnyStr]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return self.compiled.split(string, maxsplit)

    def sub(
        self,
        repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr],
        string: AnyStr,
        count: int = 0,
    ) -> AnyStr:
        return self.compiled.sub(repl, string, count)

    def subn(
        self,
        repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr],
        string: AnyStr,
        count: int = 0,
    ) -> tuple[AnyStr, int]:
        return self.compiled.subn(repl, string, count)

    @property
    def groups(self) -> int:
        return self.compiled.groups

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self.flags})"


#: What a function that searches with a pattern given to it takes.
AnyPattern = re.Pattern[str] | LazyPattern[str]


def lazy(pattern: str, flags: int | re.RegexFlag = 0) -> LazyPattern[str]:
    """A pattern compiled on first use (see the module docstring)."""
    return LazyPattern(pattern, flags)
