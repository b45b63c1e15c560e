"""ci-secret-exposure: CI secrets handed to more code than the step that needs them.

An agent that opens a pull request, or a planted instruction that makes it edit a workflow,
runs code in CI. Every secret that code can see is one it can send out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sandkit.lazy_regex import lazy
from sandkit.lint.facts.workflows import (
    SECRET_REF,
    UNTRUSTED_TRIGGERS,
    jobs,
    secret_refs,
    triggers,
    untrusted_checkout,
    workflow,
)
from sandkit.lint.kinds import WORKFLOW
from sandkit.lint.model import Hit
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap, PStr

_TOKEN_ONLY = frozenset({"GITHUB_TOKEN"})
# A secret whose name ends in one of these holds an identifier, not a credential: a Docker Hub
# user name, an Azure subscription or tenant id, an access key's id, an organisation or region
# kept in secrets only to keep it out of logs. Knowing it lets nobody in.
_IDENTIFIER = lazy(
    r"(?:USERNAME|(?:^|_)(?:USER|LOGIN|E?MAIL|ID|ORG|ORGANI[SZ]ATION|OWNER|NAMESPACE|REGION|PROJECT|ACCOUNT))$"
)
# `uses: $/...` is GitHub's reference to the workflow's own repository at the running commit.
_SAME_REPOSITORY = ("./", "$/")
_PRINT = lazy(r"(?:^|[;&|(]\s*|\s)(?:echo|printf)\b")
_TO_FILE = lazy(r"(?:>>?|\btee\b)")
_MASK = "::add-mask::"


def _env_secrets(env: object) -> Iterator[tuple[str, str, PStr]]:
    """(variable, secret, value) for env entries whose value references a secret."""
    if isinstance(env, PMap):
        for name, value in env.items():
            if isinstance(value, PStr):
                for match in SECRET_REF.finditer(value):
                    yield str(name), match.group(1) or match.group(2), value


@rule(
    "CS001",
    "secrets-in-broad-env",
    category="ci-secret-exposure",
    severity="medium",
    kinds=(WORKFLOW,),
    triggers=("secrets",),
)
def secrets_in_broad_env(file: SourceFile) -> Iterator[Hit]:
    """A secret is put in workflow-level or job-level `env`, so every step sees it.

    Workflow-level env reaches every step of every job, third-party actions included;
    job-level env reaches every step of the job. GITHUB_TOKEN is info: it is the workflow's own
    token, scoped by `permissions` and expiring with the job, and actions are handed it by
    default (`github.token`) anyway. A secret whose name says it holds an identifier, not a
    credential (`DOCKERHUB_USERNAME`, `AZURE_SUBSCRIPTION_ID`, `AWS_ACCESS_KEY_ID`, `*_ORG`,
    `*_REGION`, `*_EMAIL`), is not reported. Step-level env is the intended place and is not a
    finding.

    Why:
    Every action and script in scope can read the secret from its environment, and a single
    compromised or malicious action (or a command an agent added) can send it out.

    Fix:
    Move the secret to the `env:` (or `with:`) of the one step that uses it.
    """
    doc = workflow(file)
    if doc is None:
        return
    scopes = [("workflow-level env", doc.get("env"), "every job")]
    scopes += [
        (f'env of job "{job.name}"', job.spec.get("env"), f'every step of job "{job.name}"') for job in jobs(doc)
    ]
    for label, env, reach in scopes:
        for name, secret, value in _env_secrets(env):
            if _IDENTIFIER.search(secret.upper()):
                continue
            yield Hit(
                value.pos,
                f"{label} exposes secrets.{secret} (as {name}) to {reach}",
                severity="info" if secret in _TOKEN_ONLY else "",
                why="the workflow's own token, scoped by its permissions and expiring with the job",
            )


@rule(
    "CS002",
    "secrets-inherit",
    category="ci-secret-exposure",
    severity="medium",
    kinds=(WORKFLOW,),
    triggers=("inherit",),
)
def secrets_inherit(file: SourceFile) -> Iterator[Hit]:
    """A reusable workflow is called with `secrets: inherit`, passing every secret.

    A reusable workflow of the same repository (`uses: ./.github/workflows/...`, or the
    `$/.github/workflows/...` form, which names the workflow's own repository at the running
    commit) is not reported: its file is reviewed and changed with the caller's, it reads only
    the secrets its own text names, and whoever can edit it can as well pass any secret
    explicitly; `inherit` hands it nothing an inlined job would not have. A workflow of another
    repository, at any ref, is reported.

    Why:
    The called workflow gets all repository, environment and organisation secrets, not the
    one or two it needs; a change to it (or to a remote one at a moving ref) can use them all.

    Fix:
    Pass the secrets the called workflow declares: `secrets: {NPM_TOKEN: ${{ secrets.NPM_TOKEN }}}`.
    """
    doc = workflow(file)
    if doc is None:
        return
    for job in jobs(doc):
        value = job.spec.get("secrets")
        if isinstance(value, PStr) and value == "inherit":
            uses = str(job.spec.get("uses") or "").strip()
            if uses.startswith(_SAME_REPOSITORY):
                continue
            target = uses or "a reusable workflow"
            yield Hit(value.pos, f'job "{job.name}" passes every secret to {target} (secrets: inherit)')


@rule(
    "CS003",
    "secrets-with-untrusted-code",
    category="ci-secret-exposure",
    severity="critical",
    kinds=(WORKFLOW,),
    triggers=("pull_request_target", "workflow_run"),
)
def secrets_with_untrusted_code(file: SourceFile) -> Iterator[Hit]:
    """A pull_request_target or workflow_run job checks out untrusted code and has secrets.

    The job checks out the pull request's head (`ref: ${{ github.event.pull_request.head.sha }}`,
    `github.head_ref`, `refs/pull/...`, the head repository, or workflow_run's `head_sha`)
    and references a secret anywhere (its env, steps, `secrets: inherit`) or inherits one
    from workflow-level env.

    Why:
    These triggers run in the base repository's context with its secrets, even for a pull
    request from a fork. Once the fork's code is checked out, its build scripts, tests or
    package hooks run with those secrets within reach.

    Fix:
    Use `pull_request` for building untrusted code; keep privileged steps in a separate
    workflow that never checks out the pull request's code, and pass data as artifacts.
    """
    doc = workflow(file)
    if doc is None:
        return
    risky = triggers(doc) & set(UNTRUSTED_TRIGGERS)
    if not risky:
        return
    inherited = {name for name, _ in secret_refs(file, doc.get("env"))}
    for job in jobs(doc):
        checkout = next((c for c in map(untrusted_checkout, job.steps) if c is not None), None)
        if checkout is None:
            continue
        names = sorted({s for s, _ in secret_refs(file, job.spec)} | inherited)
        names = [n for n in names if n != "GITHUB_TOKEN"] or names
        if names:
            yield Hit(
                checkout.pos,
                f'job "{job.name}" runs on {"/".join(sorted(risky))}, checks '
                f"out untrusted code ({checkout}) and has secrets "
                f"({', '.join(names[:4])})",
            )


@rule(
    "CS004",
    "secret-printed-or-written",
    category="ci-secret-exposure",
    severity="high",
    kinds=(WORKFLOW,),
    triggers=("secrets",),
)
def secret_printed_or_written(file: SourceFile) -> Iterator[Hit]:
    """A `run:` step echoes a secret or writes it to a file.

    A line of a `run:` script that prints `${{ secrets.X }}` (or a variable set from a
    secret in the step, job or workflow env) with echo/printf, or redirects or tees it into
    a file, $GITHUB_ENV or $GITHUB_OUTPUT included. Piping into a command
    (`echo "$TOKEN" | docker login --password-stdin`) and `::add-mask::` are not findings.

    Why:
    Masking in logs is best-effort (encoded or split values escape it), and a file in the
    workspace is picked up by caches, artifacts and every later step or action.

    Fix:
    Pass the secret to the command through its environment or stdin, and never store it in
    the workspace or in $GITHUB_ENV.
    """
    doc = workflow(file)
    if doc is None:
        return
    top = {name for name, _, _ in _env_secrets(doc.get("env"))}
    for job in jobs(doc):
        job_vars = top | {name for name, _, _ in _env_secrets(job.spec.get("env"))}
        for step in job.steps:
            run = step.get("run")
            if not isinstance(run, PStr):
                continue
            names = job_vars | {name for name, _, _ in _env_secrets(step.get("env"))}
            yield from _leaks(file, run, names)


_EXPRESSION = lazy(r"\$\{\{.*?\}\}")
_PIPE = lazy(r"(?<!\|)\|(?!\|)")


def _leaks(file: SourceFile, run: PStr, names: set[str]) -> Iterator[Hit]:
    offset = 0
    for line in run.split("\n"):
        start, offset = offset, offset + len(line) + 1
        if _MASK in line:
            continue
        used = SECRET_REF.search(line) or next(
            (m for n in names for m in [re.search(r"\$\{?" + re.escape(n) + r"\b", line)] if m), None
        )
        if used is None:
            continue
        shell = _EXPRESSION.sub(lambda m: "x" * len(m.group()), line)  # `||` inside ${{ }} is no pipe
        pipe_at = _PIPE.search(shell)
        before, pipe = (line[: pipe_at.start()], "|") if pipe_at else (line, "")
        if _TO_FILE.search(line[used.end() :]) and not pipe:
            yield Hit(file.str_pos(run, start + used.start()), f"run step writes {used.group().strip('${ ')} to a file")
        elif _PRINT.search(before) and not pipe and used.start() < len(before):
            yield Hit(
                file.str_pos(run, start + used.start()), f"run step prints {used.group().strip('${ ')} to the log"
            )
