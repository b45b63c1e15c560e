"""The jobs of a CI pipeline, one description whatever the CI system: where a job's lines are,
what it is called, whether it starts service containers or names a deployment, its steps and
the lines its environment is set on.

:mod:`sandkit.lint.facts.secret_context` grades a secret by the job that holds it (a test's
throwaway database password, a deploy's real one) from these records alone; each CI system's
reader below fills them:

- GitHub Actions: each entry of ``jobs:``; its ``services:``, ``environment:``, ``name``, ``steps``
  and the ``env:`` of the job, its container, services and steps.
- GitLab CI: each top-level mapping that is not a global keyword; hidden jobs (``.template:``)
  too, as definitions graded by the jobs that ``extends:`` them. A job's ``services:``,
  ``environment:`` and ``stage`` are read through its ``extends:`` chain within the file (a
  template in another file, ``include:`` and ``!reference`` are not followed), and ``default:``
  (or top-level) ``services:`` count for a job that sets none. Its ``variables:`` and its
  services' ``variables:`` are its environment; ``before_script``, ``script`` and
  ``after_script`` are its steps.
- CircleCI: each entry of ``jobs:``; images after the first of its ``docker:`` list are service
  containers; the ``environment:`` of the job, its images and its ``run`` steps. ``executors:``
  entries are definitions graded by the jobs that use them.
- Azure Pipelines: each ``- job:`` or ``- deployment:`` (a deployment names an environment), its
  stage's name in its title; a pipeline with top-level ``steps:`` is one job. ``services:`` maps
  container resources in; a ``resources.containers`` entry is a definition graded by the jobs
  whose ``services:`` name it.
- Bitbucket Pipelines: each ``step:`` (``deployment:`` names an environment, ``services:`` starts
  containers other than Bitbucket's own ``docker``); a ``definitions.services`` entry is a
  definition graded by the steps that list it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from sandkit.lint import kinds
from sandkit.lint.syntax.tree import PMap, PSeq, PStr

if TYPE_CHECKING:
    from sandkit.lint.source import SourceFile
    from sandkit.lint.syntax.tree import Pos

#: File kinds whose jobs :func:`job_spans` reads.
CI_JOB_KINDS = (
    kinds.WORKFLOW,
    kinds.GITLAB_CI,
    kinds.CIRCLECI,
    kinds.AZURE_PIPELINES,
    kinds.BITBUCKET_PIPELINES,
)


class CiStep(NamedTuple):
    """A step of a job: its lines, its name (``""`` when it has none) and the commands it runs."""

    first: int
    last: int
    name: str
    run: str


class JobSpan(NamedTuple):
    """A job of a pipeline (or a definition jobs use) and the lines it takes."""

    first: int
    last: int
    job_id: str
    #: The job's id, display name and stage: the words that say it tests or deploys.
    title: str
    #: Whether it starts service containers beside the job (a database for its tests).
    services: bool
    #: Whether it names a deployment environment.
    environment: bool
    steps: tuple[CiStep, ...]
    #: The names its environment sets, by the lines of their keys and values.
    env_lines: dict[int, frozenset[str]]
    #: For a definition (a hidden GitLab job, a service or executor defined once): the jobs that
    #: use it; empty for a job, or a definition no job of the file uses (read alone).
    used_by: tuple[JobSpan, ...] = ()


def job_spans(file: SourceFile) -> list[JobSpan]:
    """The jobs (and definitions) of a CI file, in no particular order; empty for other kinds."""

    def build() -> list[JobSpan]:
        documents = file.documents
        top = documents[0] if documents else None
        if not isinstance(top, PMap):
            return []
        reader = _READERS.get(file.kind)
        return reader(file, top) if reader is not None else []

    return file.memo("ci_job_spans", build)


def job_at(file: SourceFile, pos: Pos) -> JobSpan | None:
    """The innermost job or definition whose lines hold ``pos``."""
    found = [span for span in job_spans(file) if span.first <= pos.line <= span.last]
    return max(found, key=lambda span: (span.first, -span.last), default=None)


# ----- shared pieces ----------------------------------------------------------------------------

_MOST_NODES = 20_000  # nodes a search for a subtree's last line visits


def _last_line(node: Any, first: int) -> int:
    """The last line a parsed value takes (its deepest position, a block scalar's lines counted)."""
    last = first
    stack: list[Any] = [node]
    seen: set[int] = set()
    left = _MOST_NODES
    while stack and left > 0:
        item = stack.pop()
        left -= 1
        if isinstance(item, PStr):
            last = max(last, item.pos.line + item.count("\n"))
        if not isinstance(item, PMap | PSeq) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, PMap):
            for key, value in item.items():
                last = max(last, item.pos_of_key(key).line, item.pos_of(key).line)
                stack.append(value)
        else:
            for index, value in enumerate(item):
                last = max(last, item.pos_of(index).line)
                stack.append(value)
    return last


