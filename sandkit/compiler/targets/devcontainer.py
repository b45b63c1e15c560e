"""devcontainer: .devcontainer/devcontainer.json that opens the compose sandbox in an editor.

It reuses compose.yaml, so the same read-only, capability-free agent service behind the same egress
proxy is what the editor attaches to; nothing here loosens it (no privileged mode, no extra
capabilities, no mounts, no features). The agent command is replaced by an idle loop so that a person
can work in the sandbox, and compose.yaml's deadline container still ends the session at resources.timeout.

The kit's ports: compose.yaml publishes them (for an allowlist through its port forwarder, which
runs with the editor's container); ``forwardPorts`` lists the TCP ones for editors that forward
through their own connection to the container (Codespaces, VS Code with a remote engine), but not
an allowlist's ``http: true`` ones, which only the forwarder serves with their headers; and
``otherPortsAttributes`` stops editors from forwarding any port the kit does not list.
"""

from __future__ import annotations

import json
from typing import Any

from sandkit.compiler import workspace_guard
from sandkit.compiler.engine import DEADLINE
from sandkit.compiler.fidelity import (
    PORTS_CAVEATS,
    Fidelity,
    Setting,
    deadline_timeout_row,
    inject_rows,
    manual_only_trigger_row,
    preview_row,
    record_row,
    webhook_unsupported_rows,
)
from sandkit.compiler.forwarder import FORWARDER_SERVICE, forwards
from sandkit.compiler.output import commented_header, header_lines
from sandkit.compiler.plan import AGENT_SERVICE, PROXY_SERVICE, Plan
from sandkit.compiler.proxy import HOST_ADDRESSES_SERVICE, ready_gate_service
from sandkit.compiler.target import Files, RenderContext
from sandkit.compiler.yamlout import dump_yaml

NAME = "devcontainer"
REQUIRES = ("docker", "compose")  # it opens compose.yaml's agent service
FILE = ".devcontainer/devcontainer.json"
OVERRIDE = ".devcontainer/compose.devcontainer.yaml"


def document(plan: Plan) -> dict[str, Any]:
    services = [AGENT_SERVICE, DEADLINE]
    if plan.egress == "allowlist":
        services += [PROXY_SERVICE, HOST_ADDRESSES_SERVICE, READY_GATE_SERVICE]
    if forwards(plan):
        services.append(FORWARDER_SERVICE)
    if workspace_guard.guarded(plan):
        services.append(workspace_guard.SERVICE)
    return {
        "name": f"sandkit {plan.name}",
        "dockerComposeFile": ["../compose.yaml", "compose.devcontainer.yaml"],
        "service": AGENT_SERVICE,
        "runServices": services,
        "workspaceFolder": plan.workspace_path,
        "shutdownAction": "stopCompose",
        "overrideCommand": False,
        "remoteUser": plan.user,
        "updateRemoteUserUID": False,
        "remoteEnv": editor_env(plan),
        "customizations": {"vscode": {"settings": dict(EDITOR_SETTINGS)}},
        **_port_settings(plan),
    }


#: VS Code settings the editor applies in the container: its git extension gives terminals no askpass
#: that would ask the editor (and its GitHub sign-in) for credentials.
EDITOR_SETTINGS = {"git.terminalAuthentication": False, "github.gitAuthentication": False}


def editor_env(plan: Plan) -> dict[str, str]:
    """The kit's env, and an empty git credential helper for every process the editor starts.

    The Dev Containers extension registers a credential helper in the container's git configuration
    that asks the person's machine for their credentials. Configuration given in GIT_CONFIG_* outranks
    every configuration file, and an empty ``credential.helper`` empties the list of helpers, so git
    in the editor's terminals and tasks (and an agent started there) never asks it. After the kit's own
    GIT_CONFIG_* entries, if it has any.
    """
    env = dict(plan.env)
    count = env.get("GIT_CONFIG_COUNT", "0")
    index = int(count) if count.isdigit() else 0
    env.update(
        {
            "GIT_CONFIG_COUNT": str(index + 1),
            f"GIT_CONFIG_KEY_{index}": "credential.helper",
            f"GIT_CONFIG_VALUE_{index}": "",
        }
    )
    return env


