"""runtime-socket: a container runtime's control socket reachable from inside a container.

Whoever can talk to the Docker (or containerd, podman, cri-o) socket can start a privileged
container that mounts the host's root: the sandbox is gone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sandkit.lazy_regex import lazy
from sandkit.lint import kinds
from sandkit.lint.facts.container_model import Container, Mount, Setting, names_agent, via
from sandkit.lint.facts.containers import (
    CI_SCRIPT_KINDS,
    CONTAINER_KINDS,
    ENV_KINDS,
    ci_scripts,
    containers,
    environment,
    is_dind,
)
from sandkit.lint.facts.docker_cli import daemon_hosts, tcp_scope
from sandkit.lint.facts.host_paths import (
    HOST_SERVICE_SOCKETS,
    RUNTIME_STATE,
    SOCKET_TRIGGERS,
    host_service_socket,
    normalize,
    runtime_socket,
    runtime_state,
)
from sandkit.lint.facts.socket_proxy import (
    PROXY_PORT,
    Proxy,
    compose_services,
    loopback,
    published_ports,
    socket_proxies,
)
from sandkit.lint.facts.testcontainers import SOCKET_OVERRIDE
from sandkit.lint.model import Hit
from sandkit.lint.registry import rule
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.shell import Command, Word, parse_commands
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr

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


def _pipeline_service(file: SourceFile) -> bool:
    """A CI pipeline (GitLab's, CircleCI's, Bitbucket's) naming no coding agent: its Docker-in-Docker
    service is the job's own daemon, on the job's own network, started and discarded with the job
    (GitLab's documented setup for building images without TLS)."""
    return file.kind in _PIPELINE_KINDS and not names_agent(file.text)


_PIPELINE_KINDS = frozenset({kinds.GITLAB_CI, kinds.CIRCLECI, kinds.BITBUCKET_PIPELINES})
#: Files whose containers run on a server or a CI runner, never on a developer's desktop: a
#: Kubernetes node, a Nomad client, a systemd host, a CI job (a workflow that asks for a macOS
#: runner aside, see :func:`_on_desktop`).
_SERVER_KINDS = frozenset(
    {
        *(kinds.KUBERNETES, kinds.KUSTOMIZATION, kinds.JSON_PATCH, kinds.NOMAD, kinds.SYSTEMD),
        *(kinds.WORKFLOW, kinds.ACTION, kinds.GITLAB_CI, kinds.CIRCLECI, kinds.AZURE_PIPELINES),
        kinds.BITBUCKET_PIPELINES,
    }
)
_MACOS_RUNNER = lazy(r"(?i)\bmacos")


def _on_desktop(file: SourceFile, mount: Mount) -> bool:
    """Whether ``mount`` may be made on a developer's desktop (macOS, Docker Desktop, colima),
    whose sockets live in folders a server's do not (``/tmp``, ``~/.docker/run``): not a
    Kubernetes hostPath (or a policy's admitted path) wherever it is written, nor a mount in a
    file of :data:`_SERVER_KINDS`, unless a workflow asks for a macOS runner."""
    if mount.how in ("hostPath", "admitted"):
        return False
    if file.kind in (kinds.WORKFLOW, kinds.ACTION) and _MACOS_RUNNER.search(file.text):
        return True
    return file.kind not in _SERVER_KINDS


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
    files, Kubernetes hostPath volumes of every workload and of PersistentVolumes (and a
    PodSecurityPolicy whose `allowedHostPaths` reach the socket, or that allows hostPath volumes
    and lists none: high, it admits such pods), devcontainer mounts and runArgs, workflow job
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
    label), the mount is low: the runner's machine is discarded after the job. Folders that
    hold only a desktop's socket (`/tmp`, where Podman machine on macOS keeps its own, medium;
    `~/.docker`, `~/.colima`, `~/Library/Containers`, `~/.rd`, `~/.orbstack`, `~/.lima`) count
    where a developer's machine makes the mount (Compose, a dev container, `docker run` in a
    script, a workflow asking for a macOS runner), not in a Kubernetes hostPath or a policy's
    `allowedHostPaths`, a Nomad job, a systemd unit or a CI job, whose hosts have no such socket.

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
            found = runtime_socket(path, desktop=_on_desktop(file, mount)) if path else ""
            if mount.how == "admitted":
                if found:
                    yield _admitted(box.label, mount, found)
                continue
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