def _text(value: Any) -> str:
    """A script as text: a string, or the strings of a list joined by lines (lists nested by YAML
    anchors flattened, as GitLab does, to a bounded depth)."""
    lines: list[str] = []
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            lines.append(item)
        elif isinstance(item, PSeq) and depth < _MOST_NESTED:
            stack.extend((inner, depth + 1) for inner in reversed(item))
    return "\n".join(lines)


_MOST_NESTED = 10  # lists in a script list GitLab flattens


def _env_of(*maps: Any) -> dict[int, frozenset[str]]:
    """The names each mapping (or Azure ``- name: X`` list, or ``NAME=value`` list) sets, by the
    lines of their keys and values."""
    lines: dict[int, set[str]] = {}
    for env in maps:
        if isinstance(env, PMap):
            for key in env:
                for line in {env.pos_of_key(key).line, env.pos_of(key).line}:
                    lines.setdefault(line, set()).add(str(key))
        elif isinstance(env, PSeq):
            for index, item in enumerate(env):
                if isinstance(item, PMap) and isinstance(item.get("name"), str):
                    for line in {env.pos_of(index).line, item.pos_of("value").line}:
                        lines.setdefault(line, set()).add(str(item["name"]))
                elif isinstance(item, str) and "=" in item:
                    lines.setdefault(env.pos_of(index).line, set()).add(item.partition("=")[0])
    return {line: frozenset(names) for line, names in lines.items()}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _each(items: Any, key: str) -> list[Any]:
    """The ``key`` of each mapping in a list's items or a mapping's values."""
    values = items.values() if isinstance(items, PMap) else items if isinstance(items, PSeq) else ()
    return [item.get(key) for item in values if isinstance(item, PMap)]


def _sequence_steps(steps: Any, last: int, name_keys: tuple[str, ...], run_keys: tuple[str, ...]) -> tuple[CiStep, ...]:
    """Steps written as a list: each from its first line to the line before the next."""
    if not isinstance(steps, PSeq) or not steps:
        return ()
    starts = [steps.pos_of(index).line for index in range(len(steps))]
    ends = [line - 1 for line in starts[1:]] + [last]
    out = []
    for step, first, end in zip(steps, starts, ends, strict=True):
        name = run = ""
        if isinstance(step, PMap):
            nested = next((step[key] for key in run_keys if isinstance(step.get(key), PMap)), None)
            if nested is not None:  # CircleCI nests a step under its type: ``- run: {name, command}``
                name, run = _str(nested.get("name")), _text(nested.get("command"))
            else:
                name = next((_str(step.get(key)) for key in name_keys if _str(step.get(key))), "")
                run = "\n".join(_text(step.get(key)) for key in run_keys)
        out.append(CiStep(first, end, name, run))
    return tuple(out)


# ----- GitHub Actions ---------------------------------------------------------------------------


