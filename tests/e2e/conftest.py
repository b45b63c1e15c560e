"""Session fixtures of the end-to-end suite: compile small kits, build their images once, bring their
Compose projects up in the real engine beside an "outside" of test servers, and remove everything
by the names given here (also when a test fails).

The outside is a network in a /28 of the AS112 prefixes (public to the proxy; see OUTSIDE_POOLS), so
the proxy's refusal of non-public ranges stays on while the tests reach servers on it.
pytest-docker's ``get_docker_services`` runs each project's setup and its ``down`` in a ``finally``.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_docker.plugin import DockerComposeExecutor, get_docker_services

from sandkit.kits.extends import preset_names
from tests.conftest import docker_available
from tests.e2e.helpers import (
    ALLOWED_ID,
    API,
    BOTH,
    GIT,
    HOST_SELF,
    OTHER,
    OTHER_ID,
    OUTSIDE_DIR,
    README_MD,
    REPO_AGENTS_MD,
    RESOLVES_TO_REFUSED,
    SECOND_HOST_IP,
    SSH_HOST,
    SSH_UNLISTED,
    WEB,
    WILD_DEEP,
    WILD_DENIED,
    WILD_OK,
    GitRepo,
    Outside,
    Project,
    PublishedPorts,
    app_kit,
    compile_kit,
    free_outside_subnet,
    free_port,
    net_kit,
    offline_kit,
    run,
    ssh_kit,
    used_subnets,
)
from tests.e2e.host import HostListener
from tests.e2e.presets import UNMAKEABLE, PresetSandbox, StandIns, build_all, make_node_stand_in, prepare
from tests.e2e.presets import have_image as _have_image

#: Removes the project's containers, networks, volumes and the images it built (by their tags).
CLEANUP = ["down -v --remove-orphans --rmi all --timeout 1"]


@pytest.fixture(scope="session")
def engine() -> None:
    """The Docker gate for session fixtures (they run before the per-test gate in tests/conftest.py)."""
    if docker_available():
        return
    if os.environ.get("SANDKIT_REQUIRE_DOCKER") == "1":
        pytest.fail("SANDKIT_REQUIRE_DOCKER=1 but no Docker engine answers `docker info`")
    pytest.skip("no Docker engine (CI sets SANDKIT_REQUIRE_DOCKER=1 to make this a failure)")


@pytest.fixture(scope="session")
def token() -> str:
    """Names every kit, image and project of this session, so concurrent sessions never collide."""
    return secrets.token_hex(3)


@pytest.fixture(scope="session")
def secret_values(token: str) -> dict[str, str]:
    return {
        "E2E_RUN_TOKEN": f"e2e-run-{secrets.token_hex(16)}",
        "E2E_BUILD_TOKEN": f"e2e-build-{secrets.token_hex(16)}",
        "E2E_INJECT_TOKEN": f"e2e-inject-{secrets.token_hex(16)}",
    }


@pytest.fixture(scope="session")
def e2e_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e2e")


@pytest.fixture(scope="session")
def outside(engine: None, token: str) -> Outside:
    """A /28 of the outside pools that no network on this engine uses yet."""
    subnet = free_outside_subnet(used_subnets(), token)
    if subnet is None:
        pytest.fail("no free /28 in the outside pools for the outside network")
    return Outside(subnet)


@pytest.fixture(scope="session")
def host_listener() -> Iterator[HostListener]:
    """TCP, UDP and DNS on one port of every address of this machine, for the whole session."""
    listener = HostListener().start()
    try:
        yield listener
    finally:
        listener.close()


@pytest.fixture(scope="session")
def published() -> PublishedPorts:
    """Host ports for the net kit's published ports, free when the session starts."""
    return PublishedPorts(
        tcp=free_port("127.0.0.1", socket.SOCK_STREAM),
        tcp_second=free_port(SECOND_HOST_IP, socket.SOCK_STREAM),
        udp=free_port("127.0.0.1", socket.SOCK_DGRAM),
        http=free_port("127.0.0.1", socket.SOCK_STREAM),
    )


