"""openhands: run OpenHands' own sandbox (its runtime container) from the compiled image.

OpenHands (the server with its Docker runtime) starts a container per conversation itself; sandkit
cannot start it, only configure it:

- ``openhands/config.toml``, the ``[sandbox]`` table of the legacy V0 runtime (OpenHands/OpenHands
  openhands/core/config/sandbox_config.py): OpenHands builds its runtime on top of the compiled image
  (``base_container_image``), runs commands as the kit's uid, attaches the container to the compose
  target's internal network and points its HTTP clients at the egress proxy there;
- ``openhands/openhands.env``, the V1 variables (``docker run --env-file``): the agent-server image and
  the sandbox environment (OpenHands/OpenHands openhands/app_server/sandbox/);
- ``openhands/compose.openhands.yaml``, an overlay for compose.yaml that starts the egress proxy and
  its networks without sandkit's own agent, under a fixed network name OpenHands can join.

OpenHands has no egress allowlist of its own. Its runtime container keeps Docker's default network,
which OpenHands uses to reach it, so only clients that honour the proxy variables are held to the kit's
allowlist; the fidelity report says so.
"""

from __future__ import annotations

import json
from typing import Any

from sandkit.compiler.fidelity import (
    PROVEN_STATICALLY,
    Fidelity,
    Setting,
    inject_rows,
    manual_only_trigger_row,
    webhook_unsupported_rows,
)
from sandkit.compiler.output import commented_header
from sandkit.compiler.plan import AGENT_SERVICE, Plan
from sandkit.compiler.proxy import proxy_env
from sandkit.compiler.target import Files, RenderContext
from sandkit.compiler.tomlout import dump_toml
from sandkit.compiler.yamlout import dump_yaml

NAME = "openhands"
REQUIRES = ("docker", "compose")  # the compiled image, and the compose file the overlay extends
CONFIG = "openhands/config.toml"
ENV_FILE = "openhands/openhands.env"
OVERLAY = "openhands/compose.openhands.yaml"
#: The profile that keeps sandkit's own agent service down when OpenHands runs the agent instead.
AGENT_PROFILE = "sandkit-agent"


def network_name(plan: Plan) -> str:
    """The internal network's Docker name, fixed by the overlay so OpenHands can name it."""
    return f"sandkit-{plan.name}-sandbox"


def runtime_env(plan: Plan) -> dict[str, str]:
    """What the runtime container's processes get: the kit's env and, with an allowlist, the proxy."""
    env = dict(plan.env)
    if plan.egress == "allowlist":
        env.update(proxy_env(plan.proxy_url))
    return dict(sorted(env.items()))


def sandbox_table(plan: Plan) -> dict[str, Any]:
    table: dict[str, Any] = {
        "base_container_image": plan.image_tag,
        "user_id": plan.uid,
        "use_host_network": False,
        "runtime_startup_env_vars": runtime_env(plan),
    }
    if plan.egress == "allowlist":
        table["additional_networks"] = [network_name(plan)]
    kwargs: dict[str, Any] = {
        "mem_limit": plan.memory_bytes,
        "nano_cpus": round(plan.cpus * 1_000_000_000),
        "pids_limit": plan.pids,
    }
    if plan.docker_runtime:
        kwargs["runtime"] = plan.docker_runtime
    table["docker_runtime_kwargs"] = kwargs
    return table


def v1_environment(plan: Plan) -> dict[str, str]:
    repository, _, tag = plan.image_tag.rpartition(":")
    return {
        "AGENT_SERVER_IMAGE_REPOSITORY": repository,
        "AGENT_SERVER_IMAGE_TAG": tag,
        "AGENT_SERVER_USE_HOST_NETWORK": "false",
        "SANDBOX_USER_ID": str(plan.uid),
        "OH_AGENT_SERVER_ENV": json.dumps(runtime_env(plan), ensure_ascii=True, separators=(",", ":")),
    }


