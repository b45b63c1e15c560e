"""Escaping for every output language, so that no kit value can become syntax.

Each function returns text that a parser of that language reads back as exactly one value equal to
the input. Free text never reaches an output through anything else.
"""

from __future__ import annotations

import json
from collections.abc import Mapping


def sh_quote(value: str) -> str:
    """POSIX shell single quotes: every byte literal, a quote itself as '"'"'."""
    return "'" + value.replace("'", "'\"'\"'") + "'"


def json_string(value: str) -> str:
    """A JSON string with every non-ASCII character escaped (no bidi or NEL reaches the file raw)."""
    return json.dumps(value, ensure_ascii=True)


def json_array(values: list[str] | tuple[str, ...]) -> str:
    """A Dockerfile exec-form array: a JSON list, one line, ASCII only."""
    return "[" + ", ".join(json_string(v) for v in values) + "]"


def compose_literal(value: str) -> str:
    """Compose interpolates ``$VAR``; ``$$`` is a literal dollar."""
    return value.replace("$", "$$")


def ascii_escaped(value: str, escapes: Mapping[str, str], *, byte_escape: bool) -> str:
    """``value`` in printable ASCII: ``escapes`` first, then ``\\xNN`` (when the language has it),
    ``\\uNNNN`` or ``\\UNNNNNNNN`` for every other character outside 0x20-0x7E (YAML's and TOML's
    double-quoted strings share this form)."""
    out = []
    for char in value:
        code = ord(char)
        if char in escapes:
            out.append(escapes[char])
        elif 0x20 <= code <= 0x7E:
            out.append(char)
        elif code <= 0xFF and byte_escape:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)
