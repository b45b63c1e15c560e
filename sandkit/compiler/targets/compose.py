"""compose: compose.yaml with the hardened agent service, its deadline and, for an allowlist, the proxy.

The services (docs/compose.md draws them):

- ``agent``: the kit's image, hardened; for an allowlist only on the ``sandbox`` network, which is
  ``internal: true`` and has no gateway address on the host (``inhibit_ipv4``), so the one thing
  it reaches is the proxy; its workspace a tmpfs that is empty at every start (or the mounted
  folder, whose ``.git`` is read-only).
- ``deadline``: a container of another uid whose PID namespace the agent joins; when its
  ``sleep`` ends, the kernel ends every process in that namespace, so the agent cannot outlive
  resources.timeout by stopping the process that times it. For an allowlist it is also the host
  guard: on ``sandbox`` alone, it first checks that this machine holds no address on that network
  (a stale bridge holding its gateway address answers there), and ends the session if it does.
- ``egress``: squid, on ``sandbox`` and ``outside``, allowing only the kit's host:port pairs.
- ``host-addresses``: reads this machine's own addresses (in the host's network namespace, with
  nothing else) into a volume, which squid refuses like the non-public ranges.
- the agent's entrypoint runs nothing of the session before the proxy has written that squid enforces
  and the guard that it passed, in a tmpfs volume (``ready``) that the agent mounts read-only.
- ``forwarder`` (an allowlist with ports): socat, on ``sandbox`` and on ``published``, its own
  network, where Docker publishes the kit's ports; it listens only there and forwards only to the
  agent's declared ports (sandkit/compiler/forwarder.py says why it is inbound only).

Every container keeps a bounded json-file log.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sandkit.compiler import inject, record, workspace_guard
from sandkit.compiler.engine import (
    DEADLINE,
    SMALL,
    compose_hardening,
    deadline_command,
    deadline_uid,
    has_workspace_tmpfs,
    shares_pid_namespace,
    tmpfs,
    workspace_tmpfs,
)
from sandkit.compiler.escape import compose_literal
from sandkit.compiler.fidelity import (
    PORTS_CAVEATS,
    SSH_CLONE_PROOF,
    Fidelity,
    clone_access,
    deadline_timeout_row,
    engine_disk_row,
    engine_runtime_row,
    hardened_container_docker_rows,
    inject_rows,
    manual_only_trigger_row,
    ports_without_network_row,
    preview_row,
    proxy_deny_row,
    read_only_row,
    record_row,
    webhook_unsupported_rows,
)
from sandkit.compiler.forwarder import (
    FORWARDER_SERVICE,
    FORWARDER_UID,
    LISTEN_NAME,
    PUBLISHED_NET,
    SYSCTLS,
    forwarder_files,
    forwarder_image,
    forwards,
    http_ports,
    listeners,
    nginx_tmpfs,
)
from sandkit.compiler.forwarder import pids_limit as forwarder_pids_limit
from sandkit.compiler.inject import CA_VOLUME, PATHS
from sandkit.compiler.output import commented_header
from sandkit.compiler.plan import AGENT_SERVICE, PROXY_SERVICE, Egress, Plan, WorkspaceMode
from sandkit.compiler.proxy import (
    HOST_ADDRESSES_DIR,
    HOST_ADDRESSES_FILE,
    HOST_ADDRESSES_SCRIPT,
    HOST_ADDRESSES_SERVICE,
    HOST_GUARD_SCRIPT,
    LISTEN_DIR,
    LISTEN_SCRIPT,
    PROXY_UID,
    READY_DIR,
    READY_GUARD,
    READY_PROXY,
    READY_VARIABLE,
    READY_VOLUME,
    proxy_build_context,
    proxy_env,
    proxy_identity_env,
    proxy_image,
)
from sandkit.compiler.target import Files, RenderContext
from sandkit.compiler.yamlout import Commented, dump_yaml

NAME = "compose"
REQUIRES = ("docker",)  # its build context
INTERNAL_NET = "sandbox"
OUTSIDE_NET = "outside"
#: The sandbox network: internal, and without an address of the host's on it. Docker gives an internal
#: bridge the gateway address all the same, and the host answers there with whatever listens on it (a
#: database, a DNS resolver), and on all its other addresses where the engine routes the container's
#: default route through that gateway (Docker 20.10). inhibit_ipv4 leaves the bridge without the
#: address; without IPv6 the container has no address to reach the host's link-local one from either.
SANDBOX_NETWORK: dict[str, Any] = {
    "driver": "bridge",
    "internal": True,
    "enable_ipv6": False,
    "driver_opts": {"com.docker.network.bridge.inhibit_ipv4": "true"},
}
#: The forwarder's network (an allowlist with ports): an ordinary bridge, since Docker publishes ports only
#: through a network with a gateway, that it is alone on; it masquerades nothing, so the forwarder
#: answers connections that arrive but has no way out of its own.
PUBLISHED_NETWORK: dict[str, Any] = {
    "driver": "bridge",
    "enable_ipv6": False,
    "driver_opts": {"com.docker.network.bridge.enable_ip_masquerade": "false"},
}
#: The proxy's and the host guard's health checks: whether each has written its proof of readiness
#: (READY_VOLUME). The agent does not wait on them: its entrypoint waits for the files themselves, every
#: 20 ms, while an engine before 25 runs a first probe one interval after the start (it has no
#: start_interval) and Compose polls the health. They are for `docker compose ps`, `up --wait` and the
#: dev container; each probe is an exec in the container for as long as the session lasts, so they
#: come seldom (their CPU at idle: bench/README.md). retries covers two minutes of a slow start.
READY_PROBE = {"interval": "2s", "timeout": "2s", "retries": 60}
#: The host's addresses live in a tmpfs: it is gone when the session's last container stops, so a
#: later start never reads an earlier start's file (squid and the host guard wait for this start's,
#: not for a health check of the writer).
HOST_ADDRESSES_VOLUME = {
    "driver_opts": {"type": "tmpfs", "device": "tmpfs", "o": f"size=65536,uid={PROXY_UID},gid={PROXY_UID},mode=0755"}
}
#: Under runsc the container's pids cgroup also counts the gVisor kernel's own host threads (about
#: 70 at start on two cores, more under load), and runsc dies when it cannot start one; this
#: headroom keeps a small `pids` from killing the sandbox itself.
GVISOR_THREADS = 256


def render(plan: Plan, context: RenderContext) -> Files:
    header = commented_header("#", *plan.header_fields)
    document = _escape(compose_document(plan, context))
    if plan.secrets:  # added after escaping: the one place Compose must interpolate (a path variable)
        document["secrets"] = {**document.get("secrets", {}), **runtime_secret_sources(plan)}
        document["secrets"] = dict(sorted(document["secrets"].items()))
    files = {"compose.yaml": (header + dump_yaml(document)).encode()}
    if plan.egress == "allowlist":
        files.update(proxy_build_context(plan, header))
    if forwards(plan):
        files.update({name: text.encode() for name, text in forwarder_files(plan, header).items()})
    if workspace_guard.guarded(plan):
        files.update({name: text.encode() for name, text in workspace_guard.files(plan, header).items()})
    return files


def _escape(value: Any) -> Any:
    """Every string in the document taken literally by Compose (no $VAR interpolation)."""
    if isinstance(value, dict):
        return {k: _escape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_escape(v) for v in value]
    return compose_literal(value) if isinstance(value, str) else value


def secret_file_variable(name: str) -> str:
    return f"{name}_FILE"


def runtime_secret_sources(plan: Plan) -> dict[str, Any]:
    """Run-time secrets come from host files named by ``NAME_FILE``, bind-mounted under /run/secrets.

    Compose copies an ``environment:`` secret into the container's root filesystem, which a
    read-only root refuses ("container rootfs is marked read-only"), so files are the one source
    that works with the hardened service. Unset, the variable falls back to /dev/null: an empty
    file, which the entrypoint treats as a missing secret (a required one stops the agent with a
    message). Secret names are validated environment names, so the interpolation is safe.
    """
    return {name: {"file": f"${{{secret_file_variable(name)}:-/dev/null}}"} for name, _ in plan.secrets}


def _hardening(plan: Plan) -> dict[str, Any]:
    return compose_hardening(read_only=plan.read_only_root)


def _bind(path: Path, target: str, context: RenderContext, *, read_only: bool) -> dict[str, Any]:
    return {
        "type": "bind",
        "source": os.path.relpath(path, context.output_folder.resolve()),
        "target": target,
        "read_only": read_only,
        "bind": {"create_host_path": False},
    }


def _workspace(plan: Plan, context: RenderContext) -> tuple[list[Any], list[str]]:
    """(volumes, extra tmpfs) for the workspace mode: a fresh tmpfs, or the host folder."""
    if has_workspace_tmpfs(plan) or plan.workspace_source is None:  # the second for mypy: the first says it
        return [], [workspace_tmpfs(plan)]
    mounts = [_bind(plan.workspace_source, plan.workspace_path, context, read_only=plan.workspace_mode != "mount")]
    if plan.workspace_git is not None:
        mounts.append(_bind(plan.workspace_git, f"{plan.workspace_path}/.git", context, read_only=True))
    return mounts, []


def pids_limit(plan: Plan) -> int:
    return plan.pids + (GVISOR_THREADS if plan.docker_runtime == "runsc" else 0)


def _agent_build(plan: Plan) -> dict[str, Any]:
    build: dict[str, Any] = {"context": ".", "dockerfile": "Dockerfile"}
    if plan.build_secrets:
        build["secrets"] = list(plan.build_secrets)
    return build


def _proxy_build() -> dict[str, Any]:
    return {"context": "egress", "dockerfile": "Dockerfile"}


def agent_service(plan: Plan, context: RenderContext) -> dict[str, Any]:
    volumes, extra_tmpfs = _workspace(plan, context)
    service: dict[str, Any] = {
        "build": _agent_build(plan),
        "image": plan.image_tag,
        "user": f"{plan.uid}:{plan.uid}",
        **_hardening(plan),
        "tmpfs": [tmpfs(plan, "/tmp", owned=False), tmpfs(plan, plan.home, owned=True), *extra_tmpfs],
        "cpus": plan.cpus,
        "mem_limit": plan.memory_bytes,
        "memswap_limit": plan.memory_bytes,
        "pids_limit": pids_limit(plan),
        "stdin_open": False,
        "tty": False,
    }
    if plan.docker_runtime:
        service["runtime"] = plan.docker_runtime
    if shares_pid_namespace(plan):
        service["pid"] = f"service:{DEADLINE}"
    depends_on: dict[str, Any] = {DEADLINE: {"condition": "service_started"}}
    if workspace_guard.guarded(plan):  # its manifest of the folder is written before the agent starts
        depends_on[workspace_guard.SERVICE] = {"condition": "service_healthy"}
    if volumes:
        service["volumes"] = volumes
    injected = plan.injected_secrets if plan.proxy_injects else ()
    if any(name not in injected for name, _ in plan.secrets):
        service["secrets"] = [name for name, _ in plan.secrets if name not in injected]
    if plan.egress == "none":
        service["network_mode"] = "none"
    elif plan.egress == "allowlist":
        service["environment"] = proxy_env(plan.proxy_url) | inject.agent_env(plan)
        if plan.proxy_injects:
            service.setdefault("volumes", []).append(
                {"type": "volume", "source": CA_VOLUME, "target": PATHS.agent_ca, "read_only": True}
            )
        service["networks"] = [INTERNAL_NET]
        # Started, not healthy: the entrypoint waits for their proofs (READY_VOLUME) before anything else.
        service["environment"][READY_VARIABLE] = "wait"
        service.setdefault("volumes", []).append(_ready_volume(read_only=True))
        for helper in (PROXY_SERVICE, HOST_ADDRESSES_SERVICE):  # `compose run` starts them too
            depends_on[helper] = {"condition": "service_started"}
        if forwards(plan):  # `docker compose run` starts it too
            depends_on[FORWARDER_SERVICE] = {"condition": "service_started"}
    else:
        service["networks"] = [OUTSIDE_NET]
        if plan.ports:
            service["ports"] = published_ports(plan)
    service["depends_on"] = depends_on
    return service


def published_ports(plan: Plan) -> list[dict[str, Any]]:
    """The kit's ports as compose publishes them: each on its host address only, to the same container port."""
    return [
        {"target": port.container, "published": str(port.host_port), "host_ip": port.host_ip, "protocol": port.protocol}
        for port in plan.ports
    ]


