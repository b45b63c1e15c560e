"""RS003 runtime-state-mount: the engine's state folders on the host mounted into a container
(issue 33, ninth round), in every place RS001 reads mounts, and the look-alikes that stay quiet."""

from __future__ import annotations

import pytest

from sandkit.lint.facts.host_paths import runtime_state
from tests.lint.helpers import lint_text


def _rs003(name: str, text: str) -> list[tuple[int, str]]:
    return [(f.line, f.severity) for f in lint_text(name, text) if f.rule == "RS003"]


def _compose(*volumes: str) -> str:
    lines = "".join(f"      - {v}\n" for v in volumes)
    return f"services:\n  agent:\n    image: registry.example.com/agent\n    volumes:\n{lines}"


@pytest.mark.parametrize(
    "source",
    [
        "/var/lib/docker",
        "/var/lib/docker/",
        "/var/lib/docker/containers",
        "/var/lib/docker/overlay2",
        "${DOCKER_ROOT:-/var/lib/docker}",
        "/var/lib/containerd",
        "/run/containerd/io.containerd.runtime.v2.task",
        "/var/lib/containers/storage",
        "/run/containers/storage",
        "/var/lib/kubelet/pods",
        "/var/lib/kubelet",  # holds pods/ and pki/
        "/var/lib/kubelet/pki",
        "/var/lib",  # holds all of them
    ],
)
def test_writable_state_in_compose_is_high(source: str) -> None:
    assert _rs003("docker-compose.yml", _compose(f"{source}:/host-state")) == [(5, "high")]


@pytest.mark.parametrize(
    "volume",
    [
        "dind-storage:/var/lib/docker",  # a named volume: Docker-in-Docker's own storage
        "./cache/docker:/var/lib/docker",  # a project folder
        "/srv/dind:/var/lib/docker",  # another host folder at the state's path
        "/var/lib/docker-data:/data",  # a name that only starts like it
        "/var/lib/kubelet/plugins_registry:/registration",  # the kubelet's plugin sockets
        "/var/lib/kubelet/plugins/csi.example.com:/csi",
        "/var/lib/kubelet/pki/kubelet.crt:/etc/kubelet.crt:ro",  # a certificate is public
        "/var/lib/postgresql/data:/data",
        "/var/lib/docker",  # an anonymous volume at that path, in the container
    ],
)
def test_look_alikes_are_quiet(volume: str) -> None:
    assert _rs003("docker-compose.yml", _compose(volume)) == []


def test_socket_folders_stay_rs001_only() -> None:
    findings = lint_text(
        "docker-compose.yml", _compose("/var/run:/var/run", "/run/containerd:/run/containerd", "/:/host")
    )
    assert [f.rule for f in findings if f.rule.startswith("RS")] == ["RS001", "RS001", "RS001"]


def test_read_only_is_medium_in_both_compose_syntaxes() -> None:
    text = _compose(
        "/var/lib/docker/:/var/lib/docker:ro",
        "type: bind\n        source: /var/lib/docker\n        target: /d\n        read_only: true",
        "type: bind\n        source: /var/lib/containerd\n        target: /c",
    )
    findings = [f for f in lint_text("docker-compose.yml", text) if f.rule == "RS003"]
    assert [(f.line, f.severity) for f in findings] == [(5, "medium"), (7, "medium"), (11, "high")]
    assert "not recursive" in findings[0].message


POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: claude-code-runner}}
spec:
  containers:
    - name: a
      image: registry.example.com/claude-code
      volumeMounts: [{{name: state, mountPath: /d{a}}}]
    - name: b
      image: registry.example.com/sidecar
      volumeMounts: [{{name: state, mountPath: /d{b}}}]
  volumes:
    - name: state
      hostPath: {{path: {path}}}
"""


@pytest.mark.parametrize(
    ("a", "b", "severity"),
    [
        ("", "", "high"),
        (", readOnly: true", "", "high"),  # one container writes
        (", readOnly: true", ", readOnly: true", "medium"),
    ],
)
def test_kubernetes_host_path_read_only_in_every_container(a: str, b: str, severity: str) -> None:
    text = POD.format(a=a, b=b, path="/var/lib/docker")
    assert _rs003("k8s/pod.yaml", text) == [(14, severity)]


def test_kubernetes_workload_naming_no_agent_is_info() -> None:
    text = POD.format(a="", b="", path="/var/lib/kubelet/pods").replace("claude-code", "csi-node")
    assert _rs003("k8s/csi.yaml", text) == [(14, "info")]


def test_docker_run_and_devcontainer() -> None:
    script = "#!/bin/sh\ndocker run -v /var/lib/docker:/var/lib/docker registry.example.com/agent\n"
    assert _rs003("run.sh", script) == [(2, "high")]
    mount = "docker run --mount type=bind,src=/var/lib/containerd,dst=/c,readonly registry.example.com/x\n"
    assert _rs003("run.sh", "#!/bin/sh\n" + mount) == [(2, "medium")]
    devcontainer = (
        '{"image": "registry.example.com/dev", "mounts": ['
        '"source=/var/lib/docker,target=/var/lib/docker,type=bind", '
        '"source=dind-var-lib-docker,target=/var/lib/docker,type=volume"]}'
    )
    assert _rs003(".devcontainer/devcontainer.json", devcontainer) == [(1, "high")]


def test_a_dockerfile_volume_is_not_the_hosts() -> None:
    assert _rs003("Dockerfile", "FROM docker:dind\nVOLUME /var/lib/docker\n") == []


def test_classification_lives_in_host_paths() -> None:
    assert runtime_state("/var/lib/docker") == ("/var/lib/docker", "")
    assert runtime_state("/var/lib/docker/volumes/x") == ("/var/lib/docker", "inside")
    assert runtime_state("/var/lib") == ("/var/lib/docker", "parent folder")
    assert runtime_state("/var/run") == ("", "")  # holds the socket: RS001's
    assert runtime_state("~/.local/share/containers") == ("", "")  # rootless: the user's own
    assert runtime_state("relative/var/lib/docker") == ("", "")