def _github(file: SourceFile, top: PMap) -> list[JobSpan]:
    jobs = top.get("jobs")
    if not isinstance(jobs, PMap):
        return []
    starts = sorted(
        (jobs.pos_of(job_id).line, str(job_id), job) for job_id, job in jobs.items() if isinstance(job, PMap)
    )
    ends = [line - 1 for line, _, _ in starts[1:]] + [len(file.lines)]
    spans = []
    for (first, job_id, job), last in zip(starts, ends, strict=True):
        services = job.get("services")
        container = job.get("container")
        steps = job.get("steps")
        spans.append(
            JobSpan(
                first,
                last,
                job_id,
                f"{job_id} {_str(job.get('name'))}",
                isinstance(services, PMap) and len(services) > 0,
                job.get("environment") is not None,
                _sequence_steps(steps, last, ("name",), ("run",)),
                _env_of(
                    job.get("env"),
                    container.get("env") if isinstance(container, PMap) else None,
                    *(_each(services, "env") if isinstance(services, PMap) else ()),
                    *_each(steps, "env"),
                ),
            )
        )
    return spans


# ----- GitLab CI --------------------------------------------------------------------------------

#: Top-level keys of a GitLab pipeline that are not jobs.
_GITLAB_KEYWORDS = frozenset(
    {
        "stages", "variables", "include", "workflow", "cache", "spec", "default", "image", "services",
        "before_script", "after_script",
    }
)  # fmt: skip
_GITLAB_SCRIPTS = ("before_script", "script", "after_script")
_MOST_EXTENDS = 11  # GitLab's own limit on an ``extends:`` chain


def _gitlab_chain(top: PMap, job: PMap) -> list[PMap]:
    """The job and the jobs it extends, nearest first, within the file (a name it does not define
    is skipped; cycles and chains longer than GitLab allows end the walk)."""
    chain, queue, seen = [job], [job], {id(job)}
    while queue and len(chain) <= _MOST_EXTENDS:
        parents = queue.pop(0).get("extends")
        for name in [parents] if isinstance(parents, str) else parents if isinstance(parents, PSeq) else ():
            parent = top.get(name) if isinstance(name, str) else None
            if isinstance(parent, PMap) and id(parent) not in seen:
                seen.add(id(parent))
                chain.append(parent)
                queue.append(parent)
    return chain


def _starts_services(services: Any, own_daemon: tuple[str, ...] = ()) -> bool:
    """Whether a ``services:`` value starts a container other than a Docker daemon (``docker:dind``,
    Bitbucket's ``docker``): a database or other service a test talks to."""
    from sandkit.lint.facts.containers import is_dind

    items = services if isinstance(services, PSeq) else [services] if isinstance(services, str) else ()
    for item in items:
        image = _str(item.get("name")) if isinstance(item, PMap) else _str(item)
        if image and not is_dind(image) and image not in own_daemon:
            return True
    return False


def _gitlab(file: SourceFile, top: PMap) -> list[JobSpan]:
    default = top.get("default")
    fallback = top.get("services") or (default.get("services") if isinstance(default, PMap) else None)
    keys = sorted((top.pos_of_key(key).line, key) for key in top)
    bounds = dict(zip([key for _, key in keys], [line - 1 for line, _ in keys[1:]] + [len(file.lines)], strict=True))
    jobs: dict[str, JobSpan] = {}
    chains: dict[str, list[PMap]] = {}
    for name, job in top.items():
        if not isinstance(name, str) or name in _GITLAB_KEYWORDS or not isinstance(job, PMap):
            continue
        chain = _gitlab_chain(top, job)
        chains[name] = chain
        services = next((link["services"] for link in chain if "services" in link), fallback)
        stage = next((_str(link.get("stage")) for link in chain if _str(link.get("stage"))), "")
        first = top.pos_of_key(name).line
        last = bounds.get(name, len(file.lines))
        steps = tuple(
            CiStep(job.pos_of_key(key).line, _last_line(job[key], job.pos_of(key).line), key, _text(job[key]))
            for key in _GITLAB_SCRIPTS
            if key in job
        )
        jobs[name] = JobSpan(
            first,
            last,
            name,
            f"{name} {stage}",
            _starts_services(services),
            any(link.get("environment") is not None for link in chain),
            steps,
            _env_of(job.get("variables"), *_each(job.get("services"), "variables")),
        )
    spans = []
    for name, span in jobs.items():
        if name.startswith("."):
            users = tuple(
                jobs[user]
                for user, chain in chains.items()
                if not user.startswith(".") and any(link is top[name] for link in chain[1:])
            )
            span = span._replace(used_by=users)
        spans.append(span)
    return spans


