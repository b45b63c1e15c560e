"""Containers that infrastructure code starts: Nomad job files and client configuration,
Terraform's docker provider (``docker_container``, ``docker_service``, the provider's ``host``)
and kubernetes provider (every pod-spec resource and ``kubernetes_manifest``).

Both are HCL (``.tf.json`` is Terraform's JSON syntax, read the same way); see
:mod:`sandkit.lint.syntax.hcl` for the shape. Values that are expressions (``var.host``) are
kept as text and never match a path or a flag, so only what the file itself says is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from sandkit.lazy_regex import lazy
from sandkit.lint.consumers.booleans import cty_bool
from sandkit.lint.facts.container_model import Container, Mount, Setting, short_volume_read_only, split_volume, strings
from sandkit.lint.facts.kubernetes import pod_specs
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.hcl import blocks
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr, first_map, pos_of

if TYPE_CHECKING:
    from typing import Any

#: Docker (and Podman) driver settings that take a host namespace, as docker-run names them.
_NAMESPACE_MODES = {
    "network_mode": "network",
    "pid_mode": "pid",
    "ipc_mode": "ipc",
    "uts_mode": "uts",
    "userns_mode": "userns",
    "cgroupns": "cgroupns",
    "cgroupns_mode": "cgroupns",
}
_LIST_SETTINGS = {
    "cap_add": "cap-add",
    "security_opt": "security-opt",
    "security_opts": "security-opt",
    "extra_hosts": "add-host",
}
_CONTAINER_DRIVERS = ("docker", "podman", "nerdctl", "containerd-driver")
_NO_ISOLATION = {
    "raw_exec": "uses the raw_exec driver: its command runs on the Nomad client itself, with no isolation",
}
#: kubernetes provider resources that hold a pod spec (with and without the _v1 suffix).
_K8S_RESOURCES = (
    "kubernetes_pod",
    "kubernetes_deployment",
    "kubernetes_daemonset",
    "kubernetes_daemon_set",
    "kubernetes_stateful_set",
    "kubernetes_replication_controller",
    "kubernetes_job",
    "kubernetes_cron_job",
    "kubernetes_pod_template",
)


def _text(value: Any) -> str:
    return str(value) if isinstance(value, str) else ""


_PATHEXPAND = lazy(r'pathexpand\(\s*"([^"]*)"\s*\)')


def _read_only(block: PMap) -> bool:
    """Nomad's ``readonly = true`` or Terraform's ``read_only = true`` on a mount or volume block."""
    return cty_bool(block.get("readonly")) is True or cty_bool(block.get("read_only")) is True


def _path(value: Any) -> Any:
    """A host path as written, seeing through Terraform's ``pathexpand("~/...")``."""
    match = _PATHEXPAND.fullmatch(value) if isinstance(value, str) else None
    return PStr(match.group(1), value.pos) if match and isinstance(value, PStr) else value


# ----- Nomad ------------------------------------------------------------------------------------
def nomad_containers(file: SourceFile) -> Iterator[Container]:
    """Tasks of every job and group, and host volumes a client configuration exposes."""
    for document in file.documents:
        if not isinstance(document, PMap):
            continue
        for (job_name,), job, _ in blocks(document.get("job"), 1):
            for (group_name,), group, _ in blocks(job.get("group"), 1):
                yield from _nomad_group(group, f'job "{job_name}"', group_name)
        for _, client, _ in blocks(document.get("client"), 0):
            for (name,), volume, _ in blocks(client.get("host_volume"), 1):
                path = volume.get("path")
                if isinstance(path, str):
                    box = Container(label=f'Nomad client host volume "{name}"', pos=volume.pos)
                    box.mounts.append(Mount(path, name, pos_of(path, volume.pos), "host volume"))
                    yield box


def _nomad_group(group: PMap, job: str, group_name: str) -> Iterator[Container]:
    network = first_map(group.get("network"))
    for (task_name,), task, pos in blocks(group.get("task"), 1):
        driver = _text(task.get("driver"))
        label = f'task "{task_name}" of group "{group_name}" of {job}'
        config = first_map(task.get("config")) or PMap(pos)
        box = Container(label=label, pos=pos, image=_text(config.get("image")), command=_command(config))
        if driver in _NO_ISOLATION:
            box.settings.append(Setting("no-isolation", _NO_ISOLATION[driver], task.pos_of("driver")))
        if driver in _CONTAINER_DRIVERS or "image" in config:
            docker_config(box, config)
            if network is not None and network.get("mode") == "host":
                box.settings.append(Setting("network", "host", network.pos_of("mode")))
        for env in blocks(task.get("env"), 0):
            box.env.extend(Setting(str(k), _text(v), env[1].pos_of(k)) for k, v in env[1].items())
        yield box


def _command(config: PMap) -> str:
    parts = [*strings(config.get("entrypoint")), *strings(config.get("command")), *strings(config.get("args"))]
    return " ".join(str(p) for p in parts if isinstance(p, str))


