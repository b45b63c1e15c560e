"""A change to a kit's instructions, env, allowlist (or name) rebuilds no layer that holds what it installed.

The kit's install step writes random bytes, so a rebuilt layer would hold other bytes: after the
change both images (the agent's and the proxy's) must hold the same install layer, by digest, and
the agent's the same bytes. The proxy's squid packages are that image's second layer. And the proxy
image is the machine's, not the kit's: two kits whose proxies are the same build one proxy image.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from sandkit.compiler.proxy import PROXY_REPOSITORY
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
        agent = next(t for t in tags if not t.startswith(PROXY_REPOSITORY))
        proxy = next(t for t in tags if t.startswith(PROXY_REPOSITORY))
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


def _project(folder: Path, name: str, **changes: str) -> Project:
    folder.mkdir()
    (folder / "kit.yaml").write_text(KIT.format(name=name, **changes), encoding="utf-8")
    output = compile_kit(folder / "kit.yaml", folder / "sandbox", targets="compose")
    (folder / "empty.env").write_text("", encoding="utf-8")
    return Project(name, output, [output / "compose.yaml"], folder / "empty.env")


def _proxy_image_id(project: Project) -> tuple[str, str]:
    proxy = next(t for t in project.compose("config", "--images").stdout.split() if t.startswith(PROXY_REPOSITORY))
    return proxy, run(["docker", "image", "inspect", "--format", "{{.Id}}", proxy], check=True).stdout.strip()


def test_two_kits_with_the_same_proxy_build_one_proxy_image(engine: None, token: str, e2e_dir: Path) -> None:
    """Other names, instructions and env, the same allowlist: one proxy tag. Once one kit built it, the other's
    `up` builds nothing for its proxy and starts the same image, which names each kit in its session record.

    (`compose build` or `up --build` would build it again from the cache: the same layers, under a new
    image configuration, since Compose labels each image it builds with its project.)"""
    first = _project(e2e_dir / "share1", f"e2e-{token}-share1", instructions="first", env="1", host="a.example")
    second = _project(e2e_dir / "share2", f"e2e-{token}-share2", instructions="second", env="2", host="a.example")
    one, other = _services(first, ["build"]), _services(second, [])
    assert isinstance(one, Generator) and isinstance(other, Generator)
    next(one)
    try:
        tag, image = _proxy_image_id(first)
        next(other)
        try:
            assert _proxy_image_id(second)[0] == tag
            for project in (first, second):
                started = project.compose("up", "-d", "egress", "host-addresses")
                assert started.returncode == 0, started
                assert _record_names(project), project.logs("egress")
                container = project.compose("ps", "-q", "egress").stdout.strip()
                running = run(["docker", "inspect", "--format", "{{.Image}}", container], check=True).stdout.strip()
                assert running == image, (project.name, running, image)
            assert _proxy_image_id(second) == (tag, image), "the second kit built a proxy image of its own"
        finally:
            other.close()
    finally:
        one.close()


def _record_names(project: Project) -> bool:
    """Whether the session record's start line (in the record volume) names this project's kit and the shared
    image, within half a minute of the proxy's start."""
    line = "cat /var/lib/sandkit-record/session-*.jsonl 2>/dev/null | head -n 1"
    for _ in range(60):
        read = project.compose("exec", "-T", "egress", "sh", "-c", line).stdout
        if read.strip():
            return f'"kit":"{project.name}"' in read and f'"proxy_image":"{PROXY_REPOSITORY}:' in read
        time.sleep(0.5)
    return False
