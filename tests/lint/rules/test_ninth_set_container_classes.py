"""The ninth held-out set's container classes (issue 33), each with its shapes and look-alikes:
desktop-only socket folders read where the mount is made (RS001), a Compose project's own socket
proxy (RS002), a daemon port published on the host (RS002), a PodSecurityPolicy admitting the
engine's state (RS003) and privilege escalation (PV005), and a policy graded as its workloads."""

from __future__ import annotations

import pytest

from sandkit.lint.model import Finding
from tests.lint.helpers import lint_files, lint_text


def _rule(found: list[Finding], rule: str) -> list[tuple[str, str]]:
    return [(f.severity, f.message) for f in found if f.rule == rule]


# 1. desktop-only socket folders -------------------------------------------------------------

_POD = """apiVersion: v1
kind: Pod
metadata:
  name: storage-provisioner
spec:
  containers:
    - name: provisioner
      image: gcr.io/k8s-minikube/storage-provisioner:v5
  volumes:
    - name: host
      hostPath:
        path: {path}
"""


@pytest.mark.parametrize("path", ["/tmp", "/tmp/hostpath-provisioner", "/root/.docker", "/Users/me/.colima", "/tmp/"])
def test_a_hostpath_under_a_desktop_only_socket_folder_is_no_socket_folder(path: str) -> None:
    assert _rule(lint_text("k8s/pod.yaml", _POD.format(path=path)), "RS001") == []


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/var/run", "/var/run, a folder"),
        ("/run", "/run, a folder"),
        ("/", "/, a folder"),
        ("/var/run/docker.sock", "the container runtime socket"),
        ("/tmp/podman/podman-machine-default-api.sock", "the container runtime socket"),  # named as one
        ("/run/user/1000/podman", "a folder"),  # rootless Podman's, on servers too
    ],
)
def test_a_hostpath_that_holds_a_servers_socket_stays(path: str, says: str) -> None:
    found = _rule(lint_text("k8s/pod.yaml", _POD.format(path=path)), "RS001")
    assert len(found) == 1 and says in found[0][1], found


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "job.nomad",
            'job "j" {\n  group "g" {\n    task "t" {\n      driver = "docker"\n      config {\n'
            '        image = "x"\n        volumes = ["/tmp:/tmp"]\n      }\n    }\n  }\n}\n',
        ),
        (
            ".github/workflows/ci.yml",
            "on: push\njobs:\n  b:\n    runs-on: ubuntu-latest\n    container:\n"
            "      image: node\n      volumes: ['/tmp:/tmp']\n    steps:\n      - run: make\n",
        ),
        (".gitlab-ci.yml", "build:\n  script:\n    - docker run -v /tmp:/tmp alpine true\n"),
    ],
)
def test_tmp_on_a_server_or_runner_is_no_socket_folder(name: str, text: str) -> None:
    assert _rule(lint_text(name, text), "RS001") == []


@pytest.mark.parametrize(
    ("name", "text", "severity"),
    [
        ("compose.yaml", "services:\n  a:\n    image: x\n    volumes: ['/tmp:/tmp']\n", "medium"),
        (
            ".devcontainer/devcontainer.json",
            '{"image": "x", "mounts": ["source=/tmp,target=/tmp,type=bind"]}',
            "medium",
        ),
        ("run.sh", "docker run -v /tmp:/host-tmp alpine\n", "medium"),
        ("compose.yaml", "services:\n  a:\n    image: x\n    volumes: ['~/.docker/run:/r']\n", "critical"),
        ("compose.yaml", "services:\n  a:\n    image: x\n    volumes: ['${HOME}/.colima:/c']\n", "critical"),
        # a workflow that asks for a macOS runner may run colima or Podman machine there
        (
            ".github/workflows/ci.yml",
            "on: push\njobs:\n  b:\n    runs-on: macos-13\n    steps:\n"
            "      - run: docker run -v $HOME/.colima:/c alpine\n",
            "critical",
        ),
    ],
)
def test_on_a_developers_machine_the_desktop_folders_stay(name: str, text: str, severity: str) -> None:
    found = _rule(lint_text(name, text), "RS001")
    assert [s for s, _ in found] == [severity], found


