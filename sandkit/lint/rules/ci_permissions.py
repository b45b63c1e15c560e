"""ci-permissions: the GITHUB_TOKEN a workflow hands to its jobs can do more than they need.

Code an agent pushed runs in CI with the workflow's token: with write scopes it can push to
branches, publish releases and packages, or change the workflows themselves.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from typing import NamedTuple

from sandkit.lint.facts.workflows import (
    BRANCH_ONLY_WHY,
    FULL_NAME,
    Job,
    jobs,
    named,
    names_this_repository,
    own_name,
    repository_base,
    triggers,
    untrusted_checkout,
    workflow,
)
from sandkit.lint.kinds import WORKFLOW
from sandkit.lint.model import Hit
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap, PStr, SyntaxProblem
from sandkit.syntax.yaml import load_documents


@rule(
    "CP001",
    "write-all-or-missing-permissions",
    category="ci-permissions",
    severity="low",
    kinds=(WORKFLOW,),
    triggers=("jobs",),
)
def write_all_or_missing_permissions(file: SourceFile) -> Iterator[Hit]:
    """`permissions: write-all`, or no `permissions` for a job at all.

    Missing permissions (neither at workflow level nor on a job) are reported once per
    workflow, on its `jobs:` key, at low severity: the token then gets the repository's
    default, which is write access on repositories and organisations created before 2023.
    `write-all` (workflow or job level) is high, and its message says so. A job that calls a
    reusable workflow of the same repository (`uses: ./.github/workflows/x.yml`) with no
    permissions of its own or at workflow level is reported on its `uses:` line, naming the
    called file, when that file leaves some of its jobs without permissions too (followed
    through the reusables it calls in turn); one that sets them at its top or on every job is
    not. One called by this repository's full name is read from the checkout as CP002 reads it.
    A reusable workflow of another repository, or one that cannot be read, is not reported
    in its caller. A workflow run only by `workflow_call` is info: its token is the calling
    job's, which it can keep or reduce but never widen, so the caller's permissions (reported
    in the caller, or in another repository) decide it; `write-all` in it stays high.

    Why:
    The token is available to every step. Write scopes let any compromised action, or
    code a pull request brought in, push commits, tag releases or edit workflows.

    Fix:
    Add `permissions: {contents: read}` at the top of the workflow and grant write scopes
    only on the jobs that need them.
    """
    doc = workflow(file)
    if doc is None:
        return
    top = doc.get("permissions")
    if isinstance(top, PStr) and top == "write-all":
        yield Hit(top.pos, "workflow grants permissions: write-all to every job", severity="high", why=_WRITE_ALL)
    missing = []
    callers: list[tuple[Job, PStr]] = []
    for job in jobs(doc):
        perms = job.spec.get("permissions")
        uses = job.spec.get("uses")
        if isinstance(perms, PStr) and perms == "write-all":
            yield Hit(perms.pos, f'job "{job.name}" has permissions: write-all', severity="high", why=_WRITE_ALL)
        elif perms is None and uses is None:
            missing.append(job.name)
        elif perms is None and isinstance(uses, PStr):
            callers.append((job, uses))
    if top is None and triggers(doc) != {"workflow_call"}:
        # A called-only workflow's own callers are reported where they run (the chain is followed).
        yield from _callers_without_permissions(file, callers)
    if top is None and missing:
        names = ", ".join(missing[:_NAMED_JOBS]) + (
            f" and {len(missing) - _NAMED_JOBS} more" if len(missing) > _NAMED_JOBS else ""
        )
        if triggers(doc) == {"workflow_call"}:
            # Run only when another workflow calls it: its token is what the calling job holds (the
            # called workflow can keep or reduce that, never widen it), and the caller is where the
            # grant is set and reported.
            yield Hit(
                doc.pos_of_key("jobs"),
                f"no permissions set for job(s) {names}: run only by workflow_call, the token is what each "
                "caller grants",
                severity="info",
                why=_CALLED_ONLY,
            )
            return
        yield Hit(
            doc.pos_of_key("jobs"), f"no permissions set for job(s) {names}: the token gets the repository default"
        )


_WRITE_ALL = "write-all gives every step every write scope"
_CALLED_ONLY = (
    "a workflow run only by workflow_call gets the calling job's token, which it can keep or reduce but not "
    "widen; the caller's permissions decide it (a caller in this repository that sets none is reported there)"
)
_NAMED_JOBS = 10  # jobs a message names (a planted workflow may have thousands)


@rule(
    "CP002",
    "workflow-level-write-scope",
    category="ci-permissions",
    severity="medium",
    kinds=(WORKFLOW,),
    triggers=("write",),
)
def workflow_level_write_scope(file: SourceFile) -> Iterator[Hit]:
    """A write scope is granted at workflow level to a workflow with several jobs.

    Each `scope: write` in the top-level `permissions` of a workflow that reaches two jobs or
    more. With a single job, or when all jobs but one set their own permissions, workflow level
    and job level are the same. A job calling a reusable workflow of the same repository
    (`uses: ./.github/workflows/x.yml`) whose own top-level permissions leave the scope out (or
    do not write it) does not hold it: the called workflow can only reduce its caller's token.
    One called by this repository's full name (`OWNER/REPO/.github/workflows/x.yml@v1`) is read
    from the checkout when `OWNER/REPO` is the `origin` remote in its `.git/config`: the copy
    there stands in for the ref, and the message says so. A reusable workflow of another
    repository, or one that cannot be read, is taken to hold it, and the message names it.

    Why:
    Workflow-level scopes reach every job, including the ones that build and test untrusted
    code and never need to write.

    Fix:
    Set `permissions: {contents: read}` at the top and grant the write scope on the one job
    that publishes or pushes.
    """
    doc = workflow(file)
    if doc is None:
        return
    top = doc.get("permissions")
    all_jobs = list(jobs(doc))
    if not isinstance(top, PMap) or len(all_jobs) < 2:
        return
    inheriting = [j for j in all_jobs if "permissions" not in j.spec]
    for scope, level in top.items():
        if level != "write":
            continue
        reaches = [(j.name, *_reaches(file, j, str(scope))) for j in inheriting]
        reached = [name for name, holds, _ in reaches if holds]
        if len(reached) < 2:
            continue  # one job holds it: the same as granting it on that job
        notes = [note for _, holds, note in reaches if holds and note]
        notes.sort(key=lambda note: "could not be read" not in note)  # what is assumed comes first
        said = f"; {'; '.join(notes[:2])}" + (f" (and {len(notes) - 2} more)" if len(notes) > 2 else "")
        yield Hit(
            top.pos_of_key(scope),
            f"{scope}: write at workflow level reaches jobs {named(reached, 4)}" + (said if notes else ""),
        )


def _reaches(file: SourceFile, job: Job, scope: str) -> tuple[bool, str]:
    """Whether a job with no permissions of its own holds ``scope`` from the workflow level: not a
    job calling a reusable workflow of the same repository whose own top-level permissions leave the
    scope out (the called workflow can only reduce what its caller holds). With it, what a message
    should say of a called workflow: that it could not be read (and is taken to hold the scope), or
    that this checkout's copy stood in for the ref it names."""
    uses = job.spec.get("uses")
    if not isinstance(uses, PStr):
        return True, ""
    target = str(uses).strip()
    base = repository_base(file)
    found = _called_path(base, target) if base is not None else None
    called = _read_called(base, target) if base is not None else None
    if called is None:
        if target.startswith("./") or (base is not None and names_this_repository(base, target)):
            why = "not a readable workflow in this checkout"
        elif base is not None and own_name(base) is not None:
            why = "another repository's"
        else:
            why = "another repository's, or this one's: no origin remote here names this repository"
        return True, f'job "{job.name}" calls {target}, which could not be read ({why}): taken to hold it'
    stand_in = (
        f'job "{job.name}" calls {target}: this checkout\'s copy was read, not {found[1]}' if found and found[1] else ""
    )
    permissions = called.permissions
    if permissions is None:
        return True, stand_in
    if isinstance(permissions, str):
        return permissions == "write-all", stand_in
    return permissions.get(scope) == "write", stand_in


