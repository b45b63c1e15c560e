"""YAML emitted from data structures, never from string templates.

A small block-style emitter for the plain data the targets build (dicts, lists, strings, numbers,
booleans, None). A string is written plain only when every YAML 1.1 and 1.2 reader takes it for that
same string; otherwise it is quoted (single quotes for printable ASCII, JSON-style double quotes for
an expression holding a quote and for anything else, so no control, bidi or non-ASCII character
reaches a file raw). It is several times faster than a general-purpose YAML library's emitter,
and what it writes is checked by loading it back with ruamel.yaml in the tests.

Two wrappers carry what plain data cannot say: ``LiteralBlock`` (a script of sandkit's own, shown as
a ``|`` block) and ``Commented`` (a scalar with sandkit's note after it on the same line, such as an
action pin's version or a reasoned lint suppression). Comments are written here, never patched into
the text afterwards.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from sandkit.compiler.escape import ascii_escaped

_PLAIN = re.compile(r"[A-Za-z_/$][A-Za-z0-9 _./@:=,+()$~*-]*")
_RESERVED_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"})
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")


class LiteralBlock(str):
    """Text that sandkit itself wrote (a script), shown as a ``|`` block; never wrap a kit value in it."""


Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class Commented:
    """``value  # comment`` on one line: a note of sandkit's own beside a scalar (``gap`` spaces before ``#``),
    or after ``key:`` above a mapping or list (where a linter reads a suppression for the key's line).

    Readers see only ``value``. The comment is one line of printable ASCII, so it cannot end the line
    early or start a key; never put a kit value in it.
    """

    value: Scalar | dict[str, Any] | list[Any]
    comment: str
    gap: int = 1

    def __post_init__(self) -> None:
        if not _PRINTABLE_ASCII.fullmatch(self.comment) or self.gap < 1:
            raise ValueError(f"a YAML comment is one line of printable ASCII after a space: {self.comment!r}")

    def text(self) -> str:
        return f"{scalar(self.value)}{' ' * self.gap}# {self.comment}"


def _is_plain(text: str) -> bool:
    return (
        bool(_PLAIN.fullmatch(text))
        and text.lower() not in _RESERVED_WORDS
        and ": " not in text
        and " #" not in text
        and not text.endswith((":", " "))
    )


def scalar(value: object) -> str:
    """One scalar as YAML text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("sandkit never writes infinite or NaN numbers")
        text = repr(value)
        mantissa, _, exponent = text.partition("e")
        if "." not in mantissa:  # YAML 1.1 readers need the dot: 1e+16 -> 1.0e+16
            mantissa += ".0"
        return f"{mantissa}e{exponent}" if exponent else mantissa
    if isinstance(value, str):
        if _is_plain(value):
            return value
        # An expression's own string literals keep their quotes as written: tools that read the
        # workflow's text (zizmor) take '' in a single-quoted scalar for two quotes.
        if _PRINTABLE_ASCII.fullmatch(value) and not ("${{" in value and "'" in value):
            return "'" + value.replace("'", "''") + "'"
        return _double_quoted(value)
    raise TypeError(f"cannot write {type(value).__name__} as YAML")


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _double_quoted(value: str) -> str:
    """A YAML double-quoted scalar in ASCII: \\xXX, \\uXXXX or \\UXXXXXXXX for everything else."""
    return '"' + ascii_escaped(value, _ESCAPES, byte_escape=True) + '"'


def _literal(value: LiteralBlock, indent: str) -> str | None:
    """A ``|`` block for our own scripts, or None when the text cannot be one exactly."""
    lines = value.split("\n")
    first = next((line for line in lines if line), "")
    # A block's indentation is read from its first non-empty line, so that line must not start indented.
    if not value.strip() or first.startswith(" ") or not all(_PRINTABLE_ASCII.fullmatch(line) for line in lines):
        return None
    if any(line and not line.strip() for line in lines):
        return None  # a line of only spaces is ambiguous inside a block
    if value.endswith("\n\n"):
        return None
    head = "|" if value.endswith("\n") else "|-"
    body = lines[:-1] if value.endswith("\n") else lines
    return head + "".join("\n" + (indent + line if line else "") for line in body)


def _value(value: Any, indent: str) -> str:
    """The text after ``key:`` or ``- `` for a nested or scalar value (with its leading space/newline)."""
    if isinstance(value, dict):
        return " {}" if not value else "\n" + _mapping(value, indent + "  ")
    if isinstance(value, list):
        return " []" if not value else "\n" + _sequence(value, indent + "  ")
    if isinstance(value, LiteralBlock):
        block = _literal(value, indent + "  ")
        if block is not None:
            return " " + block
    if isinstance(value, Commented) and isinstance(value.value, (dict, list)) and value.value:
        return f"{' ' * value.gap}# {value.comment}" + _value(value.value, indent)
    if isinstance(value, Commented):
        return " " + value.text()
    return " " + scalar(value)


def _mapping(data: dict[Any, Any], indent: str) -> str:
    lines = []
    for key, value in data.items():
        if not isinstance(key, str):
            raise TypeError("mapping keys are strings")
        lines.append(f"{indent}{scalar(key)}:{_value(value, indent)}")
    return "\n".join(lines)


def _sequence(items: list[Any], indent: str) -> str:
    lines = []
    for item in items:
        if isinstance(item, dict) and item:
            nested = _mapping(item, indent + "  ")
            lines.append(f"{indent}- {nested[len(indent) + 2 :]}")
        elif isinstance(item, list) and item:
            nested = _sequence(item, indent + "  ")
            lines.append(f"{indent}- {nested[len(indent) + 2 :]}")
        else:
            lines.append(f"{indent}-{_value(item, indent)}")
    return "\n".join(lines)


def _document(data: object) -> str:
    if isinstance(data, dict):
        return (_mapping(data, "") if data else "{}") + "\n"
    if isinstance(data, list):
        return (_sequence(data, "") if data else "[]") + "\n"
    return scalar(data) + "\n"


def dump_yaml(data: object, *, documents: bool = False) -> str:
    """Block-style YAML, keys in insertion order, ASCII only; ``documents``: a list written as a ``---`` stream."""
    if documents:
        if not isinstance(data, list):
            raise TypeError("a YAML stream is written from a list of documents")
        return "".join("---\n" + _document(item) for item in data)
    return _document(data)
