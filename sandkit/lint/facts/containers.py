"""Every container a file configures, whatever its kind, as :class:`~.container_model.Container` records.

The readers of the rarer kinds (Kubernetes, Terraform and Nomad, Ansible, GitLab runners, systemd
units, Testcontainers) are imported by the branch that reads one: most runs never meet them.

``containers(file)`` and ``environment(file)`` are computed once per file (``file.memo``) and
shared by the runtime-socket, privileged, host-credentials and egress rules, so each of those
rules is a few lines over normalised facts instead of a parser per file kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.consumers.booleans import js_truthy
from sandkit.lint.consumers.compose import project_of
from sandkit.lint.facts.compose import compose_services
from sandkit.lint.facts.container_model import (
    Container,
    Mount,
    Setting,
    env_items,
    installs_agent,
    kv_read_only,
    list_settings,
    names_agent,
    split_kv_list,
    split_volume,
    strings,
)
from sandkit.lint.facts.docker_cli import RUNTIMES, container_from_args, from_commands
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import Command, Word, parse_commands
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr, pos_of

if TYPE_CHECKING:
    from typing import Any

#: The file kinds in which containers are configured; container rules subscribe to these.
CONTAINER_KINDS = (
    kinds.COMPOSE,
    kinds.KUBERNETES,
    kinds.KUSTOMIZATION,
    kinds.JSON_PATCH,
    kinds.DEVCONTAINER,
    kinds.WORKFLOW,
    kinds.ACTION,
    kinds.KIT,
    kinds.AGENT_CONFIG,
    kinds.DOCKERFILE,
    kinds.SHELL,
    kinds.MAKEFILE,
    kinds.JUSTFILE,
    kinds.GITLAB_CI,
    kinds.CIRCLECI,
    kinds.JENKINSFILE,
    kinds.GITLAB_RUNNER,
    kinds.AZURE_PIPELINES,
    kinds.BITBUCKET_PIPELINES,
    kinds.NOMAD,
    kinds.TERRAFORM,
    kinds.SYSTEMD,
    kinds.ANSIBLE,
    kinds.TESTCONTAINERS,
)
#: CI pipelines (other than GitHub's) whose job scripts :func:`ci_scripts` reads.
CI_SCRIPT_KINDS = (kinds.GITLAB_CI, kinds.CIRCLECI, kinds.AZURE_PIPELINES, kinds.BITBUCKET_PIPELINES)
#: Kinds whose shell commands are read for ``docker run`` (scripts, recipes, RUN lines, Jenkins ``sh`` steps).
_COMMAND_KINDS = (kinds.SHELL, kinds.MAKEFILE, kinds.JUSTFILE, kinds.DOCKERFILE, kinds.JENKINSFILE)
#: Where environment variables are set: container kinds plus .env files.
ENV_KINDS = (*CONTAINER_KINDS, kinds.ENV)


def containers(file: SourceFile) -> list[Container]:
    return file.memo("containers", lambda: list(_containers(file)))


def environment(file: SourceFile) -> list[Setting]:
    """Every environment variable the file sets, for containers or for the runner."""
    return file.memo("environment", lambda: list(_environment(file)))


def _containers(file: SourceFile) -> Iterator[Container]:
    kind = file.kind
    if kind == kinds.COMPOSE:
        project = project_of(file)
        for document in file.documents:
            yield from compose_services(document, project)
    elif kind == kinds.KUBERNETES:
        from sandkit.lint.facts.kubernetes import kubernetes_containers

        yield from kubernetes_containers(file)
    elif kind == kinds.KUSTOMIZATION:
        from sandkit.lint.facts.kubernetes import kustomization_containers

        yield from kustomization_containers(file)
    elif kind == kinds.JSON_PATCH:
        from sandkit.lint.facts.kubernetes import json_patch_containers

        yield from json_patch_containers(file)
    elif kind == kinds.DEVCONTAINER:
        yield from _devcontainer(file)
    elif kind in (kinds.WORKFLOW, kinds.ACTION):
        yield from _workflow(file)
    elif kind == kinds.KIT:
        yield from _kit(file)
    elif kind == kinds.AGENT_CONFIG:
        yield from _agent_config(file)
    elif kind == kinds.DOCKERFILE:
        yield from _dockerfile(file)
    elif kind == kinds.GITLAB_CI:
        yield from _gitlab_ci(file)
    elif kind == kinds.CIRCLECI:
        yield from _circleci(file)
    elif kind == kinds.JENKINSFILE:
        yield from _jenkins_docker(file)
    elif kind == kinds.GITLAB_RUNNER:
        from sandkit.lint.facts.ci_runners import gitlab_runner_containers

        yield from gitlab_runner_containers(file)
    elif kind == kinds.AZURE_PIPELINES:
        yield from _azure_pipelines(file)
    elif kind == kinds.BITBUCKET_PIPELINES:
        yield from _bitbucket_pipelines(file)
    elif kind == kinds.NOMAD:
        from sandkit.lint.facts.infrastructure import nomad_containers

        yield from nomad_containers(file)
    elif kind == kinds.TERRAFORM:
        from sandkit.lint.facts.infrastructure import terraform_containers

        yield from terraform_containers(file)
    elif kind == kinds.SYSTEMD:
        from sandkit.lint.facts.units import unit_containers

        yield from unit_containers(file)
    elif kind == kinds.ANSIBLE:
        from sandkit.lint.facts.ansible import ansible_containers

        yield from ansible_containers(file)
    elif kind == kinds.TESTCONTAINERS:
        from sandkit.lint.facts.testcontainers import testcontainers_containers

        yield from testcontainers_containers(file)
    if kind in _COMMAND_KINDS and any(runtime in file.text for runtime in RUNTIMES):
        yield from from_commands(file.commands)


# ----- devcontainer.json --------------------------------------------------------------------
def _devcontainer(file: SourceFile) -> Iterator[Container]:
    config = file.documents[0] if file.documents else None
    if not isinstance(config, PMap):
        return
    run_args = [
        Word(str(a), config["runArgs"].pos_of(i))
        for i, a in enumerate(strings(config.get("runArgs")))
        if isinstance(config.get("runArgs"), PSeq)
    ]
    box = container_from_args(
        run_args, "dev container", config.pos, image_known=str(config.get("image") or "dev container image")
    )
    mounts = config.get("mounts")
    for index, mount in enumerate(strings(mounts)):
        at = mounts.pos_of(index) if isinstance(mounts, PSeq) else config.pos
        fields: dict[str, Any] = (
            split_kv_list(mount) if isinstance(mount, str) else dict(mount) if isinstance(mount, PMap) else {}
        )
        source = fields.get("source") or fields.get("src") or ""
        read_only = kv_read_only({str(k).lower(): str(v).lower() for k, v in fields.items()})
        box.mounts.append(
            Mount(str(source), str(fields.get("target") or ""), at, str(fields.get("type") or "bind"), read_only)
        )
    workspace = config.get("workspaceMount")
    if isinstance(workspace, str):
        fields = split_kv_list(workspace)
        box.mounts.append(
            Mount(
                fields.get("source", ""),
                fields.get("target", ""),
                config.pos_of("workspaceMount"),
                read_only=kv_read_only(fields),
            )
        )
    if js_truthy(config.get("privileged")):  # the Dev Containers CLI tests it as JavaScript does
        box.settings.append(Setting("privileged", "true", config.pos_of("privileged")))
    for key, name in (("capAdd", "cap-add"), ("securityOpt", "security-opt")):
        list_settings(box, config.get(key), name, config.pos_of(key))
    features = config.get("features")
    if isinstance(features, PMap):
        for feature in features:
            box.settings.append(Setting("feature", str(feature), features.pos_of_key(feature)))
    for key in ("containerEnv", "remoteEnv"):
        box.env.extend(env_items(config.get(key), config.pos_of(key)))
    box.agent = any(names_agent(str(feature)) for feature in features or ()) or any(
        installs_agent(text) for key in _DEVCONTAINER_LIFECYCLE for text in _command_texts(config.get(key))
    )
    yield box


#: Commands a devcontainer runs inside the container while it is created and started.
_DEVCONTAINER_LIFECYCLE = ("onCreateCommand", "updateContentCommand", "postCreateCommand", "postStartCommand")


def _command_texts(value: Any) -> Iterator[str]:
    """A lifecycle command as text: a string, an argument list, or an object of either."""
    for item in value.values() if isinstance(value, PMap) else [value]:
        if isinstance(item, str):
            yield item
        elif isinstance(item, PSeq):
            yield " ".join(str(word) for word in item)


# ----- GitHub workflows and composite actions -----------------------------------------------
def _workflow(file: SourceFile) -> Iterator[Container]:
    for document in file.documents:
        if not isinstance(document, PMap):
            continue
        jobs = document.get("jobs")
        for job_name, job in jobs.items() if isinstance(jobs, PMap) else ():
            if not isinstance(job, PMap):
                continue
            if "container" in job:
                yield from _job_container(file, job.get("container"), f'job "{job_name}"', job.pos_of("container"))
            services = job.get("services")
            if isinstance(services, PMap):
                for name, service in services.items():
                    yield from _job_container(
                        file, service, f'service "{name}" of job "{job_name}"', services.pos_of_key(name)
                    )
            yield from _step_runs(file, job.get("steps"))
        runs = document.get("runs")
        if isinstance(runs, PMap):
            yield from _step_runs(file, runs.get("steps"))


def _job_container(file: SourceFile, spec: Any, label: str, pos: Pos) -> Iterator[Container]:
    if isinstance(spec, str):
        yield Container(label=label, pos=pos, image=spec)
        return
    if not isinstance(spec, PMap):
        return
    options = spec.get("options")
    words = [w for c in file.commands_in(options) for w in c.words] if isinstance(options, PStr) else []
    box = container_from_args(words, label, pos, image_known=str(spec.get("image") or "image"))
    volumes = spec.get("volumes")
    for index, volume in enumerate(strings(volumes)):
        if isinstance(volume, str):
            source, target = split_volume(volume)
            at = volumes.pos_of(index) if isinstance(volumes, PSeq) else pos
            box.mounts.append(Mount(source, target, pos_of(volume, at)))
    box.env.extend(env_items(spec.get("env"), spec.pos_of("env")))
    yield box


def _step_runs(file: SourceFile, steps: Any) -> Iterator[Container]:
    for step in strings(steps):
        if isinstance(step, PMap) and isinstance(step.get("run"), PStr):
            yield from from_commands(file.commands_in(step["run"]))


# ----- GitLab CI, CircleCI and Jenkins -----------------------------------------------------
#: Top-level keys of .gitlab-ci.yml that are not jobs.
_GITLAB_GLOBALS = frozenset({"stages", "variables", "include", "workflow", "cache", "spec"})
_GITLAB_SCRIPTS = ("before_script", "script", "after_script")
_DIND = lazy(r"(?i)(?:^|/)docker:(?:[\w.-]*-)?dind\b|(?:^|/)dind\b|:dind(?:-rootless)?\b")


def is_dind(image: str) -> bool:
    """A Docker-in-Docker daemon image (``docker:dind``, ``docker:27-dind``, ``docker:dind-rootless``)."""
    return bool(_DIND.search(image.strip()))


def _gitlab_ci(file: SourceFile) -> Iterator[Container]:
    """Each job (and ``default``, and the top level's own image/services) of a pipeline, and
    ``docker run`` in their scripts."""
    for document in file.documents:
        if not isinstance(document, PMap):
            continue
        yield from _gitlab_job(file, document, "pipeline defaults", document.pos)
        for name, job in document.items():
            if isinstance(job, PMap) and name not in _GITLAB_GLOBALS:
                yield from _gitlab_job(file, job, f'job "{name}"', document.pos_of_key(name))
    yield from _script_containers(file)


def _script_containers(file: SourceFile) -> Iterator[Container]:
    for script in ci_scripts(file):
        yield from from_commands(file.commands_in(script))


def ci_scripts(file: SourceFile) -> Iterator[PStr]:
    """The shell scripts of a CI pipeline other than GitHub's: GitLab's ``before_script``,
    ``script`` and ``after_script`` (each line), CircleCI's ``run`` steps (a string or its
    ``command``, multi-line blocks included), Azure's ``script`` and ``bash`` steps and
    Bitbucket's ``script`` and ``after-script`` lines."""
    kind = file.kind
    keys = {
        kinds.GITLAB_CI: _GITLAB_SCRIPTS,
        kinds.AZURE_PIPELINES: ("script", "bash"),
        kinds.BITBUCKET_PIPELINES: ("script", "after-script"),
        kinds.CIRCLECI: ("run",),
    }.get(kind, ())
    if not keys:
        return
    for node in file.mappings():
        for key in keys:
            value = node.get(key)
            if kind == kinds.CIRCLECI and isinstance(value, PMap):
                value = value.get("command")
            yield from _script_lines(value)


