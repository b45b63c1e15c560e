"""The address ranges egress rules name: the one list of what the egress proxy may never reach.

squid's ``non_public`` ACL (egress/squid.conf), the proxy's Kubernetes NetworkPolicy (its ``except``
lists) and the CiliumNetworkPolicy's ``egressDeny`` all read these tuples, so a range added here is
refused everywhere at once. CIDR text, one network per entry, in the order the files list them.

The blocks are IANA's IPv4 and IPv6 Special-Purpose Address Registries (iana-ipv4-special-registry,
iana-ipv6-special-registry), every entry not marked "Globally Reachable: True" (False, N/A and the
terminated ones alike), plus multicast from the multicast address space registries. An entry inside
a larger one is refused with it (192.0.0.9/32 with 192.0.0.0/24, 2001:3::/32 with 2001::/23), even
where the smaller one is globally reachable: anycast relays and AS112 sinks are nothing an agent
needs. Two globally reachable blocks are refused on purpose: 64:ff9b::/96 reaches IPv4 addresses
through a translator (a private one among them, where the translator allows), and the IPv6 space
outside 2000::/3, which the IPv6 Address Space registry does not assign as global unicast.
Globally reachable blocks stay public: 192.31.196.0/24 and 192.175.48.0/24 (AS112), 192.52.193.0/24
(AMT) and 2620:4f:8000::/48 (AS112).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass


@dataclass(frozen=True)
class Block:
    """One refused range, with the registry's name for it and where it is defined."""

    cidr: str
    name: str
    source: str


NON_PUBLIC_V4_BLOCKS = (
    Block("0.0.0.0/8", '"This network"', "RFC 791"),
    Block("10.0.0.0/8", "Private-Use", "RFC 1918"),
    Block("100.64.0.0/10", "Shared Address Space", "RFC 6598"),
    Block("127.0.0.0/8", "Loopback", "RFC 1122"),
    Block("169.254.0.0/16", "Link Local (the cloud metadata address 169.254.169.254 among them)", "RFC 3927"),
    Block("172.16.0.0/12", "Private-Use", "RFC 1918"),
    Block("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890"),
    Block("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737"),
    Block("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526"),
    Block("192.168.0.0/16", "Private-Use", "RFC 1918"),
    Block("198.18.0.0/15", "Benchmarking", "RFC 2544"),
    Block("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737"),
    Block("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737"),
    Block("224.0.0.0/4", "Multicast", "RFC 5771"),
    Block("240.0.0.0/4", "Reserved, with 255.255.255.255/32 Limited Broadcast", "RFC 1112, RFC 8190"),
)
NON_PUBLIC_V6_BLOCKS = (
    Block("::/128", "Unspecified Address", "RFC 4291"),
    Block("::1/128", "Loopback Address", "RFC 4291"),
    Block("::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291"),
    Block("64:ff9b::/96", "IPv4-IPv6 Translation (refused although globally reachable)", "RFC 6052"),
    Block("64:ff9b:1::/48", "IPv4-IPv6 Translation, local use", "RFC 8215"),
    Block("100::/64", "Discard-Only Address Block", "RFC 6666"),
    Block("100:0:0:1::/64", "Dummy IPv6 Prefix", "RFC 9780"),
    Block("2001::/23", "IETF Protocol Assignments (Teredo 2001::/32, benchmarking 2001:2::/48 among them)", "RFC 2928"),
    Block("2001:db8::/32", "Documentation", "RFC 3849"),
    Block("2002::/16", "6to4", "RFC 3056"),
    Block("3fff::/20", "Documentation", "RFC 9637"),
    Block("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602"),
    Block("fc00::/7", "Unique-Local", "RFC 4193"),
    Block("fe80::/10", "Link-Local Unicast", "RFC 4291"),
    Block("ff00::/8", "Multicast", "RFC 4291"),
)
#: IPv4 addresses the proxy may never reach (NON_PUBLIC_V4_BLOCKS as CIDR text).
NON_PUBLIC_V4 = tuple(block.cidr for block in NON_PUBLIC_V4_BLOCKS)
#: IPv6 likewise.
NON_PUBLIC_V6 = tuple(block.cidr for block in NON_PUBLIC_V6_BLOCKS)
#: Every IPv4 address (a policy allows it only with NON_PUBLIC_V4 excepted).
EVERY_V4 = "0.0.0.0/0"
#: IPv6's public space: global unicast (a policy allows it only with the non-public blocks inside excepted).
GLOBAL_UNICAST_V6 = "2000::/3"
#: The private networks the agent reaches the proxy from (Docker's and a cluster's pod addresses).
SANDBOX_CLIENTS = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")

_GLOBAL = ipaddress.IPv6Network(GLOBAL_UNICAST_V6)
_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
#: The IPv6 space outside 2000::/3 but for ::/8 (which holds the IPv4-mapped block; see squid_non_public_v6):
#: what the IPv6 Address Space registry reserves, and unique-local, link-local and multicast.
_OUTSIDE_GLOBAL_V6 = (
    *ipaddress.IPv6Network("::/3").address_exclude(ipaddress.IPv6Network("::/8")),
    ipaddress.IPv6Network("4000::/2"),
    ipaddress.IPv6Network("8000::/1"),
)


def non_public_within_global_v6() -> list[str]:
    """The non-public IPv6 blocks inside 2000::/3: what a policy that allows 2000::/3 must except."""
    return [cidr for cidr in NON_PUBLIC_V6 if ipaddress.IPv6Network(cidr).subnet_of(_GLOBAL)]


def squid_non_public_v6() -> list[str]:
    """The IPv6 ranges squid refuses: every block but the IPv4-mapped one, and all of IPv6 outside 2000::/3
    except ::/8, merged so that no entry holds another (squid warns about those).

    squid keeps IPv4 destinations as IPv4-mapped IPv6 addresses, so once its IPv6 works an entry that
    holds ::ffff:0:0/96 matches every IPv4 destination (Debian's squid 5.7 then refused IPv4 hosts on
    the allowlist); a mapped destination is judged by the IPv4 entries instead. The rest of ::/8 is
    unassigned and cannot be listed without the mapped block short of dozens of entries.
    """
    networks = [ipaddress.IPv6Network(cidr) for cidr in NON_PUBLIC_V6 if ipaddress.IPv6Network(cidr) != _MAPPED]
    return [str(net) for net in ipaddress.collapse_addresses([*networks, *_OUTSIDE_GLOBAL_V6])]
