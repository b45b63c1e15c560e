"""RS001 runtime-socket-mount and RS002 docker-host-env: positives and look-alike negatives."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_text

WORKLOADS = {
    "Pod": "spec:\n  {pod}",
    "Deployment": "spec:\n  template:\n    spec:\n      {pod}",
    "StatefulSet": "spec:\n  template:\n    spec:\n      {pod}",
    "DaemonSet": "spec:\n  template:\n    spec:\n      {pod}",
    "ReplicaSet": "spec:\n  template:\n    spec:\n      {pod}",
    "ReplicationController": "spec:\n  template:\n    spec:\n      {pod}",
    "Job": "spec:\n  template:\n    spec:\n      {pod}",
    "CronJob": "spec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          {pod}",
    "PodTemplate": "template:\n  spec:\n    {pod}",
}
POD = "{{containers: [{{name: a, image: b}}], volumes: [{{name: s, hostPath: {{path: {path}}}}}]}}"


@pytest.mark.parametrize("kind", sorted(WORKLOADS))
def test_host_path_socket_in_every_workload_kind(kind: str) -> None:
    body = WORKLOADS[kind].format(pod=POD.format(path="/run/containerd/containerd.sock"))
    text = f"apiVersion: v1\nkind: {kind}\nmetadata: {{name: x}}\n{body}\n"
    assert len(at(lint_text("k8s/x.yaml", text), "RS001")) == 1


@pytest.mark.parametrize(
    "source",
    [
        "/var/run/docker.sock",
        "/run/docker.sock",
        "${DOCKER_SOCK:-/var/run/docker.sock}",
        "/run/podman/podman.sock",
        "${XDG_RUNTIME_DIR}/podman/podman.sock",
        "/run/user/1000/podman/podman.sock",
        "/var/run/crio/crio.sock",
        "~/.docker/run/docker.sock",
        "$HOME/.colima/default/docker.sock",
        # nested defaults, as compose overrides write them
        "${DOCKER_SOCK:-${HOME}/.docker/run/docker.sock}",
        "${SOCK:-${XDG_RUNTIME_DIR:-/run/user/1000}/podman/podman.sock}",
        "${A:-${B:-/var/run/docker.sock}}",
        # Docker Desktop, colima, Lima, Podman machine and rootless Docker
        "~/.docker/desktop/docker.sock",
        "$HOME/Library/Containers/com.docker.docker/Data/docker.raw.sock",
        "/var/run/docker.sock.raw",
        "${HOME}/.config/colima/default/docker.sock",
        "~/.colima/work/docker.sock",
        "~/.lima/docker/sock/docker.sock",
        "$HOME/.local/share/containers/podman/machine/qemu/podman.sock",
        "$TMPDIR/podman/podman-machine-default-api.sock",
        "/var/folders/xk/T/podman/podman-machine-default-api.sock",
        "${XDG_RUNTIME_DIR}/docker.sock",
        "/run/containerd/containerd.sock.ttrpc",
        "~/Library/Containers/com.docker.docker",
        "~/.config/colima",
        "/var/run",
        "/run",
        "/",
    ],
)
def test_compose_short_syntax_sockets_and_parents(source: str) -> None:
    text = f'services:\n  a:\n    volumes:\n      - "{source}:/x"\n'
    assert at(lint_text("compose.yaml", text), "RS001") == [(4, 9)]


@pytest.mark.parametrize(
    "source",
    [
        "./docker.sock",
        "docker-sock",
        "/var/lib/app",
        "/srv/run",
        "${A:-${HOME}/.cache}",
        "/srv/app/app.sock",
        "~/.config/app",
        "/run-data",
    ],
)
def test_compose_look_alikes_are_not_sockets(source: str) -> None:
    """(A bare variable, ``${SOCK}``, mounted onto the socket path is a finding since issue 33:
    tests/lint/rules/test_precision_classes.py.)"""
    text = f"services:\n  a:\n    volumes:\n      - {source}:/var/run/docker.sock\n"
    assert at(lint_text("compose.yaml", text), "RS001") == []


def test_compose_long_syntax_and_socket_in_comment() -> None:
    text = (
        "services:\n  a:\n    # - /var/run/docker.sock:/var/run/docker.sock\n"
        "    volumes:\n      - type: bind\n        source: /var/run/docker.sock\n"
        "        target: /s\n"
    )
    assert at(lint_text("compose.yaml", text), "RS001") == [(6, 17)]


def test_devcontainer_mounts_run_args_and_workflow_services() -> None:
    devcontainer = (
        '{"mounts": ["source=/var/run/docker.sock,target=/s,type=bind"],\n "runArgs": ["--volume=/run/docker.sock:/s"]}'
    )
    assert len(at(lint_text(".devcontainer/devcontainer.json", devcontainer), "RS001")) == 2
    workflow = (
        "on: push\njobs:\n  a:\n    runs-on: x\n    services:\n      d:\n"
        "        image: docker:dind\n        options: --mount type=bind,src=/var/run,dst=/h\n"
        "    steps: [{run: echo /var/run/docker.sock}]\n"
    )
    assert at(lint_text(".github/workflows/w.yml", workflow), "RS001") == [(8, 26)]


def test_scripts_makefiles_and_dockerfile_volume() -> None:
    script = "#!/bin/sh\n# docker run -v /var/run/docker.sock:/s x\ndocker run -v /var/run/docker.sock:/s x\n"
    assert at(lint_text("tools/run", script), "RS001") == [(3, 15)]
    makefile = "x:\n\tpodman run --mount type=bind,source=/run/podman/podman.sock,target=/s img\n"
    assert len(at(lint_text("Makefile", makefile), "RS001")) == 1
    dockerfile = "FROM x\nVOLUME /data /var/run/docker.sock\nRUN echo /var/run/docker.sock\n"
    assert at(lint_text("Dockerfile", dockerfile), "RS001") == [(2, 14)]


def test_a_flag_that_wants_a_value_at_the_end_of_the_command() -> None:
    """`docker run -v` with nothing after it is an unfinished command, not a crash (fuzzing found it)."""
    assert at(lint_text("run.sh", "/var/run/docker.sock\ndocker run -v "), "RS001") == []


def test_kit_isolation_docker_and_files() -> None:
    kit = (
        "apiVersion: sandkit/v1\nkind: Kit\nname: a\nisolation: {docker: host}\n"
        "files: [{path: /x, source: /var/run/docker.sock}]\n"
    )
    assert at(lint_text("kits/a.yaml", kit), "RS001") == [(4, 21), (5, 28)]
    safe = "apiVersion: sandkit/v1\nkind: Kit\nname: a\nisolation: {docker: rootless}\n"
    assert at(lint_text("kits/a.yaml", safe), "RS001") == []


@pytest.mark.parametrize(
    ("name", "text", "hits"),
    [
        ("compose.yaml", "services:\n  a:\n    environment:\n      DOCKER_HOST: tcp://h:2375\n", 1),
        ("compose.yaml", "services:\n  a:\n    environment: [DOCKER_HOST=unix:///var/run/docker.sock]\n", 1),
        ("Dockerfile", "FROM x\nENV DOCKER_HOST tcp://docker:2376\n", 1),
        (".env", "DOCKER_HOST=ssh://me@host\n", 1),
        ("run.sh", "export DOCKER_HOST=tcp://10.0.0.2:2375\ndocker -H tcp://h:2375 run x\n", 2),
        ("compose.yaml", "services:\n  a:\n    environment: {DOCKER_HOST_NOTE: tcp://x:2375}\n", 0),
        ("run.sh", "echo DOCKER_HOST=tcp://h:2375\nunset DOCKER_HOST\n", 0),
        (".env", "DOCKER_HOST=\n", 0),
    ],
)
def test_docker_host(name: str, text: str, hits: int) -> None:
    assert len(at(lint_text(name, text), "RS002")) == hits


def test_position_inside_an_indented_line_of_a_block_scalar() -> None:
    """A line of a `run: |` block indented more than the block keeps its own indentation once."""
    workflow = (
        "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: |\n          if true; then\n"
        "            docker run -v /var/run/docker.sock:/x img\n          fi\n"
    )
    assert at(lint_text(".github/workflows/w.yml", workflow), "RS001") == [(8, 27)]


def test_declared_volumes_and_tmp() -> None:
    assert at(lint_text("Dockerfile", "FROM x\nVOLUME /tmp\n"), "RS001") == []
    assert at(lint_text("Dockerfile", "FROM x\nVOLUME /var/run/docker.sock\n"), "RS001") == [(2, 8)]
    (tmp,) = [f for f in lint_text("run.sh", "docker run -v /tmp:/tmp img\n") if f.rule == "RS001"]
    assert tmp.severity == "medium" and "(medium: only podman machine (macOS)" in tmp.message
    assert [f.severity for f in lint_text("run.sh", "docker run -v /var/run:/var/run img\n") if f.rule == "RS001"] == [
        "critical"
    ]


# ---- RS002: the daemon's side, a Docker daemon listening on TCP without TLS ------------------------


@pytest.mark.parametrize(
    ("path", "text", "where", "severity"),
    [
        (
            "compose.yaml",
            "services:\n  dind:\n    image: docker:27-dind\n    privileged: true\n"
            "    command: dockerd --host=tcp://0.0.0.0:2375 --tls=false\n",
            (5, 29),
            "high",
        ),
        (
            "compose.yaml",
            'services:\n  dind:\n    image: docker:dind\n    privileged: true\n    environment:\n      DOCKER_TLS_CERTDIR: ""\n',
            (6, 27),
            "high",
        ),
        (
            "compose.yaml",
            "services:\n  dind:\n    image: docker:dind\n    environment: [DOCKER_TLS_CERTDIR=]\n"
            '    command: ["--host=tcp://0.0.0.0:2375"]\n',
            (4, 19),
            "high",
        ),
        (
            "compose.yaml",
            'services:\n  dind:\n    image: docker:dind\n    command: ["dockerd", "-H", "tcp://127.0.0.1:2375"]\n',
            (4, 33),
            "medium",
        ),
        (
            "pod.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: agent}\nspec:\n  containers:\n"
            "    - name: dind\n      image: docker:dind\n      env:\n        - name: DOCKER_TLS_CERTDIR\n"
            '          value: ""\n    - name: agent\n      image: ghcr.io/acme/claude-runner:1\n',
            (10, 18),
            "high",
        ),
        (
            "Dockerfile",
            'FROM docker:dind\nCMD ["dockerd", "-H", "tcp://0.0.0.0:2375", "--tls=false"]\n',
            (2, 24),
            "high",
        ),
        ("Dockerfile", "FROM docker:27-dind\nENV DOCKER_TLS_CERTDIR=\n", (2, 5), "high"),
        (
            "Dockerfile",
            "FROM debian:12\nENTRYPOINT dockerd -H tcp://0.0.0.0:2375 -H unix:///var/run/docker.sock\n",
            (2, 23),
            "high",
        ),
        ("scripts/start.sh", "#!/bin/sh\nsudo dockerd -H tcp://0.0.0.0:2375 &\n", (2, 17), "high"),
        ("scripts/start.sh", "#!/bin/sh\ndockerd -Htcp://127.0.0.1:2375 &\n", (2, 11), "medium"),
        (
            "scripts/start.sh",
            "#!/bin/sh\ndocker run -d --privileged -e DOCKER_TLS_CERTDIR= docker:dind\n",
            (2, 31),
            "high",
        ),
        ("docker.service", "[Service]\nExecStart=/usr/bin/dockerd -H fd:// -H tcp://0.0.0.0:2375\n", (2, 40), "high"),
        (
            ".gitlab-ci.yml",
            'variables:\n  DOCKER_TLS_CERTDIR: ""\nbuild:\n  image: docker:24\n  services: [docker:24-dind]\n'
            "  script: [docker build .]\n",
            (2, 23),
            "low",
        ),
        (
            ".gitlab-ci.yml",
            "build:\n  image: docker:24\n  services:\n    - name: docker:24-dind\n      alias: docker\n"
            '  variables:\n    DOCKER_TLS_CERTDIR: ""\n  script: [docker build .]\n',
            (7, 25),
            "low",
        ),
        (
            ".gitlab-ci.yml",
            'variables:\n  DOCKER_TLS_CERTDIR: ""\nreview:\n  image: docker:24\n  services: [docker:24-dind]\n'
            "  script: [claude -p review]\n",
            (2, 23),
            "high",
        ),
        (
            ".github/workflows/ci.yml",
            "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: sudo dockerd -H tcp://0.0.0.0:2375 &\n",
            (6, 30),
            "low",
        ),
    ],
)
def test_a_daemon_listening_on_tcp_without_tls(path: str, text: str, where: tuple[int, int], severity: str) -> None:
    findings = [f for f in lint_text(path, text) if f.rule == "RS002" and "DOCKER_HOST=" not in f.message]
    assert [((f.line, f.column), f.severity) for f in findings] == [(where, severity)]
    assert "without TLS client verification" in findings[0].message


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("compose.yaml", "services:\n  dind:\n    image: docker:dind\n    privileged: true\n"),  # TLS by default
        (
            "compose.yaml",
            'services:\n  dind:\n    image: docker:dind\n    command: ["dockerd", "-H", "tcp://0.0.0.0:2376", '
            '"--tlsverify", "--tlscacert=/certs/ca.pem"]\n',
        ),
        (
            "compose.yaml",
            "services:\n  dind:\n    image: docker:dind\n    command: dockerd -H unix:///var/run/docker.sock\n",
        ),
        ("compose.yaml", 'services:\n  app:\n    image: python:3.12\n    environment:\n      DOCKER_TLS_CERTDIR: ""\n'),
        ("scripts/start.sh", "#!/bin/sh\ndocker run -d --privileged -e DOCKER_TLS_CERTDIR=/certs docker:dind\n"),
        ("scripts/start.sh", "#!/bin/sh\ndockerd --tlsverify -H tcp://0.0.0.0:2376 --tlscert c.pem &\n"),
        ("scripts/start.sh", "#!/bin/sh\necho dockerd -H tcp://0.0.0.0:2375\n"),
        (
            "docker.service",
            "[Service]\nExecStart=/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock\n",
        ),
        (
            ".gitlab-ci.yml",
            'variables:\n  DOCKER_TLS_CERTDIR: "/certs"\nbuild:\n  image: docker:24\n  services: [docker:24-dind]\n'
            "  script: [docker build .]\n",
        ),
    ],
)
def test_a_daemon_on_its_socket_or_behind_tls_is_not_reported(path: str, text: str) -> None:
    assert [f for f in lint_text(path, text) if f.rule == "RS002"] == []


def test_a_dockerfile_command_is_reported_once() -> None:
    text = 'FROM docker:dind\nVOLUME /var/lib/docker\nCMD ["dockerd", "-H", "tcp://0.0.0.0:2375"]\n'
    assert len(at(lint_text("Dockerfile", text), "RS002")) == 1


# ---- RS002: DOCKER_HOST naming a Docker-in-Docker service of the same project or job -------------
_SIDECAR_CLIENT = "  app:\n    image: app\n    environment:\n      DOCKER_HOST: {host}\n{tls}"
_TLS = "      DOCKER_TLS_VERIFY: '1'\n      DOCKER_CERT_PATH: /certs/client\n"


@pytest.mark.parametrize(
    ("daemon", "host", "tls", "expected"),
    [
        # the service name, a hostname, a container_name, a network alias, a links alias
        ("  docker:\n    image: docker:27-dind\n", "tcp://docker:2376", _TLS, []),
        ("  d:\n    image: docker:dind\n    hostname: docker\n", "tcp://docker:2376", "", []),
        ("  d:\n    image: docker:dind-rootless\n    container_name: Dind\n", "tcp://dind:2376", _TLS, []),
        ("  d:\n    image: docker:dind\n    networks:\n      ci: {aliases: [daemon]}\n", "tcp://daemon", _TLS, []),
        ("  d:\n    image: docker:dind\n  c:\n    image: x\n    links: ['d:engine']\n", "https://engine:2376", "", []),
        # plain 2375 to the project's own dind: still reported, medium (its network reaches the port)
        ("  docker:\n    image: docker:dind\n", "tcp://docker:2375", _TLS, ["medium"]),
        ("  docker:\n    image: docker:dind\n", "tcp://docker:2377", "", ["medium"]),
        # a host that is no dind service of this file: a remote daemon, as before
        ("  docker:\n    image: docker:27-cli\n", "tcp://docker:2376", _TLS, ["high"]),
        ("  docker:\n    image: docker:dind\n", "tcp://build.example.com:2376", _TLS, ["high"]),
        ("  docker:\n    image: docker:dind\n", "tcp://docker.example.com:2376", _TLS, ["high"]),
        ("  docker:\n    image: docker:dind\n", "ssh://docker", "", ["high"]),
    ],
)
def test_docker_host_at_the_projects_own_dind_service(daemon: str, host: str, tls: str, expected: list[str]) -> None:
    text = "services:\n" + daemon + _SIDECAR_CLIENT.format(host=host, tls=tls)
    assert [f.severity for f in lint_text("compose.yaml", text) if f.rule == "RS002"] == expected


@pytest.mark.parametrize(
    ("service", "host", "expected"),
    [
        ("docker:27-dind", "tcp://docker:2376", []),
        ("{name: 'docker:dind', alias: dockerd}", "tcp://dockerd:2376", []),
        ("{name: 'docker:dind', alias: 'a,b'}", "tcp://b:2376", []),
        ("registry.example.com/library/docker:dind", "tcp://registry.example.com__library__docker:2376", []),
        ("registry.example.com/library/docker:dind", "tcp://registry.example.com-library-docker:2376", []),
        ("docker:dind", "tcp://docker:2375", ["low"]),  # the job's own, no TLS: GitLab's documented setup
        ("postgres:16", "tcp://postgres:2376", ["high"]),
        ("{name: 'docker:dind', alias: dockerd}", "tcp://builder:2376", ["high"]),
    ],
)
def test_docker_host_at_a_gitlab_jobs_own_dind_service(service: str, host: str, expected: list[str]) -> None:
    text = f"build:\n  image: docker:27\n  services: [{service}]\n  variables:\n    DOCKER_HOST: {host}\n"
    text += "    DOCKER_TLS_VERIFY: 1\n" if host.endswith(":2376") else ""
    text += "  script: [docker build .]\n"
    assert [f.severity for f in lint_text(".gitlab-ci.yml", text) if f.rule == "RS002"] == expected


def test_docker_host_at_a_github_jobs_own_dind_service() -> None:
    job = "on: push\njobs:\n  b:\n    runs-on: ubuntu-latest\n    container: docker:27\n    services:\n"
    env = "    env: {DOCKER_HOST: 'tcp://dind:2376', DOCKER_TLS_VERIFY: '1'}\n    steps: [{run: docker ps}]\n"
    own = job + "      dind: {image: 'docker:dind', options: --privileged}\n" + env
    other = job + "      db: {image: 'postgres:16'}\n" + env
    assert at(lint_text(".github/workflows/b.yml", own), "RS002") == []
    assert len(at(lint_text(".github/workflows/b.yml", other), "RS002")) == 1
