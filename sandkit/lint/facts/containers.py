"""Every container a file configures, whatever its kind, as :class:`~.container_model.Container` records.

``containers(file)`` and ``environment(file)`` are computed once per file (``file.memo``) and
shared by the runtime-socket, privileged, host-credentials and egress rules, so each of those
rules is a few lines over normalised facts instead of a parser per file kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sandkit.lint import kinds
from sandkit.lint.facts.container_model import Container, Mount, Setting, split_kv_list, split_volume
from sandkit.lint.facts.docker_cli import RUNTIMES, container_from_args, run_invocation
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import Command, Word, parse_commands
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr, pos_of

#: The file kinds in which containers are configured; container rules subscribe to these.
CONTAINER_KINDS = (
    kinds.COMPOSE,
    kinds.KUBERNETES,
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
)
#: Kinds whose shell commands are read for ``docker run`` (scripts, recipes, RUN lines, Jenkins ``sh`` steps).
_COMMAND_KINDS = (kinds.SHELL, kinds.MAKEFILE, kinds.JUSTFILE, kinds.DOCKERFILE, kinds.JENKINSFILE)
#: Where environment variables are set: container kinds plus .env files.
ENV_KINDS = (*CONTAINER_KINDS, kinds.ENV)

_COMPOSE_HOST_MODES = ("network_mode", "pid", "ipc", "uts", "userns_mode", "cgroup")
_COMPOSE_SETTING = {"network_mode": "network", "userns_mode": "userns", "cgroup": "cgroupns"}
_K8S_HOST = {"hostNetwork": "network", "hostPID": "pid", "hostIPC": "ipc"}


def containers(file: SourceFile) -> list[Container]:
    return file.memo("containers", lambda: list(_containers(file)))


def environment(file: SourceFile) -> list[Setting]:
    """Every environment variable the file sets, for containers or for the runner."""
    return file.memo("environment", lambda: list(_environment(file)))


def _containers(file: SourceFile) -> Iterator[Container]:
    kind = file.kind
    if kind == kinds.COMPOSE:
        yield from _compose(file)
    elif kind == kinds.KUBERNETES:
        for document in file.documents:
            yield from _kubernetes(file, document)
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
    if kind in _COMMAND_KINDS and any(runtime in file.text for runtime in RUNTIMES):
        yield from from_commands(file.commands)


def from_commands(commands: list[Command]) -> Iterator[Container]:
    """Containers started by ``docker|podman run`` in shell commands."""
    for command in commands:
        invocation = run_invocation(command)
        if invocation is None:
            continue
        globals_, args = invocation
        program = command.program()[0]
        box = container_from_args(args, f"`{program} run`", command.pos)
        box.env.extend(_global_host(globals_))
        for word in command.assignments:
            name, _, value = word.text.partition("=")
            box.env.append(Setting(name, value, word.pos))
        yield box


def _global_host(words: list[Word]) -> Iterator[Setting]:
    for i, word in enumerate(words):
        name, eq, value = word.text.partition("=")
        if name in ("-H", "--host", "--url"):
            host = value if eq else (words[i + 1].text if i + 1 < len(words) else "")
            yield Setting("DOCKER_HOST", host, word.pos)


def _strings(value: Any) -> list[Any]:
    """A YAML list (or a single scalar) as a list of its items."""
    if isinstance(value, list):
        return list(value)
    return [] if value is None else [value]


def _env_items(value: Any, default: Pos) -> Iterator[Setting]:
    """Environment written as a mapping or as a list of NAME=value strings."""
    if isinstance(value, PMap):
        for key, item in value.items():
            text = "" if item is None else str(item).lower() if isinstance(item, bool) else str(item)
            yield Setting(str(key), text, value.pos_of(key))
    elif isinstance(value, PSeq):
        for index, item in enumerate(value):
            if isinstance(item, str):
                name, _, text = item.partition("=")
                yield Setting(name, text, value.pos_of(index))
            elif isinstance(item, PMap) and "name" in item:  # Kubernetes env
                yield Setting(
                    str(item["name"]),
                    str(item.get("value") or ""),
                    item.pos_of("value") if "value" in item else item.pos,
                )


# ----- Compose ------------------------------------------------------------------------------
def _compose(file: SourceFile) -> Iterator[Container]:
    for document in file.documents:
        services = document.get("services") if isinstance(document, PMap) else None
        if not isinstance(services, PMap):
            continue
        for name, service in services.items():
            if isinstance(service, PMap):
                yield _compose_service(str(name), service, services.pos_of_key(name))


def _compose_service(name: str, service: PMap, pos: Pos) -> Container:
    box = Container(
        label=f'service "{name}"',
        pos=pos,
        image=str(service.get("image") or ""),
        command=" ".join(str(c) for c in _strings(service.get("command")))
        + " "
        + " ".join(str(c) for c in _strings(service.get("entrypoint"))),
    )
    volumes = service.get("volumes")
    for index, volume in enumerate(_strings(volumes)):
        at = volumes.pos_of(index) if isinstance(volumes, PSeq) else pos
        if isinstance(volume, str):
            source, target = split_volume(volume)
            box.mounts.append(Mount(source, target, pos_of(volume, at)))
        elif isinstance(volume, PMap):
            source = volume.get("source") or volume.get("src") or ""
            box.mounts.append(
                Mount(
                    str(source),
                    str(volume.get("target") or ""),
                    pos_of(source, at),
                    str(volume.get("type") or "volume"),
                )
            )
    if service.get("privileged") is True:
        box.settings.append(Setting("privileged", "true", service.pos_of("privileged")))
    for key in _COMPOSE_HOST_MODES:
        if isinstance(service.get(key), str):
            box.settings.append(Setting(_COMPOSE_SETTING.get(key, key), str(service[key]), service.pos_of(key)))
    for key, setting in (
        ("cap_add", "cap-add"),
        ("security_opt", "security-opt"),
        ("devices", "device"),
        ("extra_hosts", "add-host"),
    ):
        _list_settings(box, service.get(key), setting, service.pos_of(key))
    box.env.extend(_env_items(service.get("environment"), service.pos_of("environment")))
    return box


def _list_settings(box: Container, value: Any, name: str, default: Pos) -> None:
    if isinstance(value, PMap):  # extra_hosts may be a mapping host: ip
        for key, item in value.items():
            box.settings.append(Setting(name, f"{key}:{item}", value.pos_of(key)))
        return
    for index, item in enumerate(_strings(value)):
        at = value.pos_of(index) if isinstance(value, PSeq) else default
        box.settings.append(Setting(name, str(item), pos_of(item, at)))


# ----- Kubernetes ---------------------------------------------------------------------------
def _kubernetes(file: SourceFile, document: Any) -> Iterator[Container]:
    if not isinstance(document, PMap):
        return
    kind = str(document.get("kind") or "object")
    meta = document.get("metadata")
    name = str(meta.get("name") or "") if isinstance(meta, PMap) else ""
    yield from _pod_specs(file, document, f"{kind}/{name}" if name else kind)


def _pod_specs(file: SourceFile, document: PMap, owner: str) -> Iterator[Container]:
    """Every pod spec in ``document``: any mapping with a ``containers`` list (all workloads,
    templates, CronJob job templates, Lists and custom resources alike)."""
    for node in file.mappings(document, prune=("containers",)):
        if isinstance(node.get("containers"), PSeq):
            yield from _pod(node, owner)
        annotations = _annotations(node)
        if annotations is not None:
            yield annotations


def _annotations(node: PMap) -> Container | None:
    """Legacy AppArmor/seccomp annotations on an object's metadata."""
    annotations = node.get("annotations")
    if not isinstance(annotations, PMap):
        return None
    box = Container(label="annotations", pos=node.pos)
    for key, value in annotations.items():
        key_text = str(key)
        if "apparmor.security.beta.kubernetes.io" in key_text:
            box.settings.append(Setting("apparmor", str(value), annotations.pos_of(key)))
        elif "seccomp.security.alpha.kubernetes.io" in key_text:
            box.settings.append(Setting("seccomp", str(value), annotations.pos_of(key)))
    return box if box.settings else None


