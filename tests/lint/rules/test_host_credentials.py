"""HC001-HC003: home credential mounts in every spelling, SSH agent forwarding, metadata."""

from __future__ import annotations

import pytest

from tests.lint.helpers import at, lint_text


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
