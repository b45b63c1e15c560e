"""PV001-PV007: privileged mode, host namespaces, capabilities, confinement, escalation,
Docker devcontainer features, a writable .git for an agent; each with look-alikes that stay quiet."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_text, rules_of

POD = "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n{spec}"


@pytest.mark.parametrize(
    ("name", "text", "rule", "where"),
    [
        ("compose.yaml", "services:\n  a:\n    privileged: true\n", "PV001", [(3, 17)]),
        (
            "k8s.yaml",
            POD.format(spec="  containers:\n    - name: a\n      securityContext:\n        privileged: true\n"),
            "PV001",
            [(8, 21)],
        ),
        (".devcontainer/devcontainer.json", '{"privileged": true}', "PV001", [(1, 16)]),
        ("run.sh", "docker run --privileged img\n", "PV001", [(1, 12)]),
        ("compose.yaml", "services:\n  a:\n    pid: host\n    ipc: host\n", "PV002", [(3, 10), (4, 10)]),
        (
            "k8s.yaml",
            POD.format(spec="  hostNetwork: true\n  hostPID: true\n  containers: []\n"),
            "PV002",
            [(5, 16), (6, 12)],
        ),
        ("run.sh", "podman run --pid=host --network host img\n", "PV002", [(1, 18), (1, 33)]),
        (
            "compose.yaml",
            "services:\n  a:\n    cap_add: [NET_ADMIN, CAP_SYS_ADMIN, chown]\n",
            "PV003",
            [(3, 15), (3, 26)],
        ),
        (
            "k8s.yaml",
            POD.format(
                spec="  containers:\n    - name: a\n      securityContext:\n        capabilities: {add: [ALL]}\n"
            ),
            "PV003",
            [(8, 30)],
        ),
        (
            "compose.yaml",
            "services:\n  a:\n    security_opt: [seccomp:unconfined, 'apparmor=unconfined']\n",
            "PV004",
            [(3, 20), (3, 40)],
        ),
        (
            "k8s.yaml",
            POD.format(spec="  securityContext:\n    seccompProfile: {type: Unconfined}\n  containers: []\n"),
            "PV004",
            [(6, 28)],
        ),
        (
            "k8s.yaml",
            POD.format(
                spec="  containers:\n    - name: a\n      securityContext:\n        allowPrivilegeEscalation: true\n"
            ),
            "PV005",
            [(8, 35)],
        ),
        (
            ".devcontainer/devcontainer.json",
            '{"features": {"ghcr.io/devcontainers/features/docker-in-docker:2": {}}}',
            "PV006",
            [(1, 15)],
        ),
    ],
)
def test_positive(name: str, text: str, rule: str, where: list[tuple[int, int]]) -> None:
    assert at(lint_text(name, text), rule) == where


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("compose.yaml", "services:\n  a:\n    privileged: false\n    command: echo --privileged\n"),
        ("compose.yaml", "services:\n  a:\n    network_mode: 'service:b'\n    pid: 'container:b'\n"),
        ("compose.yaml", "services:\n  a:\n    cap_add: [NET_BIND_SERVICE, CHOWN]\n    cap_drop: [ALL, SYS_ADMIN]\n"),
        ("compose.yaml", "services:\n  a:\n    security_opt: [no-new-privileges:true, seccomp=./p.json]\n"),
        (
            "k8s.yaml",
            POD.format(
                spec="  hostNetwork: false\n  containers:\n    - name: a\n"
                "      securityContext: {allowPrivilegeEscalation: false,"
                " seccompProfile: {type: RuntimeDefault}}\n"
            ),
        ),
        ("run.sh", "echo docker run --privileged\ndocker ps --filter network=host\n"),
        (
            ".devcontainer/devcontainer.json",
            '{"features": {"ghcr.io/devcontainers/features/github-cli:1": {}},\n'
            ' // "privileged": true\n "runArgs": ["--init"]}',
        ),
        ("README.md", "Set `privileged: true` and `--cap-add SYS_ADMIN` only on throwaway VMs.\n"),
    ],
)
def test_negative(name: str, text: str) -> None:
    assert not {r for r in rules_of(lint_text(name, text)) if r.startswith("PV")}


def test_host_network_for_an_agent_is_egress_not_privileged() -> None:
    text = "services:\n  coder:\n    image: ghcr.io/acme/claude-code:2\n    network_mode: host\n"
    assert rules_of(lint_text("compose.yaml", text)) == {"EG003"}


CLAUDE = "image: ghcr.io/acme/claude-code:2"
KIT_HEAD = "apiVersion: sandkit/v1\nname: k\nagent: {command: [a]}\n"


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("compose.yaml", f"services:\n  coder:\n    {CLAUDE}\n    volumes: ['.:/work']\n", [(4, 15)]),
        (
            "compose.yaml",
            f"services:\n  coder:\n    {CLAUDE}\n    volumes:\n      - {{type: bind, source: ../, target: /w}}\n",
            [(5, 30)],
        ),
        ("compose.yaml", f"services:\n  coder:\n    {CLAUDE}\n    volumes: ['./.git:/w/.git']\n", [(4, 15)]),
        ("run.sh", 'docker run -v "$PWD:/src" ghcr.io/acme/codex:1\n', [(1, 15)]),
        (
            ".devcontainer/devcontainer.json",
            '{"image": "mcr.microsoft.com/devcontainers/base:1",\n'
            ' "features": {"ghcr.io/anthropics/devcontainer-features/claude-code:1": {}}}',
            [(1, 1)],
        ),
        (
            ".devcontainer/devcontainer.json",
            '{"image": "mcr.microsoft.com/devcontainers/base:1",\n'
            ' "postCreateCommand": "npm install -g @openai/codex"}',
            [(1, 1)],
        ),
        ("kits/k.yaml", KIT_HEAD + "workspace: {mode: mount, source: ., git: writable}\n", [(4, 42)]),
    ],
)
def test_agent_writable_git_positive(name: str, text: str, where: list[tuple[int, int]]) -> None:
    assert at(lint_text(name, text), "PV007") == where


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # .git read-only over the writable project folder (what sandkit's compose target writes)
        (
            "compose.yaml",
            f"services:\n  coder:\n    {CLAUDE}\n    volumes:\n      - {{type: bind, source: ../.., target: /w}}\n"
            "      - {type: bind, source: ../../.git, target: /w/.git, read_only: true}\n",
        ),
        ("compose.yaml", f"services:\n  coder:\n    {CLAUDE}\n    volumes: ['.:/work:ro', './data:/data']\n"),
        ("compose.yaml", "services:\n  db:\n    image: postgres:16\n    volumes: ['.:/work']\n"),
        (
            "run.sh",
            'docker run -v "$PWD:/src" --mount type=bind,source=$PWD/.git,target=/src/.git,readonly '
            "ghcr.io/acme/codex:1\n",
        ),
        (
            ".devcontainer/devcontainer.json",
            '{"image": "mcr.microsoft.com/devcontainers/base:1",\n'
            ' "features": {"ghcr.io/anthropics/devcontainer-features/claude-code:1": {}},\n'
            ' "mounts": ["source=${localWorkspaceFolder}/.git,target=${containerWorkspaceFolder}/.git,'
            'type=bind,readonly"]}',
        ),
        (".devcontainer/devcontainer.json", '{"image": "mcr.microsoft.com/devcontainers/python:3"}'),
        ("kits/k.yaml", KIT_HEAD + "workspace: {mode: mount, source: .}\n"),
        ("README.md", "A kit may say `git: writable` under workspace; do not.\n"),
    ],
)
def test_agent_writable_git_negative(name: str, text: str) -> None:
    assert "PV007" not in rules_of(lint_text(name, text))


def test_agent_writable_git_in_a_gitlab_job() -> None:
    text = 'review:\n  script:\n    - docker run -v "$PWD:/src" ghcr.io/acme/claude-code:2\n'
    assert "PV007" in rules_of(lint_text(".gitlab-ci.yml", text))


ANSIBLE_AGENT = (
    "- hosts: all\n  tasks:\n    - community.docker.docker_container:\n"
    "        name: agent\n        image: ghcr.io/acme/claude-code:2\n"
)
TERRAFORM_AGENT = 'resource "docker_container" "agent" {\n  image = "ghcr.io/acme/codex:1"\n'
NOMAD_AGENT = (
    'job "a" {\n  group "g" {\n    task "t" {\n      driver = "docker"\n      config {\n'
    '        image = "ghcr.io/acme/aider:1"\n'
)


@pytest.mark.parametrize(
    ("name", "writable", "read_only"),
    [
        (
            "ansible/site.yml",
            ANSIBLE_AGENT + "        volumes: ['/srv/repo/.git:/w/.git']\n",
            ANSIBLE_AGENT + "        volumes: ['/srv/repo/.git:/w/.git:ro']\n",
        ),
        (
            "ansible/site.yml",
            ANSIBLE_AGENT + "        mounts: [{source: /srv/repo/.git, target: /w/.git, type: bind}]\n",
            ANSIBLE_AGENT
            + "        mounts: [{source: /srv/repo/.git, target: /w/.git, type: bind, read_only: true}]\n",
        ),
        (
            "main.tf",
            TERRAFORM_AGENT + '  volumes {\n    host_path = "/srv/repo/.git"\n    container_path = "/w/.git"\n  }\n}\n',
            TERRAFORM_AGENT
            + '  volumes {\n    host_path = "/srv/repo/.git"\n    container_path = "/w/.git"\n    read_only = true\n'
            "  }\n}\n",
        ),
        (
            "main.tf",
            TERRAFORM_AGENT
            + '  mounts {\n    type = "bind"\n    source = "/srv/repo/.git"\n    target = "/w/.git"\n  }\n}\n',
            TERRAFORM_AGENT + '  mounts {\n    type = "bind"\n    source = "/srv/repo/.git"\n    target = "/w/.git"\n'
            "    read_only = true\n  }\n}\n",
        ),
        (
            "jobs/a.nomad",
            NOMAD_AGENT + '        volumes = ["/srv/repo/.git:/w/.git"]\n      }\n    }\n  }\n}\n',
            NOMAD_AGENT + '        volumes = ["/srv/repo/.git:/w/.git:ro"]\n      }\n    }\n  }\n}\n',
        ),
        (
            "jobs/a.nomad",
            NOMAD_AGENT + '        mount {\n          type = "bind"\n          source = "/srv/repo/.git"\n'
            '          target = "/w/.git"\n        }\n      }\n    }\n  }\n}\n',
            NOMAD_AGENT + '        mount {\n          type = "bind"\n          source = "/srv/repo/.git"\n'
            '          target = "/w/.git"\n          readonly = true\n        }\n      }\n    }\n  }\n}\n',
        ),
    ],
)
def test_agent_writable_git_knows_read_only_in_infrastructure_code(name: str, writable: str, read_only: str) -> None:
    """Ansible, Terraform and Nomad say read-only in their own words; a read-only .git is no finding."""
    assert "PV007" in rules_of(lint_text(name, writable))
    assert "PV007" not in rules_of(lint_text(name, read_only))


def test_a_pod_security_policy_lets_pods_do_it_and_runs_nothing_itself() -> None:
    """kubernetes/examples' PodSecurityPolicy/privileged read "pod of PodSecurityPolicy/privileged
    uses the host's pid namespace", and its `privileged: true` was not reported at all."""
    psp = (
        "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata: {name: wide}\n"
        "spec:\n  privileged: true\n  hostNetwork: true\n  hostPID: true\n  volumes: ['*']\n"
    )
    found = {(f.rule, f.severity, f.message.split(" (")[0]) for f in lint_text("psp.yaml", psp)}
    assert found == {
        ("PV001", "high", "PodSecurityPolicy/wide lets pods run privileged"),
        ("PV002", "medium", "PodSecurityPolicy/wide lets pods use the host's network namespace"),
        ("PV002", "medium", "PodSecurityPolicy/wide lets pods use the host's pid namespace"),
        # volumes '*' and no allowedHostPaths: any host path, the runtime socket included
        ("RS001", "high", "PodSecurityPolicy/wide lets pods mount any host path"),
    }
    pod = lint_text("k8s.yaml", POD.format(spec="  hostPID: true\n  containers: []\n"))
    assert [(f.severity, f.message.split(" (")[0]) for f in pod] == [
        ("info", "pod of Pod/p uses the host's pid namespace")  # a pod that names no agent: info
    ]


