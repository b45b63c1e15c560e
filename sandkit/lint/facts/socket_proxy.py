"""Socket proxies of a Compose project: services that mount the host's runtime socket and answer
its API on a TCP port to the project's other services (RS002).

A filtering proxy (Tecnativa's docker-socket-proxy, LinuxServer's socket-proxy, wollomatic's
socket-proxy) lets through only the API sections its settings allow: Tecnativa's and LinuxServer's
read one environment variable per section (``CONTAINERS=1``), allow only GET and HEAD unless
``POST=1``, and take ``ALLOW_START``/``ALLOW_STOP``/``ALLOW_RESTARTS`` for those three calls;
wollomatic's allow a method only on the paths a regular expression it is given matches
(``-allowPOST=...`` or ``SP_ALLOW_POST``) and nothing by default. Any other image that mounts the
socket and is named as a daemon host (socat, nginx) is taken to pass everything.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.facts.host_paths import runtime_socket
from sandkit.lint.syntax.tree import PMap, Pos, PSeq

if TYPE_CHECKING:
    from sandkit.lint.facts.container_model import Container
    from sandkit.lint.source import SourceFile

#: Tecnativa's and LinuxServer's images (and copies under other owners): sections by variable.
_SECTION_PROXY = lazy(r"(?i)(?:^|/)(?:docker-socket-proxy|socket-proxy)(?=[:@]|$)")
_WOLLOMATIC = lazy(r"(?i)(?:^|/)wollomatic/socket-proxy(?=[:@]|$)")
#: Sections that, with POST allowed, create a container (or a swarm service's, or a privileged
#: plugin) or run a command in one: the host's root is one ``docker run -v /:/host`` away.
_CREATING = ("CONTAINERS", "EXEC", "SERVICES", "PLUGINS")
_CONTROL = ("ALLOW_START", "ALLOW_STOP", "ALLOW_RESTARTS")
#: A wollomatic method allowance: ``-allowPOST=REGEX`` (or ``-allowPOST REGEX``) or ``SP_ALLOW_POST``.
_WOLLO_FLAG = lazy(r"-allow(GET|HEAD|POST|PUT|PATCH|DELETE)(?:=|\s+)(\S+)")
#: A path expression that reaches container creation or exec (``.*`` reaches everything).
_WOLLO_CREATES = lazy(r"(?i)containers|exec|services|plugins")
#: A path expression that matches every path (``.*``, ``^/.+$``).
_EVERYTHING = lazy(r"^\^?/?\.[*+]\$?$")
#: The port the filtering proxies listen on.
PROXY_PORT = "2375"


class Proxy(NamedTuple):
    """A service that forwards the host's runtime socket: its ``label``, its image, ``level``
    ("create": it lets clients create or exec containers; "control": start, stop or restart
    them; "read containers": read every container's configuration and logs; "read": only other
    read-only sections), and ``allows``, what its settings say, for a message."""

    service: str
    label: str
    image: str
    level: str
    allows: str
    box: Container


def _truthy(value: str) -> bool:
    """An allowance switched on; one decided by a variable is taken as on (it may be)."""
    text = value.strip().strip("\"'").lower()
    return "$" in text or text in ("1", "true", "yes", "on")


def _allowance(box: Container) -> tuple[str, str]:
    env = {s.name.upper(): s.value for s in box.env}
    if _WOLLOMATIC.search(box.image):
        return _wollomatic(box, env)
    if not _SECTION_PROXY.search(box.image):
        return "create", "it passes every call to the host's socket, with no filter"
    on = [name for name, value in env.items() if _truthy(value)]
    post = "POST" in on
    creating = [name for name in _CREATING if name in on]
    if post and creating:
        return "create", f"POST=1 with {', '.join(f'{n}=1' for n in creating)} lets clients create or exec containers"
    control = [name for name in _CONTROL if name in on]
    if control:
        return "control", f"{', '.join(f'{n}=1' for n in control)} lets clients start, stop or restart containers"
    sections = sorted(n for n in on if n not in ("POST", *_CONTROL, "LOG_LEVEL"))
    reads = ", ".join(f"{n}=1" for n in sections) or "its default sections"
    if "CONTAINERS" in on:
        return (
            "read containers",
            f"read-only (no POST=1): {reads}, every container's configuration, environment and logs",
        )
    return "read", f"read-only (no POST=1): {reads}"


def _wollomatic(box: Container, env: dict[str, str]) -> tuple[str, str]:
    allowed = {m.group(1).upper(): m.group(2).strip("\"'") for m in _WOLLO_FLAG.finditer(box.command)}
    for method in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"):
        if f"SP_ALLOW_{method}" in env:
            allowed[method] = env[f"SP_ALLOW_{method}"].strip("\"'")
    writes = {m: p for m, p in allowed.items() if m not in ("GET", "HEAD") and p}
    if any(_WOLLO_CREATES.search(p) or _EVERYTHING.match(p) or "$" in p for p in writes.values()):
        said = ", ".join(f"-allow{m}={p}" for m, p in writes.items())
        return "create", f"{said} lets clients create or exec containers"
    if writes:
        said = ", ".join(f"-allow{m}={p}" for m, p in writes.items())
        return "control", f"{said} lets clients change the daemon's state, not create containers"
    reads = ", ".join(f"-allow{m}={p}" for m, p in allowed.items()) or "nothing allowed"
    if any("containers" in p.lower() or _EVERYTHING.match(p) or "$" in p for p in allowed.values()):
        return "read containers", f"read-only ({reads}): every container's configuration, environment and logs"
    return "read", f"read-only ({reads})"


def compose_services(file: SourceFile, boxes: list[Container]) -> Iterator[tuple[str, PMap, Container]]:
    """Each service of a Compose file with its mapping and the container the file's model made of
    it (``containers(file)``), in the file's order; nothing for any other kind of file."""
    if file.kind != kinds.COMPOSE:
        return
    for document in file.documents:
        services = document.get("services") if isinstance(document, PMap) else None
        if not isinstance(services, PMap):
            continue
        for name, spec in services.items():
            box = next((b for b in boxes if b.label == f'service "{name}"'), None)
            if box is not None and isinstance(spec, PMap):
                yield str(name), spec, box