def _pod(spec: PMap, owner: str) -> Iterator[Container]:
    images = []
    for group in ("containers", "initContainers", "ephemeralContainers"):
        for item in _strings(spec.get(group)):
            if isinstance(item, PMap):
                images.append(str(item.get("image") or ""))
                yield _k8s_container(item, owner)
    pod = Container(label=f"pod of {owner}", pos=spec.pos, image=" ".join(images), command=owner)
    for key, setting in _K8S_HOST.items():
        if spec.get(key) is True:
            pod.settings.append(Setting(setting, "host", spec.pos_of(key)))
    _security_context(pod, spec.get("securityContext"))
    for volume in _strings(spec.get("volumes")):
        host_path = volume.get("hostPath") if isinstance(volume, PMap) else None
        if isinstance(host_path, PMap) and isinstance(host_path.get("path"), str):
            path = host_path["path"]
            pod.mounts.append(Mount(path, str(volume.get("name") or ""), pos_of(path, host_path.pos), "hostPath"))
    yield pod


def _k8s_container(item: PMap, owner: str) -> Container:
    box = Container(
        label=f'container "{item.get("name") or "?"}" of {owner}',
        pos=item.pos,
        image=str(item.get("image") or ""),
        command=" ".join(str(c) for c in _strings(item.get("command")) + _strings(item.get("args"))),
    )
    _security_context(box, item.get("securityContext"))
    box.env.extend(_env_items(item.get("env"), item.pos))
    return box