def forwarder_service(plan: Plan) -> dict[str, Any]:
    """socat (nginx for HTTP ports), published on the kit's host addresses, forwarding to the agent's
    declared ports and nothing else.

    On ``sandbox`` (to reach the agent) and on ``published`` (where Docker publishes its ports), it
    binds only its ``published`` address, routes nothing and runs as nobody without a capability.
    """
    tmpfs = {"tmpfs": [nginx_tmpfs()]} if http_ports(plan) else {}
    return {
        "build": {"context": "forwarder", "dockerfile": "Dockerfile"},
        "image": forwarder_image(plan),
        "command": listeners(plan),
        "user": f"{FORWARDER_UID}:{FORWARDER_UID}",
        **_hardening(plan),
        "read_only": True,
        **tmpfs,
        "cpus": 0.25,
        "mem_limit": 67108864,
        "memswap_limit": 67108864,
        "pids_limit": forwarder_pids_limit(plan),
        "sysctls": dict(SYSCTLS),
        "networks": {INTERNAL_NET: {}, PUBLISHED_NET: {"aliases": [LISTEN_NAME]}},
        "ports": published_ports(plan),
    }


def deadline_service(plan: Plan) -> dict[str, Any]:
    """The session's end: its init and sleep run as another uid, in the PID namespace the agent joins.

    When the sleep ends, its init exits and the kernel kills every process in the namespace; the
    agent can neither signal nor trace a process of another uid. The agent's image, so nothing more
    is built; its build section too, so `docker compose run` builds rather than pulls it.

    With an allowlist it is the host guard first (:func:`guard_then_deadline`), and runs the proxy's
    image: the guard is in it, and the session record's volume, where it writes its end mark, takes its
    owner and mode from the image folder of the first container that mounts it, which is then the same
    whichever of the two starts first. So it waits for no other helper's start.
    """
    uid = deadline_uid(plan)
    service = {
        "build": _agent_build(plan),
        "image": plan.image_tag,
        "entrypoint": deadline_command(plan),
        "user": f"{uid}:{uid}",
        **_hardening(plan),
        "read_only": True,
        **SMALL,
        "cpus": plan.cpus,  # its init reaps the agent's orphans (a fork bomb's too) as fast as they come
        "network_mode": "none",
    }
    if plan.egress == "allowlist":  # it marks the session record when its time is up
        del service["network_mode"]
        service.update(guard_then_deadline(plan))
    return service