# 2 and 3. a Compose project's own socket proxy -------------------------------------------------

_PROXY = """services:
  socket-proxy:
    image: {image}
{extra}    volumes: ["/var/run/docker.sock:/var/run/docker.sock:ro"]
{ports}  agent:
    image: claude-code
    environment:
      DOCKER_HOST: tcp://{host}:2375
"""


def _proxy(image: str, extra: str = "", ports: str = "", host: str = "socket-proxy") -> list[Finding]:
    text = _PROXY.format(image=image, extra=extra, ports=ports, host=host)
    return [f for f in lint_text("compose.yaml", text) if f.rule == "RS002"]


@pytest.mark.parametrize(
    ("image", "extra", "severity", "says"),
    [
        ("tecnativa/docker-socket-proxy", "    environment: {CONTAINERS: 1, POST: 1}\n", "high", "create or exec"),
        ("lscr.io/linuxserver/socket-proxy", "    environment: [EXEC=1, POST=1]\n", "high", "EXEC=1"),
        ("tecnativa/docker-socket-proxy", "    environment: {CONTAINERS: 1, POST: '${PROXY_POST}'}\n", "high", "POST"),
        ("tecnativa/docker-socket-proxy", "    environment: {CONTAINERS: 1, POST: 0}\n", "medium", "read-only"),
        ("tecnativa/docker-socket-proxy", "    environment: {CONTAINERS: 1}\n", "medium", "every container's"),
        ("tecnativa/docker-socket-proxy", "    environment: {ALLOW_RESTARTS: 1}\n", "medium", "restart"),
        ("tecnativa/docker-socket-proxy", "    environment: {EVENTS: 1, PING: 1}\n", "low", "EVENTS=1, PING=1"),
        ("tecnativa/docker-socket-proxy", "    environment: {NETWORKS: 1, POST: 1}\n", "low", "read-only"),
        ("wollomatic/socket-proxy:1", "    command: ['-allowGET=/v1\\..{1,2}/(version|events)']\n", "low", "allowGET"),
        ("wollomatic/socket-proxy:1", "    command: ['-allowPOST=/v1\\..{1,2}/containers/create']\n", "high", "POST"),
        (
            "wollomatic/socket-proxy:1",
            "    environment: {SP_ALLOW_GET: '/v1\\..{1,2}/containers/json'}\n",
            "medium",
            "GET",
        ),
        ("alpine/socat", "    command: tcp-listen:2375,fork unix-connect:/var/run/docker.sock\n", "high", "no filter"),
    ],
)
def test_docker_host_at_the_projects_socket_proxy(image: str, extra: str, severity: str, says: str) -> None:
    found = _proxy(image, extra)
    assert [(f.severity) for f in found] == [severity], found
    assert "socket proxy" in found[0].message and "remote" not in found[0].message and says in found[0].message


def test_a_proxy_reached_by_its_container_name_is_the_proxy() -> None:
    extra = "    container_name: dockerproxy\n    environment: {CONTAINERS: 1}\n"
    found = _proxy("tecnativa/docker-socket-proxy", extra, host="dockerproxy")
    assert [f.severity for f in found] == ["medium"] and "socket proxy" in found[0].message


@pytest.mark.parametrize("host", ["builder.example.com", "other-proxy"])
def test_a_daemon_that_is_no_service_of_the_project_stays_remote(host: str) -> None:
    found = _proxy("tecnativa/docker-socket-proxy", "    environment: {POST: 0}\n", host=host)
    assert [f.severity for f in found] == ["high"] and "remote Docker daemon" in found[0].message


