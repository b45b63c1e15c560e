"""CI (.ci/run): the README's test command exactly, and a run that leaves Docker objects behind fails."""

from __future__ import annotations

import re
import secrets
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

LEFTOVERS = REPO / "scripts" / "docker-leftovers.sh"


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"Run the tests.*?```sh\n(.*?)\n```", readme, re.DOTALL)
    assert block is not None
    command = block.group(1)
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert f"{command} || status=$?" in lines, "the test command, its status kept for the leftover check"
    assert "python3 -m pytest" in command and "python " not in command + " "


def _leftovers(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(LEFTOVERS), *args], capture_output=True, text=True, check=False)


@pytest.mark.docker
def test_a_container_network_or_volume_left_behind_is_listed(tmp_path: Path) -> None:
    """Other runs may share the engine: the check must name this test's objects, and stop naming them
    once they are gone; it cannot expect an otherwise quiet engine."""
    name = f"sandkit-leftover-{secrets.token_hex(4)}"
    snapshot = tmp_path / "before.txt"
    taken = _leftovers("snapshot")
    assert taken.returncode == 0, taken.stderr
    snapshot.write_text(taken.stdout)
    made = [
        ["docker", "volume", "create", name],
        ["docker", "network", "create", name],
        ["docker", "create", "--name", name, "--network", "none", "debian:bookworm-slim", "true"],
    ]
    try:
        for command in made:
            subprocess.run(command, capture_output=True, check=True)
        left = _leftovers("compare", str(snapshot))
        assert left.returncode == 1
        for kind in ("volume", "network", "container"):
            assert re.search(rf"^{kind} {name}\b", left.stderr, re.MULTILINE), (kind, left.stderr)
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False)
        subprocess.run(["docker", "network", "rm", name], capture_output=True, check=False)
        subprocess.run(["docker", "volume", "rm", name], capture_output=True, check=False)
    after = _leftovers("compare", str(snapshot))
    assert name not in after.stderr
