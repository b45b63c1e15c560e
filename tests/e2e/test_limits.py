"""Limits the agent cannot lift: the session ends at resources.timeout even when the agent stops
the process that times it, the session writes no more than resources.disk in all, and the engine keeps
no more of the agent's output than a few bounded log files."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.e2e.helpers import Project, run

pytestmark = pytest.mark.docker

#: What the engine may keep of one container's output: json-file's max-file times max-size, and a
#: line of slack for the one that crosses the size.
LOG_BYTES_KEPT = 3 * 10 * 2**20 + 2**16


def test_agent_is_stopped_at_the_kit_timeout(timeout_project: Project) -> None:
    """The kit says 3s; the agent would sleep for 60."""
    started = time.monotonic()
    result = timeout_project.agent("echo started; sleep 60; echo finished", timeout=90)
    elapsed = time.monotonic() - started
    assert "started" in result.stdout and "finished" not in result.stdout, f"the agent outlived its timeout:\n{result}"
    assert result.returncode == 124, f"timeout(1) did not end the agent (exit 124 expected):\n{result}"
    assert elapsed < 30, f"the agent was stopped after {elapsed:.0f} s, not near the kit's 3 s"


def test_an_agent_that_stops_its_parent_still_ends_at_the_timeout(timeout_project: Project) -> None:
    """SIGSTOP to its parent (timeout(1), running as the agent's uid) and to every other process it
    may signal: the session still ends soon after the kit's 3 s."""
    timeout_project.compose("down", "--timeout", "1")  # a new session, as `docker compose up` starts one
    script = "echo started; kill -STOP $PPID; kill -STOP -1; echo stopped; sleep 60; echo finished"
    started = time.monotonic()
    result = timeout_project.agent(script, timeout=45)
    elapsed = time.monotonic() - started
    assert "stopped" in result.stdout and "finished" not in result.stdout, f"the agent outlived its timeout:\n{result}"
    assert elapsed < 25, f"the session ended {elapsed:.0f} s after it started, not near the kit's 3 s"


def test_the_session_writes_no_more_than_resources_disk_in_all(net_project: Project) -> None:
    """The kit's disk is 96Mi; the agent writes 200 MiB into each of its writable places (workspace, home,
    /tmp), one after the other, and keeps them: together they hold no more than the 96Mi."""
    result = net_project.agent(
        'for place in /workspace "$HOME" /tmp; do head -c 200M /dev/zero > "$place/fill"; '
        'echo "exit=$?"; echo "size=$(stat -c %s "$place/fill")"; done'
    )
    exits = [line[5:] for line in result.stdout.split() if line.startswith("exit=")]
    sizes = [int(line[5:]) for line in result.stdout.split() if line.startswith("size=")]
    assert len(exits) == len(sizes) == 3 and "0" not in exits, f"200 MiB fit into a writable place:\n{result}"
    assert all(size > 0 for size in sizes), f"a writable place took nothing: the test proves little:\n{result}"
    assert sum(sizes) <= 96 * 2**20, f"the session wrote {sum(sizes)} bytes in all under a 96Mi disk: {sizes}"


def test_the_engine_keeps_a_bounded_log_of_the_agents_output(offline_project: Project) -> None:
    """60 MB written to stdout in a few seconds; the engine keeps at most its rotated files of it."""
    loud = "head -c 60000000 /dev/zero | tr '\\0' x | fold -w 4000"
    with offline_project.detached("loud", "bash", "-c", loud) as record:
        waited = run(["docker", "wait", record["Id"]], timeout=90)
        assert waited.stdout.strip() == "0", waited
        path = Path(record["LogPath"])
        kept = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    assert kept <= LOG_BYTES_KEPT, f"the engine kept {kept} bytes of the agent's output"


def test_every_container_of_the_sandbox_has_a_bounded_log(net_project: Project) -> None:
    """The proxy too: an agent can fill its log with refused requests (21 MB in 2 s)."""
    container = net_project.compose("ps", "-q", "egress").stdout.strip()
    config = json.loads(run(["docker", "inspect", container], check=True).stdout)[0]["HostConfig"]["LogConfig"]
    assert config == {"Type": "json-file", "Config": {"max-file": "3", "max-size": "10m"}}, config
