"""CI runners' own configuration committed to a repository: a GitLab runner's ``config.toml``.

Each ``[[runners]]`` entry with a docker executor is the container every job of that runner
starts in: ``[runners.docker]`` takes the docker driver's names (``privileged``, ``volumes``,
``cap_add``, ``security_opt``, ``network_mode`` ...), and ``services_privileged`` makes the jobs'
services privileged. A kubernetes executor's ``privileged`` and its ``host_path`` volumes are read
too, and the runner's ``environment`` (``DOCKER_HOST=...``) is the jobs' environment.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from sandkit.lint.facts.container_model import Container, Mount, Setting, strings
from sandkit.lint.facts.infrastructure import docker_config
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap, PSeq, pos_of

if TYPE_CHECKING:
    from typing import Any


def _runners(file: SourceFile) -> Iterator[tuple[str, PMap]]:
    for document in file.documents:
        runners = document.get("runners") if isinstance(document, PMap) else None
        for index, runner in enumerate(runners if isinstance(runners, PSeq) else ()):
            if isinstance(runner, PMap):
                yield str(runner.get("name") or f"#{index + 1}"), runner


def gitlab_runner_containers(file: SourceFile) -> Iterator[Container]:
    """The job container of each docker and kubernetes executor."""
    for name, runner in _runners(file):
        docker = runner.get("docker")
        if isinstance(docker, PMap):
            box = Container(label=f'GitLab runner "{name}" (docker executor)', pos=docker.pos)
            box.image = str(docker.get("image") or "")
            docker_config(box, docker, _toml_bool)
            if docker.get("services_privileged") is True:
                box.settings.append(Setting("privileged", "true", docker.pos_of("services_privileged")))
            yield box
        kubernetes = runner.get("kubernetes")
        if isinstance(kubernetes, PMap):
            box = Container(label=f'GitLab runner "{name}" (kubernetes executor)', pos=kubernetes.pos)
            for key in ("privileged", "service_privileged"):
                if kubernetes.get(key) is True:
                    box.settings.append(Setting("privileged", "true", kubernetes.pos_of(key)))
            volumes = kubernetes.get("volumes")
            paths = volumes.get("host_path") if isinstance(volumes, PMap) else None
            for volume in paths if isinstance(paths, PSeq) else ():
                if isinstance(volume, PMap) and isinstance(volume.get("host_path"), str):
                    source = volume["host_path"]
                    target = str(volume.get("mount_path") or "")
                    box.mounts.append(Mount(source, target, volume.pos_of("host_path"), "hostPath"))
            yield box


def gitlab_runner_environment(file: SourceFile) -> Iterator[Setting]:
    """``environment = ["NAME=value", ...]`` of each runner: set in every job it runs."""
    for _name, runner in _runners(file):
        values = runner.get("environment")
        for index, entry in enumerate(strings(values)):
            if isinstance(entry, str) and "=" in entry:
                key, _, value = entry.partition("=")
                at = values.pos_of(index) if isinstance(values, PSeq) else runner.pos_of("environment")
                yield Setting(key, value, pos_of(entry, at))


def _toml_bool(value: Any) -> bool | None:
    """A boolean as the runner's TOML decoder (BurntSushi/toml) reads one: a TOML boolean only."""
    return value if isinstance(value, bool) else None