# ----- CircleCI ---------------------------------------------------------------------------------


def _circleci_job(file: SourceFile, job_id: str, job: PMap, first: int) -> JobSpan:
    images = job.get("docker")
    steps = job.get("steps")
    run_envs = []
    for step in steps if isinstance(steps, PSeq) else ():
        run = step.get("run") if isinstance(step, PMap) else None
        if isinstance(run, PMap):
            run_envs.append(run.get("environment"))
    last = _last_line(job, first)
    return JobSpan(
        first,
        last,
        job_id,
        job_id,
        isinstance(images, PSeq) and len(images) > 1,  # images after the first are service containers
        False,
        _sequence_steps(steps, last, ("name",), ("run",)),
        _env_of(job.get("environment"), *_each(images, "environment"), *run_envs),
    )


def _circleci(file: SourceFile, top: PMap) -> list[JobSpan]:
    """Jobs, and executors as definitions: a job that names an executor starts its service images."""
    jobs = top.get("jobs")
    executors = top.get("executors")
    defined: dict[str, JobSpan] = {}
    for name, executor in executors.items() if isinstance(executors, PMap) else ():
        if isinstance(executor, PMap) and isinstance(executors, PMap):
            defined[str(name)] = _circleci_job(file, f"executor {name}", executor, executors.pos_of_key(name).line)
    spans: list[tuple[JobSpan, str]] = []
    for job_id, job in jobs.items() if isinstance(jobs, PMap) else ():
        if isinstance(job, PMap) and isinstance(jobs, PMap):
            span = _circleci_job(file, str(job_id), job, jobs.pos_of_key(job_id).line)
            executor = job.get("executor")
            used = _str(executor.get("name") if isinstance(executor, PMap) else executor)
            if used in defined and defined[used].services:
                span = span._replace(services=True)
            spans.append((span, used))
    out = [span for span, _ in spans]
    for name, span in defined.items():
        out.append(span._replace(used_by=tuple(job for job, used in spans if used == name)))
    return out


# ----- Azure Pipelines --------------------------------------------------------------------------

_AZURE_SCRIPTS = ("script", "bash", "powershell", "pwsh")


def _azure_job(file: SourceFile, job: PMap, first: int, stage: str) -> JobSpan:
    deployment = job.get("deployment")
    job_id = _str(job.get("job")) or _str(deployment) or "pipeline"
    steps = job.get("steps")
    strategy = job.get("strategy")
    if not isinstance(steps, PSeq) and isinstance(strategy, PMap):  # a deployment's steps: strategy.<kind>.deploy.steps
        for phase in strategy.values():
            for hook in phase.values() if isinstance(phase, PMap) else ():
                if isinstance(hook, PMap) and isinstance(hook.get("steps"), PSeq):
                    steps = hook["steps"]
    last = _last_line(job, first)
    services = job.get("services")
    return JobSpan(
        first,
        last,
        job_id,
        f"{job_id} {_str(job.get('displayName'))} {stage}",
        isinstance(services, PMap) and len(services) > 0,
        deployment is not None or job.get("environment") is not None,
        _sequence_steps(steps, last, ("displayName", "name"), _AZURE_SCRIPTS),
        _env_of(job.get("variables"), *_each(steps, "env")),
    )