@pytest.fixture(scope="session")
def certs(e2e_dir: Path) -> Path:
    """A throwaway CA and a server certificate for web.allowed.test (the HTTPS-over-CONNECT test)."""
    folder = e2e_dir / "certs"
    folder.mkdir(mode=0o755)

    def openssl(*args: str) -> None:
        run(["openssl", *args], check=True)

    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=sandkit-e2e-ca",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign",
        "-keyout",
        str(folder / "ca.key"),
        "-out",
        str(folder / "ca.pem"),
    )
    openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        f"/CN={WEB}",
        "-keyout",
        str(folder / "server.key"),
        "-out",
        str(folder / "server.csr"),
    )
    (folder / "san.ext").write_text(f"subjectAltName=DNS:{WEB},DNS:{API}\n")
    openssl(
        "x509",
        "-req",
        "-in",
        str(folder / "server.csr"),
        "-CA",
        str(folder / "ca.pem"),
        "-CAkey",
        str(folder / "ca.key"),
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        str(folder / "san.ext"),
        "-out",
        str(folder / "server.pem"),
    )
    for name in ("server.key", "server.pem"):
        (folder / name).chmod(0o644)  # read by the server's unprivileged user; a test key only
    return folder


@pytest.fixture(scope="session")
def git_repo(e2e_dir: Path) -> GitRepo:
    """A repository on branch main, published as a bare repository for dumb-HTTP cloning."""
    work = e2e_dir / "repo-work"
    served = e2e_dir / "git-served"
    work.mkdir()
    served.mkdir(mode=0o755)
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(e2e_dir),
        "GIT_AUTHOR_NAME": "e2e",
        "GIT_AUTHOR_EMAIL": "e2e@example.invalid",
        "GIT_COMMITTER_NAME": "e2e",
        "GIT_COMMITTER_EMAIL": "e2e@example.invalid",
    }

    def git(*args: str, cwd: Path = work) -> str:
        return subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
        ).stdout.strip()

    git("init", "-q", "-b", "main")
    (work / "README.md").write_text(README_MD)
    (work / "AGENTS.md").write_text(REPO_AGENTS_MD)
    git("add", "README.md", "AGENTS.md")
    git("commit", "-q", "-m", "e2e fixture")
    git("clone", "-q", "--bare", str(work), str(served / "repo.git"), cwd=e2e_dir)
    git("update-server-info", cwd=served / "repo.git")
    for path in served.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return GitRepo(served, git("rev-parse", "HEAD"))


def _env_file(path: Path, values: dict[str, str]) -> Path:
    path.write_text("".join(f"{key}={value}\n" for key, value in values.items()))
    path.chmod(0o600)
    return path


@pytest.fixture(scope="session")
def run_secret_file(e2e_dir: Path, secret_values: dict[str, str]) -> Path:
    """The runtime secret as the agent's owner keeps it: a file readable by uid 1000 only."""
    return _owned_file(e2e_dir / "run-token", secret_values["E2E_RUN_TOKEN"])


def _owned_file(path: Path, value: str) -> Path:
    path.write_text(value)
    os.chown(path, 1000, 1000)
    path.chmod(0o400)
    return path


@pytest.fixture(scope="session")
def inject_secret_file(e2e_dir: Path, secret_values: dict[str, str]) -> Path:
    """The secret the proxy injects, kept as the agent's owner keeps any secret (a CR LF after it, as a
    Windows editor leaves one); only the proxy's container receives it."""
    return _owned_file(e2e_dir / "inject-token", secret_values["E2E_INJECT_TOKEN"] + "\r\n")


