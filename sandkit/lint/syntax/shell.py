"""Shell command lines as words with positions: quoting, escapes and line continuations.

This is not a shell: it splits text into simple commands (on ``;``, ``&``, ``|``, ``&&``,
``||``, newlines and parentheses), unquotes each word and drops redirections and comments.
That is what rules need to read ``docker run -v ...`` wherever it is written, and it never
fails: unterminated quotes simply end at the end of the text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sandkit.lint.syntax.tree import Pos

_OPERATOR_CHARS = ";&|()\n"
_REDIRECT_CHARS = "<>"
_WRAPPERS = frozenset({"sudo", "exec", "command", "time", "nohup", "env", "doas", "xargs"})


@dataclass(frozen=True)
class Word:
    """One unquoted word and where its first character is in the text."""

    text: str
    pos: Pos


@dataclass
class Command:
    """A simple command: its words, with leading ``NAME=value`` assignments kept apart."""

    words: list[Word] = field(default_factory=list)
    assignments: list[Word] = field(default_factory=list)

    @property
    def pos(self) -> Pos:
        first = self.words or self.assignments
        return first[0].pos if first else Pos()

    def argv(self) -> list[str]:
        return [w.text for w in self.words]

    def program(self) -> tuple[str, int]:
        """The program's base name and its index, looking through sudo/env/exec wrappers."""
        for index, word in enumerate(self.words):
            name = word.text.rsplit("/", 1)[-1]
            if name in _WRAPPERS or (name.startswith("-") and index > 0) or "=" in name:
                continue
            return name, index
        return "", len(self.words)


def parse_commands(text: str) -> list[Command]:
    """Split shell text into simple commands; positions are 1-based within ``text``."""
    commands: list[Command] = []
    current = Command()
    drop_next = False
    for kind, word in _tokens(text):
        if kind == "op":
            if current.words or current.assignments:
                commands.append(current)
            current = Command()
        elif kind == "redirect":
            drop_next = True
        elif drop_next:
            drop_next = False
        elif not current.words and _is_assignment(word.text):
            current.assignments.append(word)
        else:
            current.words.append(word)
    if current.words or current.assignments:
        commands.append(current)
    return commands


def _is_assignment(text: str) -> bool:
    name, eq, _ = text.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _tokens(text: str) -> Iterator[tuple[str, Word]]:
    """Yield ("word"|"op"|"redirect", Word) pairs."""
    i, n, line, col = 0, len(text), 1, 1
    buf: list[str] = []
    start: Pos | None = None

    def flush() -> Iterator[tuple[str, Word]]:
        nonlocal buf, start
        if start is not None:
            yield "word", Word("".join(buf), start)
        buf, start = [], None

    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            if text[i + 1] == "\n":
                i, line, col = i + 2, line + 1, 1
                continue
            start = start or Pos(line, col)
            buf.append(text[i + 1])
            i, col = i + 2, col + 2
            continue
        if ch in " \t\r":
            yield from flush()
            i, col = i + 1, col + 1
            continue
        if ch == "#" and start is None:
            end = text.find("\n", i)
            end = n if end < 0 else end
            col += end - i
            i = end
            continue
        if ch in _OPERATOR_CHARS:
            yield from flush()
            yield "op", Word(ch, Pos(line, col))
            if ch == "\n":
                line, col = line + 1, 1
            else:
                col += 1
            i += 1
            continue
        if ch in _REDIRECT_CHARS:
            digits_only = start is not None and "".join(buf).isdigit()
            if digits_only:
                buf, start = [], None
            yield from flush()
            j = i
            while j < n and text[j] in "<>&":
                j += 1
            yield "redirect", Word(text[i:j], Pos(line, col))
            col += j - i
            i = j
            continue
        start = start or Pos(line, col)
        if ch in "'\"`":
            i, line, col = _quoted(text, i, line, col, buf)
            continue
        if ch == "$" and text.startswith("$(", i):
            i, line, col = _substitution(text, i, line, col, buf)
            continue
        buf.append(ch)
        i, col = i + 1, col + 1
    yield from flush()


def _quoted(text: str, i: int, line: int, col: int, buf: list[str]) -> tuple[int, int, int]:
    """Consume a quoted run starting at text[i]; returns the new index, line and column."""
    quote, n = text[i], len(text)
    i, col = i + 1, col + 1
    while i < n and text[i] != quote:
        ch = text[i]
        if quote != "'" and ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt == "\n":
                i, line, col = i + 2, line + 1, 1
                continue
            buf.append(nxt if nxt in '"\\$`' else ch + nxt)
            i, col = i + 2, col + 2
            continue
        buf.append(ch)
        if ch == "\n":
            line, col = line + 1, 1
        else:
            col += 1
        i += 1
    return i + 1, line, col + 1


def _substitution(text: str, i: int, line: int, col: int, buf: list[str]) -> tuple[int, int, int]:
    """Keep ``$( ... )`` as literal word text, balancing parentheses."""
    depth, n = 0, len(text)
    while i < n:
        ch = text[i]
        buf.append(ch)
        i += 1
        if ch == "\n":
            line, col = line + 1, 1
            continue
        col += 1
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
    return i, line, col
