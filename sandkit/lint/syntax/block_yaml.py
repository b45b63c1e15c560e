"""A composer for the block YAML most configuration files are written in, without PyYAML.

Importing PyYAML (twenty modules, ninety classes, its C extension, datetime) takes about as long
as a pre-commit run's whole budget for checking ten files. Most YAML a hook is given is block
mappings and sequences of one-line scalars, ``|`` blocks and one-line ``[a, b]`` lists, which
this module composes into the same node graph libyaml gives (kind, value, start mark, style), for
:class:`sandkit.lint.syntax.yaml._Converter` to turn into positioned data.

Anything else returns None and libyaml composes the text: non-ASCII or control characters, tabs,
anchors, aliases, tags, flow mappings, folded or indented block scalars, multi-line plain or
quoted scalars, directives, ``...``, complex keys, and any indentation it does not expect. So
this module never decides that text is invalid YAML; it only says "this is the subset, and here
is its graph". tests/lint/test_block_yaml.py compares the two composers on every YAML file of
the test data and on generated documents.
"""

from __future__ import annotations

MAX_TEXT = 16_384  # longer texts go to libyaml (faster on them): this module is for small files
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./$@+=~() ")
_KEY_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./$")
_PLAIN_FORBIDDEN_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_PLAIN_FORBIDDEN = frozenset(",[]{}#'\":")
_MAX_KEY = 200  # libyaml's simple keys end at 1,024 characters; longer ones go to libyaml
_MAX_LEVELS = 60  # collections inside one another (Python recursion); deeper ones go to libyaml


class Mark:
    """Where a node starts, 0-based, as libyaml's marks are."""

    __slots__ = ("column", "line")

    def __init__(self, line: int, column: int) -> None:
        self.line = line
        self.column = column


class Node:
    """A composed node: ``id`` is "scalar", "mapping" or "sequence"; a mapping's value is a list
    of (key, value) node pairs, a sequence's a list of nodes; ``style`` is "" for plain."""

    __slots__ = ("id", "start_mark", "style", "tag", "value")

    def __init__(self, kind: str, value: object, line: int, column: int, style: str = "") -> None:
        self.id = kind
        self.value = value
        self.start_mark = Mark(line, column)
        self.style = style
        self.tag = "?implicit"  # what the libyaml composer is told for every implicit tag


class _Outside(Exception):
    """The text uses YAML this module leaves to libyaml."""


def compose(text: str) -> list[Node] | None:
    """Every document's node of ``text``, or None when it is not the block subset."""
    if len(text) > MAX_TEXT or not text.isascii() or not text.replace("\n", "").isprintable():
        return None  # tabs, CR, control and non-ASCII characters change how libyaml counts
    try:
        return _Composer(text.split("\n")).documents()
    except _Outside:
        return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_content(line: str) -> bool:
    stripped = line.lstrip(" ")
    return bool(stripped) and stripped[0] != "#"


def _is_entry(line: str, column: int) -> bool:
    """A block sequence entry ``-`` at ``column``."""
    return line.startswith("-", column) and (len(line) == column + 1 or line[column + 1] == " ")


def _after_comment(rest: str) -> bool:
    """Whether ``rest``, what follows a scalar on its line, is blank or a comment."""
    stripped = rest.lstrip(" ")
    return not stripped or (stripped[0] == "#" and len(stripped) < len(rest))


