"""``.env`` files: ``NAME=value`` lines, with ``export`` prefixes, quotes and comments."""

from __future__ import annotations

from typing import NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint.syntax.tree import Pos, PStr

_ASSIGNMENT = lazy(r"[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*(.*)")


class EnvEntry(NamedTuple):
    name: PStr
    value: PStr


def parse_env(text: str) -> list[EnvEntry]:
    entries: list[EnvEntry] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _ASSIGNMENT.match(line)
        if not match:
            continue
        raw = match.group(2)
        value, quote = raw, ""
        if raw[:1] in ("'", '"') and raw.rstrip().endswith(raw[0]) and len(raw.rstrip()) > 1:
            value, quote = raw.rstrip()[1:-1], raw[0]
        elif " #" in raw:
            value = raw.split(" #", 1)[0]
        name = PStr(match.group(1), Pos(number, match.start(1) + 1))
        entries.append(
            EnvEntry(name, PStr(value.strip() if not quote else value, Pos(number, match.start(2) + 1), quote))
        )
    return entries