#: Why a read-only mount of the engine's state is still reported (RS003).
_READ_ONLY_STATE = (
    "read-only, which is not recursive on Docker before v25 nor on Kubernetes without "
    "recursiveReadOnly: running containers' root filesystems, mounted below, stay writable "
    "(measured on Docker 20.10.24); and every container's files and environment are read"
)
#: The mounts that are not a host folder shared with a running container.
_NOT_HOST_FOLDERS = ("declared", "admitted", "copy")


@rule(
    "RS003",
    "runtime-state-mount",
    category="runtime-socket",
    severity="high",
    kinds=CONTAINER_KINDS,
    triggers=("/var", "/run"),
)
def runtime_state_mount(file: SourceFile) -> Iterator[Hit]:
    """The container engine's state folder on the host is mounted into a container.

    `/var/lib/docker` (images, every container's layers, configuration and volumes),
    `/var/lib/containerd`, `/run/containerd` below its socket (running containers' root
    filesystems), k0s's `/var/lib/k0s/containerd` and `/run/k0s/containerd`, Podman's and
    CRI-O's `/var/lib/containers` and `/run/containers`, the
    kubelet's `/var/lib/kubelet/pods` (every pod's volumes, tokens and secrets) and
    `/var/lib/kubelet/pki`, a folder inside one of them, or a folder that holds one (`/var/lib`,
    `/var/lib/kubelet`), in Compose volumes (both syntaxes), Kubernetes hostPath volumes,
    devcontainer mounts, `docker run -v/--mount` and the other places RS001 reads; and a
    PodSecurityPolicy whose `allowedHostPaths` prefix reaches one (medium: it admits such pods,
    it runs none; low when the prefix is `readOnly: true`). A read-only
    mount (`:ro`, `readOnly: true` in every container that mounts the volume) is medium: Docker
    before v25 and Kubernetes without `recursiveReadOnly` do not make the folders mounted below
    it read-only, and a running container's root filesystem is such a folder (measured here: a
    file written through `-v /var/lib/docker:/d:ro` appeared in another container). Folders
    that hold a runtime socket as well (`/run`, `/var`, `/`) are RS001's. A named volume or a
    project folder mounted at `/var/lib/docker` (Docker-in-Docker's own storage) is not the
    host's state and is not reported; nor are the kubelet's plugin folders.

    Why:
    The engine runs what is in those folders as root. A container that writes there changes
    other containers' files and the images they start from (a privileged container's binary,
    a configuration the engine reads when it restarts), and reads their secrets: root on the
    host without the socket.

    Fix:
    Do not mount the engine's state. A monitor that needs container metrics reads them through
    a read-only mount on an engine that makes it recursive (Docker v25+, `recursiveReadOnly:
    Enabled`), or through the engine's API from outside the sandbox.

    Example:
    services: {agent: {volumes: ["/var/lib/docker:/var/lib/docker"]}}
    """
    for box in containers(file):
        for mount in box.mounts:
            if (mount.how in _NOT_HOST_FOLDERS and mount.how != "admitted") or not mount.source:
                continue
            state, relation = runtime_state(mount.source)
            if not state:
                continue
            holds = RUNTIME_STATE[state]
            what = {"parent folder": f"a folder that holds {state}, {holds}", "inside": f"inside {state}, {holds}"}.get(
                relation, holds
            )
            if mount.how == "admitted":
                yield _admitted_state(box.label, mount, what)
                continue
            yield Hit(
                mount.pos,
                f"{box.label} mounts {mount.source}{' read-only' if mount.read_only else ''}: {what}{via(mount)}",
                severity="medium" if mount.read_only else "",
                why=_READ_ONLY_STATE if mount.read_only else "",
            )


