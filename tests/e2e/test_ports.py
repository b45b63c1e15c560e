"""Published ports (issue 24): the allowlisted agent's application answers on the host's published
ports through the port forwarder, and the agent reaches nothing it did not reach before: not the
forwarder, not the host, not the outside, not even with a route of its own through the forwarder.
Nothing listens on a host address the kit did not name. Also the open-egress agent's own ports, and
the dev container's."""

from __future__ import annotations

import json
import shlex
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandkit.compiler.forwarder import FORWARDER_SERVICE, HIDDEN_HEADERS, PREVIEW_CSP, PREVIEW_HEADERS
from tests.compiler.helpers import devcontainer_cli
from tests.e2e.helpers import (
    APP_HTTP,
    APP_PAGE,
    APP_POLICY_HEADERS,
    APP_PROGRAM,
    APP_TCP,
    APP_UDP,
    OTHER_ID,
    SECOND_HOST_IP,
    Outside,
    Project,
    PublishedPorts,
    app_kit,
    compile_kit,
    free_port,
    run,
)
from tests.e2e.host import HostListener, host_addresses, reach_script

pytestmark = pytest.mark.docker

HTTP_GET = b"GET /from-the-host HTTP/1.0\r\n\r\n"


def http_get(address: str, port: int, timeout: float = 3) -> str:
    """What a browser would get from address:port: the whole response, as text."""
    with socket.create_connection((address, port), timeout=timeout) as conn:
        conn.sendall(HTTP_GET)
        chunks = []
        while chunk := conn.recv(4096):
            chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def response_headers(answer: str) -> tuple[str, dict[str, list[str]]]:
    """(status line, header name in lower case -> its values in order) of an HTTP response."""
    head = answer.split("\r\n\r\n", 1)[0].split("\r\n")
    headers: dict[str, list[str]] = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    return head[0], headers


def udp_ask(address: str, port: int, payload: bytes, timeout: float = 3) -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(timeout)
        sock.sendto(payload, (address, port))
        return sock.recv(512).decode(errors="replace")


def wait_for_app(address: str, port: int, seconds: float = 90) -> str:
    """The app's answer once it listens (the entrypoint clones and runs startup first); until then the
    engine's proxy or the forwarder closes the connection without one."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            answer = http_get(address, port)
        except OSError as error:
            answer = str(error)
        if answer.startswith("HTTP/") or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)  # a connection refused costs nothing: ask again soon


def listening_addresses(port: int, protocol: str) -> set[str]:
    """The local addresses of this machine's sockets listening on ``port`` (ss, from iproute2)."""
    flag = "-lnt" if protocol == "tcp" else "-lnu"
    lines = run(["ss", "-H", flag, f"sport = :{port}"], check=True).stdout.splitlines()
    return {line.split()[3].rsplit(":", 1)[0].strip("[]") for line in lines if line.strip()}


def answering_addresses(addresses: list[str], port: int) -> list[str]:
    """Those of ``addresses`` where a TCP connection from this machine to ``port`` is accepted."""
    answered = []
    for address in addresses:
        try:
            socket.create_connection((address, port), timeout=2).close()
            answered.append(address)
        except OSError:
            pass
    return answered


def host_side_addresses(networks: list[str]) -> list[str]:
    """Every address of this machine a connection could aim at, from the host itself (no scoped ones)."""
    return sorted({a for a in host_addresses(networks) if "%" not in a} | {"127.0.0.1", SECOND_HOST_IP})


def networks_of(project: Project) -> list[str]:
    return [f"{project.name}_{net}" for net in ("sandbox", "outside", "published")]


def container_addresses(project: Project, service: str) -> dict[str, str]:
    """Network name (without the project's prefix) to the service container's IPv4 address."""
    container = project.compose("ps", "-q", service).stdout.strip()
    record = json.loads(run(["docker", "inspect", container], check=True).stdout)[0]
    networks: dict[str, Any] = record["NetworkSettings"]["Networks"]
    return {name.removeprefix(f"{project.name}_"): info["IPAddress"] for name, info in networks.items()}