class _Composer:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.row = 0  # the line being read
        self.levels = 0  # collections open around the one being read

    # ----- lines -----------------------------------------------------------------------------
    def _next_content(self) -> int | None:
        """The next line holding content at or after ``self.row`` (moving there), else None."""
        lines = self.lines
        while self.row < len(lines):
            line = lines[self.row]
            if _is_content(line):
                if line.startswith(("---", "...", "%")):
                    return None  # a document marker or directive: the caller decides
                return self.row
            self.row += 1
        return None

    def documents(self) -> list[Node]:
        nodes: list[Node] = []
        lines = self.lines
        marked = False  # a "---" line was read and its document not yet
        while True:
            row = self._next_content()
            if row is not None:
                nodes.append(self._block(0, row, _indent(lines[row])))
                if self._next_content() is not None:
                    raise _Outside  # more content than one node: an error libyaml reports
                marked = False
                continue
            if self.row >= len(lines):
                if marked:
                    raise _Outside  # "---" and nothing after it: libyaml's empty document
                return nodes
            if marked or lines[self.row].rstrip(" ") != "---":
                raise _Outside  # an empty document, "...", a directive, or content after "---"
            marked = True
            self.row += 1

    # ----- block collections -----------------------------------------------------------------
    def _block(self, minimum: int, row: int, column: int) -> Node:
        """The collection whose first entry starts at (row, column), column >= minimum."""
        if column < minimum or self.levels >= _MAX_LEVELS:
            raise _Outside
        self.levels += 1
        line = self.lines[row]
        node = self._sequence(row, column) if _is_entry(line, column) else self._mapping(row, column)
        self.levels -= 1
        return node

    def _sequence(self, row: int, column: int, in_mapping: bool = False) -> Node:
        items: list[Node] = []
        node = Node("sequence", items, row, column)
        lines = self.lines
        while True:
            at = self._next_content()
            if at is None:
                return node
            line = lines[at]
            indent = _indent(line)
            if indent < column:
                return node
            if indent > column:
                raise _Outside
            if not _is_entry(line, column):
                if in_mapping:
                    return node  # the next key of the mapping this sequence is a value of
                raise _Outside
            items.append(self._entry(at, column))

    def _entry(self, row: int, column: int) -> Node:
        line = self.lines[row]
        start = column + 1
        while start < len(line) and line[start] == " ":
            start += 1
        rest = line[start:]
        if not rest or rest[0] == "#":
            self.row = row + 1
            return self._nested_or_empty(column, row, column + 1)
        if _is_entry(line, start):
            raise _Outside  # "- - a": left to libyaml
        if self._key_end(line, start) is not None:
            return self._mapping(row, start)
        return self._value(row, start, column)

    def _mapping(self, row: int, column: int) -> Node:
        pairs: list[tuple[Node, Node]] = []
        node = Node("mapping", pairs, row, column)
        lines = self.lines
        self.row = row
        first = True
        while True:
            if first:
                at: int | None = row
                first = False
            else:
                at = self._next_content()
            if at is None:
                return node
            line = lines[at]
            if at != row:
                indent = _indent(line)
                if indent < column:
                    return node
                if indent > column or _is_entry(line, column):
                    raise _Outside
            end = self._key_end(line, column)
            if end is None:
                raise _Outside
            key = self._key(at, column, end)
            start = end + 1
            while start < len(line) and line[start] == " ":
                start += 1
            if start >= len(line) or line[start] == "#":
                self.row = at + 1
                value = self._nested_or_empty(column, at, end + 1, mapping=True)
            else:
                value = self._value(at, start, column)
            pairs.append((key, value))

    def _nested_or_empty(self, column: int, row: int, empty_at: int, mapping: bool = False) -> Node:
        """The block node of an entry or value left empty on its line: the collection on the
        lines below, more indented (or, for a mapping's value, a sequence at the key's own
        column), else an empty scalar."""
        at = self._next_content()
        if at is not None:
            line = self.lines[at]
            indent = _indent(line)
            if indent > column:
                return self._block(column + 1, at, indent)
            if mapping and indent == column and _is_entry(line, column):
                return self._sequence(at, column, in_mapping=True)
        return Node("scalar", "", row, empty_at)  # libyaml marks it just after the ":" or "-"

    # ----- keys and scalars ------------------------------------------------------------------
    @staticmethod
    def _key_end(line: str, column: int) -> int | None:
        """The index of the ``:`` that ends a plain key starting at ``column``, if the line is
        ``key:`` or ``key: ...`` with a key of the characters this module reads."""
        if column >= len(line) or line[column] not in _KEY_START:
            return None
        index = column
        limit = min(len(line), column + _MAX_KEY)
        while index < limit:
            char = line[index]
            if char == ":":
                if index + 1 == len(line) or line[index + 1] == " ":
                    return index if line[index - 1] != " " else None
            elif char not in _KEY_CHARS:
                return None
            index += 1
        return None

    def _key(self, row: int, column: int, end: int) -> Node:
        return Node("scalar", self.lines[row][column:end], row, column)

    def _value(self, row: int, start: int, parent: int) -> Node:
        """The scalar or flow sequence starting at (row, start) of a block at column ``parent``;
        the lines after it must not continue it."""
        line = self.lines[row]
        char = line[start]
        if char == "|":
            return self._literal(row, start, parent)
        if char == "[":
            node = self._flow_sequence(row, start)
        elif char in "'\"":
            node = self._quoted(row, start)
        elif char in _PLAIN_FORBIDDEN_START and not (char == "-" and line[start + 1 : start + 2] not in ("", " ")):
            raise _Outside
        else:
            node = self._plain(row, start)
        self._value_ends(row + 1, parent)
        return node

    def _value_ends(self, row: int, parent: int) -> None:
        """Reading on from ``row``, a scalar of a block at column ``parent`` is over: no content
        line below it is indented deeper (a continuation, or an error libyaml reports)."""
        self.row = row
        following = self._next_content()
        if following is not None and _indent(self.lines[following]) > parent:
            raise _Outside

    def _plain(self, row: int, start: int) -> Node:
        line = self.lines[row]
        comment = line.find(" #", start)
        text = (line[start:] if comment < 0 else line[start:comment]).rstrip(" ")
        if ": " in text or text.endswith(":"):
            raise _Outside
        return Node("scalar", text, row, start)

    def _quoted(self, row: int, start: int) -> Node:
        line = self.lines[row]
        quote = line[start]
        index = start + 1
        while True:
            end = line.find(quote, index)
            if end < 0:
                raise _Outside  # continues on the next line
            if quote == "'" and line[end + 1 : end + 2] == "'":
                index = end + 2
                continue
            break
        inner = line[start + 1 : end]
        if quote == '"' and "\\" in inner:
            raise _Outside  # escapes are left to libyaml
        if not _after_comment(line[end + 1 :]):
            raise _Outside
        value = inner.replace("''", "'") if quote == "'" else inner
        return Node("scalar", value, row, start, quote)

    def _flow_sequence(self, row: int, start: int) -> Node:
        line = self.lines[row]
        close = line.find("]", start)
        if close < 0 or not _after_comment(line[close + 1 :]):
            raise _Outside
        items: list[Node] = []
        index = start + 1
        body_end = close
        while True:
            while index < body_end and line[index] == " ":
                index += 1
            if index == body_end:
                if items:
                    raise _Outside  # a trailing comma
                break
            char = line[index]
            if char in "'\"":
                end = line.find(char, index + 1)
                if end < 0 or end > body_end or (char == "'" and line[end + 1 : end + 2] == "'"):
                    raise _Outside
                inner = line[index + 1 : end]
                if (char == '"' and "\\" in inner) or any(c in inner for c in "[]{},#"):
                    raise _Outside
                items.append(Node("scalar", inner, row, index, char))
                index = end + 1
            else:
                end = index
                while end < body_end and line[end] != ",":
                    end += 1
                text = line[index:end].rstrip(" ")
                if not text or char in _PLAIN_FORBIDDEN_START or any(c in _FLOW_PLAIN_FORBIDDEN for c in text):
                    raise _Outside
                items.append(Node("scalar", text, row, index))
                index = end
            while index < body_end and line[index] == " ":
                index += 1
            if index == body_end:
                break
            if line[index] != ",":
                raise _Outside
            index += 1
        return Node("sequence", items, row, start)

    def _literal(self, row: int, start: int, parent: int) -> Node:
        """A ``|`` or ``|-`` block: its lines are those after it indented as its first one."""
        lines = self.lines
        header = lines[row][start + 1 :]
        strip = header.startswith("-")
        if not _after_comment(header[1:] if strip else header) or (header and header[strip:][:1] not in ("", " ")):
            raise _Outside  # "|+", an indentation indicator, or text after the indicator
        first = row + 1
        if first >= len(lines) or not lines[first].strip(" "):
            raise _Outside  # leading blank lines or an empty block: left to libyaml
        width = _indent(lines[first])
        if width <= parent:
            raise _Outside
        body: list[str] = []
        end = first
        while end < len(lines):
            line = lines[end]
            if line.strip(" "):
                if _indent(line) < width:
                    break
                body.append(line[width:])
            elif len(line) > width:
                raise _Outside  # a line of spaces only, longer than the indentation
            else:
                body.append("")
            end += 1
        while body and not body[-1]:
            body.pop()
        last = first + len(body) - 1
        if last == len(lines) - 1:
            raise _Outside  # the text ends without a line break: left to libyaml
        value = "\n".join(body) + ("" if strip else "\n")
        self._value_ends(last + 1, parent)
        return Node("scalar", value, row, start, "|")
