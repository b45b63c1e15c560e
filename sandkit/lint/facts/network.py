"""Where a sandbox may connect: a kit's egress and allowlist, Kubernetes NetworkPolicy egress.

Shared by the egress and host-credentials rules (the metadata address is a credential).
"""

from __future__ import annotations

from collections.abc import Iterator

from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, pos_of


def kit_egress(file: SourceFile) -> str:
    """A kit's ``network.egress`` ("allowlist" when it says nothing)."""
    doc = file.documents[0] if file.documents else None
    network = doc.get("network") if isinstance(doc, PMap) else None
    egress = network.get("egress") if isinstance(network, PMap) else None
    return str(egress or "allowlist")


def kit_allow_entries(file: SourceFile) -> Iterator[tuple[str, Pos]]:
    """(entry, position) for each string in a kit's ``network.allow``."""
    for kit in file.documents:
        network = kit.get("network") if isinstance(kit, PMap) else None
        allow = network.get("allow") if isinstance(network, PMap) else None
        if isinstance(allow, PSeq):
            for index, entry in enumerate(allow):
                if isinstance(entry, str | int):
                    yield str(entry), allow.pos_of(index)


def network_policy_blocks(file: SourceFile) -> Iterator[tuple[PMap, Pos]]:
    """(ipBlock, position) for each egress ipBlock of each NetworkPolicy document."""
    for block, pos, _ in network_policy_block_rules(file):
        yield block, pos


def network_policy_block_rules(file: SourceFile) -> Iterator[tuple[PMap, Pos, PMap]]:
    """(ipBlock, position, the egress rule it is in) for each egress ipBlock of each NetworkPolicy."""
    for rule_ in network_policy_egress(file):
        for peer in rule_.get("to") or []:
            block = peer.get("ipBlock") if isinstance(peer, PMap) else None
            if isinstance(block, PMap):
                yield block, pos_of(block.get("cidr"), block.pos), rule_


def egress_ports(rule_: PMap) -> list[str]:
    """The ports an egress rule limits its peers to (``443/TCP``), or [] when it allows every port."""
    ports = rule_.get("ports")
    found = []
    for entry in ports if isinstance(ports, PSeq) else ():
        if isinstance(entry, PMap) and entry.get("port") is not None:
            end = entry.get("endPort")
            port = f"{entry.get('port')}-{end}" if end is not None else str(entry.get("port"))
            found.append(f"{port}/{entry.get('protocol') or 'TCP'}")
        else:
            return []  # an entry without a port: every port of its protocol
    return found


def network_policy_egress(file: SourceFile) -> Iterator[PMap]:
    """Egress rules of the NetworkPolicy documents of a Kubernetes file."""
    for document in file.documents:
        if not isinstance(document, PMap) or document.get("kind") != "NetworkPolicy":
            continue
        spec = document.get("spec")
        egress = spec.get("egress") if isinstance(spec, PMap) else None
        if isinstance(egress, PSeq):
            yield from (r for r in egress if isinstance(r, PMap))