def guard_then_deadline(plan: Plan) -> dict[str, Any]:
    """The deadline's settings for an allowlist: the host guard's check, then the sleep, then the record's mark.

    From the sandbox network alone, as the agent sees it, the guard checks that this machine holds no
    address there (egress/host-guard.sh says how one would answer the agent) and writes its proof
    (READY_GUARD), which the agent's entrypoint waits for. If it refuses, the container exits: its
    init ends the PID namespace the agent shares, and `--abort-on-container-exit` the session. Its
    own container, not a step of the proxy's: the proxy is on ``outside`` too, where this machine is
    the gateway. It listens on nothing; its health check is whether it passed (for `docker compose
    ps`, `up --wait` and the dev container, which wait on it).
    """
    script = f"{HOST_GUARD_SCRIPT} --ready || exit 1; sleep {plan.deadline_seconds}; : > {record.DEADLINE_MARK}"
    return {
        "build": _proxy_build(),
        "image": proxy_image(plan),
        "entrypoint": ["sh", "-c", script],
        "networks": [INTERNAL_NET],
        "volumes": [_record_volume(), {**_host_addresses_volume(), "read_only": True}, _ready_volume(read_only=False)],
        "healthcheck": {"test": ["CMD", "test", "-e", READY_GUARD], **READY_PROBE},
    }