def _port_settings(plan: Plan) -> dict[str, Any]:
    """The kit's TCP ports for the editor to forward (it forwards no UDP), and no other port.

    An editor forwards any port it sees a process listen on unless told not to (VS Code's
    ``remote.autoForwardPorts``): the agent would choose what reaches the person's machine. An
    ``http: true`` port the forwarder serves is left out: the editor's own connection would reach
    the application directly, without the forwarder's headers, so it is opened on its published port.
    """
    proxied = forwards(plan)
    tcp = sorted({port.container for port in plan.ports if port.protocol == "tcp" and not (port.http and proxied)})
    settings: dict[str, Any] = {}
    if tcp:
        settings["forwardPorts"] = tcp
        settings["portsAttributes"] = {str(port): {"label": f"agent port {port}"} for port in tcp}
    settings["otherPortsAttributes"] = {"onAutoForward": "ignore"}
    return settings


#: The one-shot container the editor's container waits for (compose.ready_gate_service).
READY_GATE_SERVICE = "ready-gate"


def override_services(plan: Plan) -> dict[str, Any]:
    """The agent's command (the editor's session), and for an allowlist the agent's container started only
    once the proxy and the host guard have written their proofs of readiness.

    compose.yaml starts the agent's container beside them and its entrypoint waits for their proofs;
    but the editor runs its server, terminals and tasks through ``docker exec``, which no entrypoint
    precedes, as soon as the container runs. So here the container itself is started only after a
    gate container that waits for the same files has exited successfully: Compose learns of an exit
    from the engine at once, where a health check is probed once an interval and then polled.
    """
    services: dict[str, Any] = {AGENT_SERVICE: {"command": ["sleep", "infinity"]}}
    if plan.egress == "allowlist":
        services[AGENT_SERVICE]["depends_on"] = {READY_GATE_SERVICE: {"condition": "service_completed_successfully"}}
        services[READY_GATE_SERVICE] = ready_gate_service(plan)
    return services


def render(plan: Plan, context: RenderContext) -> Files:
    header = "".join(f"// {line}\n" for line in header_lines(*plan.header_fields))
    body = json.dumps(document(plan), indent=2, ensure_ascii=True)
    override = {"services": override_services(plan)}
    return {
        FILE: (header + body + "\n").encode(),
        OVERRIDE: (commented_header("#", *plan.header_fields) + dump_yaml(override)).encode(),
    }


#: The reference CLI opens the sandbox in the real engine; the schema test checks nothing is loosened.
UP_PROOF = "tests/compiler/test_devcontainer.py::test_devcontainer_up_keeps_the_sandbox"
NO_PRIVILEGE_PROOF = "tests/compiler/test_devcontainer.py::test_passes_the_dev_container_schema_and_adds_no_privilege"
#: Each setting the editor's container takes from compose.yaml, with the test that shows it holds there.
HELD_BY_COMPOSE: dict[Setting, str] = {
    "network.egress": UP_PROOF,
    "image.user": UP_PROOF,
    "isolation.read_only_root": UP_PROOF,
    "capabilities": NO_PRIVILEGE_PROOF,
    "resources.memory": NO_PRIVILEGE_PROOF,
    "resources.cpus": NO_PRIVILEGE_PROOF,
    "workspace.mode": NO_PRIVILEGE_PROOF,
}