_CALLED_LIMIT = 1_000_000  # bytes of a called workflow read
_CALL_DEPTH = 4  # reusable workflows followed through the ones they call in turn


class _Called(NamedTuple):
    """What a reusable workflow of the same repository sets: its top-level ``permissions``, the
    jobs that set none and run steps, and what the jobs that set none call."""

    permissions: dict[str, str] | str | None
    open_jobs: tuple[str, ...]
    calls: tuple[str, ...]


def _called_path(base: str, uses: str) -> tuple[str, str] | None:
    """Where the reusable workflow ``uses`` names is in the repository at ``base``, and the ref its
    copy there stands in for ("" for ``./...``, which is the running commit's): a full name
    (``OWNER/REPO/.github/workflows/x.yml@v1``) only when ``OWNER/REPO`` is this checkout's
    ``origin``. None for another repository's workflow, or one whose repository is not known."""
    if uses.startswith("./"):
        relative, ref = uses[2:].split("@", 1)[0], ""
    else:
        full = FULL_NAME.fullmatch(uses)
        if full is None or not names_this_repository(base, uses):
            return None
        relative, ref = full.group(3), full.group(4)
    if ".." in relative.split("/"):
        return None
    return os.path.join(base, *relative.split("/")), ref


def _read_called(base: str, uses: str) -> _Called | None:
    """The reusable workflow ``uses`` names in the repository at ``base`` (``./...``, or its own
    full name with the copy in this checkout standing in for the ref), or None when it is another
    repository's, or cannot be read (not there, not a workflow, too big, broken)."""
    found = _called_path(base, uses)
    if found is None:
        return None
    path = found[0]
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return None
    return _workflow_in(path, stat.st_mtime_ns, stat.st_size)