@rule(
    "RS004",
    "host-service-socket-mount",
    category="runtime-socket",
    severity="high",
    kinds=CONTAINER_KINDS,
    triggers=("dbus", "/bus", "systemd", "snapd"),
)
def host_service_socket_mount(file: SourceFile) -> Iterator[Hit]:
    """A host service's socket that runs commands on the host is mounted into a container.

    The host's system D-Bus (`/run/dbus/system_bus_socket`, or its folder `/run/dbus`; also
    under `/var/run`), systemd's private socket (`/run/systemd/private`, or `/run/systemd`), a
    user's session bus (`/run/user/UID/bus`, `$XDG_RUNTIME_DIR/bus`) and snapd's API
    (`/run/snapd.socket`), in every place RS001 reads a mount (Compose volumes, Kubernetes
    hostPath volumes, devcontainer mounts, `docker run -v/--mount`, ...). A read-only mount is
    reported the same: `:ro` does not stop a process from connecting to a socket. Folders above
    these (`/run`, `/var/run`, `/`) hold a runtime socket as well and are RS001's.

    Why:
    These services act for whoever connects. Root in the container is root on the bus, and
    systemd on the system bus starts any command as a unit on the host (`systemd-run` does no
    more); the session bus does the same as the host user; snapd installs software as root.
    Home automation, Bluetooth and monitoring containers mount the system bus by design, so the
    finding is often kept, but it is a way out of the container that needs no runtime socket.

    Fix:
    Do not mount the host's buses into a container an agent can reach. Where a service needs
    one (Bluetooth, Avahi), run it without an agent beside it, as a non-root user, or talk to
    the host service through a narrower proxy.

    Example:
    services: {agent: {volumes: ["/run/dbus:/run/dbus:ro"]}}
    """
    for box in containers(file):
        for mount in box.mounts:
            if mount.how in _NOT_HOST_FOLDERS or not mount.source:
                continue
            socket, relation = host_service_socket(mount.source)
            if not socket:
                continue
            what = HOST_SERVICE_SOCKETS[socket]
            if relation == "folder":
                what = f"the folder of {socket}, {what}"
            yield Hit(mount.pos, f"{box.label} mounts {mount.source}: {what}{via(mount)}")


_POLICY = "a policy that admits such pods, not a pod that runs"


def _admitted_state(label: str, mount: Mount, what: str) -> Hit:
    """RS003 on a PodSecurityPolicy whose ``allowedHostPaths`` prefix reaches the engine's state:
    one level below a pod that mounts it, as RS001 grades a policy (it admits such pods, it runs
    none); low when the prefix is ``readOnly: true``, which forces the pods' mounts read-only,
    not recursively (the reason RS003 keeps a read-only mount at medium)."""
    if mount.read_only:
        return Hit(
            mount.pos,
            f"{label} lets pods mount {mount.source} read-only: {what}",
            severity="low",
            why=f"{_POLICY}; {_READ_ONLY_STATE}",
        )
    return Hit(mount.pos, f"{label} lets pods mount {mount.source} writable: {what}", severity="medium", why=_POLICY)


def _admitted(label: str, mount: Mount, found: str) -> Hit:
    """RS001 on a PodSecurityPolicy that lets pods mount the socket: high, one level below a pod
    that mounts it (the policy admits such pods, it runs none); the context of a workload that
    names no agent lowers it as it lowers the pods."""
    if mount.source == "/" and not mount.target:
        what = "any host path (it allows hostPath volumes and lists no allowedHostPaths), the runtime socket included"
    elif found == "socket":
        what = f"{mount.source}, the container runtime socket"
    else:
        what = f"{mount.source}, a folder that holds the container runtime socket"
    return Hit(mount.pos, f"{label} lets pods mount {what}", severity="high", why=_POLICY)


_LOCAL_DAEMON = lazy(r"(?i)(?:localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|0\.0\.0\.0)(?::\d{1,5})?/?$")


_HOST_PORT = lazy(r"(?i)^(?P<host>[a-z0-9_][a-z0-9_.-]*)(?::\d{1,5})?/?$")


def _own_dind_hosts(file: SourceFile) -> set[str]:
    """The host names under which a Docker-in-Docker daemon of this same project or job answers:
    a Compose service running a dind image (its service name, ``hostname``, ``container_name``,
    network ``aliases`` and ``links`` aliases to it), a GitLab job's dind service (its ``alias``es
    and the names GitLab derives from its image: ``docker:27-dind`` is ``docker``) and a GitHub
    job's dind service (its key). Lower-cased."""
    names: set[str] = set()
    if file.kind == kinds.COMPOSE:
        for document in file.documents:
            services = document.get("services") if isinstance(document, PMap) else None
            if isinstance(services, PMap):
                names |= _compose_dind_names(services)
    elif file.kind in (kinds.GITLAB_CI, kinds.WORKFLOW):
        for node in file.mappings():
            services = node.get("services")
            if file.kind == kinds.WORKFLOW and isinstance(services, PMap):
                names |= {str(k) for k, v in services.items() if isinstance(v, PMap) and is_dind(_image(v))}
            elif file.kind == kinds.GITLAB_CI and isinstance(services, PSeq):
                names |= {n for service in services for n in _gitlab_service_names(service)}
    return {name.lower() for name in names if name}


