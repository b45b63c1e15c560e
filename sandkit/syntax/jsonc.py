"""JSON with comments and trailing commas (devcontainer.json, VS Code and agent settings).

A small recursive-descent parser, because the standard ``json`` module keeps no positions
and rejects the comments and trailing commas these files are allowed to have (strict JSON
without positions is ``json.loads``'s: :attr:`sandkit.lint.source.SourceFile.plain_json`).
It reads ``MAX_NESTING`` levels and refuses deeper text.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from sandkit.syntax.tree import MAX_NESTING, PMap, Pos, PSeq, PStr, SyntaxProblem
from sandkit.syntax.tree import number as integer  # `number` names the literal's text below

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_STRING_RUN = re.compile(r'[^"\\\n]*')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = {"true": True, "false": False, "null": None}


def load_jsonc(text: str) -> Any:
    """Parse one JSONC document into positioned data; raises SyntaxProblem."""
    return _Parser(text).document()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def pos(self, index: int | None = None) -> Pos:
        index = self.i if index is None else index
        line = bisect.bisect_right(self.line_starts, index)
        return Pos(line, index - self.line_starts[line - 1] + 1)

    def fail(self, message: str) -> SyntaxProblem:
        return SyntaxProblem(f"invalid JSON: {message}", self.pos())

    def document(self) -> Any:
        if self.text.startswith("\ufeff"):
            self.i = 1
        self.skip()
        value = self.value(0)
        self.skip()
        if self.i != len(self.text):
            raise self.fail("unexpected text after the document")
        return value

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.i < n:
            ch = text[self.i]
            if ch in " \t\r\n":
                self.i += 1
            elif text.startswith("//", self.i):
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end + 1
            elif text.startswith("/*", self.i):
                end = text.find("*/", self.i + 2)
                if end < 0:
                    raise self.fail("unterminated comment")
                self.i = end + 2
            else:
                return

    def value(self, depth: int) -> Any:
        if depth > MAX_NESTING:
            raise self.fail("nested too deeply")
        if self.i >= len(self.text):
            raise self.fail("unexpected end of file")
        ch = self.text[self.i]
        if ch == "{":
            return self.obj(depth)
        if ch == "[":
            return self.array(depth)
        if ch == '"':
            return self.string()
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, self.i):
                self.i += len(word)
                return literal
        match = _NUMBER.match(self.text, self.i)
        if match:
            self.i = match.end()
            number = match.group()
            return float(number) if any(c in number for c in ".eE") else integer(number)
        raise self.fail(f"unexpected character {ch!r}")

    def obj(self, depth: int) -> PMap:
        result = PMap(self.pos())
        self.i += 1
        while True:
            self.skip()
            if self.peek() == "}":
                self.i += 1
                return result
            if self.peek() != '"':
                raise self.fail("expected a quoted key or '}'")
            key_pos = self.pos()
            key = self.string()
            self.skip()
            if self.peek() != ":":
                raise self.fail("expected ':' after a key")
            self.i += 1
            self.skip()
            value_pos = self.pos()
            result[key] = self.value(depth + 1)
            result.key_pos[key] = key_pos
            result.value_pos[key] = value_pos
            if not self.separator("}"):
                return result

    def array(self, depth: int) -> PSeq:
        result = PSeq(self.pos())
        self.i += 1
        while True:
            self.skip()
            if self.peek() == "]":
                self.i += 1
                return result
            result.item_pos.append(self.pos())
            result.append(self.value(depth + 1))
            if not self.separator("]"):
                return result

    def separator(self, closer: str) -> bool:
        """Consume ',' (True: more may follow) or the closer (False: container done)."""
        self.skip()
        ch = self.peek()
        if ch == ",":
            self.i += 1
            return True
        if ch == closer:
            self.i += 1
            return False
        raise self.fail(f"expected ',' or {closer!r}")

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def string(self) -> PStr:
        start = self.pos()
        self.i += 1
        first = self.i
        parts: list[str] = []
        shifts: list[tuple[int, int]] = []
        length = 0
        text = self.text
        while True:
            run = _STRING_RUN.match(text, self.i)
            assert run is not None  # the pattern matches the empty string
            parts.append(run.group())
            length += len(parts[-1])
            self.i = run.end()
            ch = self.peek()
            if ch == '"':
                self.i += 1
                return PStr("".join(parts), start, '"', tuple(shifts))
            if ch == "\\":
                parts.append(self.escape())
                length += len(parts[-1])
                shifts.append((length, self.i - first - length))
            else:
                raise self.fail("unterminated string")

    def escape(self) -> str:
        code = self.text[self.i + 1 : self.i + 2]
        if code in _ESCAPES:
            self.i += 2
            return _ESCAPES[code]
        if code == "u":
            unit = self._unit(self.i)
            if unit is not None:
                self.i += 6
                low = self._unit(self.i) if 0xD800 <= unit <= 0xDBFF else None
                if low is not None and 0xDC00 <= low <= 0xDFFF:  # a surrogate pair is one character
                    self.i += 6
                    return chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                return chr(unit)
        raise self.fail("invalid escape in a string")

    def _unit(self, at: int) -> int | None:
        """The code unit of a ``\\uXXXX`` escape at ``at``, if one is there."""
        digits = self.text[at + 2 : at + 6]
        if self.text[at : at + 2] == "\\u" and len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
            return int(digits, 16)
        return None


def load_json(text: str) -> Any:
    """A strict JSON document as plain data (``json``'s C parser: no positions, many times faster
    than :func:`load_jsonc`); NaN, Infinity, a number too long to convert and nesting past the
    interpreter's recursion are SyntaxProblems, as is any other error."""
    import json

    try:
        return json.loads(text, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise SyntaxProblem(f"invalid JSON: {exc.msg}", Pos(exc.lineno, exc.colno)) from None
    except (ValueError, RecursionError) as exc:  # NaN or Infinity, a huge integer, nested too deep
        raise SyntaxProblem(f"invalid JSON: {exc or type(exc).__name__}", Pos()) from None


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")
