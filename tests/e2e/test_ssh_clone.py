"""A private repository cloned over ssh (workspace.ssh_key, known_hosts) in the compose sandbox: ssh
tunnels through the egress proxy's CONNECT to the one host:22 the kit allows, trusts only the host key
the kit pins, and the deploy key never stays in a file or reaches a command line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.helpers import README_MD, SSH_HOST, SSH_REPO_PATH, SSH_UNLISTED, GitRepo, Project

pytestmark = pytest.mark.docker


def test_ssh_clone_of_a_private_repository_goes_through_the_proxy(
    ssh_project: Project, git_repo: GitRepo, ssh_keys: Path
) -> None:
    key = (ssh_keys / "client_key").read_text().splitlines()[1]  # a line of the private key's body
    result = ssh_project.agent(
        "git -C /workspace rev-parse HEAD; git -C /workspace branch --show-current; cat /workspace/README.md; "
        "git -C /workspace config --get remote.origin.url; ls -A /tmp | wc -l; "
        f"grep -rl -F -e {key!r} /workspace/.git /etc/sandkit /home/agent /tmp || echo key-nowhere"
    )
    assert result.stdout.splitlines() == [
        git_repo.commit,
        "main",
        README_MD.rstrip("\n"),
        f"git@{SSH_HOST}:{SSH_REPO_PATH}",
        "0",
        "key-nowhere",
    ], f"the workspace is not a clone of the ssh server's main branch, or the key is left behind:\n{result}"
    tunnel = f"method=CONNECT host={SSH_HOST} port=22 "
    proxy_log = ssh_project.log_with("egress", tunnel)
    assert f"decision=TCP_TUNNEL/200 {tunnel}" in proxy_log, f"the clone did not go through the proxy:\n{proxy_log}"
    server_log = ssh_project.log_with("ssh", "Accepted publickey for git")
    proxy = set(ssh_project.addresses("egress"))
    clients = set(re.findall(r"Accepted publickey for git from ([0-9.]+) ", server_log))
    assert clients, f"the server accepted no key:\n{server_log}"
    assert clients <= proxy, f"the ssh server was reached from {clients - proxy}, not only from the proxy {proxy}"


@contextmanager
def _host_key(project: Project, keys: Path, name: str) -> Iterator[None]:
    """The ssh server restarted with the host key ``name`` of ``keys``, and with its own again afterwards."""
    served = keys / "server/host_key"
    own = served.read_bytes()
    served.write_bytes((keys / name).read_bytes())
    try:
        assert project.compose("up", "-d", "--wait", "--force-recreate", "ssh").returncode == 0
        yield
    finally:
        served.write_bytes(own)
        project.compose("up", "-d", "--wait", "--force-recreate", "ssh")


def test_ssh_clone_refuses_a_host_key_the_kit_does_not_pin(ssh_project: Project, ssh_keys: Path) -> None:
    with _host_key(ssh_project, ssh_keys, "impostor_key"):
        result = ssh_project.agent("echo agent-ran", timeout=90)
        server_log = ssh_project.logs("ssh")
    assert result.returncode != 0 and "agent-ran" not in result.stdout, f"a clone from an impostor ran:\n{result}"
    assert "Host key verification failed" in result.stderr, result
    assert "Accepted publickey" not in server_log, f"the key was offered to an impostor:\n{server_log}"


def _server_counts(project: Project) -> tuple[int, int]:
    """(connections, accepted keys) the ssh server has logged."""
    log = project.logs("ssh")
    return log.count("Connection from "), log.count("Accepted publickey for git ")


def test_ssh_to_a_host_the_kit_does_not_allow_is_refused_by_the_proxy(ssh_project: Project) -> None:
    before = _server_counts(ssh_project)
    result = ssh_project.agent(
        f"GIT_SSH_VARIANT=ssh GIT_SSH_COMMAND=/etc/sandkit/git-ssh git ls-remote git@{SSH_UNLISTED}:{SSH_REPO_PATH}"
        "; echo exit=$?"
    )
    assert result.stdout.splitlines()[-1] != "exit=0", f"an ssh connection to a host not allowed worked:\n{result}"
    refused = f"decision=TCP_DENIED/403 method=CONNECT host={SSH_UNLISTED} port=22 "
    proxy_log = ssh_project.log_with("egress", refused)
    assert refused in proxy_log, f"the proxy did not refuse {SSH_UNLISTED}:22:\n{proxy_log}"
    (connections, accepted), (connections_before, accepted_before) = _server_counts(ssh_project), before
    connections, accepted = connections - connections_before, accepted - accepted_before
    assert connections == accepted == 1, "the server saw more than the entrypoint's own clone"