def _image(spec: PMap) -> str:
    image = spec.get("image")
    return str(image) if isinstance(image, str) else ""


def _compose_dind_names(services: PMap) -> set[str]:
    dind = {str(k) for k, v in services.items() if isinstance(v, PMap) and is_dind(_image(v))}
    names = set(dind)
    for key, spec in services.items():
        if not isinstance(spec, PMap):
            continue
        if str(key) in dind:
            names |= {str(spec[k]) for k in ("hostname", "container_name") if isinstance(spec.get(k), str)}
            networks = spec.get("networks")
            for network in networks.values() if isinstance(networks, PMap) else ():
                aliases = network.get("aliases") if isinstance(network, PMap) else None
                names |= {str(a) for a in aliases if isinstance(a, str)} if isinstance(aliases, PSeq) else set()
        links = spec.get("links")
        for link in links if isinstance(links, PSeq) else ():
            target, _, alias = str(link).partition(":")
            if target in dind and alias:
                names.add(alias)
    return names


def _gitlab_service_names(service: object) -> set[str]:
    """The host names of a GitLab service when it runs a dind image: its ``alias`` (one name, or
    several split by commas or spaces) and the names GitLab makes of the image without its tag
    (``/`` becoming ``__`` and ``-``)."""
    image = service.get("name") if isinstance(service, PMap) else service
    if not isinstance(image, str) or not is_dind(image):
        return set()
    alias = service.get("alias") if isinstance(service, PMap) else None
    names = set(re.split(r"[\s,]+", alias.strip())) if isinstance(alias, str) else set()
    bare = re.sub(r"(?::[\w.-]+)?(?:@sha256:\w+)?$", "", image.strip(), count=1)
    return names | {bare.replace("/", "__"), bare.replace("/", "-")}


def _host_process_settings(file: SourceFile) -> set[Pos]:
    """Where a systemd service unit sets its own processes' environment (``[Service]
    Environment=``). systemd starts them on the host, so a unix DOCKER_HOST there points the
    host's own docker client at the host's own socket, as it would by default. A Quadlet
    ``[Container]`` section and ``docker run -e`` in ExecStart give it to a container: those stay."""
    if file.kind != kinds.SYSTEMD:
        return set()
    from sandkit.lint.facts.units import unit_environment

    return {setting.pos for setting in unit_environment(file)}


#: File kinds whose shell commands are read for ``dockerd`` (scripts, recipes, Dockerfile RUN
#: lines, Jenkins ``sh`` steps).
_SHELL_KINDS = (kinds.SHELL, kinds.MAKEFILE, kinds.JUSTFILE, kinds.DOCKERFILE, kinds.JENKINSFILE)


def _daemon_commands(file: SourceFile) -> Iterator[list[Word]]:
    """The arguments of every ``dockerd`` command line the file runs on a host, a runner or in a
    Dockerfile (its RUN, CMD and ENTRYPOINT)."""
    commands: list[Command] = []
    if file.kind in _SHELL_KINDS:
        commands += file.commands
    if file.kind == kinds.DOCKERFILE:
        for ins in file.instructions:
            if ins.keyword in ("CMD", "ENTRYPOINT"):
                commands += file.commands_in_instruction(ins)
    elif file.kind in (kinds.WORKFLOW, kinds.ACTION):
        for node in file.mappings():
            run = node.get("run")
            if isinstance(run, PStr):
                commands += file.commands_in(run)
    elif file.kind in CI_SCRIPT_KINDS:
        for script in ci_scripts(file):
            commands += file.commands_in(script)
    elif file.kind == kinds.SYSTEMD:
        from sandkit.lint.facts.units import service_commands

        commands += service_commands(file)
    for command in commands:
        program, index = command.program()
        if program == "dockerd":
            yield command.words[index + 1 :]


def _located(file: SourceFile, text: str, after: Pos) -> Pos:
    """Where ``text`` is first written at or after ``after`` (``after`` itself when it is not)."""
    start = sum(len(line) + 1 for line in file.lines[: max(after.line - 1, 0)]) + max(after.column - 1, 0)
    found = file.text.find(text, start) if text else -1
    return file.pos_at(found) if found >= 0 else after


