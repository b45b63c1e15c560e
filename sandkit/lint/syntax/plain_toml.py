"""A reader for the TOML configuration files are usually written in, without importing tomllib.

tomllib is pure Python, and importing it (with typing, datetime, string and its own number and
date patterns) takes some 14 ms, a third of a pre-commit run's budget, in every run of a
repository configured in .sandkit.toml or pyproject.toml. This module reads tables, arrays of
tables, and keys set to strings, integers, booleans, arrays and inline tables, and gives what
``tomllib.loads`` gives. Anything else returns None and tomllib reads the text: floats, dates,
multi-line strings, dotted keys, other integer forms, carriage returns and control characters,
and every redefinition or other error, so that tomllib's message is the one reported.
tests/lint/test_plain_toml.py compares the two on real files, mutations and generated documents.
"""

from __future__ import annotations

from sandkit.lean_typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_BARE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_DIGITS = frozenset("0123456789")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
_MAX_DEPTH = 32  # arrays and inline tables inside one another; deeper ones go to tomllib
_MAX_DIGITS = 4000  # longer integers go to tomllib (Python converts up to 4,300 digits)
MAX_TEXT = 65_536  # longer texts go to tomllib: this module is for configuration files


class _Outside(Exception):
    """The text uses TOML this module leaves to tomllib (or is not valid TOML)."""


