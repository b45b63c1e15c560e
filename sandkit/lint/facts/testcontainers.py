"""What a committed Testcontainers configuration says about the Docker engine it uses.

``.testcontainers.properties`` (the per-user file, sometimes committed) and
``testcontainers.properties`` on a test classpath: ``docker.host`` is the engine Testcontainers
drives (read as DOCKER_HOST; the local socket is its default and no container's business), and
``ryuk.container.privileged`` runs its clean-up container privileged.
"""

from __future__ import annotations

from collections.abc import Iterator

from sandkit.lint.facts.container_model import Container, Setting
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.ini import Entry, parse_properties

_TRUE = ("true", "yes", "1", "on")
#: The variable Testcontainers reads for the socket it mounts into Ryuk and Compose containers.
SOCKET_OVERRIDE = "TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE"


def _entries(file: SourceFile) -> list[Entry]:
    return file.memo("properties", lambda: parse_properties(file.text))


def testcontainers_containers(file: SourceFile) -> Iterator[Container]:
    for entry in _entries(file):
        if entry.key == "ryuk.container.privileged" and entry.value.strip().lower() in _TRUE:
            box = Container(label="Testcontainers' Ryuk container", pos=entry.key_pos, image="testcontainers/ryuk")
            box.settings.append(Setting("privileged", "true", entry.pos))
            yield box


def testcontainers_environment(file: SourceFile) -> Iterator[Setting]:
    for entry in _entries(file):
        value = entry.value.strip()
        if entry.key == "docker.host" and not value.startswith(("unix://", "npipe://")):
            yield Setting("DOCKER_HOST", value, entry.pos)