def _record_volume() -> dict[str, Any]:
    """The session record's volume (sandkit/compiler/record.py): the proxy and the deadline alone mount it."""
    return {"type": "volume", "source": record.VOLUME, "target": record.DIR}


def _host_addresses_volume() -> dict[str, Any]:
    return {"type": "volume", "source": HOST_ADDRESSES_SERVICE, "target": HOST_ADDRESSES_DIR}


def _ready_volume(*, read_only: bool) -> dict[str, Any]:
    """Where the proxy and the host guard write their proofs of readiness; the agent mounts it read-only."""
    return {"type": "volume", "source": READY_VOLUME, "target": READY_DIR, "read_only": read_only}


def ready_volume(plan: Plan) -> dict[str, Any]:
    """A tmpfs (empty again when the session's last container using it stops), the host guard's (the
    deadline's uid), which squid's group may write too; nothing else mounts it, but the agent, read-only."""
    options = f"size=65536,uid={deadline_uid(plan)},gid={proxy_uid(plan)},mode=0775"
    return {"driver_opts": {"type": "tmpfs", "device": "tmpfs", "o": options}}


def proxy_uid(plan: Plan) -> int:
    """The uid squid runs as: the agent's for an injecting proxy (it reads the secrets' files), else PROXY_UID."""
    return plan.uid if plan.proxy_injects else PROXY_UID


