"""RS004: a host service's socket that runs commands on the host (the system and session D-Bus,
systemd's private socket, snapd's API) mounted into a container, in the places RS001 reads a
mount; and the look-alikes that stay quiet (other files of those folders, a project's own
folder of the same name, folders above that are RS001's)."""

from __future__ import annotations

import pytest

from tests.lint.helpers import lint_files, lint_text


def _rs004(name: str, text: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in lint_text(name, text) if f.rule == "RS004"]


def _compose(source: str) -> str:
    return f"services:\n  app:\n    image: registry.example.com/app:1\n    volumes:\n      - {source}\n"


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("/run/dbus:/run/dbus:ro", "system D-Bus"),
        ("/var/run/dbus/system_bus_socket:/var/run/dbus/system_bus_socket", "system D-Bus"),
        ("/var/run/dbus:/var/run/dbus", "system D-Bus"),
        ("${XDG_RUNTIME_DIR}/bus:/run/user/1000/bus", "session D-Bus"),
        ("/run/user/1000/bus:/bus", "session D-Bus"),
        ("/run/systemd/private:/run/systemd/private", "systemd's private"),
        ("/run/systemd:/run/systemd:ro", "systemd's private"),
        ("/run/snapd.socket:/run/snapd.socket", "snapd"),
    ],
)
def test_a_host_service_socket_in_compose_is_reported(source: str, names: str) -> None:
    (found,) = _rs004("compose.yml", _compose(source))
    assert found[0] == 5 and names in found[1]


def test_the_long_syntax_a_pod_and_docker_run_are_read() -> None:
    long = (
        "services:\n  app:\n    image: registry.example.com/app:1\n    volumes:\n"
        "      - type: bind\n        source: /run/dbus\n        target: /run/dbus\n        read_only: true\n"
    )
    assert len(_rs004("compose.yml", long)) == 1
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: bt}\nspec:\n  containers:\n"
        "    - name: bt\n      image: registry.example.com/bt:1\n"
        "      volumeMounts: [{name: bus, mountPath: /run/dbus}]\n"
        "  volumes:\n    - name: bus\n      hostPath: {path: /run/dbus}\n"
    )
    assert [line for line, _ in _rs004("k8s/pod.yaml", pod)] == [11]
    script = "#!/bin/sh\ndocker run --rm -v /run/dbus/system_bus_socket:/run/dbus/system_bus_socket img\n"
    assert len(_rs004("scripts/run.sh", script)) == 1


@pytest.mark.parametrize(
    "source",
    [
        "/run/systemd/journal:/run/systemd/journal",  # journald's sockets: logs, not a manager
        "/run/dbus/other.conf:/x",
        "./dbus:/etc/dbus",  # the project's own folder
        "dbus-data:/var/lib/dbus",  # a named volume
        "/etc/machine-id:/etc/machine-id:ro",
    ],
)
def test_look_alikes_stay_quiet(source: str) -> None:
    assert _rs004("compose.yml", _compose(source)) == []


@pytest.mark.parametrize("source", ["/run:/run", "/var/run:/var/run", "/:/host"])
def test_folders_above_are_left_to_rs001(source: str) -> None:
    found = [f.rule for f in lint_files({"compose.yml": _compose(source)}) if f.rule in ("RS001", "RS004")]
    assert "RS004" not in found and "RS001" in found