def internal_network(compose_yaml: bytes) -> str | None:
    """The key of compose.yaml's ``internal: true`` network (the one the egress proxy guards)."""
    from sandkit.syntax.yaml import load_yaml11  # libyaml: ruamel's pure-Python reader took a third of a build

    networks = (load_yaml11(compose_yaml) or {}).get("networks") or {}
    return next((name for name, spec in networks.items() if (spec or {}).get("internal")), None)


def overlay(plan: Plan, internal: str | None) -> dict[str, Any]:
    """compose.yaml plus this: the proxy and networks come up, sandkit's agent stays down."""
    document: dict[str, Any] = {"services": {AGENT_SERVICE: {"profiles": [AGENT_PROFILE]}}}
    if internal is not None:
        document["networks"] = {internal: {"name": network_name(plan)}}
    return document


def render(plan: Plan, context: RenderContext) -> Files:
    header = commented_header("#", *plan.header_fields)
    internal = internal_network(context.files_of("compose")["compose.yaml"])
    env_lines = "".join(f"{name}={text}\n" for name, text in v1_environment(plan).items())
    # A bare name: `docker run --env-file` takes its value from the environment docker runs in, so the
    # secret reaches OpenHands' app server by reference; LLM_* variables it forwards to the agent server.
    env_lines += "".join(f"{name}\n" for name, _ in plan.secrets)
    return {
        CONFIG: (header + dump_toml({"sandbox": sandbox_table(plan)})).encode(),
        ENV_FILE: (header + env_lines).encode(),
        OVERLAY: (header + dump_yaml(overlay(plan, internal))).encode(),
    }


#: The static proof of what the files say (OpenHands' images cannot be pulled here, so it never runs).
PROOF = "tests/compiler/test_new_targets.py::test_openhands_has_no_allowlist_of_its_own"


def _static(setting: Setting, reason: str) -> Fidelity:
    return Fidelity(setting, "enforced", f"{reason}; {PROVEN_STATICALLY}", proven_by=PROOF)


def fidelity(plan: Plan) -> list[Fidelity]:
    rows = [
        _egress_row(plan),
        Fidelity(
            "network.deny",
            "best-effort" if plan.egress == "allowlist" else "unsupported",
            "the compose proxy refuses denied hosts for clients that use it"
            if plan.egress == "allowlist"
            else "there is no proxy without an allowlist",
            requested=bool(plan.deny),
        ),
        Fidelity(
            "image.base",
            "best-effort",
            "V0 builds its runtime image on top of the compiled image (base_container_image); V1 starts "
            "AGENT_SERVER_IMAGE_REPOSITORY:TAG as its agent server, which the compiled image is only when "
            "image.base is an OpenHands agent-server image",
        ),
        Fidelity(
            "image.user",
            "best-effort",
            f"OpenHands runs the agent's commands as uid {plan.uid} (user_id, SANDBOX_USER_ID) in a runtime it "
            "starts with its own entrypoint and user setup",
        ),
        _static("resources.memory", "docker_runtime_kwargs mem_limit (V0); V1 sets no limit"),
        _static("resources.cpus", "docker_runtime_kwargs nano_cpus (V0); V1 sets no limit"),
        _static("resources.pids", "docker_runtime_kwargs pids_limit (V0); V1 sets no limit"),
        Fidelity(
            "resources.disk",
            "unsupported",
            "OpenHands sets no disk limit",
            requested="resources.disk" in plan.explicit,
        ),
        Fidelity(
            "resources.timeout",
            "unsupported",
            "OpenHands' sandbox timeout bounds one action, not the session; sandkit's entrypoint does not run",
            requested="resources.timeout" in plan.explicit,
        ),
        _static("isolation.runtime", f"docker_runtime_kwargs runtime {plan.docker_runtime} (V0)")
        if plan.docker_runtime
        else Fidelity("isolation.runtime", "best-effort", "Docker's default runtime, as OpenHands starts it"),
        Fidelity(
            "isolation.read_only_root",
            "unsupported",
            "OpenHands' runtime writes to its own root (its server and tools live there)",
            requested="isolation.read_only_root" in plan.explicit,
        ),
        Fidelity(
            "capabilities",
            "unsupported",
            "OpenHands starts its runtime container with Docker's default capabilities",
            requested=False,
        ),
        Fidelity(
            "secrets",
            "best-effort",
            "by name in the V1 variables (docker run --env-file passes each from the environment docker runs "
            "in) to OpenHands' app server, which forwards LLM_* ones to the agent server; V0 takes keys through "
            "its own settings",
        ),
        _workspace_row(plan),
        _static("env", "runtime_startup_env_vars (V0) and OH_AGENT_SERVER_ENV (V1)"),
        Fidelity(
            "agent.command",
            "not applicable",
            "OpenHands is the agent: it runs its own agent in the runtime, not the kit's agent.command",
            requested=False,
        ),
        Fidelity(
            "agent.instructions",
            "best-effort",
            "OpenHands reads AGENTS.md from the repository it works on; sandkit's instruction file is not placed",
        ),
    ]
    if plan.startup or plan.home_files:
        rows.append(
            Fidelity(
                "startup",
                "not applicable",
                "OpenHands starts its own runtime (its entrypoint replaces sandkit's), so it runs the kit's startup "
                "commands and places its home files no more than it runs agent.command; it runs the repository's "
                ".openhands/setup.sh instead",
                requested=False,
            )
        )
    trigger = manual_only_trigger_row(plan, "OpenHands starts a runtime when a conversation starts")
    if trigger is not None:
        rows.append(trigger)
    rows += webhook_unsupported_rows(plan)
    rows += _inject_rows(plan)
    return rows


