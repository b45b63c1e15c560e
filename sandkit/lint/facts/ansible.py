"""Containers that Ansible tasks start: ``docker_container`` and ``podman_container`` (short
names or with their collection), ``docker_swarm_service``, the inline project of
``docker_compose_v2``, and ``docker|podman run`` in ``shell``, ``command`` and ``raw`` tasks.

A task is any mapping in a playbook or task file that holds one of these module keys, so
blocks, handlers, ``include_tasks`` files and roles read alike. Values written as Jinja
(``{{ docker_sock }}``) are kept as text and never match a path or a flag.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from sandkit.lint.consumers.booleans import ansible_boolean
from sandkit.lint.facts.compose import compose_services
from sandkit.lint.facts.container_model import (
    Container,
    Mount,
    Setting,
    env_items,
    list_settings,
    short_volume_read_only,
    split_volume,
    strings,
)
from sandkit.lint.facts.docker_cli import from_commands
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import Command, Word
from sandkit.lint.syntax.tree import PMap, PSeq, PStr, pos_of

if TYPE_CHECKING:
    from typing import Any

_CONTAINER_MODULES = ("docker_container", "podman_container", "docker_swarm_service")
_COMPOSE_MODULES = ("docker_compose_v2", "docker_compose")
_SHELL_MODULES = ("shell", "command", "raw")
#: Module options that take a host namespace, as docker-run names them.
_NAMESPACES = {
    "network_mode": "network",
    "network": "network",
    "pid_mode": "pid",
    "pid": "pid",
    "ipc_mode": "ipc",
    "ipc": "ipc",
    "userns_mode": "userns",
    "userns": "userns",
    "uts": "uts",
    "cgroupns_mode": "cgroupns",
}
_LISTS = {
    "capabilities": "cap-add",
    "cap_add": "cap-add",
    "security_opts": "security-opt",
    "security_opt": "security-opt",
    "devices": "device",
    "device": "device",
}


def _module(task: PMap, names: tuple[str, ...]) -> tuple[str, Any] | None:
    """(module, its arguments) when ``task`` calls one of ``names``, however it is qualified."""
    for key, value in task.items():
        if isinstance(key, str) and key.rsplit(".", 1)[-1] in names:
            return key.rsplit(".", 1)[-1], value
    return None


def ansible_containers(file: SourceFile) -> Iterator[Container]:
    for task in file.mappings():
        found = _module(task, _CONTAINER_MODULES)
        if found is not None and isinstance(found[1], PMap):
            yield _container(found[0], found[1])
        compose = _module(task, _COMPOSE_MODULES)
        if compose is not None and isinstance(compose[1], PMap):
            yield from compose_services(compose[1].get("definition"))  # a project written inline
    yield from from_commands(ansible_commands(file))


def ansible_commands(file: SourceFile) -> list[Command]:
    """Command lines of ``shell``, ``command`` and ``raw`` tasks (free form, ``cmd`` or ``argv``)."""
    return file.memo("ansible_commands", lambda: list(_commands(file)))


def _commands(file: SourceFile) -> Iterator[Command]:
    for task in file.mappings():
        found = _module(task, _SHELL_MODULES)
        if found is None:
            continue
        arguments = found[1]
        if isinstance(arguments, PMap):
            argv = arguments.get("argv")
            if isinstance(argv, PSeq):
                yield Command(words=[Word(str(a), argv.pos_of(i)) for i, a in enumerate(argv)])
                continue
            arguments = arguments.get("cmd")
        if isinstance(arguments, PStr):
            yield from file.commands_in(arguments)


def _container(module: str, options: PMap) -> Container:
    name = options.get("name") or "?"
    box = Container(
        label=f'{module} "{name}"',
        pos=options.pos,
        image=str(options.get("image") or ""),
        command=" ".join(str(c) for c in [*strings(options.get("entrypoint")), *strings(options.get("command"))]),
    )
    if ansible_boolean(options.get("privileged")) is True:  # Ansible reads yes, "on", 1 ... as true
        box.settings.append(Setting("privileged", "true", options.pos_of("privileged")))
    for key, setting in _NAMESPACES.items():
        value = options.get(key)
        for item in strings(value):
            if isinstance(item, str):
                box.settings.append(Setting(setting, item, pos_of(item, options.pos_of(key))))
    for key, setting in _LISTS.items():
        if key in options:
            list_settings(box, options[key], setting, options.pos_of(key))
    for key in ("volumes", "volume"):
        volumes = options.get(key)
        for index, volume in enumerate(strings(volumes)):
            if isinstance(volume, str):
                source, target = split_volume(volume)
                at = volumes.pos_of(index) if isinstance(volumes, PSeq) else options.pos_of(key)
                box.mounts.append(Mount(source, target, pos_of(volume, at), read_only=short_volume_read_only(volume)))
    for key in ("mounts", "mount"):
        for mount in strings(options.get(key)):
            if isinstance(mount, PMap) and isinstance(mount.get("source"), str):
                source = mount["source"]
                box.mounts.append(
                    Mount(
                        source,
                        str(mount.get("target") or ""),
                        pos_of(source, mount.pos),
                        str(mount.get("type") or "bind"),
                        read_only=ansible_boolean(mount.get("read_only")) is True,
                    )
                )
    hosts = options.get("etc_hosts")
    if isinstance(hosts, PMap):
        list_settings(box, hosts, "add-host", options.pos_of("etc_hosts"))
    box.env.extend(env_items(options.get("env"), options.pos_of("env")))
    return box
