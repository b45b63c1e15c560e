"""Egress, seen from inside the agent container of a compiled allowlist kit: only the listed
host:port pairs answer, through the proxy, over plain HTTP and CONNECT; nothing else does."""

from __future__ import annotations

import re

import pytest

from tests.e2e.helpers import (
    ALLOWED_ID,
    BOTH,
    OTHER,
    RESOLVES_TO_REFUSED,
    WEB,
    WILD_DEEP,
    WILD_DENIED,
    WILD_OK,
    Outside,
    Project,
)

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
    logged = f"method=GET url=http://{WEB}:8080/over-http"
    assert logged in net_project.log_with("egress", logged), (
        "the request reached the server without passing the proxy's log"
    )


def test_allowed_name_answers_https_through_connect(net_project: Project) -> None:
    result = net_project.agent(f"{CURL} https://{WEB}:8443/over-connect")
    assert f"server={ALLOWED_ID} host={WEB}:8443 path=/over-connect" in result.stdout, (
        f"HTTPS via CONNECT to an allowed host:port failed (TLS checked against the kit's CA):\n{result}"
    )
    assert _status(result.stdout) == ("200", "200"), result
    logged = f"method=CONNECT url={WEB}:8443"
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


@pytest.mark.parametrize("name", sorted(RESOLVES_TO_REFUSED))
def test_allowed_names_resolving_to_private_loopback_or_metadata_are_refused(net_project: Project, name: str) -> None:
    address = RESOLVES_TO_REFUSED[name]
    result = net_project.agent(f"{CURL} http://{name}:8080/; {CURL} -p http://{name}:8080/")
    statuses = re.findall(r"connect=(\d+) status=(\d+)", result.stdout)
    assert statuses[0][1] == "403", f"{name} resolves to {address} and the proxy forwarded to it:\n{result}"
    assert statuses[1][0] == "403", f"{name} resolves to {address} and the proxy tunnelled to it:\n{result}"


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