def _daemon_listeners(file: SourceFile) -> Iterator[Hit]:
    """A Docker daemon that listens on TCP without verifying its clients (see RS002's doc), once
    per place (a Dockerfile's CMD is read as a command line and as its image's command)."""
    seen: set[Pos] = set()
    for hit in _daemon_hits(file):
        if hit.pos not in seen:
            seen.add(hit.pos)
            yield hit


#: How bad a client of the project's own socket proxy is, by what the proxy lets through.
_PROXY_GRADES = {
    "create": ("", ""),
    "control": ("medium", "it starts, stops or restarts the host's containers but creates none"),
    "read containers": ("medium", "read-only, but every container's environment (its secrets) is read"),
    "read": ("low", "read-only, and no container's configuration"),
}


def _at_proxy(pos: Pos, value: str, proxy: Proxy) -> Hit:
    """RS002 on DOCKER_HOST naming the project's own socket proxy: the host's daemon, behind what
    the proxy lets through (see :mod:`sandkit.lint.facts.socket_proxy`)."""
    severity, why = _PROXY_GRADES[proxy.level]
    image = f" ({proxy.image})" if proxy.image else ""
    return Hit(
        pos,
        f"DOCKER_HOST={value} points at this project's socket proxy {proxy.label}{image}, in front of the host's "
        f"Docker daemon: {proxy.allows}",
        severity=severity,
        why=why,
    )


def _published_daemons(file: SourceFile) -> Iterator[Hit]:
    """A Compose service that answers the Docker API without TLS on its port 2375 (a socket proxy,
    a ``dockerd -H tcp://`` without ``--tlsverify``, a dind image with DOCKER_TLS_CERTDIR empty)
    and publishes that port on the host: every process of the host reaches the daemon, and every
    machine of the network when the port is not bound to 127.0.0.1."""
    if file.kind != kinds.COMPOSE:
        return
    boxes = containers(file)
    proxies = {proxy.label: proxy for proxy in socket_proxies(file, boxes).values()}
    for _name, spec, box in compose_services(file, boxes):
        proxy = proxies.get(box.label)
        ports = _plain_daemon_ports(box, proxy)
        for published in published_ports(spec) if ports else ():
            if published.container_port not in ports:
                continue
            where = published.host_ip or "every interface"
            what = (
                f"{box.label} publishes its Docker API port {published.container_port} on the host ({where}) "
                f"without TLS: {ports[published.container_port]}"
            )
            severity, reasons = "high", []
            if loopback(published.host_ip):
                severity = "medium"
                reasons.append("bound to 127.0.0.1: only this machine's processes reach it, but all of them")
            else:
                what += "; any machine that reaches the host's port reaches the daemon"
            if proxy is not None and proxy.level != "create":
                severity = "low" if severity == "medium" else "medium"
                reasons.append(_PROXY_GRADES[proxy.level][1])
            yield Hit(published.pos, what, severity="" if severity == "high" else severity, why="; ".join(reasons))


def _plain_daemon_ports(box: Container, proxy: Proxy | None) -> dict[str, str]:
    """The container ports on which ``box`` answers the Docker API without TLS, each with what
    answers there."""
    if proxy is not None:
        return {PROXY_PORT: f"a socket proxy in front of the host's daemon ({proxy.allows})"}
    tokens = box.command.split()
    daemon = next((i for i, w in enumerate(tokens) if w.strip("\"'[],").rsplit("/", 1)[-1] == "dockerd"), -1)
    if daemon >= 0:
        args = [w for c in parse_commands(" ".join(tokens[daemon + 1 :])) for w in c.words]
        hosts, verify = daemon_hosts(args)
        ports = {h.text.strip("\"'").rstrip("/").rsplit(":", 1)[-1] for h in hosts if tcp_scope(h.text)}
        return {} if verify else {p: "its own Docker daemon" for p in ports if p.isdigit()}
    certdir = next((s for s in reversed(box.env) if s.name == "DOCKER_TLS_CERTDIR"), None)
    if is_dind(box.image) and certdir is not None and certdir.value.strip().strip("\"'") == "":
        return {"2375": "its Docker-in-Docker daemon, DOCKER_TLS_CERTDIR empty"}
    return {}


HOSTED_RUNNER = "a CI job on a hosted runner, whose machine is discarded after the job"
JOB_SERVICE = "a CI job's own Docker-in-Docker service, on the job's network, discarded with the job"


