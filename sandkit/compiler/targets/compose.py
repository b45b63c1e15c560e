"""compose: compose.yaml with the hardened agent service and, for an allowlist, the egress proxy.

The agent sits only on an ``internal: true`` network, so the proxy (squid, built from Debian's
packages by egress/Dockerfile) is the one way out, and it allows only the kit's host:port pairs.
"""

from __future__ import annotations

import os
from typing import Any

from sandkit.compiler.engine import tmpfs
from sandkit.compiler.escape import compose_literal
from sandkit.compiler.fidelity import (
    Fidelity,
    engine_runtime_row,
    entrypoint_timeout_row,
    hardened_container_docker_rows,
    inject_rows,
    manual_only_trigger_row,
    proxy_deny_row,
    read_only_row,
    tmpfs_disk_row,
    webhook_unsupported_rows,
)
from sandkit.compiler.inject import CA_VARIABLES, CA_VOLUME, INJECTED_VARIABLE, PATHS
from sandkit.compiler.output import commented_header
from sandkit.compiler.plan import AGENT_SERVICE, PROXY_SERVICE, Egress, Plan, WorkspaceMode
from sandkit.compiler.proxy import proxy_build_context, proxy_env, proxy_image
from sandkit.compiler.target import Files, RenderContext
from sandkit.compiler.yamlout import dump_yaml

NAME = "compose"
REQUIRES = ("docker",)  # its build context
INTERNAL_NET = "sandbox"
OUTSIDE_NET = "outside"
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
    return {
        "read_only": plan.read_only_root,
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges:true"],
        "init": True,
        "restart": "no",
        "privileged": False,
    }


def _workspace(plan: Plan, context: RenderContext) -> tuple[list[Any], list[str], dict[str, Any]]:
    """(volumes, extra tmpfs, top-level volumes) for the workspace mode."""
    if plan.workspace_mode == "clone":
        return [{"type": "volume", "source": "workspace", "target": plan.workspace_path}], [], {"workspace": {}}
    if plan.workspace_mode == "none" or plan.workspace_source is None:
        return [], [tmpfs(plan, plan.workspace_path, owned=True)], {}
    source = os.path.relpath(plan.workspace_source, context.output_folder.resolve())
    mount = {
        "type": "bind",
        "source": source,
        "target": plan.workspace_path,
        "read_only": plan.workspace_mode == "mount-readonly",
        "bind": {"create_host_path": False},
    }
    return [mount], [], {}


def pids_limit(plan: Plan) -> int:
    return plan.pids + (GVISOR_THREADS if plan.docker_runtime == "runsc" else 0)


