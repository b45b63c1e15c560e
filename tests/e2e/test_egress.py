"""Egress, seen from inside the agent container of a compiled allowlist kit: only the listed
host:port pairs answer, through the proxy, over plain HTTP and CONNECT; nothing else does."""

from __future__ import annotations

import re

import pytest

from tests.e2e.helpers import (
    ALLOWED_ID,
    BOTH,
    HOST_SELF,
    OTHER,
    RESOLVES_TO_REFUSED,
    WEB,
    WILD_DEEP,
    WILD_DENIED,
    WILD_OK,
    Outside,
    Project,
)
from tests.e2e.host import GATEWAY_SCRIPT, HostListener, host_addresses, reach_script

pytestmark = pytest.mark.docker

PROXY = "http://egress:3128"
# -w prints what curl saw: the proxy's answer to CONNECT and the final status.
CURL = "curl -sS -m 10 -w '\\nconnect=%{http_connect} status=%{http_code}\\n'"


def _status(output: str) -> tuple[str, str]:
    match = re.search(r"connect=(\d+) status=(\d+)", output)
    assert match, output
    return match.group(1), match.group(2)


def _external_requests(project: Project, server: str) -> list[str]:
    """Requests a test server received from anywhere but its own healthcheck."""
    return [
        line
        for line in project.logs(server).splitlines()
        if line.startswith("request ") and "client=127.0.0.1" not in line
    ]


def test_allowed_name_answers_over_http_through_the_proxy(net_project: Project) -> None:
    result = net_project.agent(f"{CURL} http://{WEB}:8080/over-http")
    assert f"server={ALLOWED_ID} host={WEB}:8080 path=/over-http" in result.stdout, (
        f"the allowed server did not answer a plain HTTP request through the proxy:\n{result}"
    )
    assert _status(result.stdout) == ("000", "200"), result
    logged = f"method=GET host={WEB} port=8080 "
    log = net_project.log_with("egress", logged)
    assert logged in log, "the request reached the server without passing the proxy's log"
    assert "/over-http" not in log, "the proxy's log shows a request's path (host and port only)"


def test_allowed_name_answers_https_through_connect(net_project: Project) -> None:
    result = net_project.agent(f"{CURL} https://{WEB}:8443/over-connect")
    assert f"server={ALLOWED_ID} host={WEB}:8443 path=/over-connect" in result.stdout, (
        f"HTTPS via CONNECT to an allowed host:port failed (TLS checked against the kit's CA):\n{result}"
    )
    assert _status(result.stdout) == ("200", "200"), result
    logged = f"method=CONNECT host={WEB} port=8443 "
    assert logged in net_project.log_with("egress", logged), "the CONNECT did not pass the proxy's log"


def test_name_not_on_the_list_is_refused_by_the_proxy(net_project: Project) -> None:
    before = len(_external_requests(net_project, "other"))
    http = net_project.agent(f"{CURL} http://{OTHER}:8080/leak")
    connect = net_project.agent(f"{CURL} https://{OTHER}:8443/leak")
    assert _status(http.stdout)[1] == "403", f"the proxy let {OTHER} (not on the list) through over HTTP:\n{http}"
    assert _status(connect.stdout)[0] == "403", f"the proxy opened a CONNECT tunnel to {OTHER}:\n{connect}"
    assert len(_external_requests(net_project, "other")) == before, "the unlisted server received a request"


def test_allowed_name_on_another_port_is_refused(net_project: Project) -> None:
    result = net_project.agent(f"{CURL} http://{WEB}:8081/")
    assert _status(result.stdout)[1] == "403", f"a port not on the list was let through:\n{result}"