_DEVICES = """\
services:
  app:
    image: alpine
    devices:
      - @DEVICE@
"""


@pytest.mark.parametrize(
    "device",
    ["/dev/mem", "/dev/sda", "/dev/sda1:/dev/xvda:rwm", "/dev/nvme0n1p2", "/dev/vda", "/dev/dm-0", "/dev/mapper/root"],
)
def test_a_host_disk_or_memory_device_in_compose(device: str) -> None:
    assert at(lint_text("compose.yaml", _DEVICES.replace("@DEVICE@", device)), "PV008") == [(5, 9)]


@pytest.mark.parametrize(
    "device", ["/dev/dri", "/dev/snd", "/dev/ttyUSB0", "/dev/fuse", "/dev/kvm", "/dev/nvidia0", "nvidia.com/gpu=all"]
)
def test_ordinary_workload_devices_are_quiet(device: str) -> None:
    assert "PV008" not in rules_of(lint_text("compose.yaml", _DEVICES.replace("@DEVICE@", device)))


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("run.sh", "docker run --device /dev/sdb:/dev/xvdb alpine sh\n", [(1, 1)]),
        ("run.sh", "docker run --device=/dev/kmem alpine\n", [(1, 1)]),
        ("compose.yaml", 'services:\n  a:\n    image: alpine\n    devices: ["${DISK:-/dev/sdc}:/disk"]\n', [(4, 15)]),
    ],
)
def test_a_host_device_in_other_spellings(name: str, text: str, where: list[tuple[int, int]]) -> None:
    found = at(lint_text(name, text), "PV008")
    assert len(found) == len(where) and found[0][0] == where[0][0], found
