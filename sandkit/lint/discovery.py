"""One walk over the scan targets, yielding the files worth reading and what kind they are.

Hidden folders are read (that is where agent configuration lives); ``.git`` and tool caches
(pytest, mypy, ruff, hypothesis, __pycache__) are not, except the ``config`` of a ``.git`` below
the scan root: a nested repository's settings run programs when git is used there (AA015).
Dependency folders (and tox/nox environments) are walked only for agent files planted in them. Links are followed only
while they stay inside the root, and each real folder is entered once, so loops end.
FIFOs, sockets and devices met in the walk are passed over (opening one could block); named
on the command line, or a folder that cannot be listed, they come back as a candidate with a
``problem``, which the engine reports.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from collections.abc import Iterable, Iterator
from functools import cached_property
from typing import Protocol

from sandkit.lint.kinds import Kind, is_agent_file, kind_by_name

SKIPPED_FOLDERS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}
)
DEPENDENCY_FOLDERS = frozenset({"node_modules", "vendor", ".venv", "site-packages", ".tox", ".nox"})


class Candidate:
    """A file (or folder) the scan was given or found, and why it cannot be read if it cannot."""

    def __init__(self, abspath: str, path: str, in_dependency: bool, problem: str = "") -> None:
        self.abspath = abspath
        self.path = path  # relative to the root, "/"-separated
        self.in_dependency = in_dependency
        self.problem = problem  # why it could not be read, for a target named on the command line or a folder

    @cached_property
    def kind(self) -> Kind:
        """The kind its name implies; computed where the file is checked (a worker process),
        not in the walk, which is the one part that cannot run in parallel."""
        return kind_by_name(self.path)


class PathPatterns:
    """gitignore-like globs, relative to the folder of the config file that holds them.

    A pattern without a slash matches any file or folder name at any depth; one with a slash
    (or starting with one) is anchored at the config's folder and matches that path or a
    folder above the file. ``prefix`` is the scan root's path from the config's folder, so
    the patterns mean the same wherever the scan starts.
    """

    def __init__(self, patterns: Iterable[str] = (), prefix: str = "") -> None:
        self.prefix = "" if prefix in ("", ".") else prefix.strip("/") + "/"
        self.names: list[re.Pattern[str]] = []
        self.paths: list[re.Pattern[str]] = []
        for pattern in patterns:
            body = pattern.strip("/")
            if not body:
                continue
            target = self.paths if "/" in pattern.rstrip("/") else self.names
            target.append(re.compile(fnmatch.translate(body)))

    def __bool__(self) -> bool:
        return bool(self.names or self.paths)

    def match(self, rel: str) -> bool:
        """True when ``rel`` (relative to the scan root) or a folder above it matches."""
        if not self:
            return False
        parts = (self.prefix + rel).split("/")
        if any(p.match(part) for p in self.names for part in parts):
            return True
        return any(p.match("/".join(parts[:depth])) for p in self.paths for depth in range(1, len(parts) + 1))


class Matcher(Protocol):
    """What discovery asks of its exclusions: whether a path (relative to the scan root) is out."""

    def __bool__(self) -> bool: ...

    def match(self, rel: str) -> bool: ...


class AnyOf:
    """Several pattern sets, each relative to its own folder (the config's, the working folder)."""

    def __init__(self, *sets: Matcher) -> None:
        self.sets = [s for s in sets if s]

    def __bool__(self) -> bool:
        return bool(self.sets)

    def match(self, rel: str) -> bool:
        return any(s.match(rel) for s in self.sets)


def is_excluded(rel: str, patterns: Iterable[str]) -> bool:
    """``rel`` matches one of ``patterns`` (see :class:`PathPatterns`)."""
    return PathPatterns(patterns).match(rel)


def discover(
    targets: list[str], root: str, exclude: Matcher | None = None, walks_skip: Matcher | None = None
) -> Iterator[Candidate]:
    """Files under ``targets`` (files or folders), relative to ``root``; ``walks_skip`` leaves
    paths out of folder walks only (what git ignores: a file named on the command line is read)."""
    exclude = exclude if exclude is not None else PathPatterns()
    if walks_skip:
        exclude_in_walks: Matcher = AnyOf(exclude, walks_skip)
    else:
        exclude_in_walks = exclude
    root_real = os.path.realpath(root)
    seen_dirs: set[tuple[int, int]] = set()
    # Only several targets can name a file twice; one folder's walk never does, so a single
    # target keeps no per-file set and memory stays flat however large the tree.
    seen_files: set[str] | None = set() if len(targets) > 1 else None
    for target in targets:
        real = os.path.realpath(target)
        if os.path.isdir(real):
            yield from _walk(target, root_real, exclude_in_walks, seen_dirs, seen_files)
            continue
        rel = _relative(os.path.abspath(target), root_real)
        if (seen_files is not None and rel in seen_files) or exclude.match(rel) or _skipped(rel):
            continue
        if seen_files is not None:
            seen_files.add(rel)
        yield Candidate(os.path.abspath(target), rel, in_dependency(rel), _not_regular(real))


def _not_regular(path: str) -> str:
    """Why a path named on the command line is no file to read ("" for a regular file)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return f"cannot be read: {exc.strerror}"
    if stat.S_ISREG(mode):
        return ""
    what = (
        "a FIFO"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )
    return f"is {what}, not a regular file, so it was not read"


def _relative(path: str, root_real: str) -> str:
    rel = os.path.relpath(os.path.realpath(path) if not os.path.islink(path) else path, root_real)
    if rel.startswith(".."):
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root_real))
    return rel.replace(os.sep, "/")


def _skipped(rel: str) -> bool:
    """A file named on the command line that a folder walk would not have read either."""
    folders = rel.split("/")[:-1]
    if any(part in SKIPPED_FOLDERS for part in folders):
        return True
    return in_dependency(rel) and not is_agent_file(rel)


def in_dependency(rel: str) -> bool:
    return any(part in DEPENDENCY_FOLDERS for part in rel.split("/")[:-1])


def _walk(
    top: str, root_real: str, exclude: Matcher, seen_dirs: set[tuple[int, int]], seen_files: set[str] | None
) -> Iterator[Candidate]:
    top_abs = os.path.abspath(top)
    stack: list[tuple[str, str, bool]] = [(top_abs, _relative(top_abs, root_real), False)]
    while stack:
        folder, rel_folder, in_dep = stack.pop()
        try:
            info = os.stat(folder)
            key = (info.st_dev, info.st_ino)
            if key in seen_dirs:
                continue
            seen_dirs.add(key)
            entries = list(os.scandir(folder))  # unsorted: findings are sorted at the end
        except OSError as exc:
            yield Candidate(folder, rel_folder, in_dep, f"is a folder that cannot be listed: {exc.strerror}")
            continue
        subfolders: list[tuple[str, str, bool]] = []
        for entry in entries:
            rel = entry.name if rel_folder in ("", ".") else f"{rel_folder}/{entry.name}"
            if exclude and exclude.match(rel):
                continue
            try:
                if entry.is_symlink():
                    if not _inside(entry.path, root_real):
                        continue
                    mode = os.stat(entry.path).st_mode
                    is_dir, is_file = stat.S_ISDIR(mode), stat.S_ISREG(mode)
                else:  # the directory entry's type, without a stat call per file
                    is_dir = entry.is_dir(follow_symlinks=False)
                    is_file = not is_dir and entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name == ".git" and rel_folder not in ("", "."):
                    yield from _nested_git_config(entry.path, rel, in_dep, seen_files)
                if entry.name in SKIPPED_FOLDERS:
                    continue
                subfolders.append((entry.path, rel, in_dep or entry.name in DEPENDENCY_FOLDERS))
            elif is_file:
                if in_dep and not is_agent_file(rel):
                    continue
                if seen_files is not None:
                    if rel in seen_files:
                        continue
                    seen_files.add(rel)
                yield Candidate(entry.path, rel, in_dep)
        stack.extend(reversed(subfolders))


def _nested_git_config(git_dir: str, rel: str, in_dep: bool, seen_files: set[str] | None) -> Iterator[Candidate]:
    """A nested repository's ``.git/config``, when it is a regular file (never followed through a link)."""
    path = os.path.join(git_dir, "config")
    try:
        regular = stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return
    config = f"{rel}/config"
    if not regular or (seen_files is not None and config in seen_files):
        return
    if seen_files is not None:
        seen_files.add(config)
    yield Candidate(path, config, in_dep)


def _inside(path: str, root_real: str) -> bool:
    real = os.path.realpath(path)
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)