def _image_name(spec: Any) -> str:
    if isinstance(spec, PMap):
        spec = spec.get("name")
    return str(spec) if isinstance(spec, str) else ""


def _gitlab_job(file: SourceFile, job: PMap, label: str, pos: Pos) -> Iterator[Container]:
    box = Container(label=label, pos=pos, image=_image_name(job.get("image")))
    services = job.get("services")
    for index, service in enumerate(strings(services)):
        image = _image_name(service)
        at = services.pos_of(index) if isinstance(services, PSeq) else pos
        if is_dind(image):
            where = service.pos_of("name") if isinstance(service, PMap) else pos_of(service, at)
            box.settings.append(Setting("dind", image, where))
    if box.settings or box.image:  # variables are read once, by environment()
        yield box


def _script_lines(value: Any) -> Iterator[PStr]:
    """A GitLab script: one string or a list of strings (lists of lists after ``!reference``)."""
    if isinstance(value, PStr):
        yield value
    elif isinstance(value, PSeq):
        for item in value:
            if isinstance(item, PStr):
                yield item
            elif isinstance(item, PSeq):
                yield from (line for line in item if isinstance(line, PStr))


def _gitlab_variables(value: Any) -> Iterator[Setting]:
    """``variables:`` entries, written ``NAME: value`` or ``NAME: {value: ..., description: ...}``."""
    if not isinstance(value, PMap):
        return
    for key, item in value.items():
        if isinstance(item, PMap):
            item = item.get("value")
        if isinstance(item, str | int | float | bool):
            yield Setting(str(key), str(item), value.pos_of(key))


