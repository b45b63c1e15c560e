"""GitHub Actions facts shared by ci-secret-exposure and ci-permissions: triggers, jobs, steps,
which checkouts fetch untrusted code, and where secrets are referenced."""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint.facts.expressions import exposed_secret_refs, secret_name
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr

if TYPE_CHECKING:
    from typing import Any

UNTRUSTED_TRIGGERS = ("pull_request_target", "workflow_run")
# A pull request's commit (or the triggering run's): fetched from the base repository as well,
# where GitHub keeps every pull request's head under refs/pull/N/head.
_HEAD_COMMIT = lazy(
    r"github\.event\.pull_request\.head\.sha|github\.event\.workflow_run\.head_sha|"
    r"github\.event\.workflow_run\.head_commit\.id|refs/pull/|"
    r"github\.event\.pull_request\.merge_commit_sha|github\.event\.number|"
    r"github\.event\.pull_request\.number"
)
# A pull request's branch name: the fork's branch only when fetched from the fork.
_HEAD_BRANCH = lazy(r"github\.event\.pull_request\.head\.ref|github\.head_ref|github\.event\.workflow_run\.head_branch")
# The pull request's own repository (a fork, for a fork's pull request).
_HEAD_REPOSITORY = lazy(r"github\.event\.pull_request\.head\.repo|github\.event\.workflow_run\.head_repository")
# The workflow's own repository, named: `${{ github.repository }}`.
_BASE_REPOSITORY = lazy(r"\s*\$\{\{\s*github\s*\.\s*(?:repository|event\s*\.\s*repository\s*\.\s*full_name)\s*\}\}\s*")


class Job(NamedTuple):
    name: str
    pos: Pos
    spec: PMap

    @property
    def steps(self) -> list[PMap]:
        steps = self.spec.get("steps")
        return [s for s in steps if isinstance(s, PMap)] if isinstance(steps, PSeq) else []


def workflow(file: SourceFile) -> PMap | None:
    """The workflow document (a mapping with ``jobs``), or None."""
    for document in file.documents:
        if isinstance(document, PMap) and isinstance(document.get("jobs"), PMap):
            return document
    return None


def triggers(doc: PMap) -> set[str]:
    on = doc.get("on", doc.get(True))
    if isinstance(on, str):
        return {on}
    if isinstance(on, PSeq):
        return {str(t) for t in on}
    if isinstance(on, PMap):
        return {str(t) for t in on}
    return set()


def jobs(doc: PMap) -> Iterator[Job]:
    """The workflow's jobs, but a job that can never run (:func:`never_runs`): it gets no token,
    secrets or runner, so no rule reading jobs reports what it would hold."""
    table = doc.get("jobs")
    if isinstance(table, PMap):
        for name, spec in table.items():
            if isinstance(spec, PMap) and not never_runs(spec):
                yield Job(str(name), table.pos_of_key(name), spec)


#: An ``if:`` GitHub always reads as false: ``false`` (YAML's, or the expression, bare or in
#: ``${{ }}``), or ``0``.
_ALWAYS_FALSE = lazy(r"\s*(?:\$\{\{\s*(?:false|0|\(\s*false\s*\))\s*\}\}|false|0|\(\s*false\s*\))\s*")


def never_runs(node: PMap) -> bool:
    """Whether a job's or step's ``if:`` is always false (``if: false``, ``if: ${{ false }}``): a
    job or step switched off that never runs. Any condition reading something (``false && x`` too)
    is not read."""
    condition = node.get("if")
    if condition is False:
        return True
    if isinstance(condition, int) and not isinstance(condition, bool):
        return condition == 0
    return isinstance(condition, str) and _ALWAYS_FALSE.fullmatch(condition) is not None


def named(names: list[str], limit: int) -> str:
    """The first ``limit`` names, comma-separated, and how many more there are."""
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f" and {more} more" if more > 0 else "")


#: Why a checkout of a pull request's branch name from the base repository is low (CS003, CP003).
BRANCH_ONLY_WHY = (
    "a branch name fetched from the base repository gets its branch of that name, which only those "
    "with push access write; a fork's branch is fetched only from the fork"
)


class Checkout(NamedTuple):
    """An actions/checkout step that fetches what a pull request names."""

    value: PStr  #: the ``ref`` (or ``repository``) input naming it
    #: Only a branch name, fetched from the base repository (no ``repository:`` input, or the
    #: workflow's own): a branch of that name there, which only those with push access write.
    branch_only: bool


