"""Workspace modes: clone fetches from a git server outside, through the proxy; mount and
mount-readonly bind the host folder as named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.helpers import GIT, MOUNT_INSTRUCTIONS, README_MD, GitRepo, Project

pytestmark = pytest.mark.docker


def test_clone_comes_from_the_git_server_through_the_proxy(net_project: Project, git_repo: GitRepo) -> None:
    result = net_project.agent(
        "git -C /workspace rev-parse HEAD; git -C /workspace branch --show-current; cat /workspace/README.md"
    )
    assert result.stdout.splitlines()[:3] == [git_repo.commit, "main", README_MD.rstrip("\n")], (
        f"the workspace is not a clone of the server's main branch:\n{result}"
    )
    fetch = f"url=http://{GIT}:8080/git/repo.git/info/refs"
    proxy_log = net_project.log_with("egress", fetch)
    assert fetch in proxy_log, f"the clone did not go through the egress proxy:\n{proxy_log}"
    fetched = [line for line in net_project.log_with("web", "/git/repo.git/").splitlines() if "/git/repo.git/" in line]
    assert fetched, "the git server saw no fetch"
    proxy = set(net_project.addresses("egress"))
    clients = {line.split("client=")[1].split()[0] for line in fetched}
    assert clients <= proxy, f"the git server was fetched from {clients - proxy}, not only from the proxy {proxy}"


def _host_folder(project: Project) -> Path:
    return project.folder.parent.parent / "ws"


def test_mount_is_the_host_folder_read_write(mount_project: Project) -> None:
    host = _host_folder(mount_project)
    result = mount_project.agent(
        "cat /workspace/from-host.txt && echo 'written by the agent' > /workspace/from-agent.txt"
    )
    assert result.returncode == 0, f"the agent could not read and write the mounted folder:\n{result}"
    assert result.stdout == (host / "from-host.txt").read_text(), "the agent does not see the host's file"
    assert (host / "from-agent.txt").read_text() == "written by the agent\n", "the write did not reach the host"


def test_mount_readonly_can_be_read_but_not_written(mount_ro_project: Project) -> None:
    host = _host_folder(mount_ro_project)
    before = sorted(p.name for p in host.iterdir())
    result = mount_ro_project.agent(
        "cat /workspace/from-host.txt; "
        "if echo x > /workspace/from-agent.txt; then echo wrote; fi; "
        "if rm /workspace/from-host.txt; then echo removed; fi"
    )
    assert "written on the host" in result.stdout, f"the agent cannot read the read-only mount:\n{result}"
    assert "wrote" not in result.stdout and "removed" not in result.stdout, (
        f"the agent changed a mount-readonly workspace:\n{result}"
    )
    assert "Read-only file system" in result.stderr, result
    assert sorted(p.name for p in host.iterdir()) == before, "the host folder changed"


def test_workspace_none_is_an_empty_folder_the_agent_can_write(offline_project: Project) -> None:
    result = offline_project.agent(
        "ls -A /workspace | wc -l; echo x > /workspace/probe && echo writable; "
        'awk \'$2 == "/workspace" {print "type=" $3}\' /proc/mounts'
    )
    assert result.stdout.split() == ["0", "writable", "type=tmpfs"], result


def test_mounted_workspace_gets_instructions_at_user_level_only(mount_project: Project) -> None:
    """The host's folder stays as it was; the agent's home holds the instructions and its variable names them."""
    host = _host_folder(mount_project)
    result = mount_project.agent('printf "%s\\n" "$E2E_INSTRUCTIONS"; cat "$E2E_INSTRUCTIONS"; ls -A /workspace')
    assert result.returncode == 0, result
    lines = result.stdout.splitlines()
    assert lines[0] == "/home/agent/.agent/AGENTS.md", result
    assert result.stdout.count(MOUNT_INSTRUCTIONS.strip()) == 1, f"the instructions are not at user level:\n{result}"
    assert not (host / "AGENTS.md").exists() and "AGENTS.md" not in lines[1:], "the host's folder was written to"