def app_lines(container: str) -> list[str]:
    return [line for line in run(["docker", "logs", container]).stdout.splitlines() if line.startswith("app ")]


def app_logged(container: str, line: str, seconds: float = 10) -> list[str]:
    """The app's lines once they hold ``line`` (or after ``seconds``): the engine's log may lag the
    reply the app sent before writing it (seen under load: the UDP echo back, its line not yet logged)."""
    deadline = time.monotonic() + seconds
    lines = app_lines(container)
    while line not in lines and time.monotonic() < deadline:
        time.sleep(0.1)
        lines = app_lines(container)
    return lines


def test_an_http_ports_own_errors_carry_the_policy_too(net_project: Project, published: PublishedPorts) -> None:
    """Before the app runs (nothing answers to `agent` on its port yet), nginx answers the http port itself:
    a 502, with every preview header all the same. (First in the module: the `app` fixture starts the app.)"""
    answer = http_get("127.0.0.1", published.http, timeout=20)  # the resolver may wait 5 s for `agent`
    status, headers = response_headers(answer)
    assert status.startswith("HTTP/1.1 502"), answer
    for name, value in PREVIEW_HEADERS.items():
        assert headers.get(name.lower()) == [value], f"nginx's own answer lacks {name}: {answer}"


@pytest.fixture(scope="module")
def app(net_project: Project, published: PublishedPorts) -> Iterator[dict[str, Any]]:
    """The agent's application, in an agent container that answers to the name `agent` as under `up`."""
    with net_project.detached("app", "perl", "-e", APP_PROGRAM, use_aliases=True) as record:
        wait_for_app("127.0.0.1", published.tcp)
        yield record


def test_the_agents_app_answers_on_the_hosts_published_ports(
    net_project: Project, app: dict[str, Any], published: PublishedPorts, token: str
) -> None:
    """TCP on 127.0.0.1 (the default) and on the second address the kit names, UDP on 127.0.0.1: each
    reaches the app in the sandbox, from the forwarder's address on the sandbox network."""
    forwarder = container_addresses(net_project, FORWARDER_SERVICE)["sandbox"]
    for address, port in (("127.0.0.1", published.tcp), (SECOND_HOST_IP, published.tcp_second)):
        answer = http_get(address, port)
        assert answer.startswith("HTTP/1.0 200"), f"{address}:{port} did not reach the app:\n{answer}"
        assert f"server=agent-app peer={forwarder}\n" in answer, answer
    echo = udp_ask("127.0.0.1", published.udp, f"ping-{token}".encode())
    assert echo == f"udp-app:ping-{token}", f"the app's UDP port did not answer on 127.0.0.1:{published.udp}: {echo!r}"
    assert f"app udp from {forwarder}" in app_logged(app["Name"].lstrip("/"), f"app udp from {forwarder}")


