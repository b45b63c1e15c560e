"""Containers of a Compose project: each service's mounts (both volume syntaxes), flags and
environment, as docker-run settings, read as compose-go reads them
(:mod:`sandkit.lint.consumers.compose`): interpolated with the ``.env`` beside the file,
booleans cast as compose-go casts them, ``extends`` and ``include`` followed."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from sandkit.lint.consumers.compose import (
    MAX_EXTENDS,
    Include,
    Project,
    Substitution,
    extends_of,
    include_entries,
    interpolate,
    services_of,
    to_boolean,
)
from sandkit.lint.facts.container_model import (
    Container,
    Mount,
    Setting,
    env_items,
    short_volume_read_only,
    split_volume,
    strings,
)
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, pos_of

if TYPE_CHECKING:
    from typing import Any

_COMPOSE_HOST_MODES = ("network_mode", "pid", "ipc", "uts", "userns_mode", "cgroup")
_COMPOSE_SETTING = {"network_mode": "network", "userns_mode": "userns", "cgroup": "cgroupns"}
_LISTS = (("cap_add", "cap-add"), ("security_opt", "security-opt"), ("devices", "device"), ("extra_hosts", "add-host"))
#: The settings one value decides (a service that sets the key overrides what it extends);
#: list settings (cap_add, devices ...) and mounts add up instead, as compose-go merges them.
_SINGLE = {
    "privileged": "privileged",
    "runtime": "runtime",
    **{key: _COMPOSE_SETTING.get(key, key) for key in _COMPOSE_HOST_MODES},
}
_NO_ENV: Mapping[str, str] = {}
#: Variables whose value is a security fact (where the container's runtime is, the SSH agent):
#: read interpolated, as the container gets them. Other values stay as written, so a secret
#: that the .env holds is reported in the .env, once.
_FACT_VARIABLES = frozenset({"DOCKER_HOST", "TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE", "SSH_AUTH_SOCK"})


def compose_services(document: Any, project: Project | None = None) -> Iterator[Container]:
    """Every service of a Compose document (a file's, or a project written inline elsewhere),
    with what it extends, and the services of the files it includes."""
    services = document.get("services") if isinstance(document, PMap) else None
    if isinstance(services, PMap):
        reader = _Reader(project, project.env() if project is not None else _NO_ENV)
        boxes = {
            str(name): reader.service(str(name), service, services, services.pos_of_key(name), "", 0)
            for name, service in services.items()
            if isinstance(service, PMap)
        }
        _shared(boxes, services)
        _secret_files(boxes, services, document, reader.env)
        _bound_volumes(boxes, document, reader.env)
        yield from boxes.values()
    if project is not None:
        yield from _included(document, project)


#: Namespaces a service can join another's in (``pid: "service:db"``); Docker's ``container:``.
_JOINABLE = frozenset({"network", "pid", "ipc"})


def _shared(boxes: dict[str, Container], services: PMap) -> None:
    """What a service gets from another of the same file: the host namespace of a service whose
    namespace it joins (``pid: "service:h"`` where ``h`` has ``pid: host``: the container sees
    the host's processes; chains of joins followed), and the mounts of ``volumes_from`` (one
    level). Added at the joining key."""
    for _ in boxes:  # each round follows one more link of a chain
        changed = False
        for box in boxes.values():
            for setting in list(box.settings):
                joined_name = setting.value.removeprefix("service:")
                other = boxes.get(joined_name) if setting.value.startswith("service:") else None
                if setting.name not in _JOINABLE or other is None or other is box:
                    continue
                host = any(s.pos == setting.pos and s.value == "host" for s in box.setting(setting.name))
                if not host and any(s.value.strip().lower() == "host" for s in other.setting(setting.name)):
                    note = f'joins the {setting.name} namespace of service "{joined_name}", which is the host\'s'
                    box.settings.append(Setting(setting.name, "host", setting.pos, _joined(note, setting.via)))
                    changed = True
        if not changed:
            break
    for name, box in boxes.items():
        service = services.get(name)
        sources = service.get("volumes_from") if isinstance(service, PMap) else None
        for index, item in enumerate(strings(sources)):
            if not isinstance(item, str) or not isinstance(sources, PSeq):
                continue
            other = boxes.get(item.split(":")[0]) if not item.startswith("container:") else None
            if other is None or other is box:
                continue
            note = f'volumes_from service "{item.split(":")[0]}"'
            at = pos_of(item, sources.pos_of(index))
            box.mounts.extend(m._replace(pos=at, via=_joined(note, m.via)) for m in other.mounts)


def _secret_files(boxes: dict[str, Container], services: PMap, document: PMap, env: Mapping[str, str]) -> None:
    """The host files a service's ``secrets`` and ``configs`` bring in: compose (without Swarm)
    bind-mounts a top-level secret's or config's ``file`` into the container (/run/secrets/NAME),
    read-only, so ``file: /var/run/docker.sock`` hands over the socket and ``file:
    ~/.ssh/id_rsa`` the key. Placed at the ``file`` line; the finding names the service."""
    for group in ("secrets", "configs"):
        declared = document.get(group)
        if not isinstance(declared, PMap):
            continue
        for name, box in boxes.items():
            service = services.get(name)
            used = service.get(group) if isinstance(service, PMap) else None
            for item in strings(used):
                source = item.get("source") if isinstance(item, PMap) else item
                entry = declared.get(source) if isinstance(source, str) else None
                file = entry.get("file") if isinstance(entry, PMap) else None
                if not isinstance(file, str) or not isinstance(entry, PMap):
                    continue
                path, note = _text(file, env, defaults=False)
                target = item.get("target") if isinstance(item, PMap) else None
                where = f'{group[:-1]} "{source}"'
                box.mounts.append(
                    Mount(
                        str(path),
                        str(target or f"/run/secrets/{source}"),
                        pos_of(file, entry.pos_of("file")),
                        "bind",
                        read_only=True,
                        via=_joined(f"as its {where}", note),
                    )
                )


def _bound_volumes(boxes: dict[str, Container], document: PMap, env: Mapping[str, str]) -> None:
    """Named volumes that are host folders: the ``local`` driver with ``driver_opts`` ``o: bind``
    and a ``device`` mounts that host path (``device: /var/run`` gives the container the
    runtime socket, as ``docker compose run`` shows). Each service using one gets a bind
    mount of the device, placed at the ``device`` line."""
    declared = document.get("volumes")
    if not isinstance(declared, PMap):
        return
    for box in boxes.values():
        for mount in list(box.mounts):
            entry = declared.get(mount.source) if mount.source else None
            options = entry.get("driver_opts") if isinstance(entry, PMap) else None
            if not isinstance(entry, PMap) or not isinstance(options, PMap):
                continue
            device, bind = options.get("device"), options.get("o")
            if entry.get("driver", "local") != "local" or not isinstance(device, str):
                continue
            if not isinstance(bind, str) or "bind" not in (part.strip() for part in bind.split(",")):
                continue
            path, note = _text(device, env, defaults=False)
            how = f'named volume "{mount.source}", a bind mount of the host path'
            at = pos_of(device, options.pos_of("device"))
            box.mounts.append(mount._replace(source=str(path), pos=at, how="bind", via=_joined(how, note)))


class _Reader:
    """Reads services with one environment: compose-go interpolates every file of a project,
    the files it extends included, with the project's variables (the ``.env`` beside the
    Compose file, not one beside the extended file)."""

    def __init__(self, project: Project | None, env: Mapping[str, str]) -> None:
        self.project = project
        self.env = env

    def service(self, name: str, service: PMap, services: PMap, pos: Pos, folder: str, depth: int) -> Container:
        box = _compose_service(name, service, pos, self.env)
        extended = extends_of(service)
        if extended is not None and depth < MAX_EXTENDS:
            base_name, file, at = extended
            base = self._base(base_name, file, services, folder, depth)
            if base is not None:
                _inherit(box, service, base, at)
        return box

    def _base(self, name: str, file: str, services: PMap, folder: str, depth: int) -> Container | None:
        """The service ``extends`` names, read as a service of its own (what it extends included)."""
        where = ""
        if file:
            if self.project is None:
                return None
            expanded = interpolate(file, self.env)
            loaded = self.project.documents(expanded.text if expanded else file, folder)
            if loaded is None:
                return None
            path, documents = loaded
            found = services_of(documents)
            if found is None:
                return None
            services, folder = found, os.path.dirname(path)
            where = f"{self.project.relative(path)}:"
        base = services.get(name)
        if not isinstance(base, PMap):
            return None
        box = self.service(name, base, services, services.pos_of_key(name), folder, depth + 1)
        box.label = f'service "{name}" ({where or "line "}{services.pos_of_key(name).line})'
        return box


def _inherit(box: Container, service: PMap, base: Container, at: Pos) -> None:
    """Add what ``service`` inherits from ``base`` through ``extends`` to ``box``, placed at the
    ``extends`` key: compose-go keeps a value the service sets itself, and adds lists and
    mounts up (a mount of the service replaces the base's at the same target)."""
    own = {setting for key, setting in _SINGLE.items() if key in service}
    targets = {mount.target for mount in box.mounts}
    note = f"inherited through extends from {base.label}"
    for setting in base.settings:
        if setting.name not in own:
            box.settings.append(setting._replace(pos=at, via=_joined(note, setting.via)))
    for mount in base.mounts:
        if mount.target not in targets:
            box.mounts.append(mount._replace(pos=at, via=_joined(note, mount.via)))


def _joined(first: str, second: str) -> str:
    return f"{first}; {second}" if second else first


def _included(document: Any, project: Project) -> Iterator[Container]:
    """Services of the files a top-level ``include`` names, placed at the include entry.

    compose-go reads an included file with its own environment: the ``env_file`` of the entry
    (by default the ``.env`` of its ``project_directory``, by default the included file's
    folder), under the including project's variables, which win. A file whose name or content
    makes it a Compose file is scanned on its own (with the ``.env`` beside it); from it, only
    what the include's environment changes is reported here."""
    from sandkit.lint import kinds

    parent = project.env(needed=True)
    for entry in include_entries(document):
        expanded = interpolate(entry.path, parent)
        loaded = project.documents(expanded.text if expanded else entry.path)
        if loaded is None:
            continue
        absolute, documents = loaded
        services = services_of(documents)
        if services is None:
            continue
        folder = os.path.dirname(absolute)
        env = {**_include_env(project, entry, folder), **parent}
        kind = kinds.kind_by_content(kinds.kind_by_name(os.path.basename(absolute)), project.heads.get(absolute, ""))
        own = _Reader(project, project.env(folder)) if kind.kind == kinds.COMPOSE else None
        reader = _Reader(project, env)
        for name, service in services.items():
            if not isinstance(service, PMap):
                continue
            box = reader.service(str(name), service, services, entry.pos, folder, 1)
            if own is not None:  # reported in its own file as read there: keep what differs
                alone = own.service(str(name), service, services, entry.pos, folder, 1)
                box.settings = [s for s in box.settings if s not in alone.settings]
                box.mounts = [m for m in box.mounts if m not in alone.mounts]
            line = services.pos_of_key(name).line
            note = f"in {project.relative(absolute)}:{line}, which this file includes"
            box.label = f'service "{name}"'
            box.settings = [s._replace(pos=entry.pos, via=_joined(note, s.via)) for s in box.settings]
            box.mounts = [m._replace(pos=entry.pos, via=_joined(note, m.via)) for m in box.mounts]
            box.env = []  # its variables are reported in its own file, if at all
            yield box


def _include_env(project: Project, entry: Include, folder: str) -> dict[str, str]:
    """The variables an ``include`` entry gives its file (before the including project's)."""
    if entry.env_files:
        env: dict[str, str] = {}
        for name in entry.env_files:
            env.update(project.dotenv(os.path.normpath(os.path.join(project.folder, name))))
        return env
    if entry.project_directory:
        folder = os.path.normpath(os.path.join(project.folder, entry.project_directory))
    return project.env(folder)


def _text(value: Any, env: Mapping[str, str], *, defaults: bool = True) -> tuple[Any, str]:
    """(a scalar as compose-go reads it, what decided it): strings interpolated with ``env``."""
    if not isinstance(value, str):
        return value, ""
    result: Substitution | None = interpolate(value, env, defaults=defaults)
    if result is None:
        return value, ""
    return result.text, result.note()


def _compose_service(name: str, service: PMap, pos: Pos, env: Mapping[str, str]) -> Container:
    image, _ = _text(service.get("image"), env)
    box = Container(
        label=f'service "{name}"',
        pos=pos,
        image=str(image or ""),
        command=" ".join(str(c) for c in strings(service.get("command")))
        + " "
        + " ".join(str(c) for c in strings(service.get("entrypoint"))),
    )
    volumes = service.get("volumes")
    for index, volume in enumerate(strings(volumes)):
        at = volumes.pos_of(index) if isinstance(volumes, PSeq) else pos
        if isinstance(volume, str):
            spec, note = _text(volume, env, defaults=False)
            source, target = split_volume(spec)
            box.mounts.append(
                Mount(source, target, pos_of(volume, at), read_only=short_volume_read_only(spec), via=note)
            )
        elif isinstance(volume, PMap):
            raw_source = volume.get("source") or volume.get("src") or ""
            source, note = _text(raw_source, env, defaults=False)
            target, _ = _text(volume.get("target"), env)
            how, _ = _text(volume.get("type") or "volume", env)
            read_only, _ = _text(volume.get("read_only"), env)
            box.mounts.append(
                Mount(
                    str(source),
                    str(target or ""),
                    pos_of(raw_source, at),
                    str(how),
                    read_only=to_boolean(read_only) is True,
                    via=note,
                )
            )
    privileged, note = _text(service.get("privileged"), env)
    if to_boolean(privileged) is True:
        box.settings.append(Setting("privileged", "true", service.pos_of("privileged"), note))
    for key in (*_COMPOSE_HOST_MODES, "runtime"):
        value, note = _text(service.get(key), env)
        if isinstance(value, str):
            box.settings.append(Setting(_COMPOSE_SETTING.get(key, key), value, service.pos_of(key), note))
    for key, setting in _LISTS:
        _list_settings(box, service.get(key), setting, service.pos_of(key), env)
    for variable in env_items(service.get("environment"), service.pos_of("environment")):
        if variable.name in _FACT_VARIABLES:
            value, note = _text(variable.value, env)
            variable = variable._replace(value=str(value), via=note)
        box.env.append(variable)
    return box


def _list_settings(box: Container, value: Any, name: str, default: Pos, env: Mapping[str, str]) -> None:
    """A setting named ``name`` for each item of a list (or entry of a mapping), interpolated."""
    if isinstance(value, PMap):  # extra_hosts may be a mapping host: ip
        for key, item in value.items():
            text, note = _text(item, env)
            box.settings.append(Setting(name, f"{key}:{text}", value.pos_of(key), note))
        return
    for index, item in enumerate(strings(value)):
        at = value.pos_of(index) if isinstance(value, PSeq) else default
        text, note = _text(item, env)
        box.settings.append(Setting(name, str(text), pos_of(item, at), note))