def docker_config(box: Container, config: PMap, boolean: Callable[[Any], bool | None] = cty_bool) -> None:
    """The docker driver's ``config`` (the podman driver shares these names, and so does a GitLab
    runner's ``[runners.docker]`` table). ``boolean`` reads a flag as the consumer does: Nomad's
    cty converts "true" to true; a runner's TOML decoder refuses a string."""
    if boolean(config.get("privileged")) is True:
        box.settings.append(Setting("privileged", "true", config.pos_of("privileged")))
    _namespaces(box, config)
    for key, setting in _LIST_SETTINGS.items():
        values = config.get(key)
        for index, value in enumerate(strings(values)):
            if isinstance(value, str):
                at = values.pos_of(index) if isinstance(values, PSeq) else config.pos_of(key)
                box.settings.append(Setting(setting, value, pos_of(value, at)))
    volumes = config.get("volumes")
    for index, volume in enumerate(strings(volumes)):
        if isinstance(volume, str):
            source, target = split_volume(volume)
            at = volumes.pos_of(index) if isinstance(volumes, PSeq) else config.pos_of("volumes")
            box.mounts.append(Mount(source, target, pos_of(volume, at), read_only=short_volume_read_only(volume)))
    for mount in [*strings(config.get("mount")), *strings(config.get("mounts"))]:
        if isinstance(mount, PMap) and isinstance(mount.get("source"), str):
            source = mount["source"]
            target, how = _text(mount.get("target")), _text(mount.get("type"))
            box.mounts.append(Mount(source, target, pos_of(source, mount.pos), how, read_only=_read_only(mount)))
    for device in strings(config.get("devices")):
        if isinstance(device, PMap) and isinstance(device.get("host_path"), str):
            box.settings.append(Setting("device", device["host_path"], pos_of(device["host_path"], device.pos)))


def _namespaces(box: Container, config: PMap) -> None:
    for key, setting in _NAMESPACE_MODES.items():
        value = config.get(key)
        if isinstance(value, str):
            box.settings.append(Setting(setting, value, config.pos_of(key)))


# ----- Terraform --------------------------------------------------------------------------------
def terraform_containers(file: SourceFile) -> Iterator[Container]:
    for document in file.documents:
        if not isinstance(document, PMap):
            continue
        for (kind, name), body, pos in blocks(document.get("resource"), 2):
            if kind == "docker_container":
                yield _docker_container(body, f'docker_container "{name}"', pos)
            elif kind == "docker_service":
                yield from _docker_service(body, f'docker_service "{name}"', pos)
            elif kind.removesuffix("_v1") in _K8S_RESOURCES:
                yield from pod_specs(file, body, f"{kind}.{name}")
            elif kind == "kubernetes_manifest" and isinstance(body.get("manifest"), PMap):
                yield from pod_specs(file, body["manifest"], f"{kind}.{name}")


def terraform_environment(file: SourceFile) -> Iterator[Setting]:
    """The docker provider's ``host``, as DOCKER_HOST (a local unix socket is the default and no
    container's business, so it is left out)."""
    for document in file.documents:
        if not isinstance(document, PMap):
            continue
        for (name,), body, _ in blocks(document.get("provider"), 1):
            host = body.get("host")
            if name == "docker" and isinstance(host, PStr) and not host.startswith(("unix://", "npipe://")):
                yield Setting("DOCKER_HOST", str(host), host.pos)


def _docker_container(body: PMap, label: str, pos: Pos) -> Container:
    box = Container(label=label, pos=pos, image=_text(body.get("image")), command=_command(body))
    if cty_bool(body.get("privileged")) is True:
        box.settings.append(Setting("privileged", "true", body.pos_of("privileged")))
    _namespaces(box, body)
    for capabilities in blocks(body.get("capabilities"), 0):
        added = capabilities[1].get("add")
        for index, cap in enumerate(strings(added)):
            at = added.pos_of(index) if isinstance(added, PSeq) else capabilities[2]
            box.settings.append(Setting("cap-add", str(cap), at))
    options = body.get("security_opts")
    for index, option in enumerate(strings(options)):
        at = options.pos_of(index) if isinstance(options, PSeq) else pos
        box.settings.append(Setting("security-opt", str(option), at))
    for _, volume, at in blocks(body.get("volumes"), 0):
        if isinstance(volume.get("host_path"), str):
            source = _path(volume["host_path"])
            target = _text(volume.get("container_path"))
            box.mounts.append(Mount(source, target, pos_of(source, at), read_only=_read_only(volume)))
    for _, mount, at in blocks(body.get("mounts"), 0):
        if isinstance(mount.get("source"), str):
            source = _path(mount["source"])
            target, how = _text(mount.get("target")), _text(mount.get("type"))
            box.mounts.append(Mount(source, target, pos_of(source, at), how, read_only=_read_only(mount)))
    for _, device, at in blocks(body.get("devices"), 0):
        if isinstance(device.get("host_path"), str):
            box.settings.append(Setting("device", device["host_path"], pos_of(device["host_path"], at)))
    for _, host, at in blocks(body.get("host"), 0):
        box.settings.append(Setting("add-host", f"{_text(host.get('host'))}:{_text(host.get('ip'))}", at))
    env = body.get("env")
    for index, item in enumerate(strings(env)):
        if isinstance(item, str):
            name, _, value = item.partition("=")
            box.env.append(Setting(name, value, env.pos_of(index) if isinstance(env, PSeq) else pos))
    return box


def _docker_service(body: PMap, label: str, pos: Pos) -> Iterator[Container]:
    """A swarm service: ``task_spec { container_spec { mounts, env, ... } }``."""
    for _, task, _ in blocks(body.get("task_spec"), 0):
        for _, spec, at in blocks(task.get("container_spec"), 0):
            box = Container(label=label, pos=at, image=_text(spec.get("image")), command=_command(spec))
            for _, mount, mount_pos in blocks(spec.get("mounts"), 0):
                if isinstance(mount.get("source"), str):
                    source = _path(mount["source"])
                    kind = _text(mount.get("type")) or "volume"
                    target = _text(mount.get("target"))
                    box.mounts.append(
                        Mount(source, target, pos_of(source, mount_pos), kind, read_only=_read_only(mount))
                    )
            env = spec.get("env")
            if isinstance(env, PMap):
                box.env.extend(Setting(str(k), _text(v), env.pos_of(k)) for k, v in env.items())
            yield box
