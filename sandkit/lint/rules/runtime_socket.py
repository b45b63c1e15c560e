"""runtime-socket: a container runtime's control socket reachable from inside a container.

Whoever can talk to the Docker (or containerd, podman, cri-o) socket can start a privileged
container that mounts the host's root: the sandbox is gone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.facts.container_model import names_agent, via
from sandkit.lint.facts.containers import CONTAINER_KINDS, ENV_KINDS, containers, environment
from sandkit.lint.facts.host_paths import SOCKET_TRIGGERS, normalize, runtime_socket
from sandkit.lint.facts.testcontainers import SOCKET_OVERRIDE
from sandkit.lint.model import Hit
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import Pos

_SAFE_KIT_DOCKER = ("none", "rootless")
#: A source that is only a variable: ``$S``, ``${S}``, ``${S:?msg}``, or a variable trimmed or
#: rewritten by the shell (``${DOCKER_HOST#unix://}``, ``${S%/}``, ``${S/x/y}``); not one with a
#: default (``${S:-/tmp/x}``), whose default says what is mounted.
_VARIABLE_ONLY = lazy(r"^\$(?:\{[A-Za-z_][A-Za-z0-9_]*(?:(?::?[?]|[#%/^,])[^}]*)?\}|[A-Za-z_][A-Za-z0-9_]*)$")


def _unknown_source(source: str | None, target: str | None) -> bool:
    """A mount whose source is only a variable (``${SOCKET_PATH}``, no default to read) and whose
    target is a runtime socket's path: whatever the variable names, the container is set up to
    drive a runtime through it."""
    return bool(source and target and _VARIABLE_ONLY.match(source.strip()) and runtime_socket(target) == "socket")


_SELF_HOSTED = lazy(r"\bself-hosted\b")


def _disposable(file: SourceFile) -> bool:
    """A workflow that names no coding agent and none of whose jobs asks for a self-hosted
    runner: the runner's machine, socket and all, is discarded after the job, so the socket
    hands out a throwaway machine, not a host that outlives the job or an agent's sandbox."""
    return file.kind == kinds.WORKFLOW and not _SELF_HOSTED.search(file.text) and not names_agent(file.text)


_PROVIDER_HOST = re.compile(r'\bhost"?\s*[=:]')  # Terraform's docker provider: host = "..."


@rule(
    "RS001",
    "runtime-socket-mount",
    category="runtime-socket",
    severity="critical",
    kinds=CONTAINER_KINDS,
    triggers=SOCKET_TRIGGERS,
)
def runtime_socket_mount(file: SourceFile) -> Iterator[Hit]:
    """A container runtime socket, or a folder holding one, is mounted into a container.

    Covers /var/run/docker.sock and /run/docker.sock, containerd, podman (rootful and rootless
    under /run/user/UID or $XDG_RUNTIME_DIR), cri-o, cri-dockerd, BuildKit, colima, Rancher
    Desktop, OrbStack and ~/.docker/run, written with ~, $HOME, ${VAR:-default} and the like;
    parent folders such as /var/run, /run or / that contain those sockets; in Compose
    volumes (short and long syntax, named volumes bound to a host folder) and secret or config
    files, Kubernetes hostPath volumes
    of every workload and of PersistentVolumes, devcontainer mounts and runArgs, workflow job
    containers and services,
    `docker|podman run -v/--volume/--mount` in scripts, Makefiles, justfiles, Dockerfile RUN
    lines and MCP server commands, Dockerfile VOLUME declarations, and kits (files, workspace,
    isolation.docker other than none or rootless). A source that is only a variable
    (`${SOCKET_PATH}:/var/run/docker.sock`, or one the shell trims:
    `${DOCKER_HOST#unix://}`) mounted onto a socket's path is high: the variable
    is set elsewhere, and the container is made to drive a runtime through it. In shell (scripts,
    workflow and CI steps) a variable the script set before is read where it is used
    (`SOCK=/var/run/docker.sock` then `-v "$SOCK:$SOCK"`), and a `docker run` command line
    exported in a variable for another program to run (`export GATEWAY='docker run -v ...'`, as
    compiled agentic workflows' `.lock.yml` do) is read where it is written. In a workflow
    that names no coding agent and whose jobs all run on hosted runners (no `self-hosted`
    label), the mount is low: the runner's machine is discarded after the job.

    Why:
    The socket is the runtime's full API. An agent (or a prompt injected into it) that reaches
    it can run `docker run --privileged -v /:/host` and own the host and every secret on it.

    Fix:
    Do not mount the host's runtime socket. Build images outside the agent's sandbox: in CI, or
    in a separate container that runs no agent.

    Example:
    services: {agent: {volumes: ["/var/run/docker.sock:/var/run/docker.sock"]}}
    """
    for box in containers(file):
        for mount in box.mounts:
            path = mount.source or (mount.target if mount.how == "declared" else "")
            found = runtime_socket(path) if path else ""
            if not found and mount.how != "declared" and _unknown_source(mount.source, mount.target):
                yield Hit(
                    mount.pos,
                    f"{box.label} mounts {mount.source} onto the runtime socket path {mount.target}",
                    severity="high",
                    why="the source is a variable, set elsewhere; the container expects a runtime socket there",
                )
            elif found == "socket":
                verb = "declares a volume at" if mount.how == "declared" else "mounts"
                hosted = _disposable(file)
                yield Hit(
                    mount.pos,
                    f"{box.label} {verb} the container runtime socket {path}{via(mount)}",
                    severity="low" if hosted else "",
                    why="a CI job on a hosted runner, whose machine is discarded after the job" if hosted else "",
                )
            elif found and mount.how != "declared":  # VOLUME /tmp is an empty volume, not the host's /tmp
                tmp_only = normalize(path).startswith("/tmp")
                yield Hit(
                    mount.pos,
                    f"{box.label} mounts {path}, a folder that holds the container runtime socket{via(mount)}",
                    severity="medium" if tmp_only else "",
                    why="only podman machine (macOS) keeps its socket under /tmp" if tmp_only else "",
                )
        for setting in box.setting("docker"):
            if setting.value not in _SAFE_KIT_DOCKER:
                yield Hit(
                    setting.pos,
                    f"{box.label} asks for isolation.docker: "
                    f"{setting.value}; only none or rootless keep the host's "
                    "daemon out",
                )


