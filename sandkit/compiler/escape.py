"""Escaping for every output language, so that no kit value can become syntax.

Each function returns text that a parser of that language reads back as exactly one value equal to
the input. Free text never reaches an output through anything else.
"""

from __future__ import annotations

import json


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