def test_an_http_port_carries_the_preview_policy_in_place_of_the_apps(
    net_project: Project, app: dict[str, Any], published: PublishedPorts
) -> None:
    """The app answers both TCP ports with a page that posts to another origin and headers that would let it
    (its own permissive CSP, CORS, a reporting endpoint, a preconnection). Through the `http: true` port the
    browser gets the app's page with sandkit's policy and none of the app's say on it; through the other
    port the app's bytes, unchanged."""
    forwarder = container_addresses(net_project, FORWARDER_SERVICE)["sandbox"]
    answer = http_get("127.0.0.1", published.http)
    status, headers = response_headers(answer)
    assert status.startswith("HTTP/1.1 200"), answer
    assert f"server=agent-app peer={forwarder}\n{APP_PAGE}\n" in answer, answer
    assert headers.get("x-app") == ["agent-app"], f"the app's own answer did not come through: {answer}"
    for name, value in PREVIEW_HEADERS.items():
        assert headers.get(name.lower()) == [value], f"{name} is not sandkit's alone: {headers.get(name.lower())}"
    assert "connect-src 'self'" in PREVIEW_CSP and "form-action 'self'" in PREVIEW_CSP
    ours = {name.lower() for name in PREVIEW_HEADERS}
    left = sorted(name for name in headers if name in {h.lower() for h in HIDDEN_HEADERS} - ours)
    assert left == [], f"the app's policy headers reached the browser: {left}"
    assert "elsewhere.example" not in answer.split("\r\n\r\n", 1)[0], answer

    raw = http_get("127.0.0.1", published.tcp)
    status, headers = response_headers(raw)
    assert status == "HTTP/1.0 200 OK", raw
    for name, value in APP_POLICY_HEADERS:
        assert headers.get(name.lower()) == [value], f"the raw port changed the app's {name}: {raw}"
    assert PREVIEW_CSP not in raw


def test_nothing_listens_on_a_host_address_the_kit_did_not_name(
    net_project: Project, app: dict[str, Any], published: PublishedPorts
) -> None:
    """On this machine, each published port listens on its kit address alone, and a connection to any
    other address of the machine (its LAN ones, docker0, the bridges' gateways, other loopbacks) is refused."""
    expected = {published.tcp: "127.0.0.1", published.tcp_second: SECOND_HOST_IP, published.http: "127.0.0.1"}
    assert listening_addresses(published.udp, "udp") <= {"127.0.0.1"}
    addresses = host_side_addresses(networks_of(net_project))
    for port, address in expected.items():
        assert listening_addresses(port, "tcp") <= {address}, f"port {port} listens beyond {address}"
        assert answering_addresses(addresses, port) == [address], f"probed {addresses} on port {port}"


#: Probes the agent runs side by side (the host's addresses, and so the probes, grow with the engine's networks).
PROBE_BATCH = 12


def _probe_script(tcp: list[tuple[str, int]], udp: list[tuple[str, int]], token: str) -> str:
    """Bash, as the agent: every TCP connect and UDP exchange side by side; a line for each that worked."""
    lines = ["set +m"]
    for address, port in tcp:
        lines.append(
            f'(timeout 3 bash -c "exec 3<>/dev/tcp/{address}/{port}" 2>/dev/null && echo "connected tcp {address}:{port}") &'
        )
    for address, port in udp:
        lines.append(
            f"(exec 3<>/dev/udp/{address}/{port} && printf 'probe-{token}' >&3 && read -t 2 -r -N 1 _ <&3"
            f' && echo "answered udp {address}:{port}") 2>/dev/null &'
        )
    # A dozen at a time: each is three processes, and the agent's pids limit is 64.
    batched = ["set +m"]
    for number, line in enumerate(lines[1:], 1):
        batched += [line, "wait"] if number % PROBE_BATCH == 0 else [line]
    return "\n".join([*batched, "wait", "echo probes-done"]) + "\n"


def test_the_forwarder_serves_the_host_and_refuses_the_agent(
    net_project: Project, app: dict[str, Any], published: PublishedPorts, token: str
) -> None:
    """While the host reaches the app through the forwarder, the agent (its uid, in the sandbox) tries the
    forwarder by name and by each of its addresses on the app's ports, and every host address on the
    published ports, over TCP and UDP: nothing connects or answers, and the app hears nothing of it."""
    assert http_get("127.0.0.1", published.tcp).startswith("HTTP/1.0 200"), "the forwarder is not serving the host"
    forwarder = container_addresses(net_project, FORWARDER_SERVICE)
    targets = [FORWARDER_SERVICE, forwarder["sandbox"], forwarder["published"]]
    hosts = host_addresses(networks_of(net_project))
    tcp = [(t, p) for t in targets for p in (APP_TCP, APP_HTTP)]
    tcp += [(h, p) for h in hosts for p in (published.tcp, published.tcp_second, published.http)]
    udp = [(t, APP_UDP) for t in targets] + [(h, published.udp) for h in hosts]
    heard = len(app_lines(app["Name"].lstrip("/")))
    result = net_project.agent('echo "uid=$(id -u)"\n' + _probe_script(tcp, udp, token), timeout=90)
    assert "probes-done" in result.stdout and "uid=1000" in result.stdout.splitlines(), result
    reached = [line for line in result.stdout.splitlines() if line.startswith(("connected ", "answered "))]
    assert reached == [], f"the agent reached the forwarder or a published port from inside:\n{reached}"
    assert app_lines(app["Name"].lstrip("/"))[heard:] == [], "the agent's probes reached the app through the forwarder"