def test_no_direct_route_and_no_outside_dns(net_project: Project, outside: Outside) -> None:
    # Outside lookups stall rather than fail, so the four probes run side by side (5 s, not 20).
    script = f"""
    for name in {OTHER} {WEB}; do
      (if timeout 5 getent hosts "$name"; then echo "resolved $name"; fi) &
    done
    (curl --noproxy '*' -sS -m 5 -o /dev/null http://{OTHER}:8080/direct-by-name; echo "by-name=$?") &
    (curl --noproxy '*' -sS -m 5 -o /dev/null http://{outside.other_ip}:8080/direct-by-ip; echo "by-ip=$?") &
    wait
    """
    before = len(_external_requests(net_project, "other"))
    result = net_project.agent(script)
    assert "resolved" not in result.stdout, f"the agent resolved an outside name itself (DNS leak):\n{result}"
    assert re.search(r"by-name=(6|28)\b", result.stdout), f"direct connection by name was not refused:\n{result}"
    assert re.search(r"by-ip=(7|28)\b", result.stdout), (
        f"direct connection to {outside.other_ip} was not refused:\n{result}"
    )
    assert len(_external_requests(net_project, "other")) == before, "a direct request reached the outside server"


def test_deny_beats_allow(net_project: Project) -> None:
    hosts = (WILD_OK, WILD_DENIED, BOTH, WILD_DEEP)
    result = net_project.agent("; ".join(f"{CURL} http://{host}:8080/" for host in hosts))
    statuses = [m.group(1) for m in re.finditer(r"status=(\d+)", result.stdout)]
    assert statuses[0] == "200", f"the wildcard allow entry (*.wild.test) did not admit {WILD_OK}:\n{result}"
    assert statuses[1] == "403", f"{WILD_DENIED} is denied but the wildcard allow let it through:\n{result}"
    assert statuses[2] == "403", f"{BOTH} is both allowed and denied, and was let through:\n{result}"
    assert statuses[3] == "403", f"*.wild.test covers one label, yet the proxy admitted {WILD_DEEP}:\n{result}"


@pytest.mark.parametrize("address", ["ALLOWED", "10.1.2.3", "127.0.0.1:3128", "169.254.169.254", "[::1]:3128"])
def test_ip_literals_are_refused(net_project: Project, outside: Outside, address: str) -> None:
    """Also the allowed server's own address: an IP literal bypasses every name rule."""
    target = f"{outside.allowed_ip}:8080" if address == "ALLOWED" else address
    script = (
        f"{CURL} --noproxy '' -x {PROXY} http://{target}/latest/meta-data/; "
        f"{CURL} --noproxy '' -x {PROXY} -p http://{target}/"
    )
    result = net_project.agent(script)
    statuses = re.findall(r"connect=(\d+) status=(\d+)", result.stdout)
    assert statuses[0][1] == "403", f"the proxy forwarded a request to the IP literal {target}:\n{result}"
    assert statuses[1][0] == "403", f"the proxy opened a CONNECT tunnel to the IP literal {target}:\n{result}"


def test_allowed_names_resolving_to_non_public_addresses_are_refused(net_project: Project) -> None:
    """Every special-purpose block that is not globally reachable, over HTTP and CONNECT, side by side."""
    probe = "curl -sS -m 10 -o /dev/null -w '{mode} {name} connect=%{{http_connect}} status=%{{http_code}}\\n'"
    script = "".join(
        f"({probe.format(mode='http', name=name)} http://{name}:8080/) 2>/dev/null &\n"
        f"({probe.format(mode='connect', name=name)} -p http://{name}:8080/) 2>/dev/null &\n"
        for name in RESOLVES_TO_REFUSED
    )
    result = net_project.agent(script + "wait\n")
    answers = {
        (m[0], m[1]): (m[2], m[3]) for m in re.findall(r"^(\w+) (\S+) connect=(\d+) status=(\d+)$", result.stdout, re.M)
    }
    let_through = {
        f"{name} ({address}) over {mode}": answers.get((mode, name))
        for name, address in RESOLVES_TO_REFUSED.items()
        for mode in ("http", "connect")
        if answers.get((mode, name)) != (("000", "403") if mode == "http" else ("403", "000"))
    }
    assert let_through == {}, f"the proxy did not refuse these with its own 403 (connect, status):\n{let_through}"


