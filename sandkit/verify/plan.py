"""What to probe, read from a compiled sandbox folder: its compose.yaml, fidelity.json and the
proxy's squid.conf, as ``sandkit build`` wrote them. The folder is what the user reviewed; the
probes then check that the sandbox running from it holds what the folder says.

Destinations are chosen so that a sandbox that holds sends nothing past its own network: names
under ``.invalid`` (RFC 6761: never resolvable), addresses of the documentation ranges (RFC 5737:
never routed), the cloud metadata address (link-local), the engine's gateways; only the kit's own
allowed host (on a port the kit does not allow) and hosts the user names are real.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sandkit.errors import UsageError
from sandkit.verify.probe import Probe

if TYPE_CHECKING:
    from sandkit.compiler.fidelity import Fidelity, Setting
    from sandkit.compiler.plan import Plan

#: Read bounds: a compiled file is a few KB; anything far larger is not ours.
MAX_FILE = 1 << 20

OUTSIDE_NAME = "sandkit-verify.invalid"
DOC_ADDRESSES = ("192.0.2.1", "198.51.100.1", "203.0.113.1")
METADATA = "169.254.169.254"
#: The disk probe fills the smallest writable place only up to this (a bigger one is checked by its size).
FILL_BYTES = 256 << 20
#: What the scorecard says about where probes go.
REACH_NOTE = (
    "probes send nothing past the sandbox's own network when it holds: names under .invalid, "
    "documentation addresses (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24), the metadata address "
    "169.254.169.254 and the engine's gateways (TCP, UDP, ICMP echo, DNS queries for a .invalid name) are "
    "refused or unreachable; only the kit's allowed host "
    "on a port it does not allow, and hosts named with --probe, are real destinations"
)


class Sandbox(NamedTuple):
    """The compiled folder's facts the probes need."""

    folder: Path
    compose_file: Path
    kit: str
    project: str  # the compose project name the file gives
    agent: dict[str, Any]  # the agent service as compiled
    fidelity: dict[str, Any]  # settings -> target -> {level, reason}
    allow: list[tuple[str, int]]  # plain allowed host names with their port
    deny: list[tuple[str, int]]
    proxy: bool  # the build wrote an allowlist proxy's configuration