def test_an_agent_routing_through_the_forwarder_reaches_nothing_beyond(
    net_project: Project, outside: Outside, host_listener: HostListener, token: str
) -> None:
    """An agent that gained NET_ADMIN in its network namespace (set here from the host with nsenter) and
    sends everything through the forwarder: the outside server and the host receive nothing, since the
    forwarder forwards no packet (ip_forward 0 on each of its interfaces)."""
    forwarder = container_addresses(net_project, FORWARDER_SERVICE)
    flags = net_project.compose("exec", "-T", FORWARDER_SERVICE, "cat", "/proc/sys/net/ipv4/ip_forward")
    assert flags.stdout.split() == ["0"], f"the forwarder forwards packets: {flags}"
    with net_project.detached("router", "sleep", "120") as record:
        name = record["Name"].lstrip("/")
        routed = run(
            [
                "nsenter",
                "-t",
                str(record["State"]["Pid"]),
                "-n",
                "ip",
                "route",
                "replace",
                "default",
                "via",
                forwarder["sandbox"],
            ]
        )
        assert routed.returncode == 0, routed
        hosts = host_addresses(networks_of(net_project))
        script = reach_script(hosts, host_listener.port, token) + (
            f"(timeout 5 bash -c \"exec 3<>/dev/tcp/{outside.other_ip}/8080 && printf 'GET /routed HTTP/1.0\\r\\n\\r\\n' >&3"
            f' && read -r line <&3 && echo \\"reached tcp outside \\$line\\"") 2>/dev/null\n'
        )
        events = len(host_listener.events)
        probe = run(["docker", "exec", "-u", "1000", name, "bash", "-c", script], timeout=60)
    assert "probes-done" in probe.stdout, probe
    reached = [line for line in probe.stdout.splitlines() if line.startswith("reached ")]
    assert reached == [], f"a route through the forwarder reached past it:\n{reached}"
    assert host_listener.events[events:] == [], f"the host received packets: {host_listener.events[events:]}"
    requests = [line for line in net_project.logs("other").splitlines() if "/routed" in line]
    assert requests == [], f"the outside server ({OTHER_ID}) received the routed request: {requests}"


def test_open_egress_publishes_the_agents_own_port(open_project: Project) -> None:
    """egress open: the agent's own port, published by Docker on 127.0.0.1 alone."""
    (published,) = open_project.compose("port", "agent", str(APP_TCP)).stdout.split()
    address, _, port = published.rpartition(":")
    assert address == "127.0.0.1", published
    answer = wait_for_app(address, int(port))
    assert "server=agent-app" in answer, answer
    networks = [f"{open_project.name}_outside"]
    assert listening_addresses(int(port), "tcp") <= {"127.0.0.1"}
    assert answering_addresses(host_side_addresses(networks), int(port)) == ["127.0.0.1"]