def _outside_override(
    path: Path, outside: Outside, certs: Path, repo: GitRepo, token: str, private_token: Path
) -> Path:
    """Test servers on the project's `outside` network, and DNS answers the proxy must refuse."""
    image = f"sandkit-e2e/outside:{token}"
    server = {"image": image, "read_only": True, "cap_drop": ["ALL"], "restart": "no"}
    document = {
        "services": {
            "web": {
                **server,
                "build": {"context": str(OUTSIDE_DIR)},
                "environment": {"SERVER_ID": ALLOWED_ID},
                # the same repository served again as a private one, to the run token only
                "volumes": [
                    f"{certs}:/certs:ro",
                    f"{repo.served}:/srv/git:ro",
                    f"{repo.served}:/srv/private:ro",
                    f"{private_token}:/run/outside/private-token:ro",
                ],
                "networks": {
                    "outside": {
                        "ipv4_address": outside.allowed_ip,
                        "aliases": [WEB, API, GIT, WILD_OK, WILD_DENIED, WILD_DEEP, BOTH],
                    }
                },
            },
            "other": {
                **server,
                "environment": {"SERVER_ID": OTHER_ID},
                "networks": {"outside": {"ipv4_address": outside.other_ip, "aliases": [OTHER]}},
            },
            # IPv6 on in the proxy's container, loopback included, as on a dual-stack host (Docker
            # Desktop's default): squid applies its IPv6 rules only then, and an IPv6 rule that
            # held the IPv4-mapped block would then refuse every IPv4 host.
            "egress": {
                "sysctls": {"net.ipv6.conf.all.disable_ipv6": 0, "net.ipv6.conf.lo.disable_ipv6": 0},
                "extra_hosts": [
                    *(f"{host}:{ip}" for host, ip in RESOLVES_TO_REFUSED.items()),
                    f"{HOST_SELF}:{outside.gateway}",
                ],
            },
        },
        "networks": {
            "outside": {"ipam": {"config": [{"subnet": str(outside.subnet), "ip_range": outside.dynamic_range}]}}
        },
    }
    path.write_text(json.dumps(document, indent=2))  # JSON is YAML, and needs no quoting rules
    return path


@pytest.fixture(scope="session")
def net_project(
    engine: None,
    token: str,
    e2e_dir: Path,
    outside: Outside,
    certs: Path,
    git_repo: GitRepo,
    secret_values: dict[str, str],
    run_secret_file: Path,
    inject_secret_file: Path,
    host_listener: HostListener,
    published: PublishedPorts,
) -> Iterator[Project]:
    """The allowlist kit, built and up with its proxy, its port forwarder and the outside servers."""
    folder = e2e_dir / "net"
    folder.mkdir()
    (folder / "outside-ca.pem").write_bytes((certs / "ca.pem").read_bytes())
    kit = folder / "kit.yaml"
    kit.write_text(net_kit(f"e2e-{token}-net", "./outside-ca.pem", host_listener.port, published))
    output = compile_kit(kit, folder / "sandbox", env=secret_values)  # values in reach: none may leak
    private_token = folder / "private-token"  # what the server takes for its private repository: the run token
    private_token.write_text(secret_values["E2E_RUN_TOKEN"])
    private_token.chmod(0o444)
    override = _outside_override(folder / "outside.override.yaml", outside, certs, git_repo, token, private_token)
    env_file = _env_file(
        folder / "e2e.env",
        {
            "E2E_BUILD_TOKEN": secret_values["E2E_BUILD_TOKEN"],
            "E2E_RUN_TOKEN_FILE": str(run_secret_file),
            "E2E_INJECT_TOKEN_FILE": str(inject_secret_file),
        },
    )
    project = Project(f"e2e-{token}-net", output, [output / "compose.yaml", override], env_file)
    yield from _services(project, ["build", "up -d --wait --wait-timeout 120 egress forwarder web other"])


@pytest.fixture(scope="session")
def ssh_keys(engine: None, token: str, e2e_dir: Path) -> Iterator[Path]:
    """The ssh server's image, and keys made with its ssh-keygen: ``server/host_key`` (the key the kit
    pins), ``impostor_key`` (another host key), ``server/authorized_keys`` and ``client_key`` (the
    agent's deploy key, readable by uid 1000 only)."""
    folder = e2e_dir / "ssh-keys"
    (folder / "server").mkdir(parents=True, mode=0o755)
    tag = f"sandkit-e2e/outside-ssh:{token}"
    run(["docker", "build", "-q", "-t", tag, str(OUTSIDE_DIR)], check=True, timeout=600)
    try:
        keygen = ["docker", "run", "--rm", "--user", "0:0", "--network", "none", "-v", f"{folder}:/keys", tag]
        for name in ("server/host_key", "impostor_key", "client_key"):
            run(
                [*keygen, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "e2e", "-f", f"/keys/{name}"], check=True
            )
        (folder / "server/authorized_keys").write_bytes((folder / "client_key.pub").read_bytes())
        for path in folder.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o444)  # the server's `git` user reads its test keys
        _owned_file(folder / "client_key", (folder / "client_key").read_text())
        yield folder
    finally:
        run(["docker", "image", "rm", tag])