def host_addresses_service(plan: Plan) -> dict[str, Any]:
    """Writes this machine's own addresses for squid, then waits for the session to end.

    It needs the host's network namespace to see them (a Docker host's public address is on no
    bridge), and nothing else: no capability, a read-only root, one volume; it starts no listener and
    connects nowhere. It stays up rather than exit so that `--abort-on-container-exit` ends the
    session when the agent does, not when this is done.
    """
    write = (
        f"{HOST_ADDRESSES_SCRIPT} > {HOST_ADDRESSES_FILE}.new && mv {HOST_ADDRESSES_FILE}.new {HOST_ADDRESSES_FILE}"
        " && exec sleep infinity"
    )
    return {
        "build": _proxy_build(),
        "image": proxy_image(plan),
        "entrypoint": ["sh", "-c", write],
        "user": f"{PROXY_UID}:{PROXY_UID}",
        **_hardening(plan),
        "read_only": True,
        **SMALL,
        "network_mode": Commented(
            "host", "sandkit: ignore[PV002,EG003] squid's helper, reading this machine's addresses"
        ),
        "volumes": [_host_addresses_volume()],
        # Nothing of the start waits on it (squid and the guard wait for the file), but `up --wait` refuses a
        # service whose health check is disabled, and the image's own is the proxy's: a file test, seldom.
        "healthcheck": {"test": ["CMD", "test", "-e", HOST_ADDRESSES_FILE], **READY_PROBE},
    }


def proxy_service(plan: Plan) -> dict[str, Any]:
    service = _plain_proxy_service(plan)
    if plan.proxy_injects:  # the authority's key and the header lines live in a tmpfs of squid's user
        owner = f"uid={plan.uid},gid={plan.uid},mode=0700"
        service["tmpfs"].append(f"{PATHS.dir}:rw,nosuid,nodev,noexec,size=16777216,{owner}")
        service["volumes"].append({"type": "volume", "source": CA_VOLUME, "target": PATHS.public})
        service["secrets"] = list(plan.injected_secrets)
    return service


def proxy_entrypoint(plan: Plan) -> list[str]:
    """The image's start (squid, or the injecting start script), after LISTEN_SCRIPT has found where to listen.

    On ``outside`` this machine is the gateway: squid listening there would serve every process of
    the Docker host (and inject the kit's secrets into their requests), so it listens on its
    ``sandbox`` address and loopback alone, which only the sandbox's own containers reach.
    """
    start = [PATHS.start_script] if plan.proxy_injects else ["squid", "-N", "-f", "/etc/squid/squid.conf"]
    return [record.SCRIPT, LISTEN_SCRIPT, "--ready", *start]


