"""Only the sandbox's own containers may use the egress proxy: it listens on its sandbox address (and its
loopback) alone, and admits that network's subnet alone. The Docker host is the gateway of the proxy's
outside network; before this, any process there, as any user, could send requests through the proxy,
which added the injected secret to them.

Probed as an unprivileged user of this machine, from a container on another network and from one on
the proxy's own outside network, with an injecting kit, against an outside network on AS112
addresses (the net project) and on the ordinary private addresses Docker gives by default."""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import API, INJECT_HEADER, WEB, Outside, Project, compile_kit, run

pytestmark = pytest.mark.docker

PORT = 3128
CURL = ["curl", "-sS", "-k", "--connect-timeout", "4", "-m", "8", "-o", "/dev/null", "-w", "status=%{http_code}\n"]


@pytest.fixture(scope="module")
def stranger() -> Iterator[list[str]]:
    """The argv prefix that runs a command as an unprivileged user of this machine: a throwaway user
    when the suite runs as root, else the suite's own (already unprivileged) user."""
    if os.geteuid() != 0:
        yield []
        return
    name = f"sk-{secrets.token_hex(4)}"
    run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    try:
        yield ["setpriv", "--reuid", name, "--regid", name, "--clear-groups", "--"]
    finally:
        run(["userdel", name])


def _egress_image(project: Project) -> str:
    container = project.compose("ps", "-q", "egress").stdout.strip()
    return run(["docker", "inspect", "-f", "{{.Config.Image}}", container], check=True).stdout.strip()


def _from_containers(project: Project, networks: list[str], addresses: list[str], url: str) -> list[str]:
    """curl through each address from a throwaway container (the proxy's image, uid 1000) on each network."""
    image = _egress_image(project)
    outcomes = []
    for network in networks:
        for address in addresses:
            argv = ["docker", "run", "--rm", "--network", network, "--user", "1000:1000", "--entrypoint", "curl"]
            result = run([*argv, image, *CURL[1:], "-x", f"http://{address}:{PORT}", url], timeout=60)
            outcomes.append(f"{network} -> {address}: exit {result.returncode} {result.stdout.strip()}")
    return outcomes


def _from_host(stranger: list[str], addresses: list[str], url: str) -> list[str]:
    outcomes = []
    for address in addresses:
        result = run([*stranger, *CURL, "-x", f"http://{address}:{PORT}", url], timeout=30)
        outcomes.append(f"host -> {address}: exit {result.returncode} {result.stdout.strip()}")
    return outcomes


@pytest.fixture
def other_network(token: str) -> Iterator[str]:
    name = f"e2e-{token}-stranger-{secrets.token_hex(2)}"
    run(["docker", "network", "create", name], check=True)
    try:
        yield name
    finally:
        run(["docker", "network", "rm", name])


def test_the_host_and_other_containers_cannot_use_the_injecting_proxy(
    net_project: Project, outside: Outside, stranger: list[str], other_network: str, secret_values: dict[str, str]
) -> None:
    addresses = net_project.addresses("egress")
    outside_address = [a for a in addresses if ipaddress.ip_address(a) in outside.subnet]
    assert len(addresses) == 2 and len(outside_address) == 1, addresses
    before = net_project.logs("egress")
    injected = f"https://{API}:8443/from-a-stranger"
    plain = f"http://{WEB}:8080/from-a-stranger-plain"
    outcomes = [
        *_from_host(stranger, [*addresses, "127.0.0.1"], injected),
        *_from_host(stranger, addresses, plain),
        *_from_containers(net_project, [other_network, f"{net_project.name}_outside"], addresses, injected),
    ]
    refused = f"host -> {outside_address[0]}: exit 7 status=000"
    assert refused in outcomes, f"the proxy's outside address accepted a connection from the host:\n{outcomes}"
    neighbour = f"{net_project.name}_outside -> {outside_address[0]}: exit 7 status=000"
    assert neighbour in outcomes, f"a container on the outside network connected to the proxy:\n{outcomes}"
    served = net_project.logs("web")
    assert "from-a-stranger" not in served, f"a stranger's request reached the server:\n{outcomes}\n{served}"
    assert net_project.logs("egress") == before, f"the proxy took a stranger's request:\n{outcomes}"
    # The same request from the agent does arrive, with the key: the strangers' silence means something.
    agent = net_project.agent(f"curl -sS -m 10 https://{API}:8443/headers-from-the-agent")
    assert f"header {INJECT_HEADER}: Key {secret_values['E2E_INJECT_TOKEN']}" in agent.stdout, agent


