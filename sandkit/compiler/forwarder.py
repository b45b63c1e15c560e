"""The port forwarder: how an allowlisted agent's ports reach the host without giving the agent a way out.

Docker publishes a container's ports only through a network with a gateway, and the agent's
``sandbox`` network has none: it is internal, and the host has no address on it (see
targets/compose.py). So a container of its own forwards them: socat from Debian's packages, built
from forwarder/Dockerfile, on ``sandbox`` and on ``published``, a bridge it is alone on, where
Docker publishes its ports on each port's ``host_ip``. Three things keep it inbound only:

- it listens only on its ``published`` address (the name LISTEN_NAME, an alias it alone has, on
  that network alone), so on ``sandbox`` nothing listens: the agent's connections are refused;
- it connects only to the agent's declared ports, by the agent's name on ``sandbox``; nothing the
  agent sends chooses another destination;
- it routes nothing (``net.ipv4.ip_forward`` 0 in its namespace, on top of Docker's rule that
  drops what an internal network sends beyond its subnet), and ``published`` masquerades nothing.
"""

from __future__ import annotations

from sandkit.compiler.plan import AGENT_SERVICE, PROXY_BASE_IMAGE, Plan
from sandkit.compiler.render import render_template

FORWARDER_SERVICE = "forwarder"
#: The forwarder's own network, where Docker publishes its ports; nothing else is on it.
PUBLISHED_NET = "published"
#: The forwarder's name on PUBLISHED_NET alone: the one address its listeners bind.
LISTEN_NAME = "forwarder-listen"
DOCKERFILE = "forwarder/Dockerfile"
SCRIPT = "forwarder/forward.sh"
SCRIPT_PATH = "/usr/local/bin/sandkit-forward"
#: Debian's nobody: the forwarder owns no file and needs no privilege (Docker lets any uid bind any port
#: in a container's network namespace; compose.yaml says so too, see SYSCTLS).
FORWARDER_UID = 65534
#: Connections one TCP listener serves at once; socat waits beyond that. UDP listeners fork a child per
#: datagram exchange, bounded by the container's pids limit (socat 1.7.4's children refuse the option there).
MAX_CHILDREN = 32
#: Seconds a UDP exchange may stay idle before its socat child ends.
UDP_IDLE_SECONDS = 10
#: Namespaced sysctls of the forwarder: no forwarding of packets, and any port bindable without a capability.
SYSCTLS = {"net.ipv4.ip_forward": "0", "net.ipv4.ip_unprivileged_port_start": "0"}


def forwards(plan: Plan) -> bool:
    """Whether the kit's ports need the forwarder: an allowlist keeps the agent off any published network."""
    return plan.egress == "allowlist" and bool(plan.ports)


def forwarder_image(plan: Plan) -> str:
    """The forwarder image's tag: the kit's name and the first 12 hex digits of its normalised sha256."""
    return f"sandkit/{plan.name}-forwarder:{plan.config_sha256[:12]}"


def listeners(plan: Plan) -> list[str]:
    """``tcp/PORT`` and ``udp/PORT``: the agent's ports the forwarder serves, each once, in order."""
    return sorted({f"{port.protocol}/{port.container}" for port in plan.ports}, key=lambda s: (s[:3], int(s[4:])))


def pids_limit(plan: Plan) -> int:
    """bash and init, and per listener its socat and MAX_CHILDREN children (for UDP, as many at once)."""
    return 4 + len(listeners(plan)) * (MAX_CHILDREN + 1)


def forwarder_files(plan: Plan, header: str) -> dict[str, str]:
    """forwarder/Dockerfile and forwarder/forward.sh, the forwarder image's build context; header is commented."""
    values = {
        "p": plan,
        "header": header.rstrip("\n"),
        "base": PROXY_BASE_IMAGE,
        "uid": FORWARDER_UID,
        "script": SCRIPT_PATH,
        "listen": LISTEN_NAME,
        "agent": AGENT_SERVICE,
        "max_children": MAX_CHILDREN,
        "udp_idle": UDP_IDLE_SECONDS,
    }
    return {
        DOCKERFILE: render_template("forwarder.Dockerfile.j2", **values),
        SCRIPT: render_template("forward.sh.j2", **values),
    }
