"""Containers of a Compose project: each service's mounts (both volume syntaxes), flags and
environment, as docker-run settings."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

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
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, pos_of

if TYPE_CHECKING:
    from typing import Any

_COMPOSE_HOST_MODES = ("network_mode", "pid", "ipc", "uts", "userns_mode", "cgroup")
_COMPOSE_SETTING = {"network_mode": "network", "userns_mode": "userns", "cgroup": "cgroupns"}


def compose_services(document: Any) -> Iterator[Container]:
    """Every service of a Compose document (a file's, or a project written inline elsewhere)."""
    services = document.get("services") if isinstance(document, PMap) else None
    if not isinstance(services, PMap):
        return
    for name, service in services.items():
        if isinstance(service, PMap):
            yield _compose_service(str(name), service, services.pos_of_key(name))


def _compose_service(name: str, service: PMap, pos: Pos) -> Container:
    box = Container(
        label=f'service "{name}"',
        pos=pos,
        image=str(service.get("image") or ""),
        command=" ".join(str(c) for c in strings(service.get("command")))
        + " "
        + " ".join(str(c) for c in strings(service.get("entrypoint"))),
    )
    volumes = service.get("volumes")
    for index, volume in enumerate(strings(volumes)):
        at = volumes.pos_of(index) if isinstance(volumes, PSeq) else pos
        if isinstance(volume, str):
            source, target = split_volume(volume)
            box.mounts.append(Mount(source, target, pos_of(volume, at), read_only=short_volume_read_only(volume)))
        elif isinstance(volume, PMap):
            source = volume.get("source") or volume.get("src") or ""
            box.mounts.append(
                Mount(
                    str(source),
                    str(volume.get("target") or ""),
                    pos_of(source, at),
                    str(volume.get("type") or "volume"),
                    read_only=volume.get("read_only") is True,
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
        list_settings(box, service.get(key), setting, service.pos_of(key))
    box.env.extend(env_items(service.get("environment"), service.pos_of("environment")))
    return box