def _daemon_hits(file: SourceFile) -> Iterator[Hit]:
    hosted = HOSTED_RUNNER if _disposable(file) else ""
    for words in _daemon_commands(file):
        hosts, verify = daemon_hosts(words)
        for host in hosts if not verify else ():
            pos = _located(file, host.text, host.pos)
            yield from _listener(f"`dockerd` listens on {host.text}", tcp_scope(host.text), pos, hosted)
    for box in containers(file):
        tokens = box.command.split()
        daemon = next((i for i, w in enumerate(tokens) if w.strip("\"'[],").rsplit("/", 1)[-1] == "dockerd"), -1)
        reported = False
        if daemon >= 0:
            args = [w for c in parse_commands(" ".join(tokens[daemon + 1 :] + tokens[:daemon])) for w in c.words]
            hosts, verify = daemon_hosts(args)
            for host in hosts if not verify else ():
                pos = _located(file, host.text, box.command_pos or box.pos)
                what = f"{box.label} starts a Docker daemon listening on {host.text}"
                for hit in _listener(what, tcp_scope(host.text), pos, hosted):
                    reported = True
                    yield hit
        implicit = is_dind(box.image) and (not tokens or tokens[0].startswith("-"))
        if implicit and not reported:
            yield from _tls_off(box.env, f"{box.label} runs {box.image}", hosted)
    dind = [s.value for box in containers(file) for s in box.setting("dind")]
    if file.kind == kinds.DOCKERFILE:
        stages = [ins.args.split()[0] for ins in file.instructions if ins.keyword == "FROM" and ins.args.split()]
        dind += stages[-1:] if stages and is_dind(stages[-1]) else []
    if dind:  # a GitLab job's dind service, or an image built on dind: the file's variables are its env
        own = hosted or (JOB_SERVICE if _pipeline_service(file) else "")
        yield from _tls_off(environment(file), f"the Docker-in-Docker daemon {dind[0]} runs", own)


def _tls_off(env: list[Setting], runs: str, disposable: str) -> Iterator[Hit]:
    """DOCKER_TLS_CERTDIR set empty for a Docker-in-Docker daemon (the last setting wins): its
    entrypoint then listens on tcp://0.0.0.0:2375 with no TLS."""
    certdir = next((s for s in reversed(env) if s.name == "DOCKER_TLS_CERTDIR"), None)
    if certdir is not None and certdir.value.strip().strip("\"'") == "":
        what = f"{runs} with DOCKER_TLS_CERTDIR empty, so its daemon listens on tcp://0.0.0.0:2375"
        yield from _listener(what, "any", certdir.pos, disposable)


def _listener(what: str, scope: str, pos: Pos, disposable: str) -> Iterator[Hit]:
    """The finding for a daemon that ``what`` says listens where ``scope`` reaches, with no TLS; low
    where ``disposable`` says why whatever reaches it is thrown away with the job."""
    if not scope:
        return
    message = f"{what} without TLS client verification (--tlsverify)"
    if disposable:
        yield Hit(pos, message, severity="low", why=disposable)
    elif scope == "loopback":
        why = "only this machine's (or pod's) processes reach it, but all of them, whatever their user"
        yield Hit(pos, message, severity="medium", why=why)
    else:
        yield Hit(pos, message + ": whoever reaches the port controls the daemon")