@pytest.mark.parametrize(
    ("ports", "severity", "says"),
    [
        ("    ports: ['127.0.0.1:2375:2375']\n", "medium", "127.0.0.1"),
        ("    ports: ['2375:2375']\n", "high", "any machine"),
        ("    ports: ['0.0.0.0:12375:2375/tcp']\n", "high", "any machine"),
        ("    ports: [{target: 2375, published: '2375', host_ip: 127.0.0.1}]\n", "medium", "127.0.0.1"),
        ("    ports: ['2375']\n", "high", "every interface"),
    ],
)
def test_a_proxy_that_publishes_its_port_on_the_host(ports: str, severity: str, says: str) -> None:
    extra = "    environment: {CONTAINERS: 1, POST: 1}\n"
    found = [f for f in _proxy("tecnativa/docker-socket-proxy", extra, ports) if "publishes" in f.message]
    assert [f.severity for f in found] == [severity] and says in found[0].message, found


def test_a_read_only_proxy_published_is_one_level_lower() -> None:
    extra = "    environment: {CONTAINERS: 1}\n"
    found = [
        f
        for f in _proxy("tecnativa/docker-socket-proxy", extra, "    ports: ['2375:2375']\n")
        if "publishes" in f.message
    ]
    assert [f.severity for f in found] == ["medium"]


@pytest.mark.parametrize(
    ("service", "severity"),
    [
        (
            "    image: docker:dind\n    command: [dockerd, -H, 'tcp://0.0.0.0:2375']\n    ports: ['2375:2375']\n",
            "high",
        ),
        (
            "    image: docker:dind\n    environment: {DOCKER_TLS_CERTDIR: ''}\n    ports: ['127.0.0.1:2375:2375']\n",
            "medium",
        ),
    ],
)
def test_a_daemon_that_publishes_its_plain_port(service: str, severity: str) -> None:
    found = [f for f in lint_text("compose.yaml", f"services:\n  d:\n{service}") if "publishes" in f.message]
    assert [(f.rule, f.severity) for f in found] == [("RS002", severity)], found


@pytest.mark.parametrize(
    "service",
    [
        # TLS on: port 2376 and certificates
        "    image: docker:dind\n    environment: {DOCKER_TLS_CERTDIR: /certs}\n    ports: ['2376:2376']\n",
        "    image: docker:dind\n    command: [dockerd, -H, 'tcp://0.0.0.0:2376', --tlsverify]\n    ports: ['2376:2376']\n",
        # a proxy that publishes another port, and a web app on 2375 that mounts no socket
        "    image: tecnativa/docker-socket-proxy\n    volumes: ['/var/run/docker.sock:/s']\n    ports: ['8080:80']\n",
        "    image: nginx\n    ports: ['2375:2375']\n",
    ],
)
def test_no_plain_daemon_port_published(service: str) -> None:
    found = [f for f in lint_text("compose.yaml", f"services:\n  d:\n{service}") if "publishes" in f.message]
    assert found == []


# 4 and 5. PodSecurityPolicies ------------------------------------------------------------------

_PSP = """apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata:
  name: node
spec:
{spec}  volumes: [hostPath, secret]
  allowedHostPaths:
{paths}"""


@pytest.mark.parametrize(
    ("paths", "severity", "says"),
    [
        ("  - pathPrefix: /var/lib/kubelet/pods\n", "medium", "writable"),
        ("  - pathPrefix: /var/lib/kubelet\n    readOnly: false\n", "medium", "/var/lib/kubelet/pods"),
        ("  - pathPrefix: /var/lib/docker\n", "medium", "Docker's data root"),
        ("  - pathPrefix: /var/lib\n", "medium", "a folder that holds"),
        ("  - pathPrefix: /var/lib/docker/containers\n", "medium", "inside /var/lib/docker"),
        ("  - pathPrefix: /var/lib/containerd\n    readOnly: true\n", "low", "read-only"),
    ],
)
def test_a_policy_that_admits_the_engines_state(paths: str, severity: str, says: str) -> None:
    found = _rule(lint_text("psp.yaml", _PSP.format(spec="", paths=paths)), "RS003")
    assert [s for s, _ in found] == [severity] and says in found[0][1] and "lets pods mount" in found[0][1], found