def _azure_pipelines(file: SourceFile) -> Iterator[Container]:
    """Container resources and job containers (their ``options`` are ``docker create`` flags), and
    the ``script``/``bash`` steps. The socket Azure maps into container jobs by default
    (``mapDockerSocket``) is not reported: every container job has it unless turned off."""
    for node in file.mappings():
        resources = node.get("resources")
        declared = resources.get("containers") if isinstance(resources, PMap) else None
        for index, spec in enumerate(declared if isinstance(declared, PSeq) else ()):
            if isinstance(spec, PMap) and isinstance(declared, PSeq):
                label = f'container resource "{spec.get("container") or index + 1}"'
                yield from _job_container(file, spec, label, declared.pos_of(index))
        container = node.get("container")
        if isinstance(container, PMap) and "image" in container:
            yield from _job_container(file, container, "job container", node.pos_of("container"))
    yield from _script_containers(file)


def _bitbucket_pipelines(file: SourceFile) -> Iterator[Container]:
    """The ``script`` and ``after-script`` lines of every step (pipes, which are mappings, are not
    shell). Bitbucket's own ``docker`` service refuses privileged containers and socket mounts,
    so it is not reported; ``docker run`` on a self-hosted runner is."""
    yield from _script_containers(file)


def _circleci(file: SourceFile) -> Iterator[Container]:
    """Docker executor images and the ``run`` steps of every job and reusable command."""
    yield from _script_containers(file)
    for node in file.mappings():
        images = node.get("docker")
        if isinstance(images, PSeq):
            for index, spec in enumerate(images):
                if isinstance(spec, PMap) and isinstance(spec.get("image"), str):
                    box = Container(label=f'executor image "{spec["image"]}"', pos=images.pos_of(index))
                    box.image = str(spec["image"])
                    box.env.extend(env_items(spec.get("environment"), spec.pos))
                    if is_dind(box.image):
                        box.settings.append(Setting("dind", box.image, spec.pos_of("image")))
                    yield box


