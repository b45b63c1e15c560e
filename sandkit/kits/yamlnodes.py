"""Read YAML into a tree of located nodes, refusing what hostile files try.

The parse layer's round-trip reader (ruamel.yaml, :func:`sandkit.syntax.yaml.load_round_trip`)
keeps line and column for every key and value; we copy them into
plain :class:`Node` objects so that ``extends`` can merge trees from several files and every value
still knows the file and place it came from. Aliases are expanded with a node budget, which turns a
"billion laughs" document into a clear error in milliseconds instead of an exhausted machine.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandkit.errors import KitError, Location, Problem
from sandkit.kits.reading import PathRefused, read_regular, real
from sandkit.syntax.tree import SyntaxProblem

MAX_BYTES = 1024 * 1024
MAX_NODES = 50_000
MAX_DEPTH = 64

Scalar = str | int | float | bool | None
_SURROGATE = re.compile("[\ud800-\udfff]")
#: Characters that YAML 1.1 treats as line breaks and YAML 1.2 does not: a value holding one raw
#: would not come out byte-exact, so the loader asks for the escape instead.
_AMBIGUOUS_BREAKS = {
    "\u2028": "U+2028 LINE SEPARATOR",
    "\u2029": "U+2029 PARAGRAPH SEPARATOR",
    "\x85": "U+0085 NEXT LINE",
}


@dataclass
class Node:
    """A YAML value with the place it was written; mappings and lists hold Nodes."""

    value: Any
    loc: Location
    key_loc: Location | None = field(default=None, compare=False)

    def plain(self) -> Any:
        """The value as plain dicts, lists and scalars."""
        if isinstance(self.value, dict):
            return {k: v.plain() for k, v in self.value.items()}
        if isinstance(self.value, list):
            return [v.plain() for v in self.value]
        return self.value


def _fail(path: str, message: str, line: int = 0, column: int = 0) -> KitError:
    return KitError([Problem(Location(path, line, column), message)])


def _decode(path: str, data: bytes) -> str:
    if len(data) > MAX_BYTES:
        raise _fail(path, f"file is too large: a kit may be at most {MAX_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise _fail(path, "file is not valid UTF-8 (a kit must be UTF-8 text)", line, column) from None
    text = text.removeprefix("\ufeff")
    for char, name in _AMBIGUOUS_BREAKS.items():
        offset = text.find(char)
        if offset >= 0:
            preceding = text[:offset]
            line, column = preceding.count("\n") + 1, offset - (preceding.rfind("\n") + 1) + 1
            raise _fail(
                path,
                f"raw {name} in the file: YAML readers disagree on whether it breaks the line; "
                f"write it as the escape \\u{ord(char):04x} inside double quotes",
                line,
                column,
            )
    return text


def _parse(path: str, text: str) -> Any:
    """The kit's one document, read by the parse layer's round-trip reader (ruamel.yaml)."""
    from sandkit.syntax.yaml import load_round_trip  # PyYAML and ruamel.yaml: only once a kit is read

    try:
        documents = load_round_trip(text)
    except SyntaxProblem as exc:
        raise _fail(path, exc.message, exc.pos.line, exc.pos.column) from None
    if len(documents) > 1:
        raise _fail(path, "a kit file holds exactly one YAML document; found several")
    if not documents:
        raise _fail(path, "file is empty; a kit is a YAML mapping starting with `apiVersion: sandkit/v1`")
    return documents[0]


class _Builder:
    """Copies ruamel's objects into Nodes, bounding expansion and nesting."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.count = 0
        self.active: set[int] = set()

    def loc(self, pos: tuple[int, int] | None) -> Location:
        if pos is None:
            return Location(self.path)
        return Location(self.path, pos[0] + 1, pos[1] + 1)

    def build(self, value: Any, loc: Location, depth: int = 0) -> Node:
        self.count += 1
        if self.count > MAX_NODES:
            raise _fail(
                self.path,
                f"YAML expands to more than {MAX_NODES} values (an alias bomb?); refusing to load it",
                loc.line,
                loc.column,
            )
        if depth > MAX_DEPTH:
            raise _fail(self.path, f"YAML is nested more than {MAX_DEPTH} levels deep", loc.line, loc.column)
        if isinstance(value, dict | list):
            if id(value) in self.active:
                raise _fail(self.path, "YAML alias refers to itself (a recursive structure)", loc.line, loc.column)
            self.active.add(id(value))
            try:
                return self._container(value, loc, depth)
            finally:
                self.active.discard(id(value))
        return Node(self._scalar(value, loc), loc)

    def _container(self, value: Any, loc: Location, depth: int) -> Node:
        lc = getattr(value, "lc", None)
        if isinstance(value, list):
            items = [
                self.build(item, self.loc(_safe(lambda i=i: lc.item(i))) if lc else loc, depth + 1)
                for i, item in enumerate(value)
            ]
            return Node(items, loc)
        mapping: dict[str, Node] = {}
        for key, item in value.items():
            key_loc = self.loc(_safe(lambda k=key: lc.key(k))) if lc else loc
            if not isinstance(key, str):
                raise _fail(self.path, f"mapping key {key!r} must be a string", key_loc.line, key_loc.column)
            _refuse_surrogates(self.path, key, key_loc)
            value_loc = self.loc(_safe(lambda k=key: lc.value(k))) if lc else loc
            if key_loc.line == 0:
                key_loc = value_loc = loc
            node = self.build(item, value_loc, depth + 1)
            node.key_loc = key_loc
            mapping[key] = node
        return Node(mapping, loc)

    def _scalar(self, value: Any, loc: Location) -> Scalar:
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            return int(value)
        if isinstance(value, float):
            return float(value)
        if isinstance(value, str):
            if "\x00" in value:
                raise _fail(
                    self.path,
                    "a NUL character cannot reach a program (argv and environment end at it)",
                    loc.line,
                    loc.column,
                )
            _refuse_surrogates(self.path, value, loc)
            return str(value)
        if isinstance(value, datetime.date | datetime.datetime):
            raise _fail(self.path, "a date or time here must be quoted to be a string", loc.line, loc.column)
        raise _fail(
            self.path,
            f"unsupported YAML value of type {type(value).__name__} (custom tags are not allowed)",
            loc.line,
            loc.column,
        )


