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

A port the kit marks ``http: true`` (a preview) goes through nginx (Debian's nginx-light) instead
of socat: a page the agent serves runs in the viewer's browser, with the viewer's network and
sessions, so the proxy replaces whatever the application says about where the page may send
(PREVIEW_HEADERS, and HIDDEN_HEADERS dropped from every response) with a policy that keeps
fetches, subresources and forms on the preview's own origin. The browser enforces it, not sandkit;
docs/compose.md says what a page can still do (navigate, for one).
"""

from __future__ import annotations

from sandkit.compiler.plan import AGENT_SERVICE, PROXY_BASE_IMAGE, Plan, PublishedPort
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
NGINX_CONF = "forwarder/nginx.conf"
NGINX_CONF_PATH = "/etc/sandkit/nginx.conf"
#: nginx's one writable place (its pid file, the resolver it is given at start, empty temp folders: it
#: streams bodies rather than buffering them to disk).
NGINX_RUN_DIR = "/tmp"
#: Connections each HTTP port serves at once, as for a socat listener.
HTTP_CONNECTIONS = MAX_CHILDREN
#: Where a preview may send, load from and be framed: its own origin only. Scripts and styles may be inline
#: or evaluated, since the agent wrote the whole page anyway; what the policy bounds is where it reaches.
PREVIEW_CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "media-src 'self' data: blob:",
        "worker-src 'self' blob:",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'self'",
        "object-src 'none'",
    )
)
#: What every response of an HTTP port carries, errors included, whatever the application sent.
PREVIEW_HEADERS = {
    "Content-Security-Policy": PREVIEW_CSP,
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "X-DNS-Prefetch-Control": "off",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), display-capture=(), usb=(), serial=(), hid=(), "
    "midi=(), payment=()",
}
#: Response headers of the application dropped before the browser sees them: each would loosen the policy
#: (a second CSP only narrows it, but a report-only one or a legacy one means nothing good), let another
#: origin read the preview (CORS), send reports or preconnections elsewhere (Report-To, NEL, Link), or
#: clear what other ports of the same host keep (Clear-Site-Data: cookies are not separated by port).
HIDDEN_HEADERS = (
    *PREVIEW_HEADERS,
    "Content-Security-Policy-Report-Only",
    "X-Content-Security-Policy",
    "X-WebKit-CSP",
    "Access-Control-Allow-Origin",
    "Access-Control-Allow-Credentials",
    "Access-Control-Allow-Methods",
    "Access-Control-Allow-Headers",
    "Access-Control-Allow-Private-Network",
    "Access-Control-Expose-Headers",
    "Access-Control-Max-Age",
    "Cross-Origin-Embedder-Policy",
    "Feature-Policy",
    "Timing-Allow-Origin",
    "Report-To",
    "Reporting-Endpoints",
    "NEL",
    "Link",
    "Clear-Site-Data",
)


def forwards(plan: Plan) -> bool:
    """Whether the kit's ports need the forwarder: an allowlist keeps the agent off any published network."""
    return plan.egress == "allowlist" and bool(plan.ports)


def forwarder_image(plan: Plan) -> str:
    """The forwarder image's tag: the kit's name and the first 12 hex digits of its normalised sha256."""
    return f"sandkit/{plan.name}-forwarder:{plan.config_sha256[:12]}"


def _kind(port: PublishedPort) -> str:
    return "http" if port.http else port.protocol


def listeners(plan: Plan) -> list[str]:
    """``http/PORT``, ``tcp/PORT`` and ``udp/PORT``: the agent's ports the forwarder serves, each once, in order."""
    found = {(_kind(port), port.container) for port in plan.ports}
    return [f"{kind}/{number}" for kind, number in sorted(found)]


def http_ports(plan: Plan) -> list[int]:
    """The agent's ports served through nginx, in order."""
    return sorted({port.container for port in plan.ports if port.http})


def pids_limit(plan: Plan) -> int:
    """bash and init, per raw listener its socat and MAX_CHILDREN children (for UDP, as many at once), and
    nginx's master and worker when a port is HTTP."""
    raw = [name for name in listeners(plan) if not name.startswith("http/")]
    return 4 + len(raw) * (MAX_CHILDREN + 1) + (2 if http_ports(plan) else 0)


def nginx_tmpfs() -> str:
    """nginx's run folder: small, owned by the forwarder's uid, nothing runs from it."""
    return f"{NGINX_RUN_DIR}:rw,nosuid,nodev,noexec,size=1048576,uid={FORWARDER_UID},gid={FORWARDER_UID},mode=0700"


def forwarder_files(plan: Plan, header: str) -> dict[str, str]:
    """forwarder/Dockerfile, forwarder/forward.sh and (with an HTTP port) forwarder/nginx.conf, the forwarder
    image's build context; header is commented."""
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
        "http_ports": http_ports(plan),
        "nginx_conf": NGINX_CONF_PATH,
        "run_dir": NGINX_RUN_DIR,
        "connections": HTTP_CONNECTIONS,
        "preview_headers": PREVIEW_HEADERS,
        "hidden_headers": HIDDEN_HEADERS,
    }
    files = {
        DOCKERFILE: render_template("forwarder.Dockerfile.j2", **values),
        SCRIPT: render_template("forward.sh.j2", **values),
    }
    if values["http_ports"]:
        files[NGINX_CONF] = render_template("forwarder-nginx.conf.j2", **values)
    return files
