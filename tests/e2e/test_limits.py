"""resources.timeout: the entrypoint stops an agent that runs longer than the kit allows."""

from __future__ import annotations

import time

import pytest

from tests.e2e.helpers import Project

pytestmark = pytest.mark.docker


def test_agent_is_stopped_at_the_kit_timeout(timeout_project: Project) -> None:
    """The kit says 3s; the agent would sleep for 60."""
    started = time.monotonic()
    result = timeout_project.agent("echo started; sleep 60; echo finished", timeout=90)
    elapsed = time.monotonic() - started
    assert "started" in result.stdout and "finished" not in result.stdout, f"the agent outlived its timeout:\n{result}"
    assert result.returncode == 124, f"timeout(1) did not end the agent (exit 124 expected):\n{result}"
    assert elapsed < 30, f"the agent was stopped after {elapsed:.0f} s, not near the kit's 3 s"