def _refuse_surrogates(path: str, value: str, loc: Location) -> None:
    """A \\ud800-style escape of half a character: no UTF-8 file, path or argument can hold it."""
    half = _SURROGATE.search(value)
    if half:
        raise _fail(
            path,
            f"the escape \\u{ord(half.group()):04x} is half of a UTF-16 pair, not a character; "
            "write the character itself, or its \\U00XXXXXX escape",
            loc.line,
            loc.column,
        )


def _safe(get: Any) -> tuple[int, int] | None:
    try:
        pos = get()
    except (KeyError, IndexError, AttributeError, TypeError):
        return None
    return (pos[0], pos[1]) if pos else None


def load_yaml_nodes(path: Path, display: str | None = None) -> Node:
    """Load one YAML mapping from ``path`` (a bounded read of a regular file); every failure is a located KitError."""
    shown = display or str(path)
    try:
        data = read_regular(real(path), MAX_BYTES)
    except PathRefused as exc:
        raise _fail(shown, f"{'file ' if str(exc) == 'not found' else ''}{exc}") from None
    return nodes_from_bytes(data, shown)


def nodes_from_bytes(data: bytes, shown: str) -> Node:
    """One YAML mapping from bytes read elsewhere (standard input, a git object), checked alike."""
    return nodes_from_text(_decode(shown, data), shown)


def nodes_from_text(text: str, shown: str) -> Node:
    document = _parse(shown, text)
    root = _Builder(shown).build(document, Location(shown, 1, 1))
    if not isinstance(root.value, dict):
        kind = "a list" if isinstance(root.value, list) else "a single value"
        raise _fail(shown, f"a kit must be a YAML mapping (key: value pairs), not {kind}", 1, 1)
    return root
