"""An ssh clone's settings: a key among the kit's run-time secrets, pinned host keys that name the
repository's host (parsed, never patterns or hashes), and its host:22 in the allowlist."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kits.helpers import MINIMAL, errors, load

#: A real ed25519 public key (made for this test), as ssh-keyscan prints it after the host name.
ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK864NzuRxRUHyApcXhdI51edqsFm26KTv+DsTRedYUy"
SSH = "network: {allow: ['git.example.com:22']}\nsecrets: [{name: DEPLOY_KEY}]\n"
REPO = "repo: 'git@git.example.com:acme/app.git', ssh_key: DEPLOY_KEY"


def _workspace(settings: str, extra: str = SSH) -> str:
    return MINIMAL + extra + f"workspace: {{{settings}}}\n"


def test_an_ssh_clone_takes_a_key_of_the_kits_secrets_and_pinned_host_keys(tmp_path: Path) -> None:
    kit = load(tmp_path, _workspace(f"{REPO}, known_hosts: ['git.example.com,other.example.com {ED25519}']")).kit
    assert kit.workspace.ssh_key == "DEPLOY_KEY"
    assert kit.workspace.known_hosts == [f"git.example.com,other.example.com {ED25519}"]
    found = errors(
        tmp_path, _workspace(f"{REPO.replace('DEPLOY_KEY', 'GH_KEY')}, known_hosts: ['git.example.com {ED25519}']")
    )
    assert found == ["7:64: workspace.ssh_key: GH_KEY is not one of `secrets` (a run-time one, not `build: true`)"]


def test_an_ssh_clone_needs_host_keys_that_name_its_host(tmp_path: Path) -> None:
    assert errors(tmp_path, _workspace(REPO)) == [
        "7:12: workspace: an ssh clone needs `known_hosts`, the host keys of git.example.com (`ssh-keyscan -p 22 "
        "git.example.com`, checked against the fingerprints its owner publishes): ssh trusts no other key"
    ]
    found = errors(tmp_path, _workspace(f"{REPO}, known_hosts: ['other.example.com {ED25519}']"))
    assert len(found) == 1 and "workspace.known_hosts: no line names git.example.com" in found[0], found


def test_a_port_other_than_22_is_pinned_in_brackets(tmp_path: Path) -> None:
    repo = "repo: 'ssh://git@git.example.com:2222/a/b.git'"
    allow = "network: {allow: ['git.example.com:2222']}\n"
    plain = errors(tmp_path, _workspace(f"{repo}, known_hosts: ['git.example.com {ED25519}']", allow))
    assert len(plain) == 1 and "no line names [git.example.com]:2222" in plain[0], plain
    assert errors(tmp_path, _workspace(f"{repo}, known_hosts: ['[git.example.com]:2222 {ED25519}']", allow)) == []


def test_the_clone_needs_host_22_in_the_allowlist(tmp_path: Path) -> None:
    pinned = f"{REPO}, known_hosts: ['git.example.com {ED25519}']"
    found = errors(tmp_path, _workspace(pinned, "network: {allow: [git.example.com]}\nsecrets: [{name: DEPLOY_KEY}]\n"))
    assert found == [
        "7:19: workspace.repo: the clone of workspace.repo needs git.example.com:22, which is not in `network.allow`"
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (f"*.example.com {ED25519}", "a pinned host is one exact name, not a pattern"),
        (f"|1|c2FsdA==|aGFzaA== {ED25519}", "a hashed host name cannot be checked"),
        (f"@cert-authority git.example.com {ED25519}", "markers (@cert-authority, @revoked) are not supported"),
        ("git.example.com ssh-ed25519", "must be a known_hosts line"),
        ("git.example.com ssh-dss AAAAB3NzaC1kc3MAAACBAP", "'ssh-dss' is not an ssh host key type"),
        ("git.example.com ssh-rsa " + ED25519.split()[1], "the key is not a ssh-rsa key"),
        ("git.example.com ssh-ed25519 not-base64!", "the key is not a ssh-ed25519 key"),
        (f"Git.Example.com {ED25519}", "is not a host name (lowercase) or [name]:port"),
    ],
)
def test_a_known_hosts_line_is_a_checked_host_key(tmp_path: Path, line: str, message: str) -> None:
    found = errors(tmp_path, _workspace(f"{REPO}, known_hosts: ['{line}']"))
    assert len(found) == 1 and "workspace.known_hosts[0]:" in found[0] and message in found[0], found


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ("repo: 'https://git.example.com/a.git', ssh_key: DEPLOY_KEY", "an ssh key is for ssh repositories"),
        (f"repo: 'https://git.example.com/a.git', known_hosts: ['git.example.com {ED25519}']", "only to ssh"),
        ("ssh_key: DEPLOY_KEY", "workspace.ssh_key: needs `repo`"),
        ("mode: none, ssh_key: DEPLOY_KEY", "apply only to workspace mode clone"),
    ],
)
def test_ssh_settings_belong_to_an_ssh_clone(tmp_path: Path, settings: str, message: str) -> None:
    extra = "network: {allow: [git.example.com]}\nsecrets: [{name: DEPLOY_KEY}]\n"
    found = errors(tmp_path, _workspace(settings, extra))
    assert len(found) == 1 and message in found[0], found


def test_a_token_is_not_an_ssh_credential(tmp_path: Path) -> None:
    settings = f"repo: 'git@git.example.com:a/b.git', token: DEPLOY_KEY, known_hosts: ['git.example.com {ED25519}']"
    found = errors(tmp_path, _workspace(settings))
    assert (
        len(found) == 1 and "a token is for https repositories, not ssh; an ssh repository takes `ssh_key`" in found[0]
    )


@pytest.mark.parametrize("repo", ["-oFoo@git.example.com:a/b.git", "ssh://-oFoo@git.example.com/a"])
def test_a_user_or_host_never_reads_as_an_ssh_option(tmp_path: Path, repo: str) -> None:
    found = errors(tmp_path, _workspace(f"repo: '{repo}', known_hosts: ['git.example.com {ED25519}']"))
    assert len(found) == 1 and "workspace.repo: must not start its user or host with '-'" in found[0], found