@pytest.mark.parametrize(
    "paths",
    [
        "  - pathPrefix: /var/lib/kubelet/plugins\n",
        "  - pathPrefix: /var/log\n",
        "  - pathPrefix: /etc/ssl/certs\n",
        "  - pathPrefix: /tmp\n",
    ],
)
def test_a_policy_that_keeps_pods_off_the_engines_state(paths: str) -> None:
    found = lint_text("psp.yaml", _PSP.format(spec="", paths=paths))
    assert [f for f in found if f.rule in ("RS001", "RS003")] == []


def test_a_policy_allowing_privilege_escalation_is_low() -> None:
    spec = "  allowPrivilegeEscalation: true\n"
    found = _rule(lint_text("psp.yaml", _PSP.format(spec=spec, paths="  - pathPrefix: /var/log\n")), "PV005")
    assert [s for s, _ in found] == ["low"] and "lets pods escalate" in found[0][1]
    unset = lint_text("psp.yaml", _PSP.format(spec="  allowPrivilegeEscalation: false\n", paths="  - pathPrefix: /l\n"))
    assert _rule(unset, "PV005") == []


_PRIVILEGED_PSP = _PSP.format(spec="  privileged: true\n  hostNetwork: true\n", paths="  - pathPrefix: /var/log\n")
_DAEMONSET = """apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {name}
spec:
  template:
    spec:
      hostNetwork: true
      containers:
        - name: {name}
          image: {image}
"""


def test_a_policy_beside_workloads_naming_no_agent_is_graded_as_they_are() -> None:
    found = lint_files(
        {
            "deploy/psp.yaml": _PRIVILEGED_PSP,
            "deploy/ds.yaml": _DAEMONSET.format(name="exporter", image="node-exporter"),
        }
    )
    policy = [f for f in found if f.path == "deploy/psp.yaml" and f.rule.startswith("PV")]
    pods = [f for f in found if f.path == "deploy/ds.yaml" and f.rule.startswith("PV")]
    assert policy and pods and {f.severity for f in policy} == {f.severity for f in pods} == {"info"}, found


def test_a_policy_in_the_same_file_as_its_workloads_is_graded_as_they_are() -> None:
    text = _PRIVILEGED_PSP + "---\n" + _DAEMONSET.format(name="exporter", image="node-exporter")
    found = [f for f in lint_files({"deploy/all.yaml": text}) if f.rule.startswith("PV")]
    assert found and {f.severity for f in found} == {"info"}, found


@pytest.mark.parametrize(
    "siblings",
    [
        {},  # alone in its folder: a cluster's policy, every workload's pods
        {"deploy/ds.yaml": _DAEMONSET.format(name="agent", image="claude-code")},  # an agent's workload
        {"deploy/ds.yaml": _DAEMONSET.format(name="runner", image="gitlab-runner")},  # a CI runner's
        {"deploy/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"},  # no workload
    ],
)
def test_a_policy_not_kept_with_plain_workloads_keeps_its_grade(siblings: dict[str, str]) -> None:
    found = lint_files({"deploy/psp.yaml": _PRIVILEGED_PSP, **siblings})
    policy = {f.rule: f.severity for f in found if f.path == "deploy/psp.yaml"}
    assert policy.get("PV001") == "high" and policy.get("PV002") == "medium", found


def test_a_policy_in_an_examples_folder_is_at_most_low() -> None:
    found = lint_files({"examples/psp/psp.yaml": _PRIVILEGED_PSP})
    assert {f.severity for f in found if f.rule.startswith("PV")} == {"low"}, found


def test_pods_in_a_policys_file_keep_the_workload_reason() -> None:
    text = _PRIVILEGED_PSP + "---\n" + _DAEMONSET.format(name="exporter", image="node-exporter")
    found = [f for f in lint_files({"deploy/all.yaml": text}) if f.rule == "PV002"]
    policy = [f.message for f in found if f.message.startswith("PodSecurityPolicy/")]
    pods = [f.message for f in found if not f.message.startswith("PodSecurityPolicy/")]
    assert policy and all("PodSecurityPolicy kept with" in m for m in policy), found
    assert pods and all("a Kubernetes workload that names no coding agent" in m for m in pods), found
