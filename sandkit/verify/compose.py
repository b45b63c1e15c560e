"""Running the probes in a compose sandbox: the next session of the agent service, started in probe
mode (``docker compose run`` of the agent with the probe program as its entrypoint), so it gets
exactly what a session gets from the compose file as it is now (edited or not): the agent's image,
user, networks, capabilities, mounts, environment and secrets, beside the proxy that is running.

Afterwards the probe container's engine record (``docker inspect``) says where a failure comes
from: a network that is not internal, the host's network, an added capability, a writable root.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path
from typing import Any

from sandkit.errors import SandkitError
from sandkit.verify.probe import PROGRAM, Probe, parse

#: Seconds the whole probe run may take (each network probe is bounded at 15 s or less).
RUN_TIMEOUT = 300


class ProbeRunError(SandkitError):
    """The probe could not be started or did not finish: nothing was verified (exit code 2)."""

    exit_code = 2


def _docker(argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["docker", *argv], capture_output=True, text=True, timeout=timeout, check=False, errors="replace"
        )
    except FileNotFoundError:
        raise ProbeRunError("sandkit verify: error: no `docker` command on PATH") from None
    except subprocess.TimeoutExpired:
        raise ProbeRunError(f"sandkit verify: error: `docker {' '.join(argv[:4])} ...` took over {timeout} s") from None


class Compose:
    """``docker compose`` with the user's files, env file and project name."""

    def __init__(self, files: list[Path], project: str, env_file: Path | None) -> None:
        self.files, self.project, self.env_file = files, project, env_file

    def argv(self, *args: str) -> list[str]:
        argv = ["compose"]
        if self.env_file is not None:
            argv += ["--env-file", str(self.env_file)]
        for path in self.files:
            argv += ["-f", str(path)]
        return [*argv, "-p", self.project, *args]


def gateways(compose: Compose) -> list[str]:
    """The IPv4 gateways of the project's networks and of the engine's default bridge: the host's
    addresses an agent on a leaky network would reach."""
    found = _docker(["network", "ls", "-q", "--filter", f"label=com.docker.compose.project={compose.project}"])
    ids = [*found.stdout.split()[:32], "bridge"]
    info = _docker(["network", "inspect", *ids])
    try:
        networks = json.loads(info.stdout or "[]")
    except json.JSONDecodeError:
        networks = []
    out: list[str] = []
    for network in networks if isinstance(networks, list) else []:
        for config in (network.get("IPAM") or {}).get("Config") or []:
            if isinstance(config, dict):
                gateway = _gateway(config)
                if gateway and gateway not in out:
                    out.append(gateway)
    return out


def _gateway(config: dict[str, Any]) -> str:
    """The network's IPv4 gateway; the engine's default bridge records only its subnet, whose first
    address the engine gives its bridge."""
    import ipaddress

    gateway, subnet = config.get("Gateway"), config.get("Subnet")
    if isinstance(gateway, str) and "." in gateway:
        return gateway
    try:
        network = ipaddress.ip_network(str(subnet), strict=False)
    except ValueError:
        return ""
    return str(network[1]) if network.version == 4 and network.num_addresses > 2 else ""


def run_probes(compose: Compose, probes: list[Probe]) -> tuple[dict[str, tuple[str, str]], dict[str, Any]]:
    """Start the agent service in probe mode, collect each probe's (status, detail) and the probe
    container's engine record; the container is removed in any case."""
    name = f"{compose.project}-verify-{secrets.token_hex(3)}"
    argv = compose.argv(
        "run", "-T", "--name", name, "--entrypoint", "perl", "agent", "-e", PROGRAM, *(p.argument for p in probes)
    )
    try:
        done = _docker(argv, timeout=RUN_TIMEOUT)
        record: dict[str, Any] = {}
        inspected = _docker(["inspect", name])
        if inspected.returncode == 0:
            loaded = json.loads(inspected.stdout)
            record = loaded[0] if isinstance(loaded, list) and loaded else {}
    finally:
        _docker(["rm", "-f", name])
    if not parse(done.stdout, set())[1]:
        tail = (done.stderr or done.stdout).strip()[-2000:]
        raise ProbeRunError(
            f"sandkit verify: error: the probe did not run to its end in the agent service (exit {done.returncode}); "
            f"nothing was verified. docker compose said:\n{tail}"
        )
    return parse(done.stdout, {p.id for p in probes})[0], record


def where(record: dict[str, Any], setting: str, compose_file: Path) -> str:
    """What in the running agent's configuration explains a failure of ``setting``."""
    host = record.get("HostConfig") or {}
    places: list[str] = []
    if setting == "network.egress":
        mode = str(host.get("NetworkMode") or "")
        if mode in ("host",) or mode.startswith("container:"):
            places.append(f"services.agent.network_mode: {mode} (the agent shares that network, past the proxy)")
        for network in sorted((record.get("NetworkSettings") or {}).get("Networks") or {}):
            internal = _docker(["network", "inspect", "-f", "{{.Internal}}", network]).stdout.strip()
            if internal == "false" and network not in ("none",):
                places.append(f"services.agent.networks joins {network}, which is not internal (it has a way out)")
    elif setting == "capabilities":
        if host.get("CapAdd"):
            places.append(f"services.agent.cap_add: {host['CapAdd']}")
        if host.get("Privileged"):
            places.append("services.agent.privileged: true")
        if not any("no-new-privileges" in str(o) for o in host.get("SecurityOpt") or []):
            places.append("services.agent.security_opt lacks no-new-privileges:true")
    elif setting == "isolation.read_only_root" and not host.get("ReadonlyRootfs"):
        places.append("services.agent.read_only is not true")
    elif setting == "resources.timeout":
        mode = str(host.get("PidMode") or "")
        if not mode.startswith("container:"):
            places.append(
                f"services.agent.pid is {mode or 'unset'}, not service:deadline (the agent's own PID namespace)"
            )
    elif setting == "resources.disk":
        tmpfs = host.get("Tmpfs") or {}
        places += [f"services.agent.tmpfs {p} has no size=" for p, o in sorted(tmpfs.items()) if "size=" not in str(o)]
        if not host.get("ReadonlyRootfs"):
            places.append("services.agent.read_only is not true (the root is the engine's disk)")
    elif setting == "image.user":
        places.append(
            f"services.agent.user is {(record.get('Config') or {}).get('User') or 'unset (the image default)'}"
        )
    return f"{compose_file}: " + "; ".join(places) if places else ""