_LOCAL_DAEMON = lazy(r"(?i)(?:localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|0\.0\.0\.0)(?::\d{1,5})?/?$")


def _host_process_settings(file: SourceFile) -> set[Pos]:
    """Where a systemd service unit sets its own processes' environment (``[Service]
    Environment=``). systemd starts them on the host, so a unix DOCKER_HOST there points the
    host's own docker client at the host's own socket, as it would by default. A Quadlet
    ``[Container]`` section and ``docker run -e`` in ExecStart give it to a container: those stay."""
    if file.kind != kinds.SYSTEMD:
        return set()
    from sandkit.lint.facts.units import unit_environment

    return {setting.pos for setting in unit_environment(file)}


@rule(
    "RS002",
    "docker-host-env",
    category="runtime-socket",
    severity="high",
    kinds=ENV_KINDS,
    triggers=("DOCKER_HOST", "-H", "--host", "--url", "docker.host", SOCKET_OVERRIDE, _PROVIDER_HOST),
)
def docker_host_env(file: SourceFile) -> Iterator[Hit]:
    """DOCKER_HOST (or `docker -H`) points at a host socket or a TCP/SSH daemon.

    Looks at environment in every file kind: Compose, Kubernetes, devcontainer containerEnv
    and remoteEnv, workflow env, Dockerfile ENV, .env files, kits, shell assignments and
    exports, CI variables, Nomad `env`, Quadlet and systemd `Environment=`, and the
    `-H/--host` flag of docker commands and Quadlet `GlobalArgs`. Also the docker provider's
    `host` in Terraform (not its default local socket), `docker.host` in a Testcontainers
    properties file, and TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE naming a host socket (which
    Testcontainers mounts into the containers it starts). A systemd service's own
    `[Service] Environment=DOCKER_HOST=unix://...` is not a finding: systemd runs that process
    on the host, where the host's socket is the docker client's default anyway (a remote
    daemon there still is). A daemon on the same machine or pod
    (`tcp://localhost:2376`, a Docker-in-Docker sidecar) behind TLS (port 2376,
    DOCKER_TLS_VERIFY or DOCKER_CERT_PATH) is not a finding: the privileged sidecar is what
    the privileged category reports. Without TLS it is medium.

    Why:
    A plain-TCP daemon (port 2375) has no authentication at all, and a forwarded unix socket
    is the same full control as mounting it: either lets a process start privileged
    containers on the host.

    Fix:
    Remove DOCKER_HOST; build images outside the agent's sandbox (in CI, or in a separate
    container that runs no agent).
    """
    settings = list(environment(file))
    host_side = _host_process_settings(file)
    tls = any(
        s.name in ("DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH") and s.value.strip("\"' ") not in ("", "0") for s in settings
    )
    for setting in settings:
        if setting.name == SOCKET_OVERRIDE and runtime_socket(setting.value):
            yield Hit(
                setting.pos,
                f"{SOCKET_OVERRIDE}={setting.value} mounts the host's runtime socket into the containers "
                "Testcontainers starts",
            )
            continue
        if setting.name != "DOCKER_HOST":
            continue
        value = setting.value.strip().strip("\"'")
        scheme = value.split("://", 1)[0].lower() if "://" in value else ""
        if scheme == "unix" and runtime_socket(value.split("://", 1)[1]):
            if setting.pos in host_side:
                continue  # a host service's own docker client on its own socket: nothing handed to a container
            yield Hit(setting.pos, f"DOCKER_HOST={value} hands over the host's runtime socket")
        elif scheme in ("tcp", "ssh", "http", "https"):
            plain = scheme in ("tcp", "http") and value.rstrip("/").endswith(":2375")
            if scheme != "ssh" and _LOCAL_DAEMON.match(value.split("://", 1)[1]):
                if tls or scheme == "https" or value.rstrip("/").endswith(":2376"):
                    continue  # the pod's (or job's) own Docker-in-Docker behind TLS: its privilege is PV001's
                yield Hit(
                    setting.pos,
                    f"DOCKER_HOST={value} points at a Docker daemon on this machine's (or pod's) TCP port without TLS",
                    severity="medium",
                    why="anything that reaches the port controls that daemon, not the host's unless it is the host's",
                )
                continue
            yield Hit(
                setting.pos, f"DOCKER_HOST={value} points at a remote Docker daemon" + (" without TLS" if plain else "")
            )
