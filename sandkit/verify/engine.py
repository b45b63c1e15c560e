"""The Docker Engine's version, where what a published port reaches depends on it.

Docker Engine before 28.0 lets another machine on the local link reach a port published on
127.0.0.1 (moby/moby#45610): its DNAT rule rewrites a packet sent to 127.0.0.1 before the kernel
would drop it as martian, whatever interface it came in on; 28.0 added the rule that drops such
packets. No container of the sandbox can ask the engine its version (none holds its socket), so
``sandkit verify`` asks, as the user who runs compose, and reports a row for the kit's ports.
Podman answers ``docker version`` with its own numbers and is not judged by them.
"""

from __future__ import annotations

import re
import subprocess
from typing import Any

from sandkit.verify import plan
from sandkit.verify.plan import Sandbox

#: The first Docker Engine release that keeps a port published on 127.0.0.1 off the local link.
FIXED = (28, 0)
ISSUE = "moby/moby#45610"
PROBE_ID = "engine-loopback-ports"
TITLE = "the Docker Engine keeps ports published on 127.0.0.1 off the local link"
#: Docker's own releases (28.0.1, 20.10.24+dfsg1, 17.03.1-ce, v26.1.0, 28.0.0-rc.1), major and minor first.
_VERSION = re.compile(r"v?(\d{1,4})\.(\d{1,4})(?:\.(\d{1,6}))?(?:[-+~][0-9A-Za-z.+~-]*)?")


def parse_version(text: str) -> tuple[int, int, int] | None:
    """(major, minor, patch) of an engine version string, or None when it is not a release number."""
    match = _VERSION.fullmatch(text.strip())
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def leaks_loopback_ports(version: tuple[int, int, int]) -> bool:
    """Whether an engine of this version publishes 127.0.0.1 ports to the local link (before 28.0)."""
    return version[:2] < FIXED


def server_version(timeout: float = 30) -> tuple[str, str]:
    """(platform name, version) as ``docker version`` reports the engine; ("", "") when it cannot tell."""
    try:
        done = subprocess.run(
            ["docker", "version", "--format", "{{.Server.Platform.Name}}\n{{.Server.Version}}"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            errors="replace",
        )
    except (OSError, subprocess.TimeoutExpired):
        return "", ""
    lines = done.stdout.splitlines() if done.returncode == 0 else []
    return (lines[0].strip(), lines[1].strip()) if len(lines) >= 2 else ("", "")


def loopback_row(platform: str, version_text: str, level: str) -> dict[str, Any]:
    """The verify row for a sandbox that publishes ports, from what the engine says of itself."""
    row: dict[str, Any] = {"probe": PROBE_ID, "setting": "ports", "level": level, "title": TITLE}
    version = parse_version(version_text)
    if "podman" in platform.lower():
        return {**row, "status": "pass", "detail": f"{platform} {version_text}: not a Docker Engine ({ISSUE})"}
    if version is None:
        detail = f"the engine's version is {version_text or 'unknown'}: cannot tell whether it has {ISSUE}"
        return {**row, "status": "error", "detail": detail}
    if leaks_loopback_ports(version):
        detail = (
            f"Docker Engine {version_text} is older than {FIXED[0]}.{FIXED[1]}: machines on the local link reach "
            f"ports published on 127.0.0.1 ({ISSUE}); upgrade the engine, or block them in the host's firewall"
        )
        return {**row, "status": "fail", "detail": detail}
    return {**row, "status": "pass", "detail": f"Docker Engine {version_text}"}


def rows_for(sandbox: Sandbox) -> list[dict[str, Any]]:
    """The engine's row when the compiled sandbox publishes ports (its fidelity report has a ports row)."""
    level = plan.level(sandbox, "ports")
    if not level or level == "unsupported":
        return []
    return [loopback_row(*server_version(), level)]