def loads(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)``, or None when the text is not the subset this module reads."""
    if len(text) > MAX_TEXT or not text.replace("\n", "").replace("\t", "").isprintable():
        return None  # control characters (invalid, or a carriage return) and Unicode separators
    try:
        return _Parser(text).document()
    except (_Outside, IndexError):
        return None


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.fixed: set[int] = set()  # inline tables and arrays: complete as written
        self.headed: set[int] = set()  # tables a [header] has opened
        self.arrays: set[int] = set()  # arrays of tables ([[header]])
        self.depth = 0

    # ----- document structure -----------------------------------------------------------------
    def document(self) -> dict[str, Any]:
        root: dict[str, Any] = {}
        table = root
        text = self.text
        while True:
            self._blank_lines()
            if self.at >= len(text):
                return root
            if text[self.at] == "[":
                table = self._header(root)
            else:
                self._assignment(table)
            self._line_end()

    def _assignment(self, table: dict[str, Any]) -> None:
        """``key = value`` into ``table``; a key it already has is tomllib's error to report."""
        key = self._key()
        self._spaces()
        self._expect("=")
        self._spaces()
        value = self._value()
        if key in table:
            raise _Outside
        table[key] = value

    def _header(self, root: dict[str, Any]) -> dict[str, Any]:
        text = self.text
        array = text.startswith("[[", self.at)
        self.at += 2 if array else 1
        path = [self._spaced_key()]
        while text[self.at] == ".":
            self.at += 1
            path.append(self._spaced_key())
        self._expect("]]" if array else "]")
        table = root
        for key in path[:-1]:
            table = self._descend(table, key)
        last = path[-1]
        if array:
            entries = table.get(last)
            if entries is None:
                entries = table[last] = []
                self.arrays.add(id(entries))
            elif id(entries) not in self.arrays:
                raise _Outside  # a key or table of that name is already there
            entry: dict[str, Any] = {}
            entries.append(entry)
            self.headed.add(id(entry))
            return entry
        opened = self._descend(table, last)
        if id(opened) in self.headed:
            raise _Outside  # a table defined twice
        self.headed.add(id(opened))
        return opened

    def _descend(self, table: dict[str, Any], key: str) -> dict[str, Any]:
        """The table at ``key`` of ``table`` (made if absent), or an array of tables' last entry."""
        value = table.get(key)
        if value is None:
            value = table[key] = {}
            return value
        if isinstance(value, list) and id(value) in self.arrays:
            return value[-1]  # type: ignore[no-any-return]
        if isinstance(value, dict) and id(value) not in self.fixed:
            return value
        raise _Outside

    # ----- lines and blanks -------------------------------------------------------------------
    def _spaces(self) -> None:
        text, at = self.text, self.at
        while at < len(text) and text[at] in " \t":
            at += 1
        self.at = at

    def _comment(self) -> None:
        if self.at < len(self.text) and self.text[self.at] == "#":
            end = self.text.find("\n", self.at)
            self.at = len(self.text) if end < 0 else end

    def _blank_lines(self) -> None:
        """Spaces, comments and line breaks (between statements and inside arrays)."""
        text = self.text
        while True:
            self._spaces()
            self._comment()
            if self.at < len(text) and text[self.at] == "\n":
                self.at += 1
                continue
            return

    def _line_end(self) -> None:
        self._spaces()
        self._comment()
        if self.at < len(self.text):
            self._expect("\n")

    def _expect(self, literal: str) -> None:
        if not self.text.startswith(literal, self.at):
            raise _Outside
        self.at += len(literal)

    # ----- keys ---------------------------------------------------------------------------------
    def _spaced_key(self) -> str:
        self._spaces()
        key = self._simple_key()
        self._spaces()
        return key

    def _key(self) -> str:
        key = self._simple_key()
        self._spaces()
        if self.text[self.at] == ".":
            raise _Outside  # dotted keys are left to tomllib
        return key

    def _simple_key(self) -> str:
        text = self.text
        quoted = self._quoted()
        if quoted is not None:
            return quoted
        start = self.at
        while self.at < len(text) and text[self.at] in _BARE:
            self.at += 1
        if self.at == start:
            raise _Outside
        return text[start : self.at]

    # ----- values -------------------------------------------------------------------------------
    def _quoted(self) -> str | None:
        """The basic or literal string starting here, or None if none does."""
        char = self.text[self.at]
        if char == '"':
            return self._basic_string()
        if char == "'":
            return self._literal_string()
        return None

    def _value(self) -> Any:
        text = self.text
        quoted = self._quoted()
        if quoted is not None:
            return quoted
        char = text[self.at]
        if char == "[":
            return self._nested(self._array)
        if char == "{":
            return self._nested(self._inline_table)
        for word, value in (("true", True), ("false", False)):
            if text.startswith(word, self.at):
                self.at += len(word)
                self._delimited()
                return value
        return self._integer()

    def _delimited(self) -> None:
        """What follows a bare value must end it (no "truex", no "1.5" read as 1)."""
        if self.at < len(self.text) and self.text[self.at] not in " \t\n#,]}":
            raise _Outside

    def _integer(self) -> int:
        text = self.text
        start = self.at
        if text[self.at] in "+-":
            self.at += 1
        digits = self.at
        while self.at < len(text) and text[self.at] in _DIGITS:
            self.at += 1
        count = self.at - digits
        if not count or count > _MAX_DIGITS or (text[digits] == "0" and count > 1):
            raise _Outside  # no digits, a leading zero, or more than Python converts
        self._delimited()
        return int(text[start : self.at])

    def _basic_string(self) -> str:
        text = self.text
        if text.startswith('"""', self.at):
            raise _Outside
        self.at += 1
        parts = []
        start = self.at
        while True:
            char = text[self.at]
            if char == '"':
                parts.append(text[start : self.at])
                self.at += 1
                return "".join(parts)
            if char == "\n":
                raise _Outside
            if char == "\\":
                parts.append(text[start : self.at])
                parts.append(self._escape())
                start = self.at
                continue
            self.at += 1

    def _escape(self) -> str:
        text = self.text
        code = text[self.at + 1]
        if code in _ESCAPES:
            self.at += 2
            return _ESCAPES[code]
        width = {"u": 4, "U": 8}.get(code)
        digits = text[self.at + 2 : self.at + 2 + width] if width else ""
        if not width or len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
            raise _Outside
        number = int(digits, 16)
        if number > 0x10FFFF or 0xD800 <= number <= 0xDFFF:
            raise _Outside
        self.at += 2 + width
        return chr(number)

    def _literal_string(self) -> str:
        text = self.text
        if text.startswith("'''", self.at):
            raise _Outside
        end = text.find("'", self.at + 1)
        line_end = text.find("\n", self.at + 1)
        if end < 0 or 0 <= line_end < end:
            raise _Outside
        value = text[self.at + 1 : end]
        self.at = end + 1
        return value

    def _nested(self, read: Any) -> Any:
        if self.depth >= _MAX_DEPTH:
            raise _Outside
        self.depth += 1
        value = read()
        self.depth -= 1
        self.fixed.add(id(value))
        return value

    def _array(self) -> list[Any]:
        text = self.text
        self.at += 1
        items: list[Any] = []
        while True:
            self._blank_lines()
            if text[self.at] == "]":
                self.at += 1
                return items
            items.append(self._value())
            self._blank_lines()
            if text[self.at] == ",":
                self.at += 1
                continue
            self._expect("]")
            return items

    def _inline_table(self) -> dict[str, Any]:
        text = self.text
        self.at += 1
        table: dict[str, Any] = {}
        self._spaces()
        if text[self.at] == "}":
            self.at += 1
            return table
        while True:
            self._spaces()
            self._assignment(table)
            self._spaces()
            if text[self.at] == ",":
                self.at += 1
                continue
            self._expect("}")
            return table
