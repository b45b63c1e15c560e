"""``key=value`` files with positions: systemd units and Podman Quadlet files (``[Section]``
headers, repeated keys, ``\\`` continuations joined with a space, as systemd joins them), and
Java properties files (``key=value``, ``key: value`` or ``key value``, continuations joined
without their leading blanks).

Comment lines start with ``#`` or ``;`` (systemd) or ``#`` or ``!`` (properties). Each entry
keeps where every piece of its value was written, so a word found inside a value is reported
at its own line and column. Reading never fails.
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from sandkit.lazy_regex import AnyPattern, lazy
from sandkit.lint.syntax.tree import Pos

_SECTION = lazy(r"\[([^\]\n]*)\]")
_UNIT_KEY = lazy(r"([A-Za-z0-9_.@-]+)[ \t]*=[ \t]*")
_PROPERTY_KEY = lazy(r"((?:\\.|[^\s:=\\])+)[ \t]*[:=]?[ \t]*")


class Entry(NamedTuple):
    """One ``key=value`` line (continuations joined): its section ("" in properties files)."""

    section: str
    key: str
    value: str
    key_pos: Pos
    #: (offset in ``value``, where that piece starts in the file), in order
    pieces: tuple[tuple[int, Pos], ...] = ()

    @property
    def pos(self) -> Pos:
        """Where the value starts (the key's position when it is empty)."""
        return self.pieces[0][1] if self.pieces else self.key_pos

    def pos_at(self, offset: int) -> Pos:
        """Where character ``offset`` of the value was written."""
        if not self.pieces:
            return self.key_pos
        index = max(bisect.bisect_right([start for start, _ in self.pieces], offset) - 1, 0)
        start, pos = self.pieces[index]
        return Pos(pos.line, pos.column + offset - start)


def parse_unit(text: str) -> list[Entry]:
    """The entries of a systemd unit or Quadlet file, with their sections."""
    return _parse(text, _UNIT_KEY, "#;", sections=True, join=" ")


def parse_properties(text: str) -> list[Entry]:
    """The entries of a Java properties file."""
    return _parse(text, _PROPERTY_KEY, "#!", sections=False, join="")


def _parse(text: str, key_pattern: AnyPattern, comments: str, *, sections: bool, join: str) -> list[Entry]:
    entries: list[Entry] = []
    section = ""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index].rstrip("\r")
        number = index + 1
        index += 1
        stripped = line.lstrip(" \t")
        indent = len(line) - len(stripped)
        if not stripped or stripped[0] in comments:
            continue
        header = _SECTION.match(stripped) if sections else None
        if header:
            section = header.group(1).strip()
            continue
        match = key_pattern.match(stripped)
        if match is None:
            continue
        value_start = indent + match.end()
        parts = [(line[value_start:], Pos(number, value_start + 1))]
        while parts[-1][0].endswith("\\") and index < len(lines):
            parts[-1] = (parts[-1][0][:-1], parts[-1][1])
            following = lines[index].rstrip("\r")
            index += 1
            lead = len(following) - len(following.lstrip(" \t")) if not join else 0
            parts.append((following[lead:], Pos(index, lead + 1)))
        value, pieces = "", []
        for number_in, (part, pos) in enumerate(parts):
            if number_in:
                value += join
            pieces.append((len(value), pos))
            value += part
        key = match.group(1)
        entries.append(Entry(section, key, value.rstrip(), Pos(number, indent + 1), tuple(pieces)))
    return entries
