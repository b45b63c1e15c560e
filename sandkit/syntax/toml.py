"""TOML as positioned data, read by ``tomllib``. It keeps no positions, so keys are located
afterwards by reading the lines: good enough to point at the right line of a setting.

tomllib recurses once per nested array or inline table, so text nested deeper than
``MAX_NESTING`` is refused before it reads it."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from sandkit.errors import long_integer_at
from sandkit.syntax.tree import MAX_NESTING, PMap, Pos, PSeq, PStr, SyntaxProblem, nested_past

_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_toml(text: str, located: bool = True) -> PMap:
    """The document as positioned data; every position is line 0 unless ``located``."""
    result = _convert(_parse(text), (), _KeyIndex(text) if located else _NOWHERE, Pos())
    assert isinstance(result, PMap)
    return result


def load_toml_value(text: str, path: tuple[str, ...], located: bool = True) -> Any:
    """The value at the key ``path`` (``("tool", "sandkit")``) as positioned data, or None when the
    text has none; only that value is located, and only when ``located`` (a key is found by
    reading lines, and locating every key of a pyproject.toml took longer than the rest of a
    pre-commit run)."""
    value: Any = _parse(text)
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    index = _KeyIndex(text) if located else _NOWHERE
    return _convert(value, path, index, index.find(path))


def _parse(text: str) -> dict[str, Any]:
    """``tomllib.loads``, its errors as SyntaxProblems."""
    deep = nested_past(text, "[{", "]}")
    if deep is not None:
        raise SyntaxProblem(f"invalid TOML: nested more than {MAX_NESTING} levels deep", deep)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = _AT.search(str(exc))
        pos = Pos(int(match.group(1)), int(match.group(2))) if match else Pos()
        raise SyntaxProblem(f"invalid TOML: {_AT.sub('', str(exc)).strip()}", pos) from None
    except RecursionError:  # a bracket in a string counted short: tomllib still stops
        raise SyntaxProblem("invalid TOML: nested too deeply", Pos()) from None
    except ValueError:  # tomllib has no hook for integers: one longer than Python converts stops it
        raise SyntaxProblem(
            "TOML holds an integer too long to read (over 4,300 digits)", Pos(*long_integer_at(text))
        ) from None


class _KeyIndex:
    """Finds the line of a dotted key path from table headers and ``key =`` lines."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def find(self, path: tuple[str | int, ...]) -> Pos:
        """Where the last key of ``path`` is written; an ``int`` in the path is the index of an
        ``[[array]]`` table, so keys of its second entry are looked for below its second header."""
        if not path or isinstance(path[-1], int):
            return Pos()
        key = path[-1]
        pattern = re.compile(r"^\s*(?:\[\[?\s*)?(?:[\w\"'.-]+\.)?[\"']?" + re.escape(key) + r"[\"']?\s*(?:=|\]|\.)")
        names = [part for part in path[:-1] if isinstance(part, str)]
        table_hint = ".".join(names)
        start = self._entry_start(path[:-1])
        if table_hint:
            for number in range(start, len(self.lines)):
                line = self.lines[number]
                if line.lstrip().startswith("[") and table_hint in line.replace('"', ""):
                    # below the table's own header (which may end in the key's name), not a deeper one
                    own = line.split("#", 1)[0].strip().strip("[]").replace('"', "").replace(" ", "") == table_hint
                    start = number + 1 if own else number
                    break
        for number in range(start, len(self.lines)):
            match = pattern.match(self.lines[number])
            if match:
                column = self.lines[number].find(key) + 1
                return Pos(number + 1, max(column, 1))
        return Pos()

    def _entry_start(self, path: tuple[str | int, ...]) -> int:
        """The line of the ``[[...]]`` header of each array-table entry the path goes through."""
        start, names = 0, []
        for part in path:
            if isinstance(part, str):
                names.append(part)
                continue
            header = re.compile(r"^\s*\[\[\s*" + re.escape(".".join(names)) + r"\s*\]\]")
            entries = (n for n in range(start, len(self.lines)) if header.match(self.lines[n]))
            start = next((n for i, n in enumerate(entries) if i == part), start)
        return start


class _Nowhere:
    """A key index that locates nothing (every position is line 0)."""

    def find(self, path: tuple[str | int, ...]) -> Pos:
        return Pos()


_NOWHERE = _Nowhere()


def _convert(value: Any, path: tuple[str | int, ...], index: _KeyIndex | _Nowhere, pos: Pos) -> Any:
    try:
        return _converted(value, path, index, pos)
    except RecursionError:
        raise SyntaxProblem("TOML nested too deeply to analyse", Pos()) from None


def _converted(value: Any, path: tuple[str | int, ...], index: _KeyIndex | _Nowhere, pos: Pos) -> Any:
    if isinstance(value, dict):
        result = PMap(pos)
        for key, item in value.items():
            item_pos = index.find((*path, key))
            result[key] = _converted(item, (*path, key), index, item_pos)
            result.key_pos[key] = item_pos
            result.value_pos[key] = item_pos
        return result
    if isinstance(value, list):
        seq = PSeq(pos)
        for number, item in enumerate(value):
            item_path = (*path, number) if isinstance(item, dict) else path
            seq.append(_converted(item, item_path, index, pos))
            seq.item_pos.append(pos)
        return seq
    if isinstance(value, str):
        return PStr(value, pos)
    return value


def load_toml_plain(text: str) -> dict[str, Any]:
    """The document as plain data (no positions: a lockfile's megabytes are never located)."""
    return _parse(text)
