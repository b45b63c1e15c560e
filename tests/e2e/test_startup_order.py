"""The agent's command runs only once the proxy enforces and the host guard has passed, however slowly they start.

compose starts the agent's container beside the helpers, not after their health checks: its entrypoint
waits for their proofs, files that squid's start (once squid answers with its refusal) and the host guard
(the deadline container's first step, once it passed) write in a tmpfs volume the agent mounts
read-only. Here host-addresses writes three seconds late, the proxy starts six seconds late and the
guard eight (as on a loaded machine): the agent's entrypoint must already be running before either
helper begins (so it is the entrypoint's wait that is tested, not Compose's ordering), and the agent's
first command must come after both, find squid answering with its refusal, and be unable to write,
remove or replace either proof.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from sandkit.compiler.proxy import HOST_ADDRESSES_FILE, HOST_ADDRESSES_SCRIPT, READY_DIR, READY_GUARD, READY_PROXY
from sandkit.compiler.targets.devcontainer import OVERRIDE as DEVCONTAINER_OVERRIDE
from tests.e2e.conftest import _services
from tests.e2e.helpers import Project, compile_kit, run
from tests.e2e.test_host_guard import _kit

pytestmark = pytest.mark.docker

#: The agent's first command: its clock; when its entrypoint's process began (the clock less the
#: process's age, from /proc/uptime and the process's start in clock ticks); squid's answer to a request
#: for a non-public address; and what came of trying to forge, remove or replace the proofs.
FIRST = (
    'echo "agent-first $(date +%s.%N)";'
    " read -r -a stat < /proc/$PPID/stat; read -r up _ < /proc/uptime;"
    ' echo "entrypoint-began $(awk -v now="$(date +%s.%N)" -v up="$up" -v start="${stat[21]}"'
    ' -v hz="$(getconf CLK_TCK)" \'BEGIN { printf "%.3f", now - (up - start / hz) }\')";'
    " exec 3<>/dev/tcp/egress/3128 && printf 'GET http://0.0.0.1/ HTTP/1.0\\r\\n\\r\\n' >&3 && read -r _ code _ <&3;"
    ' echo "proxy-answered ${code:-nothing}";'
    f" for forged in {READY_DIR}/forged {READY_GUARD} {READY_PROXY}; do"
    ' (: > "$forged") 2>/dev/null && echo "wrote $forged"; done;'
    f" rm -f {READY_GUARD} 2>/dev/null; mv {READY_PROXY} {READY_DIR}/moved 2>/dev/null;"
    f' ls {READY_DIR} | tr "\\n" " " | sed "s/^/proofs: /"; echo'
)


def _stamp(text: str, label: str) -> float:
    return float(text.split(f"{label} ", 1)[1].split()[0])


def _override(path: Path, compose: Path) -> Path:
    """Delay the proxy's own entrypoint (as compiled: the record's writer, then the listener, then squid), the
    deadline's (the host guard, then its sleep) and host-addresses' file; each says when it goes on."""
    services = yaml.safe_load(compose.read_text(encoding="utf-8"))["services"]
    delayed = json.dumps(
        [
            "sh",
            "-c",
            'sleep 6; echo "proxy-begins $$(date +%s.%N)"; exec "$$0" "$$@"',
            *services["egress"]["entrypoint"],
        ]
    )
    shell, flag, guard_then_sleep = services["deadline"]["entrypoint"]
    guard = json.dumps([shell, flag, f'sleep 8; echo "guard-begins $$(date +%s.%N)"; {guard_then_sleep}'])
    write = f"{HOST_ADDRESSES_SCRIPT} > {HOST_ADDRESSES_FILE}.new && mv {HOST_ADDRESSES_FILE}.new {HOST_ADDRESSES_FILE}"
    path.write_text(
        f"""\
services:
  egress:
    entrypoint: {delayed}
  deadline:
    entrypoint: {guard}
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


