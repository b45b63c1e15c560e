"""egress: sandboxes whose network reach is open or wider than its allowlist looks."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from sandkit.lint import kinds
from sandkit.lint.facts.container_model import names_agent
from sandkit.lint.facts.containers import CONTAINER_KINDS, containers
from sandkit.lint.facts.host_paths import is_metadata
from sandkit.lint.facts.network import (
    egress_ports,
    kit_allow_entries,
    network_policy_block_rules,
    network_policy_egress,
)
from sandkit.lint.model import Hit
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap

_EVERYTHING = ("0.0.0.0/0", "::/0", "0.0.0.0", "*")


@rule(
    "EG001",
    "open-egress",
    category="egress",
    severity="high",
    kinds=(kinds.KIT, kinds.KUBERNETES),
    triggers=("open", "egress"),
)
def open_egress(file: SourceFile) -> Iterator[Hit]:
    """A sandbox may connect anywhere.

    A kit with `network.egress: open`, or a Kubernetes NetworkPolicy with an empty egress rule
    (`egress: [{}]`), which allows every destination, where the file names a coding agent (its
    image, labels or names). An open egress rule for other workloads (a database's chart, an
    application's services) is not reported: it allows what Kubernetes allows a pod no policy
    selects, and a workload without a policy is not a finding either; it is not a sandbox.

    Why:
    Open egress lets an agent that has read a secret, or was told to by a planted prompt,
    send it anywhere, and fetch and run anything.

    Fix:
    Use a kit's `network.egress: allowlist` with the hosts the agent needs in `network.allow`
    (the presets list their API hosts), or `network.egress: none`.
    """
    if file.kind == kinds.KIT:
        for kit in file.documents:
            network = kit.get("network") if isinstance(kit, PMap) else None
            if isinstance(network, PMap) and network.get("egress") == "open":
                yield Hit(network.pos_of("egress"), "network.egress is open: the sandbox may connect anywhere")
    agent: bool | None = None  # searched for once an open rule is found (most files have none)
    for egress_rule in network_policy_egress(file):
        if not egress_rule:
            agent = names_agent(file.text) if agent is None else agent
            if agent:
                yield Hit(egress_rule.pos, "NetworkPolicy egress rule {} lets a coding agent's pods connect anywhere")


def _wildcard_problem(host: str) -> str:
    """Why an allow entry with a wildcard is too broad, or ""."""
    if host in _EVERYTHING or host.strip("*.") == "":
        return "allows every host"
    if "*" not in host:
        return ""
    if not host.startswith("*.") or "*" in host[2:]:
        return "has a wildcard outside the first label"
    if "." not in host[2:]:
        return "matches a whole top-level domain"
    return ""


def _host_part(entry: str) -> str:
    entry = entry.strip().lower()
    if entry.startswith("["):
        return entry[1:].split("]", 1)[0]
    if entry.count(":") == 1:
        return entry.split(":", 1)[0]
    return entry


@rule(
    "EG002",
    "wildcard-allowlist",
    category="egress",
    severity="high",
    kinds=(kinds.KIT, kinds.KUBERNETES),
    triggers=("*", "/0", "0.0.0.0"),
)
def wildcard_allowlist(file: SourceFile) -> Iterator[Hit]:
    """An allowlist entry allows everything, or far more than one domain.

    Kit `network.allow` entries `*`, `*.*`, `*.com` (a whole top-level domain), wildcards
    outside the first label, or 0.0.0.0/0; a NetworkPolicy egress ipBlock of 0.0.0.0/0 or
    ::/0, even with private ranges excepted (that is still the whole internet).
    `*.example.com` (one label) is fine. An egress proxy that enforces an allowlist itself
    needs such a rule: suppress it there with a reason. A NetworkPolicy in a file that names no
    coding agent is info, as EG001 leaves such a workload's open rule out: it is not a sandbox, and
    allowing the internet (often on 443 only, with the cluster's ranges excepted) is what it needs;
    the message names the ports a rule is limited to.

    Why:
    A wildcard like this looks like an allowlist in review while working as open egress.

    Fix:
    List the hosts, or one-label wildcards of domains you trust; say `network.egress: open` if
    that is really meant.
    """
    if file.kind == kinds.KIT:
        for entry, pos in kit_allow_entries(file):
            problem = _wildcard_problem(_host_part(entry))
            if problem:
                yield Hit(pos, f"network.allow entry {entry!r} {problem}")
    agent: bool | None = None  # searched for once such a block is found (most files have none)
    for block, pos, egress_rule in network_policy_block_rules(file):
        cidr = str(block.get("cidr") or "")
        if cidr not in _EVERYTHING:
            continue
        excepted = block.get("except")
        if isinstance(excepted, list) and excepted:
            message = f"NetworkPolicy egress to {cidr} allows every address outside its {len(excepted)} excepted ranges"
        else:
            message = f"NetworkPolicy egress to {cidr} allows every address"
        ports = egress_ports(egress_rule)
        message += f", on {', '.join(ports[:6])}" if ports else ""
        agent = names_agent(file.text) if agent is None else agent
        if agent:
            yield Hit(pos, message)
        else:
            yield Hit(pos, message, severity="info", why=_NOT_A_SANDBOX)


#: Why EG002 on a NetworkPolicy of a file that names no coding agent is info.
_NOT_A_SANDBOX = (
    "the file names no coding agent: the rule gives its pods what Kubernetes gives a pod no policy "
    "selects, as EG001 reads an open rule of such a workload"
)


@rule("EG003", "agent-host-network", category="egress", severity="high", kinds=CONTAINER_KINDS, triggers=("host",))
def agent_host_network(file: SourceFile) -> Iterator[Hit]:
    """A coding agent's container uses the host's network.

    A container recognised as an agent (a kit, or claude, codex, aider, openhands, gemini,
    goose, opencode, cline and similar in its image, command or name) with
    `network_mode: host`, `hostNetwork: true` or `--network host`.

    Why:
    Host networking bypasses every egress rule of the sandbox and reaches services that
    listen only on the host's localhost, including other agents' tools and local daemons.

    Fix:
    Put the agent on its own network with an egress proxy; publish the ports it serves.
    """
    for box in containers(file):
        if not box.is_agent:
            continue
        for setting in box.setting("network"):
            if setting.value.strip().lower() == "host":
                yield Hit(setting.pos, f"{box.label} runs a coding agent on the host's network")


@rule("EG004", "ip-allowlist-entry", category="egress", severity="medium", kinds=(kinds.KIT,))
def ip_allowlist_entry(file: SourceFile) -> Iterator[Hit]:
    """A kit allowlist entry is an IP literal or an address range.

    Entries such as 10.0.0.0/8, 192.168.1.10, 127.0.0.1:5432 or 203.0.113.7. Metadata
    addresses are HC003; 0.0.0.0/0 is EG002.

    Why:
    IP entries bypass name-based filtering and usually point into private networks (a
    database, an internal API, the host itself) that an agent should not reach; a range
    allows whatever moves into it later.

    Fix:
    Allow host names; reach internal services through a reviewed proxy if the agent must.
    """
    for entry, pos in kit_allow_entries(file):
        host = _host_part(entry)
        try:
            network = ipaddress.ip_network(host, strict=False)
        except ValueError:
            continue
        if is_metadata(host) or host in _EVERYTHING or network.prefixlen == 0:
            continue
        scope = "a private range" if network.is_private else "an IP literal"
        kind = "range" if "/" in host else "address"
        yield Hit(pos, f"network.allow entry {entry!r} is {scope} ({kind}), not a host name")
