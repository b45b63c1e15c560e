"""A change to a kit's instructions, env, allowlist (or name) rebuilds no layer that holds what it installed.

The kit's install step writes random bytes, so a rebuilt layer would hold other bytes: after the
change both images (the agent's and the proxy's) must hold the same install layer, by digest, and
the agent's the same bytes. The proxy's squid packages are that image's second layer.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path

import pytest

from tests.e2e.conftest import _services
from tests.e2e.helpers import Project, compile_kit, run

pytestmark = pytest.mark.docker

KIT = """\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim"}}
install: ["od -An -tx1 -N16 /dev/urandom > /etc/e2e-installed"]
agent: {{command: [cat, /etc/e2e-installed], instructions: "{instructions}"}}
env: {{E2E_CHANGED: "{env}"}}
network: {{allow: [{host}]}}
workspace: {{mode: none}}
resources: {{cpus: 1, memory: 256Mi, timeout: 2m}}
"""


def _layers(tag: str) -> list[str]:
    inspect = json.loads(run(["docker", "image", "inspect", tag], check=True).stdout)
    return list(inspect[0]["RootFS"]["Layers"])


def _build(folder: Path, name: str, **changes: str) -> tuple[list[str], list[str], str]:
    """Build the kit with ``changes``; the agent's and the proxy's layers, and the installed bytes."""
    folder.mkdir()
    (folder / "kit.yaml").write_text(KIT.format(name=name, **changes), encoding="utf-8")
    output = compile_kit(folder / "kit.yaml", folder / "sandbox", targets="compose")
    (folder / "empty.env").write_text("", encoding="utf-8")
    project = Project(name, output, [output / "compose.yaml"], folder / "empty.env")
    services = _services(project, ["build"])
    assert isinstance(services, Generator)  # closed below, so its images go before the next build
    next(services)
    try:
        tags = project.compose("config", "--images").stdout.split()
        agent = next(t for t in tags if "-egress" not in t)
        proxy = next(t for t in tags if "-egress" in t)
        installed = run(["docker", "run", "--rm", "--entrypoint", "cat", agent, "/etc/e2e-installed"], check=True)
        return _layers(agent), _layers(proxy), installed.stdout
    finally:
        services.close()  # its images go; the build cache stays


def test_instructions_env_and_allowlist_reuse_the_installed_layers(engine: None, token: str, e2e_dir: Path) -> None:
    first = _build(e2e_dir / "cache1", f"e2e-{token}-cache", instructions="first", env="1", host="a.example")
    # another kit of the same machine: another name too, so other tags, and still the same layers
    second = _build(e2e_dir / "cache2", f"e2e-{token}-cache2", instructions="second", env="2", host="b.example")
    (agent, proxy, installed), (agent2, proxy2, installed2) = first, second
    assert installed == installed2 and installed.strip(), (installed, installed2)
    shared = [layer for layer in agent if layer in agent2]
    assert len(shared) >= len(agent) - 4, "more than the kit's own files were rebuilt"
    assert proxy[:2] == proxy2[:2] and proxy != proxy2  # squid's packages reused; squid.conf rebuilt
