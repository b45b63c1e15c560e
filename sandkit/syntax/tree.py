"""Positioned data: the one shape of parsed YAML, JSON and TOML documents, the one position type
(:class:`Pos`, 1-based line and column) and the one set of bounds on what a file may cost.

Mappings, sequences and strings carry the line and column where they start, so a reader can
report the exact place of the value it objects to without a second lookup structure. Numbers,
booleans and nulls stay plain Python values; ask their container with ``pos_of``.
"""

from __future__ import annotations

import bisect
import time
from typing import Any, NamedTuple


class Pos(NamedTuple):
    """A 1-based line and column (a tuple: cheap to make for every parsed node)."""

    line: int = 1
    column: int = 1


def number(text: str, base: int = 10) -> int | float:
    """An integer literal as a parser reads it. One with more digits than Python converts (4,300
    decimal digits, against quadratic-time conversion) is read as a float, infinite: no rule
    reads a number that large exactly, and a planted one must not stop the file's checks."""
    try:
        return int(text, base)
    except ValueError:
        return float("-inf") if text.lstrip().startswith("-") else float("inf")


class SyntaxProblem(Exception):
    """The text is not valid in its format; carries where the parser gave up."""

    def __init__(self, message: str, pos: Pos) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


class PStr(str):
    """A string scalar that remembers where it starts (and, for block scalars, its style)."""

    pos: Pos
    style: str
    #: For a quoted string with escapes: (offset in the value, characters the source wrote more
    #: than the value holds up to there), at each escape, so offsets map back to the source.
    shifts: tuple[tuple[int, int], ...]

    def __new__(cls, value: str, pos: Pos, style: str = "", shifts: tuple[tuple[int, int], ...] = ()) -> PStr:
        obj = super().__new__(cls, value)
        obj.pos = pos
        obj.style = style
        obj.shifts = shifts
        return obj

    def line_starts(self) -> list[int]:
        """Offsets where each line of the value starts (computed once: positions of many words
        of one long ``run:`` are asked for one after another)."""
        starts = self.__dict__.get("_line_starts")
        if starts is None:
            starts = self.__dict__["_line_starts"] = [0, *(i + 1 for i, c in enumerate(self) if c == "\n")]
        return starts

    def pos_at(self, offset: int) -> Pos:
        """Position of the character at ``offset``; exact for plain and literal-block scalars,
        and for one-line quoted strings whose parser recorded their escapes."""
        line_index = bisect.bisect_right(self.line_starts(), offset) - 1
        if self.style in ("|", ">"):
            return Pos(self.pos.line + 1 + line_index, 1)
        if line_index > 0:
            return self.pos
        quote = 1 if self.style in ("'", '"') else 0
        extra = next((delta for at, delta in reversed(self.shifts) if at <= offset), 0)
        return Pos(self.pos.line, self.pos.column + offset + quote + extra)

    def __reduce__(self) -> tuple[Any, ...]:
        return (PStr, (str(self), self.pos, self.style, self.shifts))


class PMap(dict[Any, Any]):
    """A mapping that knows its own position and the position of each key and value."""

    pos: Pos
    key_pos: dict[Any, Pos]
    value_pos: dict[Any, Pos]
    #: Keys written more than once in this mapping: (key, where it was first written, the value
    #: written there, where it was written again). The mapping holds the last value, as PyYAML
    #: and sigs.k8s.io/yaml do; Compose (go-yaml v3) refuses the file. Empty for most mappings.
    duplicates: tuple[tuple[Any, Pos, Any, Pos], ...] = ()

    def __init__(self, pos: Pos) -> None:
        super().__init__()
        self.pos = pos
        self.key_pos = {}
        self.value_pos = {}

    def pos_of(self, key: Any) -> Pos:
        """Where the value of ``key`` starts (the mapping itself when the key is absent)."""
        return self.value_pos.get(key, self.pos)

    def pos_of_key(self, key: Any) -> Pos:
        return self.key_pos.get(key, self.pos)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_map, (self.pos, dict(self), self.key_pos, self.value_pos))


class PSeq(list[Any]):
    """A sequence that knows its own position and the position of each item."""

    pos: Pos
    item_pos: list[Pos]

    def __init__(self, pos: Pos) -> None:
        super().__init__()
        self.pos = pos
        self.item_pos = []

    def pos_of(self, index: int) -> Pos:
        return self.item_pos[index] if 0 <= index < len(self.item_pos) else self.pos

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_seq, (self.pos, list(self), self.item_pos))


def _rebuild_map(pos: Pos, items: dict[Any, Any], key_pos: dict[Any, Pos], value_pos: dict[Any, Pos]) -> PMap:
    m = PMap(pos)
    m.update(items)
    m.key_pos.update(key_pos)
    m.value_pos.update(value_pos)
    return m


def _rebuild_seq(pos: Pos, items: list[Any], item_pos: list[Pos]) -> PSeq:
    s = PSeq(pos)
    s.extend(items)
    s.item_pos.extend(item_pos)
    return s