def _plain_proxy_service(plan: Plan) -> dict[str, Any]:
    listen_owner = proxy_uid(plan)
    return {
        "build": _proxy_build(),
        "image": proxy_image(plan),
        "entrypoint": proxy_entrypoint(plan),
        "environment": proxy_identity_env(plan),  # the image is shared: the record names the kit from these
        **_hardening(plan),
        "read_only": True,
        "tmpfs": [
            "/tmp:rw,nosuid,nodev,noexec,size=16777216",
            f"{LISTEN_DIR}:rw,nosuid,nodev,noexec,size=65536,uid={listen_owner},gid={listen_owner},mode=0755",
            f"{record.CONF_DIR}:rw,nosuid,nodev,noexec,size=65536,uid={listen_owner},gid={listen_owner},mode=0755",
        ],
        "cpus": 0.5,
        "mem_limit": 268435456,
        "pids_limit": 128,
        "volumes": [{**_host_addresses_volume(), "read_only": True}, _record_volume(), _ready_volume(read_only=False)],
        "networks": [INTERNAL_NET, OUTSIDE_NET],
        # It waits for host-addresses' file itself; started, so that `up egress` alone starts the writer too.
        "depends_on": {HOST_ADDRESSES_SERVICE: {"condition": "service_started"}},
        "healthcheck": {"test": ["CMD", "test", "-e", READY_PROXY], **READY_PROBE},
    }


def compose_document(plan: Plan, context: RenderContext) -> dict[str, Any]:
    services: dict[str, Any] = {AGENT_SERVICE: agent_service(plan, context), DEADLINE: deadline_service(plan)}
    networks: dict[str, Any] = {}
    document: dict[str, Any] = {"name": plan.name, "services": services}
    if plan.egress == "allowlist":
        services[PROXY_SERVICE] = proxy_service(plan)
        services[HOST_ADDRESSES_SERVICE] = host_addresses_service(plan)
        networks = {INTERNAL_NET: dict(SANDBOX_NETWORK), OUTSIDE_NET: {}}
        document["volumes"] = {
            HOST_ADDRESSES_SERVICE: dict(HOST_ADDRESSES_VOLUME),
            record.VOLUME: {},
            READY_VOLUME: ready_volume(plan),
        }
        if forwards(plan):
            services[FORWARDER_SERVICE] = forwarder_service(plan)
            networks[PUBLISHED_NET] = dict(PUBLISHED_NETWORK)
    elif plan.egress == "open":
        networks = {OUTSIDE_NET: {}}
    if workspace_guard.guarded(plan):
        services[workspace_guard.SERVICE] = workspace_guard.service(
            plan, _workspace(plan, context)[0], _hardening(plan)
        )
        document.setdefault("volumes", {})[workspace_guard.VOLUME] = {}
    if networks:
        document["networks"] = networks
    if plan.proxy_injects:
        document.setdefault("volumes", {})[CA_VOLUME] = {}
    if plan.build_secrets:  # a build can read the environment; run-time sources are added in render()
        document["secrets"] = {name: {"environment": name} for name in sorted(plan.build_secrets)}
    return document


EGRESS_REASONS: dict[Egress, str] = {
    # proven by EGRESS_PROOFS below, tests/e2e/test_host_guard.py, and tests/e2e/test_egress.py's
    # test_no_direct_route_and_no_outside_dns,
    # test_allowed_names_resolving_to_non_public_addresses_are_refused,
    # test_the_proxy_does_not_reach_the_docker_host_itself, test_only_http_and_connect_pass_the_proxy
    "allowlist": "the agent is only on an internal network on which the host has no address (inhibit_ipv4, no "
    "IPv6, and a guard on that network that keeps the agent from starting if the host holds one of its addresses "
    "after all), so it reaches neither the Docker host nor anything beyond, only the proxy; squid allows only the "
    "listed host:port pairs over HTTP and CONNECT and refuses IP literals, every range IANA's special-purpose "
    "registries do not mark globally reachable, and this machine's own addresses",
    "none": "network_mode: none",
    "open": "a normal network, as the kit asks (the linter reports open egress); the Docker host is reachable on it",
}
EGRESS_PROOFS: dict[Egress, str] = {
    "allowlist": "tests/e2e/test_egress.py::test_the_docker_host_is_out_of_the_agents_reach",
    "none": "tests/e2e/test_egress.py::test_egress_none_reaches_nothing_not_even_the_proxy",
    "open": "tests/e2e/test_egress.py::test_open_egress_is_an_ordinary_network_as_the_kit_asks",
}
E2E_CONTAINMENT = "tests/e2e/test_containment.py"
INJECT_PROOF = "tests/e2e/test_inject.py::test_no_trace_of_the_value_or_the_authority_key_in_the_agents_container"