def _security_context(box: Container, context: Any) -> None:
    if not isinstance(context, PMap):
        return
    if context.get("privileged") is True:
        box.settings.append(Setting("privileged", "true", context.pos_of("privileged")))
    if context.get("allowPrivilegeEscalation") is True:
        box.settings.append(Setting("allow-privilege-escalation", "true", context.pos_of("allowPrivilegeEscalation")))
    capabilities = context.get("capabilities")
    added = capabilities.get("add") if isinstance(capabilities, PMap) else None
    if isinstance(added, PSeq):
        for index, cap in enumerate(added):
            box.settings.append(Setting("cap-add", str(cap), added.pos_of(index)))
    for key, setting in (("seccompProfile", "seccomp"), ("appArmorProfile", "apparmor")):
        profile = context.get(key)
        if isinstance(profile, PMap) and isinstance(profile.get("type"), str):
            box.settings.append(Setting(setting, profile["type"], profile.pos_of("type")))


# ----- devcontainer.json --------------------------------------------------------------------
def _devcontainer(file: SourceFile) -> Iterator[Container]:
    config = file.documents[0] if file.documents else None
    if not isinstance(config, PMap):
        return
    run_args = [
        Word(str(a), config["runArgs"].pos_of(i))
        for i, a in enumerate(_strings(config.get("runArgs")))
        if isinstance(config.get("runArgs"), PSeq)
    ]
    box = container_from_args(
        run_args, "dev container", config.pos, image_known=str(config.get("image") or "dev container image")
    )
    mounts = config.get("mounts")
    for index, mount in enumerate(_strings(mounts)):
        at = mounts.pos_of(index) if isinstance(mounts, PSeq) else config.pos
        fields: dict[str, Any] = (
            split_kv_list(mount) if isinstance(mount, str) else dict(mount) if isinstance(mount, PMap) else {}
        )
        source = fields.get("source") or fields.get("src") or ""
        box.mounts.append(Mount(str(source), str(fields.get("target") or ""), at, str(fields.get("type") or "bind")))
    workspace = config.get("workspaceMount")
    if isinstance(workspace, str):
        fields = split_kv_list(workspace)
        box.mounts.append(Mount(fields.get("source", ""), fields.get("target", ""), config.pos_of("workspaceMount")))
    if config.get("privileged") is True:
        box.settings.append(Setting("privileged", "true", config.pos_of("privileged")))
    for key, name in (("capAdd", "cap-add"), ("securityOpt", "security-opt")):
        _list_settings(box, config.get(key), name, config.pos_of(key))
    features = config.get("features")
    if isinstance(features, PMap):
        for feature in features:
            box.settings.append(Setting("feature", str(feature), features.pos_of_key(feature)))
    for key in ("containerEnv", "remoteEnv"):
        box.env.extend(_env_items(config.get(key), config.pos_of(key)))
    yield box


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
    for index, volume in enumerate(_strings(volumes)):
        if isinstance(volume, str):
            source, target = split_volume(volume)
            at = volumes.pos_of(index) if isinstance(volumes, PSeq) else pos
            box.mounts.append(Mount(source, target, pos_of(volume, at)))
    box.env.extend(_env_items(spec.get("env"), spec.pos_of("env")))
    yield box


