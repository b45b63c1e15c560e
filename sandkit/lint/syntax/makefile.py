"""Recipe lines of Makefiles and justfiles, as shell text with the line they start on.

Make's own syntax is not evaluated; rules only need the commands a target runs. Recipe
prefixes (``@``, ``-``, ``+``) are removed and ``$$`` becomes ``$`` so the shell parser sees
what the shell would.
"""

from __future__ import annotations

from typing import NamedTuple

from sandkit.lint.syntax.tree import Pos


class RecipeLine(NamedTuple):
    """One logical recipe line (continuations joined by newline-escaped text)."""

    text: str
    pos: Pos


def makefile_recipes(text: str) -> list[RecipeLine]:
    """Tab-indented recipe lines of a Makefile."""
    return _recipes(text, lambda line: line.startswith("\t"), dollar_escape=True)


def justfile_recipes(text: str) -> list[RecipeLine]:
    """Indented recipe bodies of a justfile."""
    return _recipes(text, lambda line: line[:1] in (" ", "\t"), dollar_escape=False)


def _recipes(text: str, is_recipe: object, dollar_escape: bool) -> list[RecipeLine]:
    assert callable(is_recipe)
    lines = text.splitlines()
    out: list[RecipeLine] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not is_recipe(line) or not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        body = line.lstrip()
        column = len(line) - len(body) + 1
        while body[:1] in ("@", "-", "+") and body:
            body = body[1:]
            column += 1
        start = Pos(i + 1, column)
        chunks = [body]
        while chunks[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            chunks.append(lines[i].lstrip("\t"))
        joined = "\n".join(chunks)
        out.append(RecipeLine(joined.replace("$$", "$") if dollar_escape else joined, start))
        i += 1
    return out