def fidelity(plan: Plan) -> list[Fidelity]:
    held = "the editor attaches to compose.yaml's agent service, which holds it"
    rows = [Fidelity(setting, "enforced", held, proven_by=proof) for setting, proof in HELD_BY_COMPOSE.items()]
    rows.append(
        Fidelity(
            "secrets",
            "best-effort",
            "files under /run/secrets as in compose; the entrypoint exports "
            "them to its own process tree, not to the editor's shells",
            requested=False,
        )
    )
    rows += [
        deadline_timeout_row(plan, "the editor stops compose (or a person does), editor or not"),
        record_row(plan, "compose"),
        Fidelity(
            "agent.command",
            "best-effort",
            "replaced by `sleep infinity` so a person can work in the sandbox; run the agent from a terminal there",
            requested=False,
        ),
        Fidelity(
            "env",
            "enforced",
            "the entrypoint's environment, and remoteEnv for the editor's shells",
            proven_by=UP_PROOF,
        ),
        Fidelity(
            "editor credentials",
            "best-effort",
            "VS Code's Dev Containers extension registers a git credential helper that asks your machine over a "
            "socket in the container, forwards your SSH agent (SSH_AUTH_SOCK, a socket in the container's /tmp) and "
            "copies your ~/.gitconfig into the agent's home. devcontainer.json's remoteEnv gives every process the "
            "editor starts (terminals, tasks, an agent started there) an empty credential.helper in GIT_CONFIG_*, "
            "which outranks every git configuration file, so git there asks no helper, and its settings turn off the "
            "git extension's terminal askpass and GitHub sign-in (git.terminalAuthentication, "
            "github.gitAuthentication). What the configuration cannot turn off: the sockets are the editor's user's, "
            "which is the agent's, so an agent that looks for them can still use them, and the copied ~/.gitconfig "
            "is readable; only your user settings stop them: dev.containers.gitCredentialHelperConfigLocation: none, "
            "dev.containers.copyGitConfig: false, dev.containers.dockerCredentialHelper: false, and the editor "
            "started without SSH_AUTH_SOCK (no setting stops the SSH agent's forwarding), before you open this "
            "sandbox",
            requested=False,
            proven_by=EDITOR_PROOF,
        ),
        Fidelity(
            "editor server",
            "best-effort",
            "an editor that downloads its server into the container needs "
            "its hosts in network.allow; sandkit does not widen the allowlist for it",
            requested=False,
        ),
    ]
    rows += webhook_unsupported_rows(plan)
    rows += inject_rows(
        plan,
        None,
        "the editor attaches to compose.yaml's agent service, whose egress proxy holds the secret",
        "tests/e2e/test_inject.py::test_no_trace_of_the_value_or_the_authority_key_in_the_agents_container",
    )
    if plan.ports:
        rows.append(_ports_fidelity(plan))
    preview = preview_row(plan)
    if preview is not None:
        rows.append(preview)
    trigger = manual_only_trigger_row(plan, "a dev container starts when a person opens it")
    return rows if trigger is None else [*rows, trigger]


#: `devcontainer up` and `exec`: a helper registered as the extension does is not asked in the editor's processes.
EDITOR_PROOF = "tests/e2e/test_ports.py::test_the_dev_container_publishes_the_agents_ports_and_no_other"
PORTS_PROOFS = {
    "allowlist": "tests/e2e/test_ports.py::test_the_dev_container_publishes_the_agents_ports_and_no_other",
    "open": "tests/e2e/test_ports.py::test_open_egress_publishes_the_agents_own_port",
}


def _ports_fidelity(plan: Plan) -> Fidelity:
    if plan.egress == "none":
        return Fidelity(
            "ports",
            "best-effort",
            "with egress none the agent has no network, so compose.yaml publishes nothing; an editor that forwards "
            "through its own connection to the container (forwardPorts) still reaches the TCP ones",
        )
    published = (
        "compose.yaml's port forwarder, which runs with the editor's container,"
        if forwards(plan)
        else ("compose.yaml's agent service")
    )
    return Fidelity(
        "ports",
        "enforced",
        f"{published} publishes each port on its host_ip; forwardPorts lists the TCP ones (not an allowlist's "
        "http ones) for editors that forward through their own connection, and no other port is forwarded "
        "automatically" + PORTS_CAVEATS,
        proven_by=PORTS_PROOFS[plan.egress],
    )