def _editor_exec(cli: Path, folder: Path, script: str) -> subprocess.CompletedProcess[str]:
    """``script`` in bash as the editor runs a process in the dev container (`devcontainer exec`, with remoteEnv)."""
    return subprocess.run(
        [str(cli), "exec", "--workspace-folder", str(folder), "bash", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_dev_container_publishes_the_agents_ports_and_no_other(engine: None, token: str, e2e_dir: Path) -> None:
    """`devcontainer up` of an allowlist kit: the forwarder runs with it, so the app answers on the host's
    published port; the editor's own forwarding (a connection to the container's localhost, as
    forwardPorts asks) reaches it too; from inside, the forwarder refuses the agent. And git in a process
    the editor starts (`devcontainer exec`, with remoteEnv) does not ask a credential helper registered in
    the container's git configuration as the Dev Containers extension registers its own: without
    remoteEnv's GIT_CONFIG_* the same git hands out the helper's password."""
    folder = e2e_dir / "dv"
    folder.mkdir()
    host_port = free_port("127.0.0.1", socket.SOCK_STREAM)
    name = f"e2e-{token}-dv"
    (folder / "kit.yaml").write_text(app_kit(name, egress="allowlist", host_port=host_port, packages=("git",)))
    output = compile_kit(folder / "kit.yaml", folder / "sandbox", targets="docker,compose,devcontainer")
    config = json.loads(
        "".join(
            line
            for line in (output / ".devcontainer/devcontainer.json").read_text().splitlines(True)
            if not line.startswith("//")
        )
    )
    assert config["forwardPorts"] == [APP_TCP] and config["otherPortsAttributes"] == {"onAutoForward": "ignore"}
    cli = devcontainer_cli()
    files = ["-f", str(output / "compose.yaml"), "-f", str(output / ".devcontainer/compose.devcontainer.yaml")]
    try:
        up = subprocess.run(
            [str(cli), "up", "--workspace-folder", str(output)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert up.returncode == 0, up.stdout[-2000:] + up.stderr[-2000:]
        agent = run(["docker", "compose", "-p", name, *files, "ps", "-q", "agent"], check=True).stdout.strip()
        run(["docker", "exec", "-d", "-u", "1000", agent, "perl", "-e", APP_PROGRAM], check=True)
        assert "server=agent-app" in wait_for_app("127.0.0.1", host_port, seconds=30)
        inside = (
            f"exec 3<>/dev/tcp/127.0.0.1/{APP_TCP} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3; "
            f'timeout 3 bash -c "exec 3<>/dev/tcp/{FORWARDER_SERVICE}/{APP_TCP}" 2>/dev/null && echo forwarder-connected'
        )
        done = _editor_exec(cli, output, inside)
        assert "server=agent-app peer=127.0.0.1" in done.stdout, done.stdout + done.stderr
        assert "forwarder-connected" not in done.stdout, "the forwarder accepted a connection from the agent"
        helper = f"!f() {{ echo username=editor; echo password=editor-{token}; }}; f"
        ask = "printf 'protocol=https\\nhost=git.example.com\\n\\n' | GIT_TERMINAL_PROMPT=0 git credential fill"
        credentials = (
            f"git config --global credential.helper {shlex.quote(helper)} && echo registered; "
            f"{ask} 2>&1 | sed 's/^/editor: /'; "
            f"env -u GIT_CONFIG_COUNT sh -c {shlex.quote(ask)} 2>&1 | sed 's/^/without: /'"
        )
        asked = _editor_exec(cli, output, credentials)
        lines = asked.stdout.splitlines()
        assert "registered" in lines and f"without: password=editor-{token}" in lines, asked.stdout + asked.stderr
        assert not any(line.startswith("editor: password=") for line in lines), f"the helper was asked:\n{asked.stdout}"
        assert listening_addresses(host_port, "tcp") <= {"127.0.0.1"}
        addresses = host_side_addresses([f"{name}_{net}" for net in ("sandbox", "outside", "published")])
        assert answering_addresses(addresses, host_port) == ["127.0.0.1"]
    finally:
        run(["docker", "compose", "-p", name, *files, "down", "-v", "--rmi", "all", "-t", "1"], timeout=180)
