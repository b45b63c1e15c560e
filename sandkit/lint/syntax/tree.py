"""Positioned data: the common shape of parsed YAML, JSON and TOML documents.

Mappings, sequences and strings carry the 1-based line and column where they start, so a rule
can report the exact place of the value it objects to without a second lookup structure.
Numbers, booleans and nulls stay plain Python values; ask their container with ``pos_of``.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Pos(NamedTuple):
    """A 1-based line and column (a tuple: cheap to make for every parsed node)."""

    line: int = 1
    column: int = 1


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

    def __new__(cls, value: str, pos: Pos, style: str = "") -> PStr:
        obj = super().__new__(cls, value)
        obj.pos = pos
        obj.style = style
        return obj

    def pos_at(self, offset: int) -> Pos:
        """Position of the character at ``offset``; exact for plain and literal-block scalars."""
        if self.style in ("|", ">"):
            before = self[:offset]
            line_index = before.count("\n")
            return Pos(self.pos.line + 1 + line_index, 1)
        if "\n" in self[:offset]:
            return self.pos
        quote = 1 if self.style in ("'", '"') else 0
        return Pos(self.pos.line, self.pos.column + offset + quote)

    def __reduce__(self) -> tuple[Any, ...]:
        return (PStr, (str(self), self.pos, self.style))


class PMap(dict[Any, Any]):
    """A mapping that knows its own position and the position of each key and value."""

    pos: Pos
    key_pos: dict[Any, Pos]
    value_pos: dict[Any, Pos]

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
