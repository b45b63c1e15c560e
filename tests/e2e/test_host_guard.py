"""A host that holds an address on the sandbox network after all: the agent must not start.

inhibit_ipv4 keeps the sandbox network's bridge without an address, yet Linux answers ARP on any
interface for an address held on any other, and the engine gives the agent a default route through
the network's gateway address. So a stale bridge (or a VPN) holding that address takes every
packet the agent sends to this machine. Here a bridge that is down and routes nothing holds the
gateway address of a compose project's sandbox network (learned after `up --no-start`, before
anything runs): a plain container on that network reaches the host's listener, which shows the path
is real on this engine; the compiled project's host guard then refuses, and the agent never runs.
"""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import _services
from tests.e2e.helpers import Project, compile_kit, run
from tests.e2e.host import HostListener, host_addresses, require_root, stray_addresses

pytestmark = pytest.mark.docker


def _kit(name: str) -> str:
    return f"""\
apiVersion: sandkit/v1
name: {name}
image: {{base: "debian:bookworm-slim"}}
agent: {{command: [bash, -c, "echo agent-ran"]}}
network: {{allow: [allowed.example]}}
workspace: {{mode: none}}
resources: {{cpus: 1, memory: 256Mi, timeout: 2m}}
"""


@pytest.fixture(scope="module")
def guarded(engine: None, token: str, e2e_dir: Path) -> Iterator[Project]:
    """A compiled allowlist kit, built, its containers and networks created but not started."""
    folder = e2e_dir / "guard"
    folder.mkdir()
    (folder / "kit.yaml").write_text(_kit(f"e2e-{token}-guard"), encoding="utf-8")
    output = compile_kit(folder / "kit.yaml", folder / "sandbox", targets="compose")
    (folder / "empty.env").write_text("", encoding="utf-8")
    project = Project(f"e2e-{token}-guard", output, [output / "compose.yaml"], folder / "empty.env")
    yield from _services(project, ["build", "up --no-start agent"])


def _gateway(network: str) -> str:
    info = json.loads(run(["docker", "network", "inspect", network], check=True).stdout)[0]
    subnet = ipaddress.ip_network(info["IPAM"]["Config"][0]["Subnet"])
    return str(next(subnet.hosts()))


def test_the_agent_does_not_start_where_the_host_holds_the_sandbox_gateway(
    guarded: Project, host_listener: HostListener, token: str
) -> None:
    require_root("holding an address on a stray bridge")
    gateway = _gateway(f"{guarded.name}_sandbox")
    host = next(a for a in host_addresses([]) if ":" not in a)  # any: the stray gateway takes it to the host
    before = len(host_listener.events)
    with stray_addresses(f"sk-stray-{token}", [gateway]):
        probe = run(
            [
                "docker", "run", "--rm", "--network", f"{guarded.name}_sandbox", "--user", "1000",
                "--cap-drop", "ALL", "debian:bookworm-slim", "bash", "-c",
                f"exec 3<>/dev/udp/{host}/{host_listener.port} && printf stray >&3",
            ]
        )  # fmt: skip
        assert probe.returncode == 0, probe
        arrived = _arrivals(host_listener, before)
        refused = guarded.agent(timeout=120)
    assert arrived, "no packet of a container on the sandbox network reached the host through the stray gateway"
    assert refused.returncode != 0 and "agent-ran" not in refused.stdout, refused
    guard = guarded.logs("deadline")  # the guard runs first in the deadline's container
    assert f"this machine holds {gateway}, the sandbox network's gateway" in guard, guard
    assert guarded.compose("down").returncode == 0  # host-addresses reads the host again at the next start
    passed = guarded.agent(timeout=120)
    assert passed.returncode == 0 and "agent-ran" in passed.stdout, passed


def _arrivals(listener: HostListener, before: int, seconds: float = 5) -> list[str]:
    """What reached the listener since ``before``, waiting a little for the datagram."""
    deadline = time.monotonic() + seconds
    while len(listener.events) == before and time.monotonic() < deadline:
        time.sleep(0.1)
    return listener.events[before:]