def test_slow_helpers_still_come_before_the_agent_and_their_proofs_cannot_be_forged(slow: Project) -> None:
    done = slow.agent(FIRST, timeout=180)
    assert done.returncode == 0, done
    assert "proxy-answered 403" in done.stdout, done
    first, began = _stamp(done.stdout, "agent-first"), _stamp(done.stdout, "entrypoint-began")
    written = _stamp(slow.logs("host-addresses"), "written-at")
    proxy, guard = _stamp(slow.logs("egress"), "proxy-begins"), _stamp(slow.logs("deadline"), "guard-begins")
    # the entrypoint ran before either helper began its check, and the command only after both
    assert began < proxy < first and began < guard < first, (began, proxy, guard, first)
    assert first > written, (first, written)
    assert "listens on" in slow.logs("egress") and "squid refuses what it must" in slow.logs("egress")
    # the agent's mount of the proofs is read-only: it can neither add one nor take one away
    assert "wrote " not in done.stdout, done
    assert "proofs: guard proxy \n" in done.stdout, done


def _refusing_guard(path: Path, compose: Path) -> Path:
    """The host guard refuses at once, with a reason, as it does when this machine answers on the sandbox network."""
    services = yaml.safe_load(compose.read_text(encoding="utf-8"))["services"]
    shell, flag, _ = services["deadline"]["entrypoint"]
    refuse = f"echo refused-for-this-test > {READY_DIR}/guard-refused; exit 1"
    path.write_text(f"services:\n  deadline:\n    entrypoint: {json.dumps([shell, flag, refuse])}\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def editor(engine: None, token: str, e2e_dir: Path) -> Iterator[Project]:
    """The same slow helpers, started as an editor opens the dev container: `up -d` with its override."""
    folder = e2e_dir / "editor-order"
    folder.mkdir()
    (folder / "kit.yaml").write_text(_kit(f"e2e-{token}-editor"), encoding="utf-8")
    output = compile_kit(folder / "kit.yaml", folder / "sandbox", targets="compose,devcontainer")
    (folder / "empty.env").write_text("", encoding="utf-8")
    files = [
        output / "compose.yaml",
        output / DEVCONTAINER_OVERRIDE,
        _override(folder / "slow.yaml", output / "compose.yaml"),
    ]
    yield from _services(Project(f"e2e-{token}-editor", output, files, folder / "empty.env"), ["build"])


def _started(project: Project, service: str) -> tuple[str, float]:
    """The service's container's state, and when it started (0 if it never did)."""
    container = project.compose("ps", "-a", "-q", service).stdout.strip()
    state = json.loads(run(["docker", "inspect", container], check=True).stdout)[0]["State"]
    started = state["StartedAt"]
    if started.startswith("0001-"):
        return state["Status"], 0.0
    stamp = (
        datetime.fromisoformat(started[:26].rstrip("Z") + "+00:00")
        if "." in started
        else datetime.fromisoformat(started)
    )
    return state["Status"], stamp.timestamp()


def test_the_editors_container_starts_only_after_both_proofs(editor: Project) -> None:
    """The editor execs into the agent's container as soon as `up -d` returns: no entrypoint precedes that, so
    the container itself must not run before the proxy enforces and the guard has passed."""
    up = editor.compose("up", "-d", "--no-build", timeout=180)
    assert up.returncode == 0, up
    try:
        first = editor.compose("exec", "-T", "agent", "sh", "-c", f"date +%s.%N; ls {READY_DIR} | tr '\\n' ' '")
        assert first.returncode == 0, first
        assert "guard proxy" in first.stdout, first
        status, agent_started = _started(editor, "agent")
        proxy, guard = _stamp(editor.logs("egress"), "proxy-begins"), _stamp(editor.logs("deadline"), "guard-begins")
        assert status == "running" and agent_started > max(proxy, guard), (agent_started, proxy, guard)
    finally:
        editor.compose("down", "-v", "--remove-orphans", "--timeout", "1")


def test_a_refusing_guard_keeps_the_editors_container_from_starting(editor: Project, e2e_dir: Path) -> None:
    refusing = Project(
        f"{editor.name}-refused",
        editor.folder,
        [*editor.files[:2], _refusing_guard(e2e_dir / "editor-order" / "refuse.yaml", editor.files[0])],
        editor.env_file,
    )
    try:
        up = refusing.compose("up", "-d", "--no-build", timeout=180)
        assert up.returncode != 0, up
        assert "refused-for-this-test" in refusing.logs("ready-gate"), up
        status, started = _started(refusing, "agent")
        assert started == 0.0 and status == "created", (status, started)
    finally:
        refusing.compose("down", "-v", "--remove-orphans", "--timeout", "1")
