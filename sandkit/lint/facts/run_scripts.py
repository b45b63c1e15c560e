"""The lines of a workflow's ``run:`` script as bash reads them, for the rules that follow text
through it (CS004, CP006).

Not a shell: :func:`script_lines` gives each command line with its backslash-newline
continuations joined (``printf '%s' "$TOKEN" \\`` then ``| docker login ...`` is one command), and
each line of a here-document's body with the here-document it belongs to (its delimiter, whether
it was quoted, and the command line that opened it). :func:`structure` blanks quoted text and
``${{ }}`` expressions out of a line, so that the operators and redirections found in it are the
shell's; :func:`segments` splits it into simple commands.

Positions are kept: a joined line has the same length as the text it stands for (the backslash
and the newline become two spaces), so an offset in it plus its ``start`` is an offset in the
script.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint.syntax.shell import open_quote, quoting

_EXPRESSION = lazy(r"\$\{\{.*?\}\}")
#: A comment: ``#`` starting a word outside quotes (``$#`` and ``a#b`` are not).
_COMMENT = lazy(r"(?:^|\s)#")
#: ``<<EOF``, ``<<-EOF``, and the quoted forms ``<<'EOF'``, ``<<"EOF"``, ``<<\EOF``.
HEREDOC = lazy(r"(?<!<)<<(-?)\s*(?:(['\"])([A-Za-z_][\w.-]{0,40})\2|(\\?)([A-Za-z_][\w.-]{0,40}))")
#: A redirection of a stream to a file (``> f``, ``>> f``, ``&> f``, ``2> f``) or to another one (``>&2``).
REDIRECT = lazy(r"(?<![<\d&])(\d?)(&?>>?)(?!&)\s*(\S+)|(\d?)>&(\d)")


class HereDoc(NamedTuple):
    """A here-document: how it ends, whether its body expands ``$VARS``, and where it was opened."""

    delimiter: str
    #: ``<<'EOF'``, ``<<"EOF"``, ``<<\\EOF``: bash reads the body as text and expands nothing in it
    #: (GitHub's ``${{ }}`` is replaced before bash reads the script, so it still lands there).
    quoted: bool
    strip_tabs: bool  #: ``<<-EOF``: leading tabs of the body and of the delimiter line are dropped
    line: str  #: the command line that opened it
    at: int  #: where its ``<<`` is in that line
    start: int  #: where that line starts in the script


class ScriptLine(NamedTuple):
    """A command line (``heredoc`` None), continuations joined, or one line of a here-document's body."""

    start: int
    text: str
    heredoc: HereDoc | None


class Segment(NamedTuple):
    """One simple command of a line: where it is, and what joins it to the next (``|`` or not)."""

    start: int
    end: int
    piped: bool


def script_lines(script: str) -> Iterator[ScriptLine]:
    """The script's command lines and here-document body lines, in order (delimiter lines left out)."""
    physical = script.split("\n")
    pending: list[HereDoc] = []  # opened on the last command line, their bodies come next in order
    offset = index = 0
    while index < len(physical):
        line, start = physical[index], offset
        offset, index = offset + len(line) + 1, index + 1
        if pending:
            doc = pending[0]
            if (line.lstrip("\t") if doc.strip_tabs else line).strip() == doc.delimiter:
                pending.pop(0)
            else:
                yield ScriptLine(start, line, doc)
            continue
        text = line
        while index < len(physical) and _continues(text):
            text = text[:-1] + "  " + physical[index]  # the backslash and the newline, as two spaces
            offset, index = offset + len(physical[index]) + 1, index + 1
        yield ScriptLine(start, text, None)
        if "<<" in text:
            pending.extend(_opened(text, start))


def _opened(text: str, start: int) -> Iterator[HereDoc]:
    shell = structure(text)
    for match in HEREDOC.finditer(text):
        if shell[match.start()] == "<" or _in_substitution(text, match.start()):
            quoted = bool(match.group(2) or match.group(4))
            delimiter = match.group(3) or match.group(5)
            yield HereDoc(delimiter, quoted, match.group(1) == "-", text, match.start(), start)


def _in_substitution(text: str, at: int) -> bool:
    """Whether ``at`` is inside a ``$(`` opened earlier on the line and not closed before it, as in
    ``--body "$(cat <<'EOF'``, where the quotes around the substitution do not make it text."""
    opened = text.rfind("$(", 0, at)
    return opened >= 0 and ")" not in text[opened:at]


def _continues(text: str) -> bool:
    """Whether a command line ends in a backslash that joins it to the next line: an odd run of
    them, outside single quotes, and not in a comment (``echo "$T" # see \\`` ends at the line)."""
    trailing = len(text) - len(text.rstrip("\\"))
    if trailing % 2 == 0 or open_quote(text[:-1]) == "'":
        return False
    return _COMMENT.search(structure(text)) is None


def structure(line: str) -> str:
    """The line with ``${{ }}`` expressions and quoted text blanked to ``x`` (same length), so
    that operators and redirections found in it are the shell's."""
    masked = _EXPRESSION.sub(lambda m: "x" * len(m.group()), line)
    return "".join("x" if item.role in ("quoted", "escaped") else item.char for item in quoting(masked))


def segments(shell: str) -> list[Segment]:
    """The simple commands of a structure-only line, split at ``|``, ``||``, ``&&``, ``;`` and ``&``."""
    found: list[Segment] = []
    begin = i = 0
    while i < len(shell):
        char = shell[i]
        pair = shell[i : i + 2]
        if pair in ("||", "&&"):
            found.append(Segment(begin, i, False))
            begin = i = i + 2
        elif char == "|" or char == ";" or (char == "&" and shell[i - 1 : i] not in (">", "<") and pair != "&>"):
            found.append(Segment(begin, i, char == "|"))
            begin = i = i + 1
        else:
            i += 1
    found.append(Segment(begin, len(shell), False))
    return found


def segment_at(found: list[Segment], at: int) -> int:
    """The index of the segment holding offset ``at``."""
    return next(i for i, seg in enumerate(found) if seg.start <= at <= seg.end)


def program(text: str) -> str:
    """A simple command's program name: its first word after ``NAME=value`` settings and sudo, and
    after what opens a group or a compound command's body (``{``, ``(``, ``then``, ``do``, ``else``)."""
    for word in text.split():
        if "=" in word.split("/")[0] and not word.startswith(("-", "=")):
            continue
        if word in ("sudo", "command", "builtin", "exec", "{", "then", "do", "else", "!"):
            continue
        word = word.lstrip("(")
        if not word:
            continue
        return word.rsplit("/", 1)[-1]
    return ""
