"""TOML emitted from data (OpenHands' and Codex's config.toml), never from string templates.

Only what those files need: tables of scalars, arrays of scalars, and inline tables one level deep.
Every string is a basic string in printable ASCII with escapes for everything else, so no kit value
can end a string, a line or a table early; keys are bare only when TOML allows them to be.
"""

from __future__ import annotations

import math
import re
from typing import Any

from sandkit.compiler.escape import ascii_escaped

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def string(value: str) -> str:
    """A TOML basic string in printable ASCII (TOML has no \\x escape)."""
    return '"' + ascii_escaped(value, _ESCAPES, byte_escape=False) + '"'


def key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else string(name)


def value(item: Any) -> str:
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        if not math.isfinite(item):
            raise ValueError("sandkit never writes infinite or NaN numbers")
        return repr(item)
    if isinstance(item, str):
        return string(item)
    if isinstance(item, list | tuple):
        return "[" + ", ".join(value(v) for v in item) + "]"
    if isinstance(item, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(v)}" for k, v in item.items()) + " }" if item else "{}"
    raise TypeError(f"cannot write {type(item).__name__} as TOML")


def dump_toml(document: dict[str, Any]) -> str:
    """Top-level scalars first, then one ``[table]`` per mapping value (tables hold no sub-tables)."""
    lines = [f"{key(k)} = {value(v)}" for k, v in document.items() if not isinstance(v, dict)]
    for name, table in document.items():
        if isinstance(table, dict):
            if lines:
                lines.append("")
            lines.append(f"[{key(name)}]")
            lines += [f"{key(k)} = {value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"
