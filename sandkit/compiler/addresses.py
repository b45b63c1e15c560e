"""The address ranges egress rules name: the one list of what the egress proxy may never reach.

squid's ``non_public`` ACL (egress/squid.conf), the proxy's Kubernetes NetworkPolicy (its ``except``
list) and the CiliumNetworkPolicy's ``egressDeny`` all read these tuples, so a range added here is
refused everywhere at once. CIDR text, one network per entry, in the order the files list them.
"""

from __future__ import annotations

#: IPv4 addresses the proxy may never reach: "this network", private (RFC 1918), shared (CGNAT),
#: loopback, link-local (the cloud metadata address 169.254.169.254 among them), IETF protocol
#: assignments, and multicast plus the reserved block above it.
NON_PUBLIC_V4 = (
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.168.0.0/16",
    "224.0.0.0/3",
)
#: IPv6 likewise: unspecified, loopback, IPv4-mapped, NAT64, unique local, link-local and multicast.
NON_PUBLIC_V6 = ("::/128", "::1/128", "::ffff:0:0/96", "64:ff9b::/96", "fc00::/7", "fe80::/10", "ff00::/8")
#: Every IPv4 address (a policy allows it only with NON_PUBLIC_V4 excepted).
EVERY_V4 = "0.0.0.0/0"
#: IPv6's public space: global unicast, which none of NON_PUBLIC_V6 overlaps.
GLOBAL_UNICAST_V6 = "2000::/3"
#: The private networks the agent reaches the proxy from (Docker's and a cluster's pod addresses).
SANDBOX_CLIENTS = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
