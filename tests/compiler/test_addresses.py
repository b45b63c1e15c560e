"""The non-public address ranges: one list, and the proxy's every refusal reads it."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

import pytest
import yaml

from sandkit.compiler.addresses import (
    EVERY_V4,
    GLOBAL_UNICAST_V6,
    NON_PUBLIC_V4,
    NON_PUBLIC_V6,
    SANDBOX_CLIENTS,
    non_public_within_global_v6,
    squid_non_public_v6,
)
from sandkit.compiler.command import compile_kit
from sandkit.compiler.targets import NAMES
from tests.compiler.helpers import EXAMPLES, compile_from_repo
from tests.e2e.helpers import OUTSIDE_POOLS

CILIUM_KIT = """\
apiVersion: sandkit/v1
name: cilium
agent: {command: [agent]}
workspace: {mode: none}
network: {allow: [api.example.com]}
targets: {kubernetes: {egress: cilium}}
"""


def _refused(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    blocks = NON_PUBLIC_V4 if ip.version == 4 else NON_PUBLIC_V6
    outside_global = ip.version == 6 and ip not in ipaddress.ip_network(GLOBAL_UNICAST_V6)
    return outside_global or any(ip in ipaddress.ip_network(cidr) for cidr in blocks)


#: One address from every entry of IANA's special-purpose registries (and multicast), with whether
#: it is refused: every entry not marked globally reachable is; the AS112 and AMT blocks are not.
REGISTRY_SAMPLES = {
    "0.1.2.3": True,
    "10.1.2.3": True,
    "100.64.1.2": True,
    "127.0.0.1": True,
    "169.254.169.254": True,
    "172.16.1.2": True,
    "192.0.0.9": True,  # PCP anycast, refused with 192.0.0.0/24
    "192.0.0.171": True,
    "192.0.2.1": True,
    "192.88.99.2": True,
    "192.168.1.2": True,
    "198.18.0.1": True,
    "198.19.255.254": True,
    "198.51.100.1": True,
    "203.0.113.1": True,
    "224.0.0.1": True,
    "240.0.0.1": True,
    "255.255.255.255": True,
    "192.31.196.1": False,
    "192.52.193.1": False,
    "192.175.48.1": False,
    "93.184.216.34": False,
    "::": True,
    "::1": True,
    "::ffff:10.0.0.1": True,
    "64:ff9b::a00:1": True,
    "64:ff9b:1::1": True,
    "100::1": True,
    "100:0:0:1::1": True,
    "2001::1": True,
    "2001:2::1": True,
    "2001:db8::1": True,
    "2002:c000:201::1": True,
    "3fff::1": True,
    "5f00::1": True,
    "fc00::1": True,
    "fe80::1": True,
    "ff02::1": True,
    "2620:4f:8000::1": False,
    "2606:4700::1111": False,
}


@pytest.mark.parametrize(("address", "refused"), sorted(REGISTRY_SAMPLES.items()))
def test_every_block_iana_does_not_mark_globally_reachable_is_refused(address: str, refused: bool) -> None:
    assert _refused(address) is refused


def test_the_e2e_outside_servers_live_in_public_space() -> None:
    """The end-to-end suite's outside servers must look public, or the proxy would refuse them."""
    for pool in OUTSIDE_POOLS:
        assert not _refused(str(pool[1])) and not _refused(str(pool[-2])), pool


def test_the_ranges_are_networks_of_the_right_family() -> None:
    v4 = [ipaddress.ip_network(cidr) for cidr in NON_PUBLIC_V4]
    v6 = [ipaddress.ip_network(cidr) for cidr in NON_PUBLIC_V6]
    assert all(n.version == 4 for n in v4) and all(n.version == 6 for n in v6)
    assert ipaddress.ip_network(EVERY_V4).num_addresses == 2**32
    inside = [ipaddress.IPv6Network(c) for c in non_public_within_global_v6()]
    assert inside and all(n.subnet_of(ipaddress.IPv6Network(GLOBAL_UNICAST_V6)) for n in inside)
    clients = [ipaddress.ip_network(cidr) for cidr in SANDBOX_CLIENTS]
    within = [any(c.network_address in n and c.broadcast_address in n for n in (*v4, *v6)) for c in clients]
    assert all(within), "the proxy's own clients come from private networks"


def test_squids_ipv6_list_holds_no_ipv4_mapped_address_and_no_entry_within_another() -> None:
    """squid keeps IPv4 destinations as IPv4-mapped IPv6 ones: such an entry would refuse every IPv4 host."""
    v6 = [ipaddress.IPv6Network(cidr) for cidr in squid_non_public_v6()]
    assert not any(n.overlaps(ipaddress.IPv6Network("::ffff:0:0/96")) for n in v6)
    assert not any(a != b and a.subnet_of(b) for a in v6 for b in v6)
    for cidr in NON_PUBLIC_V6:
        if cidr != "::ffff:0:0/96":
            assert any(ipaddress.IPv6Network(cidr).subnet_of(n) for n in v6), cidr


def _acl(squid_conf: str, name: str, kind: str) -> list[str]:
    prefix = f"acl {name} {kind} "
    return [cidr for line in squid_conf.splitlines() if line.startswith(prefix) for cidr in line[len(prefix) :].split()]


def _documents(data: bytes) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(data) if doc]


def test_squid_and_the_network_policies_refuse_exactly_these_ranges(tmp_path: Path) -> None:
    allowlist = next(k for k in EXAMPLES if b"egress: none" not in k.read_bytes())
    files = compile_from_repo(allowlist, tmp_path / "a", list(NAMES)).files
    squid = files["egress/squid.conf"].decode()
    assert _acl(squid, "non_public", "dst") == [*NON_PUBLIC_V4, *squid_non_public_v6()]
    assert _acl(squid, "sandbox_clients", "src") == list(SANDBOX_CLIENTS)
    policy = next(d for d in _documents(files["kubernetes/egress-proxy.yaml"]) if d["kind"] == "NetworkPolicy")
    rules = [[peer["ipBlock"] for peer in rule.get("to", []) if "ipBlock" in peer] for rule in policy["spec"]["egress"]]
    public = [blocks for blocks in rules if any("except" in block for block in blocks)]
    assert public == [
        [
            {"cidr": EVERY_V4, "except": list(NON_PUBLIC_V4)},
            {"cidr": GLOBAL_UNICAST_V6, "except": non_public_within_global_v6()},
        ]
    ]
    # The injecting proxy's API call (when the kit injects): private ranges alone, never a public address.
    for blocks in rules:
        if blocks and blocks not in public:
            for block in blocks:
                network = ipaddress.ip_network(block["cidr"])
                assert any(
                    network.subnet_of(ipaddress.ip_network(c))  # type: ignore[arg-type]
                    for c in (*NON_PUBLIC_V4, *NON_PUBLIC_V6)
                    if ipaddress.ip_network(c).version == network.version
                ), block
    assert "cidr: '0.0.0.0/0'  # sandkit: ignore[EG002] " in files["kubernetes/egress-proxy.yaml"].decode()

    (tmp_path / "cilium.yaml").write_text(CILIUM_KIT, encoding="utf-8")
    cilium = compile_kit(tmp_path / "cilium.yaml", tmp_path / "b", ["kubernetes"]).files
    fqdn = next(d for d in _documents(cilium["kubernetes/networkpolicy.yaml"]) if d["kind"] == "CiliumNetworkPolicy")
    denied = [entry["cidr"] for rule in fqdn["spec"]["egressDeny"] for entry in rule["toCIDRSet"]]
    assert denied == [*NON_PUBLIC_V4, *NON_PUBLIC_V6]