def agent_service(plan: Plan, context: RenderContext) -> tuple[dict[str, Any], dict[str, Any]]:
    volumes, extra_tmpfs, top_volumes = _workspace(plan, context)
    service: dict[str, Any] = {
        "build": {"context": ".", "dockerfile": "Dockerfile"},
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
    if plan.build_secrets:
        service["build"]["secrets"] = list(plan.build_secrets)
    if plan.docker_runtime:
        service["runtime"] = plan.docker_runtime
    if volumes:
        service["volumes"] = volumes
    injected = plan.injected_secrets if plan.proxy_injects else ()
    if any(name not in injected for name, _ in plan.secrets):
        service["secrets"] = [name for name, _ in plan.secrets if name not in injected]
    if plan.egress == "none":
        service["network_mode"] = "none"
    elif plan.egress == "allowlist":
        service["environment"] = proxy_env(plan.proxy_url) | injected_env(plan)
        if plan.proxy_injects:
            service.setdefault("volumes", []).append(
                {"type": "volume", "source": CA_VOLUME, "target": PATHS.agent_ca, "read_only": True}
            )
        service["networks"] = [INTERNAL_NET]
        service["depends_on"] = {PROXY_SERVICE: {"condition": "service_healthy"}}
    else:
        service["networks"] = [OUTSIDE_NET]
        if plan.ports:
            service["ports"] = [
                {"target": c, "published": str(h or c), "host_ip": ip, "protocol": proto}
                for ip, h, c, proto in plan.ports
            ]
    return service, top_volumes


def injected_env(plan: Plan) -> dict[str, str]:
    """What the agent gets in place of the secrets the proxy injects: placeholders, and trust in the proxy."""
    if not plan.proxy_injects:
        return {}
    return {
        INJECTED_VARIABLE: " ".join(plan.injected_secrets),
        **dict.fromkeys(CA_VARIABLES, PATHS.bundle),
        **dict(plan.placeholders),
    }


def proxy_service(plan: Plan) -> dict[str, Any]:
    service = _plain_proxy_service(plan)
    if plan.proxy_injects:  # the authority's key and the header lines live in a tmpfs of squid's user
        owner = f"uid={plan.uid},gid={plan.uid},mode=0700"
        service["tmpfs"].append(f"{PATHS.dir}:rw,nosuid,nodev,noexec,size=16777216,{owner}")
        service["volumes"] = [{"type": "volume", "source": CA_VOLUME, "target": PATHS.public}]
        service["secrets"] = list(plan.injected_secrets)
    return service


def _plain_proxy_service(plan: Plan) -> dict[str, Any]:
    return {
        "build": {"context": "egress", "dockerfile": "Dockerfile"},
        "image": proxy_image(plan),
        **_hardening(plan),
        "read_only": True,
        "tmpfs": ["/tmp:rw,nosuid,nodev,noexec,size=16777216"],
        "cpus": 0.5,
        "mem_limit": 268435456,
        "pids_limit": 128,
        "networks": [INTERNAL_NET, OUTSIDE_NET],
    }


def compose_document(plan: Plan, context: RenderContext) -> dict[str, Any]:
    agent, top_volumes = agent_service(plan, context)
    services: dict[str, Any] = {AGENT_SERVICE: agent}
    networks: dict[str, Any] = {}
    if plan.egress == "allowlist":
        services[PROXY_SERVICE] = proxy_service(plan)
        networks = {INTERNAL_NET: {"internal": True}, OUTSIDE_NET: {}}
    elif plan.egress == "open":
        networks = {OUTSIDE_NET: {}}
    document: dict[str, Any] = {"name": plan.name, "services": services}
    if networks:
        document["networks"] = networks
    if plan.proxy_injects:
        top_volumes = {**top_volumes, CA_VOLUME: {}}
    if top_volumes:
        document["volumes"] = top_volumes
    if plan.build_secrets:  # a build can read the environment; run-time sources are added in render()
        document["secrets"] = {name: {"environment": name} for name in sorted(plan.build_secrets)}
    return document


EGRESS_REASONS: dict[Egress, str] = {
    "allowlist": "agent only on an internal network; squid allows only the listed host:port "
    "pairs and refuses IP literals and private, loopback and link-local addresses",
    "none": "network_mode: none",
    "open": "a normal network, as the kit asks (the linter reports open egress)",
}
EGRESS_PROOFS: dict[Egress, str] = {
    "allowlist": "tests/e2e/test_egress.py::test_no_direct_route_and_no_outside_dns",
    "none": "tests/e2e/test_egress.py::test_egress_none_reaches_nothing_not_even_the_proxy",
    "open": "",
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
        tmpfs_disk_row(),
        entrypoint_timeout_row(),
        Fidelity(
            "secrets",
            "enforced",
            "run-time secrets from host files named by NAME_FILE, bind-mounted "
            "read-only under /run/secrets (an environment source cannot reach a read-only root); "
            "build secrets from the host's environment as BuildKit secret mounts",
            proven_by="tests/e2e/test_secrets.py::test_runtime_secret_is_exported_from_run_secrets",
        ),
        Fidelity(
            "workspace.mode", "enforced", _workspace_reason(plan), proven_by=WORKSPACE_PROOFS[plan.workspace_mode]
        ),
        engine_runtime_row(
            plan,
            f"runtime: {plan.docker_runtime}",
            (
                "tests/e2e/test_isolation.py::test_gvisor_runs_the_agent_under_runsc",
                f"{E2E_CONTAINMENT}::test_no_capabilities_and_no_new_privileges",
            ),
        ),
        *hardened_container_docker_rows(plan),
    ]
    if plan.ports:
        published = plan.egress == "open"
        rows.append(
            Fidelity(
                "ports",
                "enforced" if published else "unsupported",
                "published on the given host address"
                if published
                else "Docker does not publish ports of a container on an internal network",
            )
        )
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
    "clone": "tests/e2e/test_workspace.py::test_clone_comes_from_the_git_server_through_the_proxy",
    "mount": "tests/e2e/test_workspace.py::test_mount_is_the_host_folder_read_write",
    "mount-readonly": "tests/e2e/test_workspace.py::test_mount_readonly_can_be_read_but_not_written",
    "none": "tests/e2e/test_workspace.py::test_workspace_none_is_an_empty_folder_the_agent_can_write",
}


def _workspace_reason(plan: Plan) -> str:
    return {
        "clone": "the entrypoint clones into a named volume on first start",
        "mount": "bind mount of the host folder, read-write",
        "mount-readonly": "bind mount of the host folder, read-only",
        "none": "an empty tmpfs",
    }[plan.workspace_mode]