def _inject_rows(plan: Plan) -> list[Fidelity]:
    """secrets.inject: the compose proxy injects with an authority only sandkit's entrypoint installs."""
    if not plan.proxy_injects:
        return inject_rows(plan, None)
    names = ", ".join(plan.injected_secrets)
    return [
        Fidelity(
            "secrets.inject",
            "unsupported",
            f"the compose proxy injects {names} behind an authority of this sandbox that sandkit's entrypoint "
            "installs, and OpenHands replaces that entrypoint: its runtime trusts neither that authority nor "
            "any other (the compiled image's CA store is the file the entrypoint writes), so its HTTPS fails; "
            "declare the secrets without `inject` for OpenHands",
            requested=False,  # as every inject row: reported on every build, not a --strict failure
        )
    ]


def _egress_row(plan: Plan) -> Fidelity:
    if plan.egress == "allowlist":
        return Fidelity(
            "network.egress",
            "best-effort",
            "OpenHands has no egress allowlist of its own. V0: the runtime joins the compose internal network "
            f"{network_name(plan)} (start it with compose.yaml and {OVERLAY}) and its HTTP clients are pointed "
            "at the allowlist proxy, but the container keeps Docker's default network, through which OpenHands "
            "reaches it, so a process that ignores the proxy variables is not held. V1 attaches no network",
        )
    if plan.egress == "none":
        return Fidelity(
            "network.egress",
            "unsupported",
            "OpenHands reaches its runtime over the network, so the runtime always has one; there is no "
            "way to turn it off",
        )
    return _static("network.egress", "Docker's default network, as the kit asks")


def _workspace_row(plan: Plan) -> Fidelity:
    if plan.workspace_mode in ("mount", "mount-readonly"):
        mode = "ro" if plan.workspace_mode == "mount-readonly" else "rw"
        return Fidelity(
            "workspace.mode",
            "best-effort",
            "OpenHands mounts a host folder only by an absolute path, which a generated file cannot hold: "
            f"start it with SANDBOX_VOLUMES=<absolute path of the kit's workspace.source>:{plan.workspace_path}:{mode} "
            "(or [sandbox] volumes in the same form)",
        )
    if plan.workspace_mode == "clone":
        return Fidelity(
            "workspace.mode",
            "best-effort",
            "OpenHands clones the repository you pick in its interface; sandkit's clone step does not run",
        )
    return _static("workspace.mode", "no workspace is mounted")