def test_the_docker_host_is_out_of_the_agents_reach(
    net_project: Project, host_listener: HostListener, token: str
) -> None:
    """TCP, UDP, a DNS query and ICMP to the sandbox network's gateway, docker0, the host's own LAN
    addresses and the bridges' link-local ones: nothing answers, and nothing arrives at the host."""
    networks = ("sandbox", "outside", "published")  # the host has an address on the forwarder's network too
    addresses = host_addresses([f"{net_project.name}_{network}" for network in networks])
    before = len(host_listener.events)
    result = net_project.agent(reach_script(addresses, host_listener.port, token), timeout=60)
    assert "probes-done" in result.stdout, result
    reached = [line for line in result.stdout.splitlines() if line.startswith("reached ")]
    assert reached == [], f"the agent reached the Docker host (probed {addresses}):\n{reached}"
    assert host_listener.events[before:] == [], (
        f"the host received the agent's packets: {host_listener.events[before:]}"
    )


def test_the_proxy_does_not_reach_the_docker_host_itself(net_project: Project, host_listener: HostListener) -> None:
    """An allowed name that resolves to the host's own address on the proxy's outside network."""
    url = f"http://{HOST_SELF}:{host_listener.port}/"
    before = len(host_listener.events)
    result = net_project.agent(f"{CURL} {url}; {CURL} -p {url}")
    statuses = re.findall(r"connect=(\d+) status=(\d+)", result.stdout)
    assert statuses[0][1] == "403" and statuses[1][0] == "403", (
        f"the proxy did not refuse the host's address:\n{result}"
    )
    assert host_listener.events[before:] == [], (
        f"the proxy connected to the Docker host: {host_listener.events[before:]}"
    )


def test_only_http_and_connect_pass_the_proxy(net_project: Project) -> None:
    """squid also speaks FTP, gopher and whois to an allowed host:port when asked for such a URL."""
    script = "".join(
        f"(exec 3<>/dev/tcp/egress/3128; printf 'GET {scheme}://{WEB}:8080/file HTTP/1.0\\r\\n\\r\\n' >&3;"
        f" read -t 10 -r _ status _ <&3; echo '{scheme}' \"status=$status\") &\n"
        for scheme in ("ftp", "gopher", "whois")
    )
    result = net_project.agent(script + "wait\n")
    statuses = dict(re.findall(r"^(\w+) status=(\S*)$", result.stdout, re.M))
    # squid 5 no longer speaks gopher: it answers 501 before any rule, which refuses just as well.
    assert statuses in (
        {"ftp": "403", "gopher": "403", "whois": "403"},
        {"ftp": "403", "gopher": "501", "whois": "403"},
    ), f"the proxy did not refuse every non-HTTP URL itself:\n{result}"


def test_egress_none_reaches_nothing_not_even_the_proxy(
    offline_project: Project, net_project: Project, outside: Outside
) -> None:
    """The net project's proxy is running: even its addresses are out of reach."""
    targets = [f"{ip}:3128" for ip in net_project.addresses("egress")] + [f"{outside.allowed_ip}:8080"]
    script = f"""
    for i in /sys/class/net/*; do echo "interface=${{i##*/}}"; done
    if timeout 5 getent hosts egress; then echo "resolved egress"; fi
    for target in {" ".join(targets)}; do
      if timeout 5 bash -c "exec 3<>/dev/tcp/${{target%:*}}/${{target#*:}}" 2>/dev/null; then echo "reached $target"; fi
    done
    echo done
    """
    result = offline_project.agent(script)
    assert result.stdout.rstrip().endswith("done"), result
    assert re.findall(r"interface=(\S+)", result.stdout) == ["lo"], f"egress: none has a network interface:\n{result}"
    assert "reached" not in result.stdout, f"egress: none reached the network:\n{result}"
    assert "resolved" not in result.stdout, f"egress: none resolved the proxy's name:\n{result}"


def test_open_egress_is_an_ordinary_network_as_the_kit_asks(open_project: Project, host_listener: HostListener) -> None:
    """With egress open the agent reaches what any container reaches, the Docker host among them (the
    fidelity report and the linter say so)."""
    script = GATEWAY_SCRIPT + (
        f'exec 3<>"/dev/tcp/$GATEWAY/{host_listener.port}" && read -t 5 -r line <&3 && echo "answer=$line"'
    )
    result = open_project.agent(script)
    assert "answer=host-listener" in result.stdout, f"an open network did not reach the host:\n{result}"