def socket_proxies(file: SourceFile, boxes: list[Container]) -> dict[str, Proxy]:
    """The services of a Compose file that mount the host's runtime socket and are no
    Docker-in-Docker daemon, by every name the project's other services reach them at (the
    service's name, ``hostname``, ``container_name``, network aliases), lower-cased."""
    found: dict[str, Proxy] = {}
    for name, spec, box in compose_services(file, boxes):
        if not any(m.source and runtime_socket(m.source) == "socket" for m in box.mounts):
            continue
        level, allows = _allowance(box)
        proxy = Proxy(name, box.label, box.image, level, allows, box)
        for alias in _names(name, spec):
            found[alias.lower()] = proxy
    return found


def _names(name: str, spec: PMap) -> set[str]:
    names = {name}
    names |= {str(spec[k]) for k in ("hostname", "container_name") if isinstance(spec.get(k), str)}
    networks = spec.get("networks")
    for network in networks.values() if isinstance(networks, PMap) else ():
        aliases = network.get("aliases") if isinstance(network, PMap) else None
        names |= {str(a) for a in aliases if isinstance(a, str)} if isinstance(aliases, PSeq) else set()
    return names


class Published(NamedTuple):
    """A container port published on the host: where it is written, the host address it is
    bound to ("" for every interface), and the container port."""

    pos: Pos
    host_ip: str
    container_port: str


def published_ports(spec: PMap) -> list[Published]:
    """The ports a Compose service publishes (short ``[IP:][HOST:]CONTAINER`` and long syntax)."""
    ports = spec.get("ports")
    found: list[Published] = []
    if not isinstance(ports, PSeq):
        return found
    for index, entry in enumerate(ports):
        at = ports.pos_of(index)
        if isinstance(entry, PMap):
            target = entry.get("target")
            host_ip = entry.get("host_ip")
            if target is not None:
                found.append(Published(at, str(host_ip) if isinstance(host_ip, str) else "", str(target)))
            continue
        text = str(entry).strip().strip("\"'")
        parts = text.rsplit(":", 2) if not text.startswith("[") else [text]
        if text.startswith("["):
            ip, _, rest = text[1:].partition("]:")
            host_ip, (host, _, container) = ip, rest.rpartition(":")
        elif len(parts) == 3:
            host_ip, host, container = parts
        elif len(parts) == 2:
            host_ip, (host, container) = "", parts
        else:
            host_ip, host, container = "", "", parts[0]
        del host
        container = container.split("/", 1)[0]
        if container.isdigit():
            found.append(Published(at, host_ip, container))
    return found


def loopback(host_ip: str) -> bool:
    return host_ip.strip("[]").lower() in ("127.0.0.1", "localhost", "::1") or host_ip.startswith("127.")