def _jenkins_docker(file: SourceFile) -> Iterator[Container]:
    """Docker agents and Docker Pipeline steps with their ``docker run`` arguments."""
    for item in file.pipeline.docker_args:
        words = [w for c in _relocated_commands(item.args.text, item.args.pos) for w in c.words]
        label = f'Jenkins {item.where} "{item.image}"'
        yield container_from_args(words, label, item.args.pos, image_known=item.image)


def _relocated_commands(text: str, start: Pos) -> list[Command]:
    commands = parse_commands(text)
    for command in commands:
        command.words = [Word(w.text, _shift(start, w.pos)) for w in command.words]
    return commands


def _shift(start: Pos, p: Pos) -> Pos:
    return Pos(start.line + p.line - 1, start.column + p.column - 1 if p.line == 1 else p.column)


# ----- kits ---------------------------------------------------------------------------------
def _kit(file: SourceFile) -> Iterator[Container]:
    for kit in file.documents:
        if not isinstance(kit, PMap):
            continue
        box = Container(label=f'kit "{kit.get("name") or "?"}"', pos=kit.pos, agent=True)
        for entry in strings(kit.get("files")):
            if isinstance(entry, PMap) and isinstance(entry.get("source"), str):
                box.mounts.append(Mount(entry["source"], str(entry.get("path") or ""), entry.pos_of("source"), "copy"))
        workspace = kit.get("workspace")
        if isinstance(workspace, PMap):
            for key in ("repo", "path", "source"):
                value = workspace.get(key)
                if isinstance(value, str) and "://" not in value and not value.startswith("git@"):
                    box.mounts.append(Mount(value, "", workspace.pos_of(key), "workspace"))
        isolation = kit.get("isolation")
        if isinstance(isolation, PMap) and isinstance(isolation.get("docker"), str):
            box.settings.append(Setting("docker", isolation["docker"], isolation.pos_of("docker")))
        box.env.extend(env_items(kit.get("env"), kit.pos_of("env")))
        yield box
        for key in ("install", "startup"):
            for line in strings(kit.get(key)):
                if isinstance(line, PStr):
                    yield from from_commands(file.commands_in(line))