def _callers_without_permissions(file: SourceFile, callers: list[tuple[Job, PStr]]) -> Iterator[Hit]:
    """Jobs (of a workflow setting no permissions) that set none and call a reusable workflow of
    the same repository which leaves jobs without permissions: the token they run with is the
    repository default."""
    base = repository_base(file)
    if base is None:
        return
    for job, uses in callers:
        target = str(uses).strip()
        open_jobs = _open_jobs(base, target)
        if not open_jobs:
            continue
        names = ", ".join(open_jobs[:_NAMED_JOBS]) + (
            f" and {len(open_jobs) - _NAMED_JOBS} more" if len(open_jobs) > _NAMED_JOBS else ""
        )
        found = _called_path(base, target)
        stand_in = f" (this checkout's copy read, not its {found[1]})" if found and found[1] else ""
        yield Hit(
            uses.pos,
            f'job "{job.name}" sets no permissions and calls {target}, which sets none for job(s) {names}: '
            f"the token gets the repository default{stand_in}",
        )


def _open_jobs(base: str, uses: str) -> list[str]:
    """The jobs of the reusable workflow ``uses`` (and of those it calls in turn, ``_CALL_DEPTH``
    deep, each once) that run with the token of a caller setting no permissions: none when it
    cannot be read."""
    found: list[str] = []
    seen: set[str] = set()
    pending = [(uses, _CALL_DEPTH)]
    while pending:
        target, depth = pending.pop(0)
        if target in seen or depth <= 0:
            continue
        seen.add(target)
        called = _read_called(base, target)
        if called is None or called.permissions is not None:
            continue
        found.extend(called.open_jobs)
        pending.extend((inner, depth - 1) for inner in called.calls)
    return found


@functools.lru_cache(maxsize=64)
def _workflow_in(path: str, mtime: int, size: int) -> _Called | None:
    """What a workflow file sets (read once per version of the file: many jobs may call one
    workflow), or None when it cannot be read."""
    if size > _CALLED_LIMIT:
        return None
    try:
        with open(path, "rb") as handle:
            raw = handle.read(_CALLED_LIMIT + 1)
        if len(raw) > _CALLED_LIMIT:
            return None
        documents = load_documents(raw.decode("utf-8", "replace"))
    except (OSError, SyntaxProblem, ValueError, RecursionError):
        return None
    loaded = documents[0] if documents else None
    if not isinstance(loaded, PMap):
        return None
    raw_permissions = loaded.get("permissions")
    permissions: dict[str, str] | str | None = None
    if isinstance(raw_permissions, PMap):
        permissions = {str(k): str(v) for k, v in raw_permissions.items()}
    elif isinstance(raw_permissions, str):
        permissions = str(raw_permissions)
    open_jobs: list[str] = []
    calls: list[str] = []
    for job in jobs(loaded):
        if "permissions" in job.spec:
            continue
        uses = job.spec.get("uses")
        if uses is None:
            open_jobs.append(job.name)
        elif isinstance(uses, str):
            calls.append(str(uses).strip())
    return _Called(permissions, tuple(open_jobs), tuple(calls))


@rule(
    "CP003",
    "pull-request-target-checkout",
    category="ci-permissions",
    severity="high",
    kinds=(WORKFLOW,),
    triggers=("pull_request_target", "workflow_run"),
)
def pull_request_target_checkout(file: SourceFile) -> Iterator[Hit]:
    """A pull_request_target (or workflow_run) job checks out the pull request's head.

    `actions/checkout` with `ref:` (or `repository:`) naming the pull request's head,
    `github.head_ref`, `refs/pull/...` or workflow_run's `head_sha`. Checking out the base
    branch (no `ref`) is not a finding. A branch name alone (`github.head_ref`,
    `pull_request.head.ref`, workflow_run's `head_branch`) with no `repository:` input, or with
    the workflow's own, fetches the base repository's branch of that name, written only by those
    with push access: low. Jobs that also hold secrets get CS003 as well.

    Why:
    The job runs with a write-capable token in the base repository's context; once the
    fork's code is on disk, any script, test or package hook it runs acts with that token
    and can poison caches shared with trusted workflows.

    Fix:
    Use `pull_request` to build and test contributions; if a privileged follow-up is needed,
    run it in a separate workflow that does not execute the pull request's code.
    """
    doc = workflow(file)
    if doc is None:
        return
    risky = triggers(doc) & {"pull_request_target", "workflow_run"}
    if not risky:
        return
    for job in jobs(doc):
        for step in job.steps:
            checkout = untrusted_checkout(step)
            if checkout is None:
                continue
            ref, on = checkout.value, "/".join(sorted(risky))
            if checkout.branch_only:
                yield Hit(
                    ref.pos,
                    f'job "{job.name}" on {on} checks out the base repository\'s branch '
                    f"named by the pull request: {ref}",
                    severity="low",
                    why=BRANCH_ONLY_WHY,
                )
            else:
                yield Hit(ref.pos, f'job "{job.name}" on {on} checks out untrusted code: {ref}')
