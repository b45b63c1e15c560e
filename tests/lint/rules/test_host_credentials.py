"""HC001-HC003: home credential mounts in every spelling, SSH agent forwarding, metadata."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_files, lint_text


@pytest.mark.parametrize(
    "source",
    [
        "~/.ssh",
        "$HOME/.aws",
        "${HOME}/.kube",
        "${localEnv:HOME}/.config/gcloud",
        "/root/.azure",
        "/home/alice/.docker/config.json",
        "~/.netrc",
        "/Users/bob/.npmrc",
        "~/.pypirc",
        "~/.git-credentials",
        "~/.config/gh",
        "~",
        "$HOME",
        "/home",
        "~/.config",
        "~/.ssh/id_rsa",
        "${localEnv:HOME}${localEnv:USERPROFILE}/.aws",
    ],
)
def test_credential_mounts(source: str) -> None:
    text = f'services:\n  a:\n    volumes: ["{source}:/mnt"]\n'
    assert at(lint_text("compose.yaml", text), "HC001") == [(3, 15)]


@pytest.mark.parametrize(
    "source",
    [
        "~/.ssh/known_hosts",
        "~/.ssh/id_ed25519.pub",
        "~/.ssh/config",
        "./.aws",
        "/srv/home",
        "~/projects/app",
        "/home-data",
        "${HOME_DIR}/x",
    ],
)
def test_credential_look_alikes(source: str) -> None:
    text = f'services:\n  a:\n    volumes: ["{source}:/mnt"]\n'
    assert at(lint_text("compose.yaml", text), "HC001") == []


def test_kit_file_copied_from_a_credential_folder() -> None:
    kit = (
        "apiVersion: sandkit/v1\nkind: Kit\nname: a\nfiles:\n"
        "  - {path: /home/agent/.aws/credentials, content: x}\n"
        "  - {path: /home/agent/.npmrc, source: ~/.npmrc}\n"
    )
    assert at(lint_text("kits/a.yaml", kit), "HC001") == [(6, 40)]


@pytest.mark.parametrize(
    ("name", "text", "hits"),
    [
        ("run.sh", 'docker run -v "$SSH_AUTH_SOCK:/ssh-agent" -e SSH_AUTH_SOCK=/ssh-agent x\n', 2),
        (
            ".devcontainer/devcontainer.json",
            '{"mounts": ["source=/run/host-services/ssh-auth.sock,target=/ssh,type=bind"]}',
            1,
        ),
        (
            ".github/workflows/w.yml",
            "on: push\njobs:\n  a:\n    runs-on: x\n"
            "    env: {SSH_AUTH_SOCK: /tmp/agent.sock}\n"
            "    steps: [{run: ssh-add key}]\n",
            0,
        ),
        ("compose.yaml", "services:\n  a:\n    environment: [SSH_AUTH_SOCK_NOTE=x]\n", 0),
    ],
)
def test_ssh_agent(name: str, text: str, hits: int) -> None:
    assert len(at(lint_text(name, text), "HC002")) == hits


def test_metadata_reachable() -> None:
    kit = (
        "apiVersion: sandkit/v1\nkind: Kit\nname: a\nnetwork:\n  egress: allowlist\n"
        "  allow: [169.254.169.254, metadata.google.internal, api.example.com]\n"
    )
    assert len(at(lint_text("kits/a.yaml", kit), "HC003")) == 2
    policy = (
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: n}\n"
        "spec:\n  egress:\n    - to:\n        - ipBlock: {cidr: 169.254.0.0/16}\n"
        "        - ipBlock: {cidr: 169.254.0.0/16, except: [169.254.169.254/32]}\n"
    )
    assert at(lint_text("np.yaml", policy), "HC003") == [(7, 27)]
    compose = "services:\n  a:\n    extra_hosts: ['metadata:169.254.169.254', 'db:10.0.0.5']\n"
    assert len(at(lint_text("compose.yaml", compose), "HC003")) == 1


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        ("compose.yaml", 'services:\n  a:\n    volumes: ["../../..:/host"]\n', 3),
        ("compose.yaml", "services:\n  a:\n    volumes: [{type: bind, source: .., target: /up}]\n", 3),
        ("deploy/compose.yaml", 'services:\n  a:\n    volumes: ["./../..:/host:ro"]\n', 3),
        (".devcontainer/devcontainer.json", '{"mounts": ["source=${localWorkspaceFolder}/..,target=/p,type=bind"]}', 1),
        ("scripts/run.sh", 'docker run --rm -v "$(pwd)/../..:/host" debian:12\n', 1),
        (
            ".github/workflows/ci.yml",
            "jobs:\n  a:\n    runs-on: x\n    steps:\n      - run: docker run -v ..:/h i\n",
            5,
        ),
    ],
)
def test_a_relative_mount_that_climbs_out_of_the_project(path: str, text: str, line: int) -> None:
    hits = lint_text(path, text)
    assert [h.line for h in hits if h.rule == "HC001"] == [line], hits
    assert any("above the project" in h.message for h in hits if h.rule == "HC001")


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("compose.yaml", 'services:\n  a:\n    volumes: ["./data:/data", "data:/named", ".:/src"]\n'),
        ("deploy/compose.yaml", 'services:\n  a:\n    volumes: ["..:/repo", "../src/..:/repo2"]\n'),
        (".devcontainer/devcontainer.json", '{"workspaceMount": "source=${localWorkspaceFolder},target=/w,type=bind"}'),
        ("scripts/run.sh", 'docker run --rm -v "$(pwd)/..:/repo" debian:12\n'),
        (".github/workflows/ci.yml", "jobs:\n  a:\n    runs-on: x\n    steps:\n      - run: docker run -v .:/src i\n"),
    ],
)
def test_relative_mounts_inside_the_project_are_not_findings(path: str, text: str) -> None:
    assert [h for h in lint_text(path, text) if h.rule == "HC001"] == []


# ---- HC001: more credential folders, and variables that name credentials -------------------------


@pytest.mark.parametrize(
    "source",
    [
        "${HOME}/.dbt",
        "~/.dbt/profiles.yml",
        "/home/dev/.m2/settings.xml",
        "~/.m2/settings-security.xml",
        "$HOME/.gradle/gradle.properties",
        "~/.cargo/credentials",
        "~/.cargo/credentials.toml",
        "~/.terraform.d/credentials.tfrc.json",
        "~/.vault-token",
        "~/.config/hub",
        "~/.codex",
        "~/.codex/auth.json",
        "~/.gemini/oauth_creds.json",
        "~/.claude/.credentials.json",
        "${GOOGLE_APPLICATION_CREDENTIALS}",
        "$AWS_SHARED_CREDENTIALS_FILE",
        "${KUBECONFIG}",
        "${KUBECONFIG:-./kubeconfig}",
        "$DOCKER_CONFIG/config.json",
        "${CLOUDSDK_CONFIG}",
        "${DBT_PROFILES_DIR}",
    ],
)
def test_more_credential_sources_are_critical(source: str) -> None:
    text = f'services:\n  a:\n    volumes: ["{source}:/mnt:ro"]\n'
    hits = [f for f in lint_text("compose.yaml", text) if f.rule == "HC001"]
    assert [(h.line, h.column, h.severity) for h in hits] == [(3, 15, "critical")]


@pytest.mark.parametrize("source", ["~/.m2", "${HOME}/.gradle", "/root/.cargo", "${CARGO_HOME}", "$GRADLE_USER_HOME"])
def test_a_whole_package_cache_folder_is_medium(source: str) -> None:
    text = f'services:\n  a:\n    volumes: ["{source}:/cache"]\n'
    hits = [f for f in lint_text("compose.yaml", text) if f.rule == "HC001"]
    assert [h.severity for h in hits] == ["medium"]
    assert "package cache" in hits[0].message


@pytest.mark.parametrize(
    "source",
    [
        "~/.m2/repository",
        "~/.cargo/registry",
        "${CARGO_HOME}/registry",
        "~/.gradle/caches",
        "~/.dbt-cache",
        "${KUBECONFIG_DIR}/x",
        "$DOCKER_CONFIG_PATH",
        "${GOOGLE_CLOUD_PROJECT}",
        "./kubeconfig",
    ],
)
def test_caches_and_other_variables_are_not_credentials(source: str) -> None:
    text = f'services:\n  a:\n    volumes: ["{source}:/mnt"]\n'
    assert at(lint_text("compose.yaml", text), "HC001") == []


@pytest.mark.parametrize(
    ("path", "text", "where"),
    [
        (
            "compose.yaml",
            "services:\n  a:\n    volumes:\n      - type: bind\n"
            "        source: ${GOOGLE_APPLICATION_CREDENTIALS}\n        target: /k.json\n",
            [(5, 17)],
        ),
        (
            "scripts/run.sh",
            'docker run --rm -v "$GOOGLE_APPLICATION_CREDENTIALS:/gcp/key.json:ro" '
            "--mount type=bind,source=${KUBECONFIG},target=/root/.kube/config img\n",
            [(1, 20), (1, 79)],
        ),
        (
            ".devcontainer/devcontainer.json",
            '{"image": "x", "mounts": ["source=${localEnv:AWS_SHARED_CREDENTIALS_FILE},target=/a,type=bind"]}',
            [(1, 27)],
        ),
        (
            ".github/workflows/ci.yml",
            "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n"
            '      - run: docker run -v "$KUBECONFIG:/kube/config" img\n',
            [(6, 28)],
        ),
    ],
)
def test_a_credential_variable_mounted_in_each_file_kind(path: str, text: str, where: list[tuple[int, int]]) -> None:
    hits = [f for f in lint_text(path, text) if f.rule == "HC001"]
    assert [(h.line, h.column) for h in hits] == where
    assert all("names" in h.message for h in hits)


def test_a_credential_variable_that_the_env_file_sets_to_a_project_file_is_that_file() -> None:
    compose = 'services:\n  a:\n    volumes: ["${GOOGLE_APPLICATION_CREDENTIALS}:/k.json:ro"]\n'
    files = {"compose.yaml": compose, ".env": "GOOGLE_APPLICATION_CREDENTIALS=./secrets/key.json\n"}
    assert at(lint_files(files), "HC001") == []


@pytest.mark.parametrize(
    "source",
    [
        "/etc/kubernetes/admin.conf",
        "/etc/kubernetes/super-admin.conf",
        "/etc/kubernetes/pki",
        "/etc/kubernetes/pki/ca.key",
        "/etc/rancher/k3s/k3s.yaml",
        "/etc/rancher/rke2/rke2.yaml",
        "/var/lib/rancher/k3s/server/tls",
    ],
)
def test_a_clusters_admin_credentials_on_the_host(source: str) -> None:
    """kubeadm's, k3s's and RKE2's administrator kubeconfigs and certificate authority keys are
    where their installers leave them, outside any home folder: a container given one is the
    cluster's administrator."""
    text = f'services:\n  a:\n    volumes: ["{source}:/mnt"]\n'
    assert at(lint_text("compose.yaml", text), "HC001") == [(3, 15)]
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "    - {name: c, image: registry.example.com/c:1, volumeMounts: [{name: v, mountPath: /v}]}\n"
        f"  volumes:\n    - {{name: v, hostPath: {{path: {source}}}}}\n"
    )
    assert [f.severity for f in lint_text("k8s/pod.yaml", pod) if f.rule == "HC001"] == ["info"]


@pytest.mark.parametrize(
    "source",
    [
        "/etc",
        "/etc/kubernetes/manifests",
        "/etc/rancher/k3s/config.yaml",
        "/var/lib/rancher/k3s/storage",
        "/etc/localtime",
    ],
)
def test_a_nodes_other_files_are_not_cluster_credentials(source: str) -> None:
    """A parent such as /etc holds the credentials only on a cluster's node, and static pod
    manifests, the certificates a client checks a server with, k3s's own configuration and its
    volume storage hold none."""
    text = f'services:\n  a:\n    volumes: ["{source}:/mnt"]\n'
    assert at(lint_text("compose.yaml", text), "HC001") == []
