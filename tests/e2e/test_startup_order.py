"""The agent starts only once the proxy enforces and the host guard has passed, however slowly they start.

The proxy and the host guard no longer wait for a health check of host-addresses: they start beside
it and wait for its file themselves, and the agent waits on their health checks alone. Here the
proxy starts four seconds late and host-addresses writes three seconds late (as on a loaded
machine): the agent's first command must still find squid answering with its refusal, and must
come after the host's addresses were written (which the guard and squid read).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from sandkit.compiler.proxy import HOST_ADDRESSES_FILE, HOST_ADDRESSES_SCRIPT
from tests.e2e.conftest import _services
from tests.e2e.helpers import Project, compile_kit
from tests.e2e.test_host_guard import _kit

pytestmark = pytest.mark.docker

#: The agent's first command: its clock, then squid's answer to a request for a non-public address.
FIRST = (
    'echo "agent-first $(date +%s.%N)"; exec 3<>/dev/tcp/egress/3128'
    " && printf 'GET http://0.0.0.1/ HTTP/1.0\\r\\n\\r\\n' >&3 && read -r _ code _ <&3;"
    ' echo "proxy-answered ${code:-nothing}"'
)


def _override(path: Path, compose: Path) -> Path:
    """Delay the proxy's own entrypoint (as compiled: the record's writer, then the listener, then squid)."""
    entrypoint = yaml.safe_load(compose.read_text(encoding="utf-8"))["services"]["egress"]["entrypoint"]
    delayed = json.dumps(["sh", "-c", 'sleep 4; exec "$$0" "$$@"', *entrypoint])
    write = f"{HOST_ADDRESSES_SCRIPT} > {HOST_ADDRESSES_FILE}.new && mv {HOST_ADDRESSES_FILE}.new {HOST_ADDRESSES_FILE}"
    path.write_text(
        f"""\
services:
  egress:
    entrypoint: {delayed}
  host-addresses:
    entrypoint: [sh, -c, 'sleep 3; echo "written-at $$(date +%s.%N)"; {write} && exec sleep infinity']
""",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def slow(engine: None, token: str, e2e_dir: Path) -> Iterator[Project]:
    folder = e2e_dir / "order"
    folder.mkdir()
    (folder / "kit.yaml").write_text(_kit(f"e2e-{token}-order"), encoding="utf-8")
    output = compile_kit(folder / "kit.yaml", folder / "sandbox", targets="compose")
    (folder / "empty.env").write_text("", encoding="utf-8")
    files = [output / "compose.yaml", _override(folder / "slow.yaml", output / "compose.yaml")]
    yield from _services(Project(f"e2e-{token}-order", output, files, folder / "empty.env"), ["build"])


def test_a_slow_proxy_and_slow_host_addresses_still_come_before_the_agent(slow: Project) -> None:
    done = slow.agent(FIRST, timeout=180)
    assert done.returncode == 0, done
    assert "proxy-answered 403" in done.stdout, done
    first = float(done.stdout.split("agent-first ", 1)[1].split()[0])
    written = float(slow.logs("host-addresses").split("written-at ", 1)[1].split()[0])
    assert first > written, (first, written)
    assert "listens on" in slow.logs("egress")
