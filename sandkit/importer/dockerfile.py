"""The image a dev container's Dockerfile builds on: its final stage's FROM, with build arguments resolved.

Real dev containers rarely write a plain ``FROM image``: the templates start with
``ARG VARIANT=3.12-bookworm`` and ``FROM mcr.microsoft.com/devcontainers/python:${VARIANT}``, take the
variant from ``build.args``, and often build in several stages (``FROM base AS dev``). The kit has no
build arguments, so the importer resolves them the way the builder would: a FROM line sees only the
``ARG``s declared before the first FROM, with their defaults, overridden by the build's arguments
(an argument the Dockerfile never declares is ignored, as the builder ignores it). The image is the
final stage's (or ``build.target``'s), following a stage that builds ``FROM`` an earlier stage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: ``$NAME``, ``${NAME}``, ``${NAME:-word}``, ``${NAME-word}``, ``${NAME:+word}``, ``${NAME+word}``.
_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_]\w*)(?:(:?[-+])([^}]*))?\}|([A-Za-z_]\w*))")
_MAX_STAGES = 64


@dataclass(frozen=True)
class BaseImage:
    """What the Dockerfile builds on, as far as it can be known without building it."""

    image: str  # the FROM image with every build argument replaced ("" when there is no FROM)
    written: str  # the FROM image as the Dockerfile writes it
    #: The build arguments the FROM line used: name -> (value, where it came from).
    arguments: dict[str, tuple[str, str]] = field(default_factory=dict)
    missing: tuple[str, ...] = ()  # build arguments the FROM line uses that have no value
    other_instructions: int = 0  # instructions besides the FROM lines and the ARGs before them


def _instructions(text: str) -> list[tuple[str, str]]:
    """(KEYWORD, rest) of each instruction: comments and blank lines out, continuation lines joined."""
    joined: list[str] = []
    current = ""
    for raw in text.splitlines():
        # The builder joins a continued line to the next without a space, the next's indent removed.
        line = raw.lstrip() if current else raw.strip()
        if not line.strip() or line.startswith("#"):
            continue  # blank lines and comments, also inside a continued instruction, as the builder skips them
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1]
            continue
        joined.append(current + line.rstrip())
        current = ""
    if current.strip():
        joined.append(current)
    out = []
    for line in joined:
        keyword, _, rest = line.strip().partition(" ")
        out.append((keyword.upper(), rest.strip()))
    return out


def _declared(rest: str) -> dict[str, str | None]:
    """``ARG A=1 B="two" C`` -> {A: "1", B: "two", C: None}."""
    out: dict[str, str | None] = {}
    for word in re.findall(r'(?:[^\s"\']+|"[^"]*"|\'[^\']*\')+', rest):
        name, eq, value = word.partition("=")
        out[name] = value.strip("\"'") if eq else None
    return out


def base_image(text: str, build_args: dict[str, str], target: str | None = None) -> BaseImage:
    """The image the Dockerfile ``text`` builds on (see the module's docstring)."""
    instructions = _instructions(text)
    values: dict[str, tuple[str, str]] = {}
    declared: set[str] = set()
    stages: list[tuple[str, str]] = []  # (image as written, stage name)
    other = 0
    for keyword, rest in instructions:
        if keyword == "ARG" and not stages:
            for name, default in _declared(rest).items():
                declared.add(name)
                if name in build_args:
                    values[name] = (build_args[name], "the build's argument")
                elif default is not None:
                    values[name] = (default, "the ARG default")
        elif keyword == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            alias = words[2] if len(words) >= 3 and words[1].upper() == "AS" else ""
            stages.append((words[0] if words else "", alias.lower()))
        else:
            other += 1
    if not stages:
        return BaseImage("", "", other_instructions=other)
    chosen = next((s for s in stages if target and s[1] == target.lower()), stages[-1])
    names = {alias: image for image, alias in stages if alias}
    used: dict[str, tuple[str, str]] = {}
    missing: list[str] = []
    written = chosen[0]
    image = written
    for _ in range(_MAX_STAGES):
        image = _substitute(image, values, used, missing)
        if image.lower() not in names or missing:
            break
        written = image = names.pop(image.lower())  # a stage built FROM an earlier stage: that stage's base
    return BaseImage(image, written, used, tuple(dict.fromkeys(missing)), other)


def _substitute(
    text: str, values: dict[str, tuple[str, str]], used: dict[str, tuple[str, str]], missing: list[str]
) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(4)
        operator, word = match.group(2), match.group(3) or ""
        known = values.get(name)
        if known is not None:
            used[name] = known
        value = known[0] if known is not None else None
        if operator in ("-", ":-"):
            if value is not None and (value or operator == "-"):
                return value
            used[name] = (word, "the FROM line's default")
            return word
        if operator in ("+", ":+"):
            return word if value is not None and (value or operator == "+") else ""
        if value is None:
            missing.append(name)
            return match.group(0)
        return value

    return _REFERENCE.sub(one, text)