def _ssh_override(path: Path, outside: Outside, keys: Path, repo: GitRepo, token: str) -> Path:
    """The ssh git server on the project's `outside` network, by an allowed name and one the kit does not allow."""
    # sshd listening on port 22 (0x0016), read from the kernel: a probe connection would fill its log
    probe = "import sys; sys.exit('00000000:0016 00000000:0000 0A' not in open('/proc/net/tcp').read())"
    document = {
        "services": {
            "ssh": {
                "image": f"sandkit-e2e/outside-ssh:{token}",
                "read_only": True,
                "cap_drop": ["ALL"],
                "restart": "no",
                "user": "10022:10022",
                "command": ["/usr/sbin/sshd", "-D", "-e", "-f", "/opt/outside/sshd_config"],
                "sysctls": {"net.ipv4.ip_unprivileged_port_start": 0},
                "healthcheck": {"test": ["CMD", "python3", "-c", probe], "interval": "1s", "retries": 30},
                "volumes": [f"{keys / 'server'}:/run/outside/ssh:ro", f"{repo.served}:/srv/private:ro"],
                "networks": {"outside": {"ipv4_address": outside.allowed_ip, "aliases": [SSH_HOST, SSH_UNLISTED]}},
            },
        },
        "networks": {
            "outside": {"ipam": {"config": [{"subnet": str(outside.subnet), "ip_range": outside.dynamic_range}]}}
        },
    }
    path.write_text(json.dumps(document, indent=2))
    return path


@pytest.fixture(scope="session")
def ssh_project(
    engine: None, token: str, e2e_dir: Path, outside: Outside, git_repo: GitRepo, ssh_keys: Path
) -> Iterator[Project]:
    """The ssh kit, built and up with its proxy and the ssh git server, on an outside /28 of its own."""
    subnet = free_outside_subnet([*used_subnets(), outside.subnet], token)
    if subnet is None:
        pytest.fail("no free /28 in the outside pools for the ssh project's outside network")
    folder = e2e_dir / "ssh"
    folder.mkdir()
    host_key = " ".join((ssh_keys / "server/host_key.pub").read_text().split()[:2])
    (folder / "kit.yaml").write_text(ssh_kit(f"e2e-{token}-ssh", host_key))
    output = compile_kit(folder / "kit.yaml", folder / "sandbox")
    override = _ssh_override(folder / "ssh.override.yaml", Outside(subnet), ssh_keys, git_repo, token)
    env_file = _env_file(folder / "e2e.env", {"E2E_SSH_KEY_FILE": str(ssh_keys / "client_key")})
    project = Project(f"e2e-{token}-ssh", output, [output / "compose.yaml", override], env_file)
    yield from _services(project, ["build", "up -d --wait --wait-timeout 120 egress ssh"])


def _services(project: Project, setup: list[str]) -> Iterator[Project]:
    """Set the project up inside pytest-docker's context, so a failed build or start is cleaned up too."""
    command = f'docker compose --env-file "{project.env_file}"'
    files = [str(f) for f in project.files]
    tags = project.compose("config", "--images").stdout.split()
    try:
        with get_docker_services(command, files, project.name, [], CLEANUP):
            executor = DockerComposeExecutor(command, files, project.name)
            for step in setup:
                executor.execute(step)
            yield project
    finally:  # `down --rmi all` skips an image it finds no container of; its tags are removed here
        left = [tag for tag in tags if run(["docker", "image", "inspect", tag]).returncode == 0]
        if left:
            run(["docker", "image", "rm", *left])


