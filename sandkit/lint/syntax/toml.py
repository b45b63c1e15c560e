"""TOML as positioned data. ``tomllib`` keeps no positions, so keys are located afterwards
by reading the lines: good enough to point at the right line of a setting."""

from __future__ import annotations

import re
from typing import Any

from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr, SyntaxProblem

_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_toml(text: str) -> PMap:
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = _AT.search(str(exc))
        pos = Pos(int(match.group(1)), int(match.group(2))) if match else Pos()
        raise SyntaxProblem(f"invalid TOML: {_AT.sub('', str(exc)).strip()}", pos) from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise SyntaxProblem("invalid TOML: nested too deeply", Pos()) from None
    index = _KeyIndex(text)
    try:
        result = _convert(data, (), index, Pos())
    except RecursionError:
        raise SyntaxProblem("TOML nested too deeply to analyse", Pos()) from None
    assert isinstance(result, PMap)
    return result


class _KeyIndex:
    """Finds the line of a dotted key path from table headers and ``key =`` lines."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def find(self, path: tuple[str, ...]) -> Pos:
        if not path:
            return Pos()
        key = path[-1]
        pattern = re.compile(r"^\s*(?:\[\[?\s*)?(?:[\w\"'.-]+\.)?[\"']?" + re.escape(key) + r"[\"']?\s*(?:=|\]|\.)")
        table_hint = ".".join(path[:-1])
        start = 0
        if table_hint:
            for number, line in enumerate(self.lines):
                if line.lstrip().startswith("[") and table_hint in line.replace('"', ""):
                    start = number
                    break
        for number in range(start, len(self.lines)):
            match = pattern.match(self.lines[number])
            if match:
                column = self.lines[number].find(key) + 1
                return Pos(number + 1, max(column, 1))
        return Pos()


def _convert(value: Any, path: tuple[str, ...], index: _KeyIndex, pos: Pos) -> Any:
    if isinstance(value, dict):
        result = PMap(pos)
        for key, item in value.items():
            item_pos = index.find((*path, key))
            result[key] = _convert(item, (*path, key), index, item_pos)
            result.key_pos[key] = item_pos
            result.value_pos[key] = item_pos
        return result
    if isinstance(value, list):
        seq = PSeq(pos)
        for item in value:
            seq.append(_convert(item, path, index, pos))
            seq.item_pos.append(pos)
        return seq
    if isinstance(value, str):
        return PStr(value, pos)
    return value