# ----- agent configuration (MCP servers started with docker run) ----------------------------
def _agent_config(file: SourceFile) -> Iterator[Container]:
    """Containers that agent configuration starts: ``command`` + ``args`` running ``docker run``."""
    for node in file.mappings():
        command, args = node.get("command"), node.get("args")
        if isinstance(command, PStr) and isinstance(args, PSeq):
            words = [Word(command, command.pos)] + [Word(str(a), args.pos_of(i)) for i, a in enumerate(args)]
            for box in from_commands([Command(words=words)]):
                box.env.extend(env_items(node.get("env"), node.pos))
                yield box


# ----- Dockerfiles --------------------------------------------------------------------------
def _dockerfile(file: SourceFile) -> Iterator[Container]:
    box = Container(label="image", pos=Pos())
    for ins in file.instructions:
        if ins.keyword == "VOLUME":
            paths = ins.exec_form() or ins.args.split()
            for path in paths:
                offset = max(ins.args.find(path), 0)
                box.mounts.append(Mount("", path, ins.pos_at(offset), "declared"))
        elif ins.keyword in ("CMD", "ENTRYPOINT"):
            box.command += " " + ins.args
        elif ins.keyword == "FROM":
            box.image = ins.args.split()[0] if ins.args.split() else ""
    if box.mounts:
        yield box


def _environment(file: SourceFile) -> Iterator[Setting]:
    for box in containers(file):
        yield from box.env
    kind = file.kind
    if kind == kinds.ENV:
        for entry in file.env_entries:
            yield Setting(str(entry.name), str(entry.value), entry.name.pos)
    elif kind == kinds.DOCKERFILE:
        yield from _dockerfile_env(file)
    elif kind in (kinds.WORKFLOW, kinds.ACTION):
        yield from _workflow_env(file)
    elif kind == kinds.GITLAB_CI:
        for node in file.mappings():
            yield from _gitlab_variables(node.get("variables"))
    elif kind == kinds.CIRCLECI:
        for node in file.mappings(prune=("environment",)):
            yield from env_items(node.get("environment"), node.pos_of("environment"))
    elif kind == kinds.TERRAFORM:
        from sandkit.lint.facts.infrastructure import terraform_environment

        yield from terraform_environment(file)
    elif kind == kinds.SYSTEMD:
        from sandkit.lint.facts.units import unit_environment

        yield from unit_environment(file)
    elif kind == kinds.TESTCONTAINERS:
        from sandkit.lint.facts.testcontainers import testcontainers_environment

        yield from testcontainers_environment(file)
    elif kind == kinds.GITLAB_RUNNER:
        from sandkit.lint.facts.ci_runners import gitlab_runner_environment

        yield from gitlab_runner_environment(file)
    elif kind == kinds.AZURE_PIPELINES:
        for node in file.mappings(prune=("variables",)):
            yield from env_items(node.get("variables"), node.pos_of("variables"))
    if kind in _COMMAND_KINDS:
        for command in file.commands:
            for word in command.assignments:
                name, _, value = word.text.partition("=")
                yield Setting(name, value, word.pos)
            program, index = command.program()
            if program == "export":
                for word in command.words[index + 1 :]:
                    name, eq, value = word.text.partition("=")
                    if eq:
                        yield Setting(name, value, word.pos)


def _dockerfile_env(file: SourceFile) -> Iterator[Setting]:
    for ins in file.instructions:
        if ins.keyword != "ENV":
            continue
        words = [w for c in parse_commands(ins.args) for w in (*c.assignments, *c.words)]
        if words and "=" not in words[0].text:  # legacy "ENV NAME value"
            yield Setting(words[0].text, " ".join(w.text for w in words[1:]), ins.pos_at(0))
            continue
        for word in words:
            name, _, value = word.text.partition("=")
            yield Setting(name, value, ins.pos_at(word.pos.column - 1))


def _workflow_env(file: SourceFile) -> Iterator[Setting]:
    """``env`` blocks at any level of a workflow (containers and services are containers')."""
    for node in file.mappings(prune=("env", "container", "services")):
        if "env" in node:
            yield from env_items(node["env"], node.pos_of("env"))
