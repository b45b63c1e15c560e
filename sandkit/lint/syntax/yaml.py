"""YAML with positions, every document of a stream, from a YAML composer's node graph.

Only the composer runs (no object construction), so unknown tags such as ``!Ref`` or
``!reference`` never fail a parse. Aliases are converted once and shared, and what their
references add is bounded (``TreeBudget.aliases``), so "billion laughs" documents stay small for
rules that walk them and for those that simply loop over them. Plain scalars are typed here by
the YAML 1.2 core schema (``on:`` stays a string), whichever composer ran: libyaml's (through
PyYAML, some thirty times faster) when it is installed, ruamel's otherwise.
"""

from __future__ import annotations

import warnings

from sandkit.lazy_regex import lazy
from sandkit.lean_typing import TYPE_CHECKING
from sandkit.lint.syntax.block_yaml import compose as block_compose
from sandkit.lint.syntax.tree import (
    MAX_BLOCK_COLUMN,
    MAX_DEPTH,
    PMap,
    Pos,
    PSeq,
    PStr,
    SyntaxProblem,
    TreeBudget,
    number,
)

if TYPE_CHECKING:
    from typing import Any

_BOOL_TRUE = {"true", "True", "TRUE"}
_BOOL_FALSE = {"false", "False", "FALSE"}
_NULL = {"", "~", "null", "Null", "NULL"}
_INT = lazy(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = lazy(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_backend: tuple[Any, Any, Any, Any] | None = None
#: Texts the block composer reads before PyYAML is imported. Importing it costs as much as the
#: block composer's extra time on some sixty small files (libyaml validates one in a tenth of the
#: time), so a process that reads more than that, or meets YAML the block composer leaves to
#: libyaml, uses libyaml from then on. Either way the data are the same.
BLOCK_TEXTS = 64
_block_left = BLOCK_TEXTS
_IMPLICIT = "?implicit"


def _composer() -> tuple[Any, Any, Any, Any]:
    """(compose_all, marked error class, base error class, C validator or None) of the
    fastest backend."""
    global _backend
    if _backend is None:
        _backend = _libyaml_backend() or _ruamel_backend()
    return _backend


def _libyaml_backend() -> tuple[Any, Any, Any, Any] | None:
    try:
        pyyaml, libyaml = _import_pyyaml()
    except ImportError:
        return None

    class Composer(libyaml.CParser):  # type: ignore[name-defined,misc]  # libyaml is untyped: its class is Any
        """libyaml's composer; implicit tags are left for :func:`_scalar` to decide."""

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            return _IMPLICIT

        def descend_resolver(self, parent: Any, index: Any) -> None:
            return None

        def ascend_resolver(self) -> None:
            return None

    def compose_all(text: str) -> Any:
        composer = Composer(text)
        while composer.check_node():
            yield composer.get_node()

    return compose_all, pyyaml.MarkedYAMLError, pyyaml.YAMLError, libyaml.CParser


def _import_pyyaml() -> tuple[Any, Any]:
    """PyYAML (untyped and optional) and its libyaml binding.

    PyYAML's pure-Python reader, resolver and constructor compile a dozen patterns as they are
    imported (the reader's class of printable Unicode alone takes milliseconds, a tenth of a
    pre-commit run's budget); the composer used here never runs them. While PyYAML imports, and
    only then, ``re.compile`` makes patterns that compile on first use, which PyYAML's own
    ``.match``/``.search`` calls still get, should anything in this process use its Python
    loader.
    """
    import importlib
    import re
    import sys

    from sandkit.lazy_regex import LazyPattern

    if "yaml" in sys.modules:
        return sys.modules["yaml"], importlib.import_module("yaml._yaml")
    real = re.compile
    re.compile = LazyPattern  # type: ignore[assignment]  # the same calls, compiled when first used
    try:
        return importlib.import_module("yaml"), importlib.import_module("yaml._yaml")
    finally:
        re.compile = real


def _ruamel_backend() -> tuple[Any, Any, Any, Any]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    return YAML(typ="safe", pure=True).compose_all, MarkedYAMLError, YAMLError, None


def load_documents(text: str) -> list[Any]:
    """Every document of a YAML stream as positioned data; raises SyntaxProblem, also when
    aliases would add more than the default bound."""
    budget = TreeBudget()
    documents = convert_nodes(compose_nodes(text, budget), budget)
    for hit in budget.hits.values():
        raise SyntaxProblem(hit.message, hit.pos)
    return documents


_DEEP_LINE = lazy(rf"(?m)^[ \t?:-]{{{MAX_BLOCK_COLUMN},}}[^\n]*")
_DEEP_RUN = lazy(rf"\n[ \t?:-]{{{MAX_BLOCK_COLUMN}}}")  # a literal first character: searched fast
_BRACKET = lazy(r"[\[\]{}]")
_NOT_NEWLINE = lazy(r"[^\n]")


def bound_nesting(text: str) -> tuple[str, list[tuple[str, int]]]:
    """``text`` with what nests past the parser's bounds blanked (lines and columns kept), and
    where each bound was first met (``("column"|"depth", index)``).

    libyaml's scanner pays for every token once per open flow collection around it (20,000
    nested ``[`` took 7 s, 200,000 did not finish) and its composer recurses in C for every
    level (a 400 KB line of ``- - - ...`` overflowed its stack and killed the process). So a
    line whose content starts past column ``MAX_BLOCK_COLUMN`` is blanked (block levels start at
    rising columns, so fewer columns means fewer levels), and so is the inside of a flow
    collection more than ``MAX_DEPTH`` deep. Brackets are counted whether quoted or not: a
    quote the scan misreads can only make it blank more, never let deep text through.
    """
    hits: list[tuple[str, int]] = []
    deep = (
        len(text) >= MAX_BLOCK_COLUMN
        and (  # a shorter text cannot hold such a run: no pattern compiled
            _DEEP_RUN.search(text) is not None or _DEEP_LINE.match(text[:MAX_BLOCK_COLUMN]) is not None
        )
    )

    deep_line = _DEEP_LINE.search(text) if deep else None
    if deep_line is not None:
        hits.append(("column", deep_line.start() + MAX_BLOCK_COLUMN))
        text = _DEEP_LINE.sub(lambda m: " " * len(m.group()), text)
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return text, hits
    spans: list[tuple[int, int]] = []
    depth, start = 0, -1
    for match in _BRACKET.finditer(text):
        if match.group() in "[{":
            depth += 1
            if depth == MAX_DEPTH + 1:
                start = match.start()
        elif depth:
            if depth == MAX_DEPTH + 1:
                spans.append((start + 1, match.start()))
            depth -= 1
    if depth > MAX_DEPTH:
        spans.append((start + 1, len(text)))
    if not spans:
        return text, hits
    hits.append(("depth", spans[0][0] - 1))
    parts, position = [], 0
    for begin, end in spans:
        parts += [text[position:begin], _NOT_NEWLINE.sub(" ", text[begin:end])]
        position = end
    parts.append(text[position:])
    return "".join(parts), hits


def _bounded(text: str, budget: TreeBudget | None) -> str:
    """``text`` within the parser's bounds; the budget records where a bound was met (without
    one, meeting a bound is a SyntaxProblem there)."""
    bounded, hits = bound_nesting(text)
    if not hits:
        return text
    record = budget if budget is not None else TreeBudget()
    for bound, index in hits:
        line_start = text.rfind("\n", 0, index) + 1
        record.met(bound, Pos(text.count("\n", 0, index) + 1, index - line_start + 1))
    if budget is None:
        first = next(iter(record.hits.values()))
        raise SyntaxProblem(first.message, first.pos)
    return bounded


def check_syntax(text: str, budget: TreeBudget | None = None) -> None:
    """Raise SyntaxProblem if ``text`` is not valid YAML, as cheaply as possible.

    With libyaml the parser runs in C without building a node (several times faster than
    composing). Aliases are only resolved by the composer, so text with a ``*`` is composed.
    """
    text = _bounded(text, budget)
    if _block_nodes(text) is not None:
        return  # the block subset, read without PyYAML: valid
    _, marked_error, yaml_error, validator = _composer()
    if validator is None or "*" in text:
        parser_nodes(text)
        return
    try:
        validator(text).raw_parse()
    except marked_error as exc:
        raise _located(exc) from None
    except yaml_error as exc:
        raise SyntaxProblem(f"invalid YAML: {_first_line(exc)}", _reader_pos(exc, text)) from None


def _located(exc: Any) -> SyntaxProblem:
    mark = exc.problem_mark or exc.context_mark
    pos = Pos(mark.line + 1, mark.column + 1) if mark else Pos()
    return SyntaxProblem(f"invalid YAML: {exc.problem or exc.context}", pos)


def compose_nodes(text: str, budget: TreeBudget | None = None) -> list[Any]:
    """The composer's node graph of every document (enough to know the text is valid), of the
    text within the parser's bounds (:func:`bound_nesting`): the block subset's own
    (:mod:`sandkit.lint.syntax.block_yaml`), else libyaml's."""
    text = _bounded(text, budget)
    nodes = _block_nodes(text)
    if nodes is not None:
        return nodes
    return parser_nodes(text)


def _block_nodes(text: str) -> list[Any] | None:
    """The block composer's nodes, while PyYAML is not loaded and the process has read fewer
    than ``BLOCK_TEXTS`` texts; None when libyaml is to compose ``text``."""
    global _block_left
    if _backend is not None or _block_left <= 0:
        return None
    _block_left -= 1
    return block_compose(text)


def parser_nodes(text: str) -> list[Any]:
    """The YAML parser's node graph of every document of ``text`` (already within bounds)."""
    compose_all, marked_error, yaml_error, _ = _composer()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [node for node in compose_all(text) if node is not None]
    except marked_error as exc:
        raise _located(exc) from None
    except yaml_error as exc:
        raise SyntaxProblem(f"invalid YAML: {_first_line(exc)}", _reader_pos(exc, text)) from None
    except RecursionError:
        raise SyntaxProblem("invalid YAML: nested too deeply", Pos()) from None


def convert_nodes(nodes: list[Any], budget: TreeBudget) -> list[Any]:
    """Positioned data for composed nodes; aliases are converted once and shared.

    A reference that would take the values aliases add past ``budget.aliases`` becomes None,
    and so does a collection deeper than ``budget.depth``; the budget records where.
    """
    converter = _Converter(budget)
    return [converter.convert(node) for node in nodes]


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or ["unreadable"])[0]


def _reader_pos(exc: Exception, text: str) -> Pos:
    index = getattr(exc, "position", None)
    if not isinstance(index, int):
        return Pos()
    before = text[:index]
    return Pos(before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1)


class _Converter:
    """Converts each node once; counts the values of the data as if aliases were copies."""

    def __init__(self, budget: TreeBudget) -> None:
        self.seen: dict[int, Any] = {}
        self.sizes: dict[int, int] = {}  # values under a converted node, aliases counted in full
        self.budget = budget
        self.values = 0
        self.added = 0  # what alias references have added so far
        self.depth = 0  # collections open around the node being converted

    def convert(self, node: Any) -> Any:
        mark = node.start_mark
        pos = Pos(mark.line + 1, mark.column + 1)
        kind = node.id
        self.values += 1
        if kind == "scalar":
            return _scalar(node, pos)
        known = self.seen.get(id(node))
        if known is not None:
            return self._reference(id(node), known, pos)
        if self.depth >= self.budget.depth:  # no walk enters it: not worth Python's stack
            self.budget.met("depth", pos)
            return None
        before = self.values
        self.depth += 1
        if kind == "mapping":
            result: Any = PMap(pos)
            self.seen[id(node)] = result
            self._fill_map(result, node)
        else:
            result = PSeq(pos)
            self.seen[id(node)] = result
            for item in node.value:
                value = self.convert(item)
                result.append(value)
                result.item_pos.append(getattr(value, "pos", None) or _pos(item))
        self.depth -= 1
        self.sizes[id(node)] = self.values - before
        return result

    def _reference(self, key: int, known: Any, pos: Pos) -> Any:
        """An alias: the shared value, unless what aliases add would pass the bound."""
        size = self.sizes.get(key, 0)
        if self.added + size > self.budget.aliases:
            self.budget.met("aliases", pos)
            return None
        self.added += size
        self.values += size
        return known

    def _fill_map(self, target: PMap, node: Any) -> None:
        written: set[Any] = set()  # keys this mapping writes itself (a merge key's are not duplicates)
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or (
                key_node.value == "<<" and key_node.id == "scalar" and not key_node.style
            ):
                self._merge(target, value_node)
                continue
            key = self.convert(key_node)
            if isinstance(key, PMap | PSeq):
                key = str(key_node.start_mark)  # unhashable complex key: keep it addressable
            value = self.convert(value_node)
            if key in written:
                first = (key, target.key_pos[key], target[key], _pos(key_node))
                target.duplicates = (*target.duplicates, first)
            written.add(key)
            target[key] = value
            target.key_pos[key] = getattr(key, "pos", None) or _pos(key_node)
            target.value_pos[key] = getattr(value, "pos", None) or _pos(value_node)

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
    mark = node.start_mark
    return Pos(mark.line + 1, mark.column + 1)


def _scalar(node: Any, pos: Pos) -> Any:
    """A plain scalar typed by the YAML 1.2 core schema; quoted or ``!!str`` stays a string."""
    value: str = node.value
    style = node.style or ""
    if style:
        return PStr(value, pos, style)
    typed = _core_type(value)
    tag = node.tag or ""
    if typed is not _STRING and tag.endswith(":str") and tag != _IMPLICIT:
        return PStr(value, pos, style)  # an explicit !!str tag
    return PStr(value, pos, style) if typed is _STRING else typed


_STRING = object()
_TYPED_START = frozenset("0123456789+-.~nNtTfF")


def _core_type(value: str) -> Any:
    if value and value[0] not in _TYPED_START:
        return _STRING  # most scalars are words: skip the patterns
    if value in _NULL:
        return None
    if value in _BOOL_TRUE:
        return True
    if value in _BOOL_FALSE:
        return False
    if _INT.fullmatch(value):
        return number(value, 0 if value.startswith(("0o", "0x")) else 10)
    if _FLOAT.fullmatch(value) and any(c in value for c in ".eE"):
        return float(value)
    return _STRING