def pos_of(value: Any, default: Pos) -> Pos:
    """The position a value carries, or ``default`` for plain scalars."""
    return getattr(value, "pos", default)


def get_path(data: Any, *keys: Any) -> Any:
    """Follow mapping keys and sequence indexes; None when any step is missing."""
    for key in keys:
        if isinstance(data, dict) and not isinstance(key, int | tuple):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and -len(data) <= key < len(data):
            data = data[key]
        else:
            return None
    return data


def as_map(value: Any) -> PMap | None:
    return value if isinstance(value, PMap) else None


def as_seq(value: Any) -> PSeq | None:
    return value if isinstance(value, PSeq) else None


def first_map(value: Any) -> PMap | None:
    """A nested object written once: a mapping, or the first mapping of a list (an HCL block)."""
    if isinstance(value, PMap):
        return value
    if isinstance(value, PSeq) and value and isinstance(value[0], PMap):
        return value[0]
    return None


# ----- bounds and walking -----------------------------------------------------------------------
#: What one file may cost: its text is capped at MAX_BYTES before parsing; the rest bound
#: what aliases add to the data and what rules do with it, so a planted file costs at most this.
MAX_BYTES = 2_000_000  # bytes of a file read (the configuration's max-file-size); the rest is reported, not read
MAX_ALIAS_VALUES = 100_000  # values that YAML aliases and merge keys may add, beyond the text's own
MAX_DEPTH = 100  # levels of nesting a walk enters (and YAML flow collections are read to)
MAX_NESTING = 400  # levels a recursive reader (JSONC, TOML) reads; deeper text is refused, not parsed
MAX_BLOCK_COLUMN = 1000  # the column a YAML line's content may start at (block levels start at rising columns)
MAX_SUBSTITUTIONS = 8  # shell command substitutions ($(...), backticks) read inside one another
MAX_VALUES = 2_000_000  # values all the walks over the file may visit together
MAX_SECONDS = 30.0  # wall time the rules may spend on one file (checked between rules and during walks)
_FILE_START = Pos()

_BOUND_MESSAGES = {
    "aliases": "references to the YAML anchor here would make aliases add more than {} values; those "
    "references were left out and not checked",
    "depth": "data nested more than {} levels deep here; what lies deeper was not checked",
    "column": "this line's content starts past column {}, nesting deeper than the YAML parser is given; "
    "the line was not checked",
    "substitutions": "shell command substitutions nested more than {} deep here; the commands inside were not checked",
    "values": "more than {} values to walk in this file; the rest was not checked",
    "time": "checking this file took more than {} seconds; the rules still to run and the rest of its data "
    "were not checked",
}


class BoundHit(NamedTuple):
    """A bound was met at ``pos``: ``bound`` is "aliases", "depth", "column", "substitutions", "values"
    or "time"."""

    bound: str
    limit: float
    pos: Pos

    @property
    def message(self) -> str:
        limit = int(self.limit) if float(self.limit).is_integer() else self.limit
        return _BOUND_MESSAGES[self.bound].format(limit)


class TreeBudget:
    """What one file's data may still cost, and the first place each bound was met."""

    __slots__ = ("aliases", "deadline", "depth", "hits", "seconds", "values", "values_left")

    def __init__(
        self, aliases: int = MAX_ALIAS_VALUES, depth: int = MAX_DEPTH, values: int = MAX_VALUES, seconds: float = -1.0
    ) -> None:
        self.aliases = aliases
        self.depth = depth
        self.values = values
        self.values_left = values
        self.seconds = MAX_SECONDS if seconds < 0 else seconds  # -1: MAX_SECONDS
        self.deadline = time.monotonic() + self.seconds
        self.hits: dict[str, BoundHit] = {}

    def met(self, bound: str, pos: Pos) -> None:
        limit = {
            "aliases": self.aliases,
            "depth": self.depth,
            "values": self.values,
            "time": self.seconds,
            "column": MAX_BLOCK_COLUMN,
            "substitutions": MAX_SUBSTITUTIONS,
        }[bound]
        self.hits.setdefault(bound, BoundHit(bound, limit, pos))

    def out_of_time(self, pos: Pos = _FILE_START) -> bool:
        """True (and recorded) once the file's time is spent."""
        if "time" in self.hits:
            return True
        if time.monotonic() <= self.deadline:
            return False
        self.met("time", pos)
        return True


def nested_past(text: str, openers: str, closers: str, limit: int = MAX_NESTING) -> Pos | None:
    """Where brackets (``openers``/``closers``, quoted or not) first nest deeper than ``limit``;
    None when they never do. A recursive reader is given the text only then: a quoted bracket
    counted here can only make the answer stricter."""
    if sum(text.count(c) for c in openers) <= limit:
        return None
    depth = 0
    for index, char in enumerate(text):
        if char in openers:
            depth += 1
            if depth > limit:
                line_start = text.rfind("\n", 0, index) + 1
                return Pos(text.count("\n", 0, index) + 1, index - line_start + 1)
        elif char in closers and depth:
            depth -= 1
    return None