@rule(
    "RS002",
    "docker-host-env",
    category="runtime-socket",
    severity="high",
    kinds=ENV_KINDS,
    triggers=(
        *("DOCKER_HOST", "-H", "--host", "--url", "docker.host", SOCKET_OVERRIDE, _PROVIDER_HOST),
        *("dockerd", "DOCKER_TLS_CERTDIR"),
    ),
)
def docker_host_env(file: SourceFile) -> Iterator[Hit]:
    """DOCKER_HOST points at a host socket or a TCP/SSH daemon, or a Docker daemon listens on TCP without TLS.

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
    the privileged category reports. Without TLS it is medium. So is a host name that is a
    Docker-in-Docker service of the same file: a Compose service running a dind image (by its
    name, `hostname`, `container_name`, network alias or `links` alias), a GitLab job's dind
    service (its `alias` or the name GitLab derives from the image, `docker`) or a GitHub job's
    dind service. A plain `:2375` there is reported whatever TLS variables the file sets: medium
    in Compose (every container on the project's network reaches the port), low in a pipeline
    naming no agent (the job's own daemon, as below).

    DOCKER_HOST naming a service of the same Compose project that mounts the host's socket is
    that project's socket proxy, in front of the host's daemon, graded by what the proxy lets
    through: high when it lets clients create or exec containers (Tecnativa's or LinuxServer's
    docker-socket-proxy with `POST=1` and `CONTAINERS`, `EXEC`, `SERVICES` or `PLUGINS`;
    wollomatic's with `-allowPOST`/`SP_ALLOW_POST` on such paths; any other image, socat's,
    taken to pass everything); medium when it starts, stops or restarts containers
    (`ALLOW_START`/`ALLOW_STOP`/`ALLOW_RESTARTS`, other write methods) or reads them
    (`CONTAINERS=1` without `POST`: every container's environment); low when it reads only other
    sections (`EVENTS`, `PING`, `VERSION`).
    A Compose service that answers the Docker API without TLS (such a proxy on its port 2375, a
    `dockerd -H tcp://` without `--tlsverify`, a dind image with DOCKER_TLS_CERTDIR empty) and
    publishes that port on the host (`ports: ["2375:2375"]`, the long syntax): high, any machine
    that reaches the host drives the daemon; medium bound to 127.0.0.1 (every local process
    reaches it); one level lower for a proxy that creates no container. Port 2376 with TLS on is
    not reported.

    The daemon's side too: `dockerd -H tcp://0.0.0.0:2375` (`--host=`, `-Htcp://`) without
    `--tlsverify`, in a script, a workflow or CI step, a Dockerfile RUN, CMD or ENTRYPOINT, a
    systemd `ExecStart=`, a Compose `command`/`entrypoint` or a Kubernetes container's
    `command`/`args`; and a Docker-in-Docker image (`docker:dind`, a GitLab `docker:dind`
    service) with `DOCKER_TLS_CERTDIR` set empty, which makes its entrypoint listen on
    tcp://0.0.0.0:2375 with no TLS. A daemon bound to 127.0.0.1, localhost or [::1] is medium:
    only processes of the same machine or pod reach it, but every one of them does, whatever its
    user (TCP has none of the socket file's permissions). `--tls` without `--tlsverify` encrypts
    and still lets any client in, so it counts as none. In a workflow that names no coding agent
    and runs only on hosted runners, the finding is low: the runner is discarded after the job; so
    is a GitLab, CircleCI or Bitbucket pipeline's Docker-in-Docker service with TLS off (GitLab's
    documented setup), the job's own daemon on the job's own network, where it names no agent.

    Why:
    A plain-TCP daemon (port 2375) has no authentication at all, and a forwarded unix socket
    is the same full control as mounting it: either lets a process start privileged
    containers on the host. A Docker-in-Docker daemon without TLS is reachable from the
    containers it starts, through their gateway: a sandbox started inside it can take it over.

    Fix:
    Remove DOCKER_HOST; build images outside the agent's sandbox (in CI, or in a separate
    container that runs no agent). A daemon listens on its unix socket, or on TCP with
    `--tlsverify` and client certificates (leave DOCKER_TLS_CERTDIR at its default, /certs).
    """
    yield from _daemon_listeners(file)
    yield from _published_daemons(file)
    settings = list(environment(file))
    host_side = _host_process_settings(file)
    own_dind = _own_dind_hosts(file)
    proxies = socket_proxies(file, containers(file))
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
            address = value.split("://", 1)[1]
            host = _HOST_PORT.match(address) if scheme != "ssh" else None
            proxy = proxies.get(host["host"].lower()) if host else None
            if proxy is not None:
                yield _at_proxy(setting.pos, value, proxy)
                continue
            if host and host["host"].lower() in own_dind:
                if not plain and (tls or scheme == "https" or value.rstrip("/").endswith(":2376")):
                    continue  # the project's (or job's) own Docker-in-Docker service behind TLS: PV001's
                yield Hit(
                    setting.pos,
                    f"DOCKER_HOST={value} points at a Docker-in-Docker service of this same project or job without TLS",
                    severity="low" if _pipeline_service(file) else "medium",
                    why=JOB_SERVICE
                    if _pipeline_service(file)
                    else "every container on the project's network reaches that daemon's port, not only this one",
                )
                continue
            if scheme != "ssh" and _LOCAL_DAEMON.match(address):
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
