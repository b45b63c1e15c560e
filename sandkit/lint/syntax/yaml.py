"""YAML with positions, every document of a stream, via ruamel's composer.

Only the composer runs (no object construction), so unknown tags such as ``!Ref`` or
``!reference`` never fail a parse. Aliases are converted once and shared, which keeps
"billion laughs" documents linear.
"""

from __future__ import annotations

import warnings
from typing import Any

from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr, SyntaxProblem

_BOOL_TRUE = {"true", "True", "TRUE"}
_BOOL_FALSE = {"false", "False", "FALSE"}
_yaml_parser: Any = None


def _parser() -> Any:
    global _yaml_parser
    if _yaml_parser is None:
        from ruamel.yaml import YAML

        _yaml_parser = YAML(typ="safe", pure=True)
    return _yaml_parser


def load_documents(text: str) -> list[Any]:
    """Every document of a YAML stream as positioned data; raises SyntaxProblem."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nodes = list(_parser().compose_all(text))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = Pos(mark.line + 1, mark.column + 1) if mark else Pos()
        raise SyntaxProblem(f"invalid YAML: {exc.problem or exc.context}", pos) from None
    except YAMLError as exc:
        raise SyntaxProblem(f"invalid YAML: {_first_line(exc)}", _reader_pos(exc, text)) from None
    except RecursionError:
        raise SyntaxProblem("invalid YAML: nested too deeply", Pos()) from None
    converter = _Converter()
    try:
        return [converter.convert(node) for node in nodes if node is not None]
    except RecursionError:
        raise SyntaxProblem("YAML nested too deeply to analyse", Pos()) from None


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or ["unreadable"])[0]


def _reader_pos(exc: Exception, text: str) -> Pos:
    index = getattr(exc, "position", None)
    if not isinstance(index, int):
        return Pos()
    before = text[:index]
    return Pos(before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1)


class _Converter:
    def __init__(self) -> None:
        self.seen: dict[int, Any] = {}

    def convert(self, node: Any) -> Any:
        known = self.seen.get(id(node))
        if known is not None:
            return known
        pos = Pos(node.start_mark.line + 1, node.start_mark.column + 1)
        kind = node.id
        if kind == "mapping":
            result: Any = PMap(pos)
            self.seen[id(node)] = result
            self._fill_map(result, node)
        elif kind == "sequence":
            result = PSeq(pos)
            self.seen[id(node)] = result
            for item in node.value:
                result.append(self.convert(item))
                result.item_pos.append(_pos(item))
        else:
            result = _scalar(node, pos)
            self.seen[id(node)] = result
        return result

    def _fill_map(self, target: PMap, node: Any) -> None:
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                self._merge(target, value_node)
                continue
            key = self.convert(key_node)
            if isinstance(key, PMap | PSeq):
                key = str(key_node.start_mark)  # unhashable complex key: keep it addressable
            target[key] = self.convert(value_node)
            target.key_pos[key] = _pos(key_node)
            target.value_pos[key] = _pos(value_node)

    def _merge(self, target: PMap, value_node: Any) -> None:
        sources = value_node.value if value_node.id == "sequence" else [value_node]
        for source_node in sources:
            source = self.convert(source_node)
            if isinstance(source, PMap):
                for key, value in source.items():
                    if key not in target:
                        target[key] = value
                        target.key_pos[key] = source.key_pos.get(key, source.pos)
                        target.value_pos[key] = source.value_pos.get(key, source.pos)


def _pos(node: Any) -> Pos:
    return Pos(node.start_mark.line + 1, node.start_mark.column + 1)


def _scalar(node: Any, pos: Pos) -> Any:
    value: str = node.value
    style = node.style or ""
    if style:
        return PStr(value, pos, style)
    tag = node.tag or ""
    if tag.endswith(":null"):
        return None
    if tag.endswith(":bool"):
        if value in _BOOL_TRUE:
            return True
        if value in _BOOL_FALSE:
            return False
    if tag.endswith(":int"):
        try:
            return int(value.replace("_", ""), 0)
        except ValueError:
            pass
    if tag.endswith(":float"):
        try:
            return float(value.replace("_", ""))
        except ValueError:
            pass
    return PStr(value, pos, style)
