"""Repository-level passes: one look at all of a scan's findings after every file is checked.

Rules see one file at a time. A few questions need the whole scan: whether findings in
different files combine into a path to the host (an autorun hook in one file, a mounted
runtime socket in another), or whether a neighbouring file (a ``.dockerignore``) settles a
finding. A pass is a function from the scan's findings to the findings to report, registered
with :func:`repository_pass` in a rule family module::

    @repository_pass("escalation")
    def escalate(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
        ...

Passes run in the main process, after suppressions, in the order of their families in
:data:`sandkit.lint.rules.FAMILIES` (a scan with no findings runs none). They may drop,
re-rank or reword findings (``Finding._replace``), never invent findings for files they did
not see. ``repo.read`` reads a small file under the scan root (``None`` when it is absent or
unreadable); passes never touch the network. A pass that raises is reported as an internal
error and its input is kept.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import NamedTuple

from sandkit.lint.model import Finding


class RepositoryView(NamedTuple):
    """What a pass may know about the scanned tree besides the findings."""

    root: str  # no list of every scanned path: memory must not grow with the tree

    def read(self, rel: str, limit: int = 65536) -> str | None:
        """The text of ``rel`` under the root (at most ``limit`` bytes), or None."""
        root = os.path.realpath(self.root)
        path = os.path.realpath(os.path.join(root, rel))
        if path != root and not path.startswith(root.rstrip(os.sep) + os.sep):
            return None
        try:
            with open(path, "rb") as handle:
                return handle.read(limit).decode("utf-8", errors="replace")
        except OSError:
            return None

    def exists(self, rel: str) -> bool:
        """Whether ``rel`` (a file or a folder, ``.git`` included) is there under the root."""
        root = os.path.realpath(self.root)
        path = os.path.realpath(os.path.join(root, rel))
        inside = path == root or path.startswith(root.rstrip(os.sep) + os.sep)
        return inside and os.path.lexists(os.path.join(root, rel))

    def matching(self, folder: str, pattern: str, limit: int = 50) -> list[str]:
        """Files of ``folder`` (relative to the root) whose names match the glob ``pattern``
        (one path segment, as COPY sources are), at most ``limit`` of them, sorted."""
        import fnmatch

        root = os.path.realpath(self.root)
        path = os.path.realpath(os.path.join(root, folder))
        if path != root and not path.startswith(root.rstrip(os.sep) + os.sep):
            return []
        try:
            names = sorted(e.name for e in os.scandir(path) if e.is_file(follow_symlinks=False))
        except OSError:
            return []
        found = [n for n in names if fnmatch.fnmatchcase(n, pattern)][:limit]
        return [f"{folder}/{n}" if folder else n for n in found]


Pass = Callable[[list[Finding], RepositoryView], list[Finding]]
_PASSES: list[tuple[str, Pass]] = []


def repository_pass(name: str) -> Callable[[Pass], Pass]:
    """Register the decorated function as a repository-level pass called ``name``."""

    def register(function: Pass) -> Pass:
        if any(existing == name for existing, _ in _PASSES):
            raise ValueError(f"repository pass {name!r} is registered twice")
        _PASSES.append((name, function))
        return function

    return register


def run_passes(
    findings: list[Finding], repo: RepositoryView, families: Sequence[str] = ()
) -> tuple[list[Finding], list[str]]:
    """Apply every registered pass; returns the findings and internal errors.

    Passes run in the order of their families in ``families`` (others after them, as
    registered).
    """
    crashes: list[str] = []
    rank = {family: n for n, family in enumerate(families)}
    ordered = sorted(_PASSES, key=lambda p: rank.get(p[1].__module__.rsplit(".", 1)[-1], len(rank)))
    for name, function in ordered:
        try:
            findings = list(function(findings, repo))
        except Exception as exc:  # a pass bug must not lose the scan
            crashes.append(f"repository pass {name} failed: {type(exc).__name__}: {exc}")
    return sorted(findings), crashes
