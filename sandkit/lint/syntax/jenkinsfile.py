"""What a Jenkinsfile runs: its ``sh`` steps and the Docker arguments its agents and steps pass.

Groovy is not evaluated. Rules need the shell text of ``sh 'docker run ...'`` steps and the
arguments of Docker agents (``agent { docker { image 'x'; args '-v ...' } }``) and of the
Docker Pipeline steps (``docker.image('x').inside('-v ...')``, ``.withRun(...)``,
``.run(...)``), each with the position where its text starts. Strings are Groovy's four
literal forms (``'``, ``"``, ``'''``, ``\"\"\"``); an unterminated one ends at the end of the
text, so the scan never fails.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint.syntax.tree import Pos

_STRING = r"(?P<quote>'''|\"\"\"|'|\")"
# sh 'x', sh "x", sh '''x''', sh(script: 'x', ...), sh(returnStdout: true, script: "x"), bat/pwsh too.
_SHELL_STEP = lazy(r"\b(?:sh|bash)\b\s*\(?(?:\s*\w+\s*:\s*[^,()'\"]*,)*\s*(?:script\s*:\s*)?" + _STRING)
_AGENT_ARGS = lazy(r"\bargs\s*\(?\s*" + _STRING)
_AGENT_IMAGE = lazy(r"\bimage\s*\(?\s*" + _STRING)
_DOCKER_STEP = lazy(
    r"\bdocker\s*\.\s*image\s*\(\s*" + _STRING.replace("quote", "iq") + r"(?P<image>[^'\"]*)['\"]\s*\)\s*\.\s*"
    r"(?P<step>inside|withRun|run)\s*\(\s*" + _STRING
)


class GroovyText(NamedTuple):
    """The content of one string literal and where it starts (its first character after the quote)."""

    text: str
    pos: Pos


class DockerArgs(NamedTuple):
    """``docker run`` arguments a Jenkins agent or Docker Pipeline step passes, and its image."""

    image: str
    args: GroovyText
    where: str  # "docker agent" or "docker.image(...).inside" and the like


class Pipeline(NamedTuple):
    shell_steps: list[GroovyText]
    docker_args: list[DockerArgs]


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _pos(starts: list[int], offset: int) -> Pos:
    line = bisect.bisect_right(starts, offset)
    return Pos(line, offset - starts[line - 1] + 1)


def _literal(text: str, start: int, quote: str) -> str:
    """The literal's content from ``start`` (just after the opening quote) to its closing quote."""
    index = start
    while True:
        end = text.find(quote, index)
        if end < 0:
            return text[start:]
        backslashes = len(text[start:end]) - len(text[start:end].rstrip("\\"))
        if len(quote) == 1 and backslashes % 2:
            index = end + 1
            continue
        return text[start:end]


def parse_jenkinsfile(text: str) -> Pipeline:
    """The shell steps and Docker arguments of a (declarative or scripted) pipeline."""
    starts = _line_starts(text)
    shell_steps = []
    for match in _SHELL_STEP.finditer(text):
        body = _literal(text, match.end(), match.group("quote"))
        shell_steps.append(GroovyText(body, _pos(starts, match.end())))
    docker_args = []
    for match in _DOCKER_STEP.finditer(text):
        body = _literal(text, match.end(), match.group("quote"))
        where = f"docker.image(...).{match.group('step')}"
        docker_args.append(DockerArgs(match.group("image"), GroovyText(body, _pos(starts, match.end())), where))
    images = list(_AGENT_IMAGE.finditer(text))
    arguments = list(_AGENT_ARGS.finditer(text))
    for start, end in _docker_agent_blocks(text):
        image = _first_within(images, start, end)
        args = _first_within(arguments, start, end)
        if args is None:
            continue
        name = _literal(text, image.end(), image.group("quote")) if image else "image"
        body = _literal(text, args.end(), args.group("quote"))
        docker_args.append(DockerArgs(name, GroovyText(body, _pos(starts, args.end())), "docker agent"))
    return Pipeline(shell_steps, docker_args)


def _first_within(matches: list[re.Match[str]], start: int, end: int) -> re.Match[str] | None:
    """The first of ``matches`` (in text order) that starts in ``[start, end)``."""
    index = bisect.bisect_left(matches, start, key=lambda m: m.start())
    return matches[index] if index < len(matches) and matches[index].start() < end else None


_AGENT_DOCKER = lazy(r"\b(?:docker|dockerfile)\s*\{")
_MAX_BLOCK = 4096  # characters of an agent block searched for its image and args


def _docker_agent_blocks(text: str) -> list[tuple[int, int]]:
    """Offsets of the bodies of ``docker { ... }`` and ``dockerfile { ... }`` agent blocks.

    Braces are matched in one pass (an unclosed block runs to the end of the text), so many
    planted ``docker {`` cost what the text costs.
    """
    opens = [m.end() for m in _AGENT_DOCKER.finditer(text)]
    if not opens:
        return []
    closing: dict[int, int] = {}
    stack: list[int] = []
    for match in re.finditer(r"[{}]", text):
        if match.group() == "{":
            stack.append(match.end())
        elif stack:
            closing[stack.pop()] = match.start()
    return [(start, min(closing.get(start, len(text)), start + _MAX_BLOCK)) for start in opens]