def untrusted_checkout(step: PMap) -> Checkout | None:
    """The checkout of pull-request code an actions/checkout step makes, if any.

    A pull request's commit (``head.sha``, workflow_run's ``head_sha`` or ``head_commit.id``,
    ``refs/pull/...``) is fetched from the base repository too, so it is the fork's code wherever
    it is fetched from; the pull request's repository (``head.repo``, workflow_run's
    ``head_repository``) is the fork. A branch name (``head.ref``, ``github.head_ref``,
    workflow_run's ``head_branch``) with neither fetches the base repository's branch of that
    name: ``branch_only``.
    """
    uses = step.get("uses")
    if not isinstance(uses, str) or not uses.split("@")[0].lower().endswith("actions/checkout"):
        return None
    with_ = step.get("with")
    if not isinstance(with_, PMap):
        return None
    ref, repository = with_.get("ref"), with_.get("repository")
    ref = ref if isinstance(ref, PStr) else None
    repository = repository if isinstance(repository, PStr) else None
    fork = repository is not None and any(p.search(repository) for p in (_HEAD_REPOSITORY, _HEAD_COMMIT, _HEAD_BRANCH))
    if ref is not None and _HEAD_COMMIT.search(ref):
        return Checkout(ref, False)
    if ref is not None and _HEAD_BRANCH.search(ref):
        base = repository is None or "${{" not in repository or bool(_BASE_REPOSITORY.fullmatch(repository))
        return Checkout(ref, not fork and base)
    if fork and repository is not None:
        return Checkout(repository, False)
    return None


def secret_refs(file: SourceFile, node: Any) -> Iterator[tuple[str, PStr]]:
    """Every ``secrets.NAME`` referenced in strings under ``node`` (and ``secrets: inherit``)."""
    if isinstance(node, PStr):
        yield from _refs_in(node)
    for holder in file.walk(node):
        if isinstance(holder, PMap):
            inherit = holder.get("secrets")
            if inherit == "inherit" and isinstance(inherit, PStr):
                yield "inherit", inherit
        for value in holder.values() if isinstance(holder, PMap) else holder:
            if isinstance(value, PStr):
                yield from _refs_in(value)


def _refs_in(value: PStr) -> Iterator[tuple[str, PStr]]:
    """The secrets whose value the string holds (``${{ secrets.X != '' }}`` holds none)."""
    if "secrets" in value:
        for match in exposed_secret_refs(value):
            yield secret_name(match), value


# ---- whose repository a reusable workflow named in full is ----------------------------------------


def repository_base(file: SourceFile) -> str | None:
    """The folder holding the ``.github/workflows`` folder ``file`` sits in, or None."""
    parts = file.path.split("/")
    if not file.root or len(parts) < 3 or "/".join(parts[-3:-1]).lower() != ".github/workflows":
        return None
    return os.path.join(file.root, *parts[:-3])


#: ``OWNER/REPO/.github/workflows/FILE@REF``: a reusable workflow called by its full name.
FULL_NAME = lazy(r"([\w.-]+)/([\w.-]+)/(\.github/workflows/[^@\s]+)@(\S+)")
#: A git config section header, and the ``url`` of the ``origin`` remote under one.
_SECTION = lazy(r"\s*\[\s*([^\]\s\"]+)(?:\s+\"([^\"]*)\")?\s*\]")
_URL = lazy(r"\s*url\s*=\s*(\S+)\s*$")
_OWNER_NAME = lazy(r"[\w.-]+")
_GIT_FILE_LIMIT = 256 * 1024  # bytes of .git/config (or of a worktree's .git file) read


def _read_git_file(path: str) -> str | None:
    """A small git file's text: a regular file only, never one reached through a link (a hostile
    checkout's ``.git/config`` may be a link to a device or a pipe)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            raw = handle.read(_GIT_FILE_LIMIT + 1)
    except (OSError, ValueError):
        return None
    return None if len(raw) > _GIT_FILE_LIMIT else raw.decode("utf-8", "replace")


@functools.lru_cache(maxsize=16)
def own_name(base: str) -> str | None:
    """``owner/name`` (lower case) of the repository checked out at ``base``, from the URL of its
    ``origin`` remote in ``.git/config`` (a worktree's ``.git`` file is followed to its common git
    folder), or None when there is no such checkout or remote."""
    git = os.path.join(base, ".git")
    folder = git
    if os.path.isfile(git) and not os.path.islink(git):  # a worktree or submodule: "gitdir: PATH"
        text = _read_git_file(git) or ""
        line = text.split("\n", 1)[0].strip()
        if not line.startswith("gitdir:"):
            return None
        folder = os.path.join(base, line[len("gitdir:") :].strip())
        common = _read_git_file(os.path.join(folder, "commondir"))
        if common is not None and common.strip():
            folder = os.path.join(folder, common.strip())
    config = _read_git_file(os.path.join(folder, "config"))
    if config is None:
        return None
    origin = False
    for line in config.splitlines():
        section = _SECTION.match(line)
        if section is not None:
            origin = section.group(1).lower() == "remote" and section.group(2) == "origin"
            continue
        url = _URL.match(line) if origin else None
        if url is not None:
            parts = [p for p in url.group(1).replace(":", "/").rstrip("/").split("/") if p]
            if len(parts) < 2:
                return None
            owner, name = parts[-2], parts[-1].removesuffix(".git")
            if _OWNER_NAME.fullmatch(owner) and _OWNER_NAME.fullmatch(name):
                return f"{owner}/{name}".lower()
            return None
    return None


def names_this_repository(base: str, uses: str) -> bool:
    """Whether ``uses`` is ``./...`` or a full name whose ``OWNER/REPO`` is this checkout's origin."""
    if uses.startswith("./"):
        return True
    full = FULL_NAME.fullmatch(uses)
    return full is not None and own_name(base) == f"{full.group(1)}/{full.group(2)}".lower()