def _azure(file: SourceFile, top: PMap) -> list[JobSpan]:
    jobs: list[tuple[JobSpan, Any]] = []

    def read_jobs(items: Any, stage: str) -> None:
        for index, item in enumerate(items if isinstance(items, PSeq) else ()):
            if isinstance(item, PMap) and ("job" in item or "deployment" in item):
                span = _azure_job(file, item, items.pos_of(index).line, stage)
                jobs.append((span, item.get("services")))

    if isinstance(top.get("stages"), PSeq):
        for stage in top["stages"]:
            if isinstance(stage, PMap):
                read_jobs(stage.get("jobs"), f"{_str(stage.get('stage'))} {_str(stage.get('displayName'))}")
    read_jobs(top.get("jobs"), "")
    if not jobs and isinstance(top.get("steps"), PSeq):
        jobs.append((_azure_job(file, top, 1, ""), top.get("services")))
    out = [span for span, _ in jobs]
    resources = top.get("resources")
    declared = resources.get("containers") if isinstance(resources, PMap) else None
    for index, spec in enumerate(declared if isinstance(declared, PSeq) else ()):
        if not isinstance(spec, PMap) or not isinstance(declared, PSeq):
            continue
        alias = _str(spec.get("container"))
        first = declared.pos_of(index).line
        users = tuple(
            span for span, services in jobs if isinstance(services, PMap) and alias in map(str, services.values())
        )
        out.append(
            JobSpan(
                first,
                _last_line(spec, first),
                f"container {alias}",
                alias,
                True,  # a container resource is started beside the jobs that map it in
                False,
                (),
                _env_of(spec.get("env")),
                users,
            )
        )
    return out


# ----- Bitbucket Pipelines ----------------------------------------------------------------------


def _bitbucket(file: SourceFile, top: PMap) -> list[JobSpan]:
    out: list[JobSpan] = []
    listed: list[tuple[JobSpan, list[str]]] = []
    seen: set[int] = set()
    for node in file.mappings(top):
        step = node.get("step")
        if not isinstance(step, PMap) or id(step) in seen:
            continue
        seen.add(id(step))
        first = node.pos_of_key("step").line
        last = _last_line(step, first)
        listed_services = step.get("services")
        services = [str(s) for s in listed_services if isinstance(s, str)] if isinstance(listed_services, PSeq) else []
        name = _str(step.get("name")) or f"step at line {first}"
        scripts = tuple(
            CiStep(step.pos_of_key(key).line, _last_line(step[key], step.pos_of(key).line), key, _text(step[key]))
            for key in ("script", "after-script")
            if key in step
        )
        span = JobSpan(
            first,
            last,
            name,
            name,
            any(s != "docker" for s in services),  # ``docker`` is Bitbucket's own daemon
            step.get("deployment") is not None,
            scripts,
            {},
        )
        out.append(span)
        listed.append((span, services))
    definitions = top.get("definitions")
    defined = definitions.get("services") if isinstance(definitions, PMap) else None
    for name, service in defined.items() if isinstance(defined, PMap) else ():
        if not isinstance(service, PMap) or not isinstance(defined, PMap) or name == "docker":
            continue
        first = defined.pos_of_key(name).line
        users = tuple(span for span, services in listed if name in services)
        out.append(
            JobSpan(
                first,
                _last_line(service, first),
                f"service {name}",
                str(name),
                True,  # a service is a container started beside the steps that list it
                False,
                (),
                _env_of(service.get("variables"), service.get("environment")),
                users,
            )
        )
    return out


_READERS = {
    kinds.WORKFLOW: _github,
    kinds.GITLAB_CI: _gitlab,
    kinds.CIRCLECI: _circleci,
    kinds.AZURE_PIPELINES: _azure,
    kinds.BITBUCKET_PIPELINES: _bitbucket,
}
