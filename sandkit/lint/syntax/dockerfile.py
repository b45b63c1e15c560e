"""Dockerfiles as a list of instructions with positions, build stages and heredocs.

Continuation lines are joined (honouring the ``# escape=`` directive), comment lines inside a
continuation are dropped as BuildKit does, and ``<<EOF`` heredoc bodies become part of the
instruction. Each instruction keeps a map from offsets in its joined text back to the file.
"""

from __future__ import annotations

import bisect
import re

from sandkit.lazy_regex import lazy
from sandkit.lint.syntax.tree import Pos, SyntaxProblem
from sandkit.syntax.jsonc import load_json

_DIRECTIVE = lazy(r"#\s*escape\s*=\s*(\S)", re.IGNORECASE)
_HEREDOC = lazy(r"<<(-?)[\"']?([A-Za-z_][A-Za-z0-9_]*)[\"']?")
_INSTRUCTION = lazy(r"[ \t]*([A-Za-z]+)([ \t]+|$)")


class Instruction:
    """One instruction: ``keyword`` is upper-case, ``args`` the joined text after it; ``offsets``
    and ``starts`` map the offset in ``args`` where each joined line begins to its file position."""

    __slots__ = ("args", "keyword", "offsets", "pos", "stage", "starts")

    def __init__(self, keyword: str, args: str, pos: Pos, stage: int) -> None:
        self.keyword = keyword
        self.args = args
        self.pos = pos
        self.stage = stage
        self.offsets: list[int] = []
        self.starts: list[Pos] = []

    def pos_at(self, offset: int) -> Pos:
        """The file position of character ``offset`` of ``args``."""
        if not self.offsets:
            return self.pos
        k = max(bisect.bisect_right(self.offsets, offset) - 1, 0)
        start = self.starts[k]
        return Pos(start.line, start.column + offset - self.offsets[k])

    def exec_form(self) -> list[str] | None:
        """The JSON array form (``["a", "b"]``) as a list, or None for the shell form."""
        text = self.args.strip()
        if not text.startswith("["):
            return None
        try:
            value = load_json(text)  # as Docker reads it: JSON, where NaN is no string either
        except SyntaxProblem:  # "[[[[...": no exec form a shell would run
            return None
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        return None


def parse_dockerfile(text: str) -> list[Instruction]:
    lines = text.splitlines()
    escape = _escape_char(lines)
    instructions: list[Instruction] = []
    stage = -1
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        match = _INSTRUCTION.match(line)
        if not stripped or stripped.startswith("#") or not match:
            i += 1
            continue
        keyword = match.group(1).upper()
        if keyword == "FROM":
            stage += 1
        ins = Instruction(keyword, "", Pos(i + 1, match.start(1) + 1), max(stage, 0))
        i = _collect(lines, i, match.end(), escape, ins)
        instructions.append(ins)
    return instructions


def _escape_char(lines: list[str]) -> str:
    for line in lines:
        match = _DIRECTIVE.match(line.strip())
        if match:
            return match.group(1)
        if not line.startswith("#"):
            break
    return "\\"


def _collect(lines: list[str], i: int, col: int, escape: str, ins: Instruction) -> int:
    """Append the instruction's text from line i (starting at col); return the next line."""
    parts: list[str] = []
    length = 0

    def add(text: str, line_no: int, column: int) -> None:
        nonlocal length
        ins.offsets.append(length)
        ins.starts.append(Pos(line_no + 1, column + 1))
        parts.append(text)
        length += len(text)

    text = lines[i][col:]
    while True:
        body = text.rstrip()
        continued = body.endswith(escape) and not body.endswith(escape * 2)
        add(body[:-1] + " " if continued else body, i, col)
        i += 1
        if not continued:
            break
        while i < len(lines) and lines[i].lstrip().startswith("#"):
            i += 1
        if i >= len(lines):
            break
        text, col = lines[i], 0
    for heredoc in _HEREDOC.finditer("".join(parts)):
        strip_tabs, marker = heredoc.group(1), heredoc.group(2)
        while i < len(lines):
            body_line = lines[i].lstrip("\t") if strip_tabs else lines[i]
            i += 1
            if body_line.strip() == marker:
                break
            add("\n" + body_line, i - 1, -1)
    ins.args = "".join(parts)
    return i