def fidelity(plan: Plan) -> list[Fidelity]:
    rows = [
        Fidelity("network.egress", "enforced", EGRESS_REASONS[plan.egress], proven_by=EGRESS_PROOFS[plan.egress]),
        proxy_deny_row(plan, "squid refuses denied names before any allow rule"),
        Fidelity(
            "image.user",
            "enforced",
            f"user: {plan.uid}:{plan.uid}",
            proven_by=f"{E2E_CONTAINMENT}::test_agent_runs_as_uid_1000_and_every_process_too",
        ),
        read_only_row(
            plan,
            "read_only: true with tmpfs /tmp and home",
            f"{E2E_CONTAINMENT}::test_root_is_read_only_while_workspace_home_and_tmp_are_writable",
        ),
        Fidelity(
            "capabilities",
            "enforced",
            "cap_drop: [ALL], no-new-privileges, never privileged",
            proven_by=f"{E2E_CONTAINMENT}::test_no_capabilities_and_no_new_privileges",
        ),
        Fidelity(
            "resources.memory",
            "enforced",
            "mem_limit and memswap_limit (no swap)",
            proven_by=f"{E2E_CONTAINMENT}::test_memory_cpu_and_pids_limits_are_in_the_cgroup",
        ),
        Fidelity(
            "resources.cpus",
            "enforced",
            "cpus",
            proven_by=f"{E2E_CONTAINMENT}::test_memory_cpu_and_pids_limits_are_in_the_cgroup",
        ),
        _pids_fidelity(plan),
        engine_disk_row(plan, mounted_folder=plan.workspace_mode == "mount"),
        deadline_timeout_row(plan, "`docker compose up --abort-on-container-exit` stops the others when it exits"),
        Fidelity(
            "secrets",
            "enforced",
            "run-time secrets from host files named by NAME_FILE, bind-mounted "
            "read-only under /run/secrets (an environment source cannot reach a read-only root); "
            "build secrets from the host's environment as BuildKit secret mounts",
            proven_by="tests/e2e/test_secrets.py::test_runtime_secret_is_exported_from_run_secrets",
        ),
        Fidelity(
            "workspace.mode",
            "enforced",
            _workspace_reason(plan) + clone_access(plan),
            proven_by=SSH_CLONE_PROOF if plan.clone_over_ssh else WORKSPACE_PROOFS[plan.workspace_mode],
        ),
        engine_runtime_row(
            plan,
            f"runtime: {plan.docker_runtime}",
            (
                "tests/e2e/test_isolation.py::test_gvisor_runs_the_agent_under_runsc",
                f"{E2E_CONTAINMENT}::test_no_capabilities_and_no_new_privileges",
            ),
        ),
        *_git_fidelity(plan),
        *hardened_container_docker_rows(plan),
        record_row(plan, "compose"),
    ]
    if plan.ports:
        rows.append(_ports_fidelity(plan))
    preview = preview_row(plan)
    if preview is not None:
        rows.append(preview)
    rows += webhook_unsupported_rows(plan)
    rows += inject_rows(
        plan,
        None,
        "the secret's file is mounted into the egress proxy only; squid opens TLS to the injection hosts alone "
        "with an authority made at its start, replaces the header there and refuses the host without the "
        "secret; the agent gets the placeholder",
        INJECT_PROOF,
    )
    trigger = manual_only_trigger_row(
        plan, "compose starts when you run it; use the actions or kubernetes target for schedules and events"
    )
    return rows if trigger is None else [*rows, trigger]


#: The tests of ports: allowlist (the agent's attacks from inside while the host is served), and open.
PORTS_PROOFS = {
    "allowlist": "tests/e2e/test_ports.py::test_the_forwarder_serves_the_host_and_refuses_the_agent",
    "open": "tests/e2e/test_ports.py::test_open_egress_publishes_the_agents_own_port",
}


def _ports_fidelity(plan: Plan) -> Fidelity:
    if plan.egress == "none":
        return ports_without_network_row()
    if plan.egress == "open":
        reason = "the agent's own ports, published on each port's host_ip only"
    else:
        reason = (
            "a forwarder (socat, nginx for http ports) on the sandbox network and on a network of its own publishes "
            "each port on its "
            "host_ip only and forwards it to the agent's port; it listens on none of its sandbox addresses, so the "
            "agent cannot connect to it, and routes nothing: the agent reaches what it reached without ports"
        )
    return Fidelity("ports", "enforced", reason + PORTS_CAVEATS, proven_by=PORTS_PROOFS[plan.egress])