def _private_kit(name: str) -> str:
    return f"""apiVersion: sandkit/v1
kind: Kit
name: {name}
description: an injecting kit whose outside network has Docker's ordinary private addresses
secrets:
  - name: E2E_PRIVATE_INJECT
    inject:
      - host: {API}:8443
        header: {INJECT_HEADER}
        format: "Key {{value}}"
network:
  egress: allowlist
  allow: [{API}:8443]
agent:
  command: [sleep, "1"]
workspace:
  mode: none
"""


@pytest.fixture(scope="module")
def private_project(engine: None, token: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    folder = tmp_path_factory.mktemp("private-outside")
    (folder / "kit.yaml").write_text(_private_kit(f"e2e-{token}-private"))
    output = compile_kit(folder / "kit.yaml", folder / "sandbox")
    secret = folder / "inject-token"
    secret.write_text(f"e2e-private-{secrets.token_hex(8)}")
    os.chown(secret, 1000, 1000)
    secret.chmod(0o400)
    env_file = folder / "e2e.env"
    env_file.write_text(f"E2E_PRIVATE_INJECT_FILE={secret}\n")
    project = Project(f"e2e-{token}-private", output, [output / "compose.yaml"], env_file)
    try:
        up = project.compose("up", "-d", "--build", "--wait", "--wait-timeout", "120", "egress", timeout=600)
        assert up.returncode == 0, up
        yield project
    finally:
        project.compose("down", "-v", "--remove-orphans", "--rmi", "all", "--timeout", "1")


def test_on_a_private_outside_network_too_only_the_sandbox_reaches_the_proxy(
    private_project: Project, stranger: list[str], other_network: str
) -> None:
    name = private_project.name
    sandbox = run(["docker", "network", "inspect", "-f", "{{(index .IPAM.Config 0).Subnet}}", f"{name}_sandbox"])
    subnet = ipaddress.ip_network(sandbox.stdout.strip())
    addresses = private_project.addresses("egress")
    (outside_address,) = [a for a in addresses if ipaddress.ip_address(a) not in subnet]
    assert ipaddress.ip_address(outside_address).is_private, f"the outside network is not private: {addresses}"
    url = "http://0.0.0.1/"  # squid refuses it by itself: the answer shows who reached squid
    outcomes = [
        *_from_host(stranger, [*addresses, "127.0.0.1"], url),
        *_from_containers(private_project, [other_network, f"{name}_outside", f"{name}_sandbox"], addresses, url),
    ]
    assert f"host -> {outside_address}: exit 7 status=000" in outcomes, outcomes
    assert f"{name}_outside -> {outside_address}: exit 7 status=000" in outcomes, outcomes
    sandbox_address = next(a for a in addresses if a != outside_address)
    assert f"{name}_sandbox -> {sandbox_address}: exit 0 status=403" in outcomes, (
        f"squid does not answer a container on the sandbox network:\n{outcomes}"
    )
    # squid's own connections to its TLS port (loopback) are logged too; every other client must be the sandbox's
    log = private_project.log_with("egress", "client=")
    clients = {
        ipaddress.ip_address(line.split("client=")[1].split()[0]) for line in log.splitlines() if "client=" in line
    }
    clients.discard(ipaddress.ip_address("127.0.0.1"))
    assert clients and all(client in subnet for client in clients), (
        f"squid took requests from outside the sandbox network {subnet}: {clients}\n{outcomes}"
    )


def test_an_absent_secret_file_stops_the_sandbox_with_the_documented_message(
    private_project: Project, tmp_path: Path
) -> None:
    """docs/secrets.md: NAME_FILE naming no file stops `docker compose up` with the engine's message naming the
    path, before the proxy (or anything that would send a request without the header) runs."""
    absent = tmp_path / "no-such-secret"
    env_file = tmp_path / "absent.env"
    env_file.write_text(f"E2E_PRIVATE_INJECT_FILE={absent}\n")
    try:
        private_project.compose("rm", "-f", "-s", "egress")
        up = private_project.compose("up", "-d", "egress", env_file=env_file)
        assert up.returncode != 0, f"the proxy started without its secret's file:\n{up}"
        said = up.stderr.lower()
        assert str(absent) in up.stderr and ("does not exist" in said or "no such file" in said), up
        running = private_project.compose("ps", "-q", "--status", "running", "egress").stdout.strip()
        assert running == "", "a proxy is running without its secret's file"
    finally:
        restored = private_project.compose("up", "-d", "--wait", "--force-recreate", "egress")
        assert restored.returncode == 0, restored