def read_text(path: Path) -> str:
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE + 1)
    except OSError as exc:
        raise UsageError(f"{path}: error: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE:
        raise UsageError(f"{path}: error: larger than {MAX_FILE} bytes; not a file sandkit build wrote")
    try:
        return data.decode()
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: error: not UTF-8 ({exc.reason} at byte {exc.start})") from None


def load(folder: Path) -> Sandbox:
    """The compiled sandbox in ``folder`` (one kit's output: compose.yaml and fidelity.json)."""
    from sandkit.syntax.tree import SyntaxProblem
    from sandkit.syntax.yaml import load_documents

    compose_file = folder / "compose.yaml"
    if not compose_file.is_file():
        raise UsageError(f"{folder}: error: no compose.yaml: give one kit's build output (sandbox/KIT)")
    text = read_text(compose_file)
    try:
        documents = load_documents(text)
    except SyntaxProblem as exc:
        raise UsageError(f"{compose_file}:{exc.pos.line}:{exc.pos.column}: error: not YAML: {exc.message}") from None
    document = documents[0] if documents and isinstance(documents[0], dict) else {}
    services = document.get("services")
    agent = services.get("agent") if isinstance(services, dict) else None
    if not isinstance(agent, dict):
        raise UsageError(f"{compose_file}: error: no services.agent: not a compose file sandkit build wrote")
    squid = folder / "egress" / "squid.conf"
    allow, deny = squid_lists(read_text(squid)) if squid.is_file() else ([], [])
    name = document.get("name")
    return Sandbox(
        folder=folder,
        compose_file=compose_file,
        kit=str(name) if isinstance(name, str) else folder.name,
        project=str(name) if isinstance(name, str) else folder.name,
        agent=agent,
        fidelity=read_fidelity(folder),
        allow=allow,
        deny=deny,
        proxy=squid.is_file(),
    )


def read_fidelity(folder: Path) -> dict[str, Any]:
    """The compiled fidelity report's settings (setting -> target -> level and reason)."""
    path = folder / "fidelity.json"
    from sandkit.syntax.jsonc import load_json
    from sandkit.syntax.tree import SyntaxProblem

    try:
        report = load_json(read_text(path)) if path.is_file() else {}
    except SyntaxProblem as exc:
        raise UsageError(f"{path}:{exc.pos.line}:{exc.pos.column}: error: not JSON: {exc.message}") from None
    settings = report.get("settings") if isinstance(report, dict) else None
    return settings if isinstance(settings, dict) else {}


_ACL = re.compile(r"^acl (allow|deny)_(\d+)_(host|port) (\S+)(?: -n)? (.+)$", re.MULTILINE)


def squid_lists(text: str) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The plain-name allow and deny entries of the proxy's configuration, with their first port
    (wildcards are regular expressions there and give no name to probe)."""
    found: dict[tuple[str, str], dict[str, str]] = {}
    for kind, index, part, acl_type, value in _ACL.findall(text):
        entry = found.setdefault((kind, index), {})
        if part == "host" and acl_type == "dstdomain":
            entry["host"] = value.split()[-1]
        elif part == "port":
            entry["port"] = value.split()[0]
    lists: dict[str, list[tuple[str, int]]] = {"allow": [], "deny": []}
    for (kind, _), entry in found.items():
        host, port = entry.get("host", ""), entry.get("port", "")
        if host and port.isdigit() and not host.startswith("."):
            lists[kind].append((host, int(port)))
    return lists["allow"], lists["deny"]


def egress(sandbox: Sandbox) -> str:
    """The kit's egress as compiled: ``allowlist`` (a proxy), ``none`` or ``open``."""
    # From what the build wrote beside the compose file (the proxy's configuration, the fidelity
    # report), not from the agent service alone: an agent edited to drop its proxy settings or its
    # network_mode: none must still get the network probes, and fail them.
    if sandbox.proxy or "HTTP_PROXY" in environment(sandbox.agent):
        return "allowlist"
    row = sandbox.fidelity.get("network.egress")
    reasons = [str(c.get("reason", "")) for c in row.values() if isinstance(c, dict)] if isinstance(row, dict) else []
    if sandbox.agent.get("network_mode") == "none" or any(r.startswith("network_mode: none") for r in reasons):
        return "none"
    return "open"


def environment(service: dict[str, Any]) -> dict[str, str]:
    """A compose service's environment, in either of compose's forms (a map, or KEY=VALUE items)."""
    env = service.get("environment")
    if isinstance(env, dict):
        return {str(k): "" if v is None else str(v) for k, v in env.items()}
    if isinstance(env, list):
        return dict(str(item).partition("=")[::2] for item in env)
    return {}


def placeholders(sandbox: Sandbox) -> dict[str, str]:
    """The secrets the proxy injects, with the placeholder the agent must see instead."""
    env = environment(sandbox.agent)
    names = env.get("SANDKIT_PROXY_INJECTS", "").replace(",", " ").split()
    return {name: env[name] for name in names if name in env}


def writable_places(sandbox: Sandbox) -> list[str]:
    """The places the compiled agent service may write: its tmpfs mounts and writable volumes."""
    places: list[str] = []
    tmpfs = sandbox.agent.get("tmpfs") or []
    for entry in [tmpfs] if isinstance(tmpfs, str) else tmpfs:
        places.append(str(entry).split(":", 1)[0])
    for volume in sandbox.agent.get("volumes") or []:
        if isinstance(volume, dict) and not volume.get("read_only") and volume.get("target"):
            places.append(str(volume["target"]))
        elif isinstance(volume, str) and not volume.endswith(":ro") and volume.count(":") >= 1:
            places.append(volume.split(":")[1])
    return places


def expected_uid(sandbox: Sandbox) -> str:
    user = str(sandbox.agent.get("user") or "")
    return user.split(":", 1)[0] if user.split(":", 1)[0].isdigit() else ""


def probes(
    sandbox: Sandbox,
    gateways: list[str],
    extra: list[tuple[str, int]],
    *,
    cluster: bool = False,
    target: str = "compose",
) -> list[Probe]:
    """The battery for this sandbox, each naming the fidelity row it checks (``cluster``: for a
    Kubernetes pod, with the API server and without next-hop checks; ``target``: whose fidelity
    column states the deadline and the disk budget)."""
    out: list[Probe] = []

    def add(id_: str, setting: Setting, title: str, *fields: str) -> None:
        out.append(Probe(id_, setting, title, "|".join((fields[0], id_, *fields[1:]))))

    mode = egress(sandbox)
    if mode == "allowlist":
        add(
            "proxy-outside-connect",
            "network.egress",
            f"CONNECT {OUTSIDE_NAME}:443 through the proxy",
            "proxy",
            "CONNECT",
            OUTSIDE_NAME,
            "443",
        )
        add(
            "proxy-outside-get",
            "network.egress",
            f"GET http://{OUTSIDE_NAME}/ through the proxy",
            "proxy",
            "GET",
            OUTSIDE_NAME,
            "80",
        )
        add(
            "proxy-ip-literal",
            "network.egress",
            f"CONNECT {DOC_ADDRESSES[0]}:443 (an IP literal) through the proxy",
            "proxy",
            "CONNECT",
            DOC_ADDRESSES[0],
            "443",
        )
        add(
            "proxy-metadata",
            "network.egress",
            f"GET http://{METADATA}/ (cloud metadata) through the proxy",
            "proxy",
            "GET",
            METADATA,
            "80",
        )
        if sandbox.allow:
            host, port = sandbox.allow[0]
            ports = {p for h, p in sandbox.allow if h == host}
            other = next(p for p in (1, 9, 7, 13) if p not in ports)
            add(
                "proxy-allowed-host-other-port",
                "network.egress",
                f"CONNECT {host}:{other} (allowed host, port not allowed)",
                "proxy",
                "CONNECT",
                host,
                str(other),
            )
        for host, port in sandbox.deny[:1]:
            add(
                "proxy-denied-host",
                "network.deny",
                f"CONNECT {host}:{port} (a denied host)",
                "proxy",
                "CONNECT",
                host,
                str(port),
            )
        for index, (host, port) in enumerate(extra):
            add(
                f"proxy-named-{index}",
                "network.egress",
                f"CONNECT {host}:{port} (named with --probe)",
                "proxy",
                "CONNECT",
                host,
                str(port),
            )
    if mode in ("allowlist", "none"):
        # On a cluster the pod's next hop always answers (the CNI's gateway), and the policy
        # drops further on: there only an answer from the destination counts, and UDP tells nothing.
        tail = ("drop",) if cluster else ()

        def direct(id_: str, title: str, host: str, port: str, kind: str = "tcp") -> None:
            add(id_, "network.egress", f"{kind.upper()} to {title} past the proxy", kind, host, port, *tail)

        direct("direct-tcp", f"{DOC_ADDRESSES[1]}:443", DOC_ADDRESSES[1], "443")
        if not cluster:
            direct("direct-udp", f"{DOC_ADDRESSES[2]}:53", DOC_ADDRESSES[2], "53", "udp")
        direct("direct-metadata", f"{METADATA}:80 (cloud metadata)", METADATA, "80")
        for index, gateway in enumerate(gateways):
            direct(f"direct-gateway-{index}", f"{gateway}:9 (a Docker gateway, the host)", gateway, "9")
        pinged = ",".join((DOC_ADDRESSES[0], METADATA, *gateways))
        add(
            "direct-icmp",
            "network.egress",
            f"ICMP echo to {pinged.replace(',', ', ')} past the proxy",
            "icmp",
            pinged,
            *tail,
        )
        add(
            "dns-resolver",
            "network.egress",
            f"the agent's resolvers (/etc/resolv.conf) do not resolve {OUTSIDE_NAME}, UDP and TCP",
            "dns",
            "resolv",
            *tail,
        )
        add(
            "dns-direct", "network.egress", f"DNS to {DOC_ADDRESSES[0]}:53, UDP and TCP", "dns", DOC_ADDRESSES[0], *tail
        )
        for index, gateway in enumerate(gateways):
            add(f"dns-gateway-{index}", "network.egress", f"DNS to {gateway}:53 (a Docker gateway)", "dns", gateway)
        if cluster:
            api = ("$KUBERNETES_SERVICE_HOST", "$KUBERNETES_SERVICE_PORT")
            direct("direct-api-server", "the API server ($KUBERNETES_SERVICE_HOST)", *api)
        for index, (host, port) in enumerate(extra):
            if re.fullmatch(r"[0-9.]+", host):
                direct(f"direct-named-{index}", f"{host}:{port} (named with --probe)", host, str(port))
    for name, placeholder in sorted(placeholders(sandbox).items()):
        add(
            f"secret-{name}",
            "secrets.inject",
            f"the agent sees only the placeholder of {name}",
            "secret",
            name,
            placeholder,
        )
    if not cluster:
        # The probe Job on a cluster has no deadline sidecar, and its emptyDirs are the kubelet's.
        seconds = _number(sandbox, "resources.timeout", r"exits at (\d+) s", target)
        add(
            "timeout",
            "resources.timeout",
            "the session's deadline is armed and the agent cannot stop it",
            "deadline",
            seconds,
        )
        budget = _number(sandbox, "resources.disk", r"one budget of (\d+) bytes|together at most (\d+)", target)
        add(
            "disk",
            "resources.disk",
            "every writable place is a tmpfs with a size, within the disk budget",
            "disk",
            budget,
            str(FILL_BYTES),
        )
    add("user", "image.user", "the agent's user is not root", "user", expected_uid(sandbox))
    add("capabilities", "capabilities", "no capability in any set, no new privileges", "caps")
    add(
        "root-filesystem",
        "isolation.read_only_root",
        "read-only root; only declared places writable",
        "rootfs",
        ",".join(writable_places(sandbox)),
    )
    return out


def _number(sandbox: Sandbox, setting: str, pattern: str, target: str = "compose") -> str:
    """A number the compiled fidelity report states for ``setting`` (the deadline's seconds, the disk
    budget's bytes): what the build promised, whatever the compose file says now ("" if absent)."""
    row = sandbox.fidelity.get(setting)
    cell = row.get(target) if isinstance(row, dict) else None
    match = re.search(pattern, str(cell.get("reason") or "")) if isinstance(cell, dict) else None
    return next((g for g in match.groups() if g), "") if match else ""


def level(sandbox: Sandbox, setting: str, target: str = "compose") -> str:
    """The fidelity level the compiled report gives ``setting`` for ``target`` ("" when absent)."""
    row = sandbox.fidelity.get(setting)
    cell = row.get(target) if isinstance(row, dict) else None
    return str(cell.get("level") or "") if isinstance(cell, dict) else ""


#: The Actions job's gateways, as the probe step reads them from the engine at run time: the agent's
#: network's and the default bridge's (the runner's own addresses).
ACTIONS_GATEWAYS = ("$SANDKIT_GATEWAY_0", "$SANDKIT_GATEWAY_1")


def for_actions(plan: Plan, rows: list[Fidelity], agent: dict[str, Any]) -> tuple[list[Probe], list[str]]:
    """The Actions job's probes, made at build time from the kit's plan (the job has no sandkit to
    run), and the ids of those whose row the actions column marks enforced: the probe step fails the
    job when one of these does not pass. ``agent``: the job's agent container as compose words it
    (environment, user, tmpfs, writable volumes)."""
    fidelity: dict[str, Any] = {r.setting: {"actions": {"level": r.level, "reason": r.reason}} for r in rows}
    plain = [(d.host, d.port) for d in plan.allow if not d.wildcard]
    denied = [(d.host, d.port) for d in plan.deny if not d.wildcard]
    sandbox = Sandbox(
        Path("."), Path("."), plan.name, plan.name, agent, fidelity, plain, denied, plan.egress == "allowlist"
    )
    gateways = list(ACTIONS_GATEWAYS) if plan.egress == "allowlist" else list(ACTIONS_GATEWAYS[1:])
    battery = probes(sandbox, gateways if plan.egress != "open" else [], [], target="actions")
    enforced = [p.id for p in battery if level(sandbox, p.setting, "actions") == "enforced"]
    return battery, enforced
