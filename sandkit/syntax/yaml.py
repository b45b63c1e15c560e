"""YAML: every document of a stream as positioned data, composed by libyaml through PyYAML.

One composer reads every YAML file the linter sees, whatever its size and whatever was read
before it: PyYAML's ``CSafeLoader`` (libyaml, in C) where PyYAML was built with it, its
``SafeLoader`` otherwise, as pre-commit's own YAML reader chooses. Only the composer runs (no
object construction), so unknown tags such as ``!Ref`` or ``!reference`` never fail a parse.
Plain scalars are typed here by the YAML 1.2 core schema (``on:`` stays a string); a consumer
that reads YAML 1.1 types them again from the string the document holds.

Bounds, one set for every format (:mod:`sandkit.syntax.tree`): text nested past the parser's
depth or column is blanked before libyaml sees it (:func:`bound_nesting`), aliases are converted
once and shared and what their references add is bounded (``TreeBudget.aliases``, "billion
laughs"), and conversion stops at ``TreeBudget.depth``. Kits, which round-trip through
ruamel.yaml, are read by :func:`load_round_trip` within the same nesting bounds.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator
from typing import Any

import yaml

from sandkit.syntax.tree import (
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

_BOOL_TRUE = {"true", "True", "TRUE"}
_BOOL_FALSE = {"false", "False", "FALSE"}
_NULL = {"", "~", "null", "Null", "NULL"}
_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_IMPLICIT = "?implicit"
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Composer(_Loader):
    """PyYAML's safe loader, composing only; implicit tags are left for :func:`_scalar` to type
    by the YAML 1.2 core schema (the loader's own resolver is YAML 1.1's)."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        return _IMPLICIT


def load_documents(text: str) -> list[Any]:
    """Every document of a YAML stream as positioned data; raises SyntaxProblem, also when a
    bound (aliases, nesting) is met."""
    budget = TreeBudget()
    documents = convert_nodes(compose_nodes(text, budget), budget)
    for hit in budget.hits.values():
        raise SyntaxProblem(hit.message, hit.pos)
    return documents


_DEEP_LINE = re.compile(rf"(?m)^[ \t?:-]{{{MAX_BLOCK_COLUMN},}}[^\n]*")
_DEEP_RUN = re.compile(rf"\n[ \t?:-]{{{MAX_BLOCK_COLUMN}}}")  # a literal first character: searched fast
_BRACKET = re.compile(r"[\[\]{}]")
_NOT_NEWLINE = re.compile(r"[^\n]")


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
    deep = len(text) >= MAX_BLOCK_COLUMN and (
        _DEEP_RUN.search(text) is not None or _DEEP_LINE.match(text[:MAX_BLOCK_COLUMN]) is not None
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
        record.met(bound, position_at(text, index))
    if budget is None:
        first = next(iter(record.hits.values()))
        raise SyntaxProblem(first.message, first.pos)
    return bounded


def position_at(text: str, index: int) -> Pos:
    """The line and column of the character at ``index`` of ``text``."""
    line_start = text.rfind("\n", 0, index) + 1
    return Pos(text.count("\n", 0, index) + 1, index - line_start + 1)


def check_syntax(text: str, budget: TreeBudget | None = None) -> None:
    """Raise SyntaxProblem if ``text`` is not valid YAML, as cheaply as possible.

    libyaml's parser runs in C without building a node (several times faster than composing).
    Aliases are only resolved by the composer, so text with a ``*`` is composed.
    """
    text = _bounded(text, budget)
    raw_parse = getattr(_Loader, "raw_parse", None)
    if raw_parse is None or "*" in text:
        parser_nodes(text)
        return
    with _yaml_errors(text):
        raw_parse(_Loader(text))


def compose_nodes(text: str, budget: TreeBudget | None = None) -> list[Any]:
    """The composer's node graph of every document of the text within the parser's bounds
    (:func:`bound_nesting`)."""
    return parser_nodes(_bounded(text, budget))


def parser_nodes(text: str) -> list[Any]:
    """The YAML composer's node graph of every document of ``text`` (already within bounds).

    An anchor defined twice is valid YAML (an alias refers to the closest preceding definition)
    and Kubernetes, Flux and Argo CD read it so (``name: &name CF_ZONE_ID`` in each env entry);
    libyaml's composer refuses it, so such a text (up to ``_REDEFINING_MAX``) is composed again by
    :class:`_Redefining`.
    """
    with _yaml_errors(text), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return [node for node in yaml.compose_all(text, Loader=_Composer) if node is not None]
        except yaml.composer.ComposerError as exc:
            if exc.problem != "second occurrence" or len(text) > _REDEFINING_MAX:
                raise
            return [node for node in yaml.compose_all(text, Loader=_Redefining) if node is not None]


#: The largest text composed again in Python for a redefined anchor: that composer is some twenty
#: times slower than libyaml's, and the manifests that redefine anchors are a few kilobytes; a
#: larger text keeps the parse error.
_REDEFINING_MAX = 64 * 1024


class _Redefining(yaml.SafeLoader):
    """PyYAML's composer in Python (libyaml's cannot be told), where a second definition of an
    anchor replaces the first, as the YAML specification says."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        return _IMPLICIT

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if not isinstance(event, yaml.AliasEvent) and getattr(event, "anchor", None) is not None:
            self.anchors.pop(event.anchor, None)
        return super().compose_node(parent, index)


@contextlib.contextmanager
def _yaml_errors(text: str) -> Iterator[None]:
    """PyYAML's errors as SyntaxProblems at the place the parser gave up."""
    try:
        yield
    except yaml.MarkedYAMLError as exc:
        raise _located(exc) from None
    except yaml.YAMLError as exc:
        raise SyntaxProblem(f"invalid YAML: {_first_line(exc)}", _reader_pos(exc, text)) from None
    except RecursionError:
        raise SyntaxProblem("invalid YAML: nested too deeply", Pos()) from None


def _located(exc: Any) -> SyntaxProblem:
    mark = exc.problem_mark or exc.context_mark
    pos = Pos(mark.line + 1, mark.column + 1) if mark else Pos()
    return SyntaxProblem(f"invalid YAML: {exc.problem or exc.context}", pos)


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
    return position_at(text, index)


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


#: Explicit tags that type a scalar whatever its quotes (``!!bool "true"``): a quoted scalar
#: resolves to ``!!str`` unless one of these was written on it.
_TYPING_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("bool", "int", "float", "null"))