def _step_runs(file: SourceFile, steps: Any) -> Iterator[Container]:
    for step in _strings(steps):
        if isinstance(step, PMap) and isinstance(step.get("run"), PStr):
            yield from from_commands(file.commands_in(step["run"]))


# ----- GitLab CI, CircleCI and Jenkins -----------------------------------------------------
#: Top-level keys of .gitlab-ci.yml that are not jobs.
_GITLAB_GLOBALS = frozenset({"stages", "variables", "include", "workflow", "cache", "spec"})
_GITLAB_SCRIPTS = ("before_script", "script", "after_script")
_DIND = re.compile(r"(?i)(?:^|/)docker:(?:[\w.-]*-)?dind\b|(?:^|/)dind\b|:dind(?:-rootless)?\b")


def is_dind(image: str) -> bool:
    """A Docker-in-Docker daemon image (``docker:dind``, ``docker:27-dind``, ``docker:dind-rootless``)."""
    return bool(_DIND.search(image.strip()))


def _gitlab_ci(file: SourceFile) -> Iterator[Container]:
    """Each job (and ``default``, and the top level's own image/services/scripts) of a pipeline."""
    for document in file.documents:
        if not isinstance(document, PMap):
            continue
        yield from _gitlab_job(file, document, "pipeline defaults", document.pos)
        for name, job in document.items():
            if isinstance(job, PMap) and name not in _GITLAB_GLOBALS:
                yield from _gitlab_job(file, job, f'job "{name}"', document.pos_of_key(name))


def _image_name(spec: Any) -> str:
    if isinstance(spec, PMap):
        spec = spec.get("name")
    return str(spec) if isinstance(spec, str) else ""


def _gitlab_job(file: SourceFile, job: PMap, label: str, pos: Pos) -> Iterator[Container]:
    box = Container(label=label, pos=pos, image=_image_name(job.get("image")))
    services = job.get("services")
    for index, service in enumerate(_strings(services)):
        image = _image_name(service)
        at = services.pos_of(index) if isinstance(services, PSeq) else pos
        if is_dind(image):
            where = service.pos_of("name") if isinstance(service, PMap) else pos_of(service, at)
            box.settings.append(Setting("dind", image, where))
    if box.settings or box.image:  # variables are read once, by environment()
        yield box
    for key in _GITLAB_SCRIPTS:
        for line in _script_lines(job.get(key)):
            yield from from_commands(file.commands_in(line))


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


def _circleci(file: SourceFile) -> Iterator[Container]:
    """Docker executor images and the ``run`` steps of every job and reusable command."""
    for node in file.mappings():
        run = node.get("run")
        if isinstance(run, PMap):
            run = run.get("command")
        if isinstance(run, PStr):
            yield from from_commands(file.commands_in(run))
        images = node.get("docker")
        if isinstance(images, PSeq):
            for index, spec in enumerate(images):
                if isinstance(spec, PMap) and isinstance(spec.get("image"), str):
                    box = Container(label=f'executor image "{spec["image"]}"', pos=images.pos_of(index))
                    box.image = str(spec["image"])
                    box.env.extend(_env_items(spec.get("environment"), spec.pos))
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
        for entry in _strings(kit.get("files")):
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
        box.env.extend(_env_items(kit.get("env"), kit.pos_of("env")))
        yield box
        for key in ("install", "startup"):
            for line in _strings(kit.get(key)):
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
                box.env.extend(_env_items(node.get("env"), node.pos))
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
            yield from _env_items(node.get("environment"), node.pos_of("environment"))
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
            yield from _env_items(node["env"], node.pos_of("env"))
