"""Words a file spells only through escapes, for the rules' trigger words.

A rule reads a file only when the file's text holds one of its trigger words (``privileged``,
``host``, ``cap`` ...). JSON (``"\\u0070rivileged": true``) and YAML double-quoted scalars
(``"\\x68ostNetwork": true``, an escaped line break inside a word) let a key or value be written
without its letters, and every consumer (kubectl and the API server, compose-go, the Dev
Containers CLI) decodes it back. :func:`unescaped_text` gives the keys and strings of such a
file as parsed, so the trigger test sees what the consumer sees.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sandkit.lint.syntax.tree import PMap, PSeq, SyntaxProblem

if TYPE_CHECKING:
    from sandkit.lint.source import SourceFile

#: An escape that can stand for a letter: JSON's and YAML's \u, YAML's \x, \U and \N (next line,
#: a break), and a backslash before a line break (YAML joins the lines of a double-quoted scalar).
_ESCAPE = re.compile(r"\\(?:[uUxN]|\r?\n)")
MAX_NODES = 200_000  # nodes of the tree visited (aliases are visited once)


def unescaped_text(source: SourceFile) -> str:
    """The keys and string values of a YAML or JSON file, one a line, when its text has an
    escape that could spell a word; "" otherwise (or when it does not parse)."""
    if source.syntax not in ("yaml", "json") or not _ESCAPE.search(source.text):
        return ""
    try:
        documents = source.documents
    except SyntaxProblem:
        return ""
    parts: list[str] = []
    seen: set[int] = set()
    stack: list[object] = list(documents)
    visited = 0
    while stack and visited < MAX_NODES:
        node = stack.pop()
        visited += 1
        if isinstance(node, PMap | PSeq):
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, PMap):
                parts.extend(str(key) for key in node)
                stack.extend(node.values())
            else:
                stack.extend(node)
        elif isinstance(node, str):
            parts.append(node)
    return "\n".join(parts)
