"""Claude Code settings kept under another name, and the script that puts them in place.

A repository may keep its Claude Code settings as ``settings.template.json`` or
``claude-settings.json``, declaring the settings schema, for a setup script to copy into
``.claude/settings.json`` (``cp templates/settings.template.json .claude/settings.json``). Such a
file is read as the settings (see :func:`sandkit.lint.facts.agent_settings.renamed_claude_settings`);
whether a script of the repository copies it into place decides how much its findings weigh: as
much as the settings when one does, a step less when nothing does (a starting point a person may
copy by hand, or not at all).

The search is bounded: the scan root is walked to :data:`_WALK_LIMIT` entries (``.git`` and
dependency folders skipped), at most :data:`_SCRIPT_LIMIT` scripts are read, each to
:data:`_READ_LIMIT` bytes. A script copies the template when a line names the template's file
name and that line, or one of the :data:`_WINDOW` lines after it, names ``settings.json`` or
``settings.local.json`` (``cp``, ``ln -s``, ``install``, ``envsubst < x > y``, a Python
``shutil.copy`` over two lines).
"""

from __future__ import annotations

import functools
import os
from typing import NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint.facts.agent_wrappers import regular_file_inside
from sandkit.lint.kinds import SCRIPT_EXTENSIONS

_WALK_LIMIT = 20_000
_SCRIPT_LIMIT = 400
_READ_LIMIT = 256 * 1024
_WINDOW = 3
#: Files read as scripts besides :data:`SCRIPT_EXTENSIONS`: build files and package scripts.
_SCRIPT_NAMES = frozenset({"makefile", "gnumakefile", "justfile", ".justfile", "package.json", "taskfile.yml"})
#: Folders never searched: version control and installed dependencies.
_SKIPPED = frozenset({".git", "node_modules", "vendor", ".venv", "venv", "site-packages", "__pycache__", "dist"})
#: Claude Code's settings as a target: ``settings.json`` or ``settings.local.json``, not as the
#: end of another name (``claude-settings.json``) nor the start of one (``settings.json.example``).
_TARGET = lazy(r"(?<![\w.-])settings(?:\.local)?\.json(?![\w-]|\.\w)")


class Copier(NamedTuple):
    """A script of the repository that copies a settings file into place, and the line it does."""

    script: str  # relative to the scan root
    line: int


def copier_of(root: str, path: str) -> Copier | None:
    """The first script under ``root`` that copies the file at ``path`` (relative to ``root``)
    into Claude Code's settings, or None (also when there is no root: text linted alone)."""
    if not root:
        return None
    return _copier(os.path.realpath(root), path.rsplit("/", 1)[-1])


@functools.lru_cache(maxsize=64)
def _copier(root: str, name: str) -> Copier | None:
    lowered = name.lower()
    for rel in _scripts(root):
        path = regular_file_inside(root, rel)  # not a pipe, a device or a link out of the tree
        if path is None:
            continue
        try:
            with open(path, "rb") as handle:
                text = handle.read(_READ_LIMIT).decode("utf-8", errors="replace")
        except OSError:
            continue
        if lowered not in text.lower():
            continue
        lines = text.split("\n")
        for index, line in enumerate(lines):
            if lowered not in line.lower():
                continue
            window = [line.lower().replace(lowered, " "), *(x.lower() for x in lines[index + 1 : index + 1 + _WINDOW])]
            if any(_TARGET.search(part) for part in window):
                return Copier(rel, index + 1)
    return None


def _scripts(root: str) -> list[str]:
    """Scripts under ``root`` (relative paths), walked in a stable order within the bounds."""
    found: list[str] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED)
        seen += len(dirs) + len(files)
        for name in sorted(files):
            lower = name.lower()
            if lower.endswith(SCRIPT_EXTENSIONS) or lower in _SCRIPT_NAMES or "." not in lower:
                found.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
                if len(found) >= _SCRIPT_LIMIT:
                    return found
        if seen >= _WALK_LIMIT:
            break
    return found
