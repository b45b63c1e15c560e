"""OpenHands' runtime as its [sandbox] configuration starts it, in the real engine: a container of the
compiled image on the compose proxy's internal network alone, with the configuration's user, limits
and startup variables, reaches the allowlist through the proxy and nothing else. (OpenHands also keeps
the runtime on its default network, which is why the fidelity report says best-effort: docs/openhands.md.)

OpenHands itself is not run (its images are not pulled here): the container is started the way its
Docker runtime does (`base_container_image`, `user_id`, `additional_networks`,
`runtime_startup_env_vars`, `docker_runtime_kwargs`, its own entrypoint in place of sandkit's).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from sandkit.compiler.targets.compose import INTERNAL_NET
from tests.conftest import REPO
from tests.e2e.helpers import OTHER, WEB, Outside, Project, run

pytestmark = pytest.mark.docker

CURL = "curl -sS -m 10 -o /dev/null -w '%{http_code}' "


def _sandbox_table(project: Project, tmp_path: Path) -> dict[str, Any]:
    """The [sandbox] table the openhands target writes for the project's own kit."""
    kit = project.folder.parent.parent / "kit.yaml"
    argv = [sys.executable, "-m", "sandkit", "build", str(kit), "-o", str(tmp_path), "-q", "--target", "openhands"]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    config = tmp_path / project.folder.name / "openhands" / "config.toml"
    return tomllib.loads(config.read_text(encoding="utf-8"))["sandbox"]


def _internal_network(project: Project) -> str:
    listed = run(
        [
            "docker",
            *("network", "ls", "-q"),
            *("--filter", f"label=com.docker.compose.project={project.name}"),
            *("--filter", f"label=com.docker.compose.network={INTERNAL_NET}"),
        ],
        check=True,
    ).stdout.split()
    assert len(listed) == 1, listed
    return listed[0]


def _runtime(table: dict[str, Any], network: str, script: str) -> str:
    """Run ``script`` as OpenHands' Docker runtime would start the configured image."""
    kwargs = table["docker_runtime_kwargs"]
    env = [arg for name, value in table["runtime_startup_env_vars"].items() for arg in ("-e", f"{name}={value}")]
    argv = [
        *("docker", "run", "--rm", "--network", network, "--user", str(table["user_id"])),
        *("--memory", str(kwargs["mem_limit"]), "--pids-limit", str(kwargs["pids_limit"])),
        *("--cpus", str(kwargs["nano_cpus"] / 1e9), *env, "--entrypoint", "bash"),
        *(table["base_container_image"], "-c", script),
    ]
    return run(argv, timeout=90, check=True).stdout


def test_openhands_runtime_on_the_internal_network_reaches_only_the_allowlist(
    net_project: Project, outside: Outside, tmp_path: Path
) -> None:
    table = _sandbox_table(net_project, tmp_path)
    assert table["additional_networks"], "an allowlist kit puts the runtime on the proxy's network"
    network = _internal_network(net_project)
    seen = _runtime(
        table,
        network,
        f"echo uid=$(id -u); {CURL}http://{WEB}:8080/openhands; echo; {CURL}http://{OTHER}:8080/leak; echo; "
        f"{CURL}--noproxy '*' http://{outside.allowed_ip}:8080/direct; echo \" exit=$?\"",
    )
    lines = seen.split()
    assert lines[0] == f"uid={table['user_id']}", seen
    assert lines[1] == "200", f"the allowed host did not answer through the proxy:\n{seen}"
    assert lines[2] == "403", f"the proxy let {OTHER} through:\n{seen}"
    assert lines[3] == "000" and lines[4] != "exit=0" and len(lines) == 5, (
        f"the runtime reached the outside without the proxy:\n{seen}"
    )
    logged = f"method=GET host={WEB} port=8080 "  # the proxy logs hosts and ports, never paths
    assert logged in net_project.log_with("egress", logged), "the runtime's request did not pass the proxy"