def _pids_fidelity(plan: Plan) -> Fidelity:
    if plan.docker_runtime != "runsc":
        return Fidelity(
            "resources.pids",
            "enforced",
            "pids_limit",
            proven_by="tests/e2e/test_containment.py::test_a_fork_bomb_stops_at_the_pids_limit",
        )
    return Fidelity(
        "resources.pids",
        "best-effort",
        f"under gVisor the engine's pids_limit counts the gVisor kernel's threads, not the agent's "
        f"processes (which are gVisor tasks): pids_limit is {plan.pids} + {GVISOR_THREADS} for them; "
        "a fork bomb ends the whole sandbox at that limit or the memory limit instead of failing forks",
    )


WORKSPACE_PROOFS: dict[WorkspaceMode, str] = {
    "clone": "tests/e2e/test_workspace.py::test_a_session_starts_from_a_clean_workspace",
    "mount": "tests/e2e/test_workspace.py::test_mount_is_the_host_folder_read_write",
    "mount-readonly": "tests/e2e/test_workspace.py::test_mount_readonly_can_be_read_but_not_written",
    "none": "tests/e2e/test_workspace.py::test_workspace_none_is_an_empty_folder_the_agent_can_write",
}


def _workspace_reason(plan: Plan) -> str:
    return {
        "clone": "the entrypoint clones into a tmpfs that is empty at every start: no session inherits another's",
        "mount": "bind mount of the host folder, read-write",
        "mount-readonly": "bind mount of the host folder, read-only",
        "none": "an empty tmpfs at every start",
    }[plan.workspace_mode]


GIT_PROOFS = (
    "tests/e2e/test_workspace.py::test_the_mounted_repositorys_git_folder_is_out_of_the_agents_reach",
    "tests/compiler/test_compose.py::test_a_mounted_repositorys_git_is_read_only_over_it",
)
GUARD_PROOF = (
    "tests/e2e/test_workspace.py::test_what_the_agent_plants_for_git_on_the_host_is_quarantined_when_the_session_ends"
)
#: What the workspace guard does, and what it leaves (sandkit/compiler/workspace_guard.py).
GUARD_REASON = (
    "a repository the agent makes anywhere in the folder (a .git folder or file, a bare-repository-shaped folder), a "
    "change to a nested one and a file named like git configuration are renamed (quarantined) by the "
    "workspace-guard container every 2 s and when the session ends, and listed in its log and SANDKIT-QUARANTINED.txt; "
    "until then (up to 2 s) git on this machine run inside the folder, a git-aware prompt or an editor's git support "
    "may still run what the agent just planted: keep them out of the folder while a session runs"
)


def _git_fidelity(plan: Plan) -> list[Fidelity]:
    """workspace.git: whether the agent can change a .git that git on the host reads (only mode mount can)."""
    if plan.workspace_mode == "mount-readonly":
        reason = "the whole host folder, its .git with it, is mounted read-only"
        return [Fidelity("workspace.git", "enforced", reason, proven_by=WORKSPACE_PROOFS[plan.workspace_mode])]
    if plan.workspace_mode != "mount":
        reason = "no folder of the host is in the sandbox: a .git in the workspace is the sandbox's own"
        return [Fidelity("workspace.git", "enforced", reason, proven_by=WORKSPACE_PROOFS[plan.workspace_mode])]
    if plan.workspace_git is None and plan.workspace_git_writable:
        reason = "writable, as the kit asks: git on the host runs what the agent writes in .git (the linter reports it)"
        return [Fidelity("workspace.git", "enforced", reason, proven_by=GIT_PROOFS[1])]
    if plan.workspace_git is not None:
        top = "the repository's .git is bind-mounted read-only over the folder, so the agent cannot write its hooks or "
        top += "configuration; "
    else:
        top = "the folder held no .git when this was compiled, so none is mounted read-only (build again once it is a "
        top += "repository; sandkit build --check notices); "
    requested = plan.workspace_git is not None
    return [Fidelity("workspace.git", "best-effort", top + GUARD_REASON, requested=requested, proven_by=GUARD_PROOF)]