def _scalar(node: Any, pos: Pos) -> Any:
    """A plain scalar typed by the YAML 1.2 core schema; quoted or ``!!str`` stays a string, and a
    quoted scalar under an explicit ``!!bool``/``!!int``/``!!float``/``!!null`` is read as plain
    (the tag, not the quotes, decides for every YAML consumer)."""
    value: str = node.value
    style = node.style or ""
    tag = node.tag or ""
    if style in ("'", '"') and tag in _TYPING_TAGS:
        style = ""
    if style:
        return PStr(value, pos, style)
    typed = _core_type(value)
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


# ----- YAML events and YAML 1.1 values ----------------------------------------------------------
def events(data: bytes | str) -> Iterator[Any]:
    """The parser's events of ``data`` (PyYAML's event classes: ``yaml.MappingStartEvent`` ...),
    for readers that stop early (a kit's ``apiVersion`` and ``kind``); errors are SyntaxProblems."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    with _yaml_errors(text):  # what nests past the bounds is blanked: the top of the text still reads
        yield from yaml.parse(bound_nesting(text)[0], Loader=_Loader)


EVENT = yaml.events  # the event classes :func:`events` yields


def load_yaml11(text: str | bytes) -> Any:
    """The plain data (no positions) PyYAML's safe loader makes of a one-document ``text``, typed
    by YAML 1.1 as it types them (``no`` is False, ``1e3`` a string): for text sandkit wrote
    itself, or to ask what a YAML 1.1 reader makes of a value."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    with _yaml_errors(text):
        return yaml.load(_bounded(text, None), Loader=_Loader)  # the safe loader


# ----- round trip (kits) ------------------------------------------------------------------------
def load_round_trip(text: str) -> list[Any]:
    """Every document of ``text`` as ruamel.yaml's round-trip loader makes it (comments, key order
    and each value's line and column kept: what kits need to point at a field and be written
    back), within the parse layer's nesting bounds; duplicate keys are refused.

    Raises SyntaxProblem; its message starts with ``duplicate key`` for a repeated key.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    _, hits = bound_nesting(text)
    if hits:
        bound, index = hits[0]
        where = (
            f"a flow collection more than {MAX_DEPTH} levels deep"
            if bound == "depth"
            else (f"a line indented past column {MAX_BLOCK_COLUMN}")
        )
        raise SyntaxProblem(f"YAML is nested too deeply ({where})", position_at(text, index))
    loader = YAML(typ="rt")
    loader.allow_duplicate_keys = False
    try:
        return [d for d in loader.load_all(text) if d is not None]
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = Pos(mark.line + 1, mark.column + 1) if mark else Pos(0, 0)
        if "duplicate key" in str(exc):
            raise SyntaxProblem("duplicate key " + _duplicate_key_name(str(exc)), pos) from None
        raise SyntaxProblem(
            f"YAML syntax error: {(exc.problem or exc.context or 'invalid YAML').strip()}", pos
        ) from None
    except YAMLError as exc:
        raise SyntaxProblem(f"YAML error: {_first_line(exc)}", Pos(0, 0)) from None
    except RecursionError:
        raise SyntaxProblem(f"YAML is nested too deeply (more than {MAX_DEPTH} levels)", Pos(0, 0)) from None
    except ValueError:  # ruamel converts integers itself: one longer than Python converts stops it
        from sandkit.errors import long_integer_at

        raise SyntaxProblem("an integer too long to read (over 4,300 digits)", Pos(*long_integer_at(text))) from None


def _duplicate_key_name(message: str) -> str:
    marker = 'found duplicate key "'
    start = message.find(marker)
    if start < 0:
        return "(each key may appear once in a mapping)"
    end = message.find('"', start + len(marker))
    return f"{message[start + len(marker) : end]!r} (each key may appear once in a mapping)"