def _git_repository(folder: Path, home: Path) -> None:
    """Make ``folder`` a repository with one commit (what a developer mounts: a checkout)."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home)}
    identity = ["-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"]
    for args in (["init", "-q", "-b", "main"], ["add", "."], [*identity, "commit", "-q", "-m", "host checkout"]):
        subprocess.run(["git", "-C", str(folder), *args], env=env, capture_output=True, check=True)


def _offline(token: str, e2e_dir: Path, suffix: str, **kit: str) -> Project:
    folder = e2e_dir / suffix
    folder.mkdir()
    (folder / "kit.yaml").write_text(offline_kit(f"e2e-{token}-{suffix}", **kit))
    if kit.get("workspace", "").startswith("mount"):
        workspace = folder / "ws"
        workspace.mkdir()
        (workspace / "from-host.txt").write_text("written on the host\n")
        _git_repository(workspace, e2e_dir)
        for path in (workspace, *workspace.rglob("*")):
            os.lchown(path, 1000, 1000)  # the agent's owner's repository, as on a developer machine
    output = compile_kit(folder / "kit.yaml", folder / "sandbox")
    env_file = _env_file(folder / "e2e.env", {})
    return Project(f"e2e-{token}-{suffix}", output, [output / "compose.yaml"], env_file)


@pytest.fixture(scope="session")
def offline_project(engine: None, token: str, e2e_dir: Path) -> Iterator[Project]:
    yield from _services(_offline(token, e2e_dir, "offline"), ["build"])


@pytest.fixture(scope="session")
def gvisor_project(engine: None, token: str, e2e_dir: Path) -> Iterator[Project]:
    yield from _services(_offline(token, e2e_dir, "gvisor", runtime="gvisor"), ["build"])


@pytest.fixture(scope="session")
def mount_project(engine: None, token: str, e2e_dir: Path) -> Iterator[Project]:
    yield from _services(_offline(token, e2e_dir, "mount", workspace="mount"), ["build"])


@pytest.fixture(scope="session")
def mount_ro_project(engine: None, token: str, e2e_dir: Path) -> Iterator[Project]:
    yield from _services(_offline(token, e2e_dir, "mount-ro", workspace="mount-readonly"), ["build"])


@pytest.fixture(scope="session")
def timeout_project(engine: None, token: str, e2e_dir: Path) -> Iterator[Project]:
    yield from _services(_offline(token, e2e_dir, "timeout", timeout="3s"), ["build"])


@pytest.fixture(scope="session")
def preset_sandboxes(engine: None, token: str, e2e_dir: Path) -> Iterator[dict[str, PresetSandbox]]:
    """Every preset's init kit built once, side by side; bases this machine cannot pull are stood in for."""
    stand_ins = StandIns()
    sandboxes: dict[str, PresetSandbox] = {}
    try:
        for preset in preset_names():
            sandbox = prepare(preset, e2e_dir / f"preset-{preset}", f"e2e-{token}-{preset}")
            sandboxes[preset] = sandbox
            if sandbox.base in UNMAKEABLE and not _have_image(sandbox.base):
                sandbox.skipped = f"{sandbox.base}: {UNMAKEABLE[sandbox.base]}"
            elif sandbox.base.startswith("node:") and not _have_image(sandbox.base):
                make_node_stand_in(sandbox.base, e2e_dir / f"stand-in-{sandbox.base.replace(':', '-')}")
                stand_ins.made.append(sandbox.base)
        build_all(list(sandboxes.values()))
        yield sandboxes
    finally:
        for sandbox in sandboxes.values():
            sandbox.compose("down", "-v", "--remove-orphans", "--rmi", "all", "--timeout", "1")
        stand_ins.remove()


@pytest.fixture(scope="session")
def open_project(engine: None, token: str, e2e_dir: Path) -> Iterator[Project]:
    """A kit with open egress whose agent is the application, up; `docker compose port` finds its port."""
    folder = e2e_dir / "open"
    folder.mkdir()
    host_port = free_port("127.0.0.1", socket.SOCK_STREAM)
    (folder / "kit.yaml").write_text(app_kit(f"e2e-{token}-open", egress="open", host_port=host_port))
    output = compile_kit(folder / "kit.yaml", folder / "sandbox")
    project = Project(f"e2e-{token}-open", output, [output / "compose.yaml"], _env_file(folder / "e2e.env", {}))
    yield from _services(project, ["build", "up -d agent"])
