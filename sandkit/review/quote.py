"""Showing values that come from kits (hostile ones included) in a terminal and in Markdown.

A kit value may hold newlines, terminal escapes, bidi controls, backticks, pipes or HTML. In a
terminal it is shown with those escaped, whole (a reviewer must see all of what they approve); in
Markdown (a pull-request comment) it is always a code span whose fence is longer than any backtick
run inside, with pipes escaped for tables, so it can neither format the comment, nor mention anyone,
nor hide text. Long values are cut there, where GitHub bounds a comment's size.
"""

from __future__ import annotations

import re
import unicodedata

MAX_VALUE = 200
_PLAIN = re.compile(r"[\w.:*@/=+~,()<>^-]+")


def _visible(value: str, limit: int | None = MAX_VALUE) -> str:
    """Control, format (bidi, zero-width) and separator characters as \\uXXXX; values longer than
    ``limit`` cut (None: never)."""
    out = []
    for char in value:
        category = unicodedata.category(char)
        if char in "\n\t":
            out.append("\\n" if char == "\n" else "\\t")
        elif category in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"):
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    text = "".join(out)
    if limit is not None and len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit} more characters)"
    return text


def text(value: str) -> str:
    """Free text for a terminal line of its own: escaped, not quoted, never cut."""
    return _visible(value, None)


def terminal(value: str) -> str:
    """A value for a terminal: bare when it is one plain word, double-quoted with escapes otherwise;
    never cut."""
    if _PLAIN.fullmatch(value):
        return value
    return '"' + _visible(value.replace("\\", "\\\\").replace('"', '\\"'), None) + '"'


def md_code(value: str, table: bool = True) -> str:
    """A Markdown code span that shows ``value`` literally (in a table cell: pipes escaped)."""
    shown = _visible(value)
    if table:
        shown = shown.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def md_block(text: str) -> str:
    """A fenced code block holding ``text`` literally (each line made visible)."""
    lines = [_visible(line) for line in text.splitlines()] or [""]
    body = "\n".join(lines)
    longest = max((len(run) for run in re.findall(r"`{3,}", body)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}"
