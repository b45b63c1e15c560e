"""The non-public address ranges: one list, and the proxy's every refusal reads it."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

import yaml

from sandkit.compiler.addresses import EVERY_V4, GLOBAL_UNICAST_V6, NON_PUBLIC_V4, NON_PUBLIC_V6, SANDBOX_CLIENTS
from sandkit.compiler.command import compile_kit
from sandkit.compiler.targets import NAMES
from tests.compiler.helpers import EXAMPLES, compile_from_repo

CILIUM_KIT = """\
apiVersion: sandkit/v1
name: cilium
agent: {command: [agent]}
workspace: {mode: none}
network: {allow: [api.example.com]}
targets: {kubernetes: {egress: cilium}}
"""


def test_the_ranges_are_networks_of_the_right_family_and_v6_public_space_excludes_them() -> None:
    v4 = [ipaddress.ip_network(cidr) for cidr in NON_PUBLIC_V4]
    v6 = [ipaddress.ip_network(cidr) for cidr in NON_PUBLIC_V6]
    assert all(n.version == 4 for n in v4) and all(n.version == 6 for n in v6)
    assert any(ipaddress.ip_address("169.254.169.254") in n for n in v4), "the cloud metadata address"
    assert not any(n.overlaps(ipaddress.ip_network(GLOBAL_UNICAST_V6)) for n in v6)
    assert ipaddress.ip_network(EVERY_V4).num_addresses == 2**32
    clients = [ipaddress.ip_network(cidr) for cidr in SANDBOX_CLIENTS]
    within = [any(c.network_address in n and c.broadcast_address in n for n in (*v4, *v6)) for c in clients]
    assert all(within), "the proxy's own clients come from private networks"


def _acl(squid_conf: str, name: str, kind: str) -> list[str]:
    prefix = f"acl {name} {kind} "
    return [cidr for line in squid_conf.splitlines() if line.startswith(prefix) for cidr in line[len(prefix) :].split()]


def _documents(data: bytes) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(data) if doc]


def test_squid_and_the_network_policies_refuse_exactly_these_ranges(tmp_path: Path) -> None:
    allowlist = next(k for k in EXAMPLES if b"egress: none" not in k.read_bytes())
    files = compile_from_repo(allowlist, tmp_path / "a", list(NAMES)).files
    squid = files["egress/squid.conf"].decode()
    assert _acl(squid, "non_public", "dst") == [*NON_PUBLIC_V4, *NON_PUBLIC_V6]
    assert _acl(squid, "sandbox_clients", "src") == list(SANDBOX_CLIENTS)
    policy = next(d for d in _documents(files["kubernetes/egress-proxy.yaml"]) if d["kind"] == "NetworkPolicy")
    blocks = [peer["ipBlock"] for rule in policy["spec"]["egress"] for peer in rule.get("to", []) if "ipBlock" in peer]
    assert blocks == [{"cidr": EVERY_V4, "except": list(NON_PUBLIC_V4)}, {"cidr": GLOBAL_UNICAST_V6}]
    assert "cidr: '0.0.0.0/0'  # sandkit: ignore[EG002] " in files["kubernetes/egress-proxy.yaml"].decode()

    (tmp_path / "cilium.yaml").write_text(CILIUM_KIT, encoding="utf-8")
    cilium = compile_kit(tmp_path / "cilium.yaml", tmp_path / "b", ["kubernetes"]).files
    fqdn = next(d for d in _documents(cilium["kubernetes/networkpolicy.yaml"]) if d["kind"] == "CiliumNetworkPolicy")
    denied = [entry["cidr"] for rule in fqdn["spec"]["egressDeny"] for entry in rule["toCIDRSet"]]
    assert denied == [*NON_PUBLIC_V4, *NON_PUBLIC_V6]
