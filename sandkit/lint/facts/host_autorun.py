"""Code that runs by itself on a developer's machine (or a runner) because of a committed file.

Each :class:`AutoRun` says what starts it and holds the text it runs, positioned in the file:

- package lifecycle scripts, which npm, yarn, pnpm and bun run at install
  (``preinstall``, ``install``, ``postinstall``, ``prepare``, ...), and Composer's event scripts;
- a devcontainer's ``initializeCommand``, run on the host before the container exists;
- git hooks (files named like one: ``pre-commit``, ``post-checkout``, ...), which git runs at
  every commit, checkout or merge once ``core.hooksPath`` points at their folder;
- direnv's ``.envrc``, sourced on entering the folder once allowed;
- Terraform's ``data "external"`` programs, run by every ``terraform plan``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from sandkit.lint import kinds
from sandkit.lint.kinds import GIT_HOOKS
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.hcl import blocks
from sandkit.lint.syntax.shell import Command, Word
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr

if TYPE_CHECKING:
    from typing import Any

#: npm's install-time scripts (yarn, pnpm and bun run the same names).
#: The JSON files whose scripts run by themselves (every other JSON file has no autoruns).
PACKAGE_MANIFESTS = ("package.json", "composer.json")
NPM_LIFECYCLE = ("preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare")
#: Composer events that fire on install and update.
COMPOSER_EVENTS = (
    "pre-install-cmd",
    "post-install-cmd",
    "pre-update-cmd",
    "post-update-cmd",
    "post-autoload-dump",
    "post-root-package-install",
    "post-create-project-cmd",
)


class AutoRun(NamedTuple):
    """What runs by itself: ``trigger`` says when, ``text`` is the command text (or None when
    only ``commands`` are known, as for argument lists), ``pos`` where it is written."""

    trigger: str
    pos: Pos
    text: PStr | None = None
    commands: tuple[Command, ...] = ()
    #: ``text`` is the whole file (a hook, an .envrc): offsets in it are offsets in the file
    whole_file: bool = False


def is_git_hook(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in GIT_HOOKS


def autoruns(file: SourceFile) -> list[AutoRun]:
    return file.memo("autoruns", lambda: list(_autoruns(file)))


def _autoruns(file: SourceFile) -> Iterator[AutoRun]:
    name = file.path.rsplit("/", 1)[-1]
    if file.kind == kinds.SHELL and (is_git_hook(file.path) or name == ".envrc"):
        trigger = f"the git hook {name}" if name != ".envrc" else "direnv's .envrc"
        yield AutoRun(trigger, Pos(), PStr(file.text, Pos(1, 1)), tuple(file.commands), whole_file=True)
    elif file.kind == kinds.JSON and name in PACKAGE_MANIFESTS:
        yield from _package_scripts(file, name)
    elif file.kind == kinds.DEVCONTAINER:
        yield from _initialize_command(file)
    elif file.kind == kinds.TERRAFORM:
        yield from _external_programs(file)


def _document(file: SourceFile) -> PMap | None:
    document = file.documents[0] if file.documents else None
    return document if isinstance(document, PMap) else None


def _package_scripts(file: SourceFile, name: str) -> Iterator[AutoRun]:
    document = _document(file)
    scripts = document.get("scripts") if document is not None else None
    if not isinstance(scripts, PMap):
        return
    events, tool = (NPM_LIFECYCLE, "install") if name == "package.json" else (COMPOSER_EVENTS, "composer")
    for event in events:
        value = scripts.get(event)
        for text in value if isinstance(value, PSeq) else [value]:
            if isinstance(text, PStr):
                trigger = f"the {event} script (run by {tool})" if name == "package.json" else f"composer's {event}"
                yield AutoRun(trigger, text.pos, text, tuple(file.commands_in(text)))


def _initialize_command(file: SourceFile) -> Iterator[AutoRun]:
    """``initializeCommand``: a string (run by a shell), a list (one program and its arguments),
    or an object of either (run in parallel)."""
    document = _document(file)
    value = document.get("initializeCommand") if document is not None else None
    items = list(value.values()) if isinstance(value, PMap) else [value]
    for item in items:
        trigger = "initializeCommand (run on the host before the container is built)"
        if isinstance(item, PStr) and item.strip():
            yield AutoRun(trigger, item.pos, item, tuple(file.commands_in(item)))
        elif isinstance(item, PSeq) and item:
            command = _argv(item)
            yield AutoRun(trigger, item.pos, None, (command,))


def _argv(items: PSeq) -> Command:
    return Command(words=[Word(str(a), items.pos_of(i)) for i, a in enumerate(items) if isinstance(a, str | int)])


def _external_programs(file: SourceFile) -> Iterator[AutoRun]:
    document = _document(file)
    if document is None:
        return
    for (kind, name), body, _ in blocks(document.get("data"), 2):
        program: Any = body.get("program")
        if kind == "external" and isinstance(program, PSeq) and program:
            trigger = f'data "external" "{name}" (run by every terraform plan)'
            yield AutoRun(trigger, program.pos, None, (_argv(program),))
