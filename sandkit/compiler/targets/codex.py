"""codex: the Codex CLI's own sandbox settings, for Codex run on a developer's host.

``CODEX_HOME=codex codex exec ...`` (or the file merged into ``~/.codex/config.toml``) runs Codex with
its sandbox in workspace-write mode (read-only when the kit's workspace is), no network for the
commands it runs unless the kit's egress is open, no approvals (a failure goes back to the model,
never outside the sandbox), and a shell environment with only the core variables and the kit's env.
The keys are those of codex-rs/core/config.schema.json in openai/codex (commit b724f596), vendored in
tests/compiler/data. tests/sandboxes/test_codex.py runs the Codex CLI (0.171.0) with this file: its
own reading of it (``codex debug prompt-input``, the permissions a session starts with) and its Linux
sandbox (``codex sandbox``) around real commands. ``codex sandbox`` takes the mode only from ``-c
sandbox_mode=...`` or a permission profile, not from config.toml, so the test passes it the file's.
"""

from __future__ import annotations

from typing import Any

from sandkit.compiler.fidelity import Fidelity
from sandkit.compiler.hostsandbox import CODEX_RUN, host_rows
from sandkit.compiler.output import commented_header
from sandkit.compiler.plan import Plan
from sandkit.compiler.target import Files, RenderContext
from sandkit.compiler.tomlout import dump_toml

NAME = "codex"
REQUIRES: tuple[str, ...] = ()
FILE = "codex/config.toml"
#: Command-line switches that replace the sandbox mode this file sets.
SANDBOX_OVERRIDES = ("--sandbox", "-s", "--dangerously-bypass-approvals-and-sandbox", "--yolo", "--full-auto")


def sandbox_mode(plan: Plan) -> str:
    return "workspace-write" if plan.workspace_mode in ("clone", "mount") else "read-only"


def config(plan: Plan) -> dict[str, Any]:
    document: dict[str, Any] = {
        "sandbox_mode": sandbox_mode(plan),
        "approval_policy": "never",
        "web_search": "live" if plan.egress == "open" else "disabled",
    }
    if sandbox_mode(plan) == "workspace-write":
        document["sandbox_workspace_write"] = {
            "network_access": plan.egress == "open",
            "exclude_tmpdir_env_var": False,
            "exclude_slash_tmp": False,
        }
    document["shell_environment_policy"] = {"inherit": "core", "set": dict(plan.env)}
    return document


def render(plan: Plan, context: RenderContext) -> Files:
    header = commented_header("#", *plan.header_fields)
    return {FILE: (header + dump_toml(config(plan))).encode()}


def fidelity(plan: Plan) -> list[Fidelity]:
    confined = "Codex's sandbox refuses the write"
    rows = [
        _egress_row(plan),
        *host_rows(plan, "Codex's sandbox", denies_reads=False, confined=confined, run=CODEX_RUN),
    ]
    rows += [
        Fidelity(
            "network.deny",
            "enforced" if plan.egress != "open" else "unsupported",
            "commands get no network at all" if plan.egress != "open" else "Codex has no deny list",
            requested=bool(plan.deny),
            proven_by=CODEX_RUN if plan.egress != "open" else "",
        ),
        Fidelity(
            "secrets",
            "best-effort",
            "Codex reads its key from the environment it is started with; its commands get only the core "
            "variables and the kit's env (shell_environment_policy), not the secrets",
            proven_by=CODEX_RUN,
        ),
        Fidelity(
            "env",
            "enforced",
            "shell_environment_policy.set, for the commands Codex runs",
            proven_by=CODEX_RUN,
        ),
    ]
    overrides = [arg for arg in plan.command if arg in SANDBOX_OVERRIDES]
    if overrides:
        rows.append(
            Fidelity(
                "agent.command",
                "unsupported",
                f"the kit's command passes {', '.join(overrides)}, which would replace this file's sandbox mode: "
                "on the host, run Codex without it (sandkit runs the command only in its containers, where the "
                "container is the boundary)",
                requested=False,
            )
        )
    return rows


def _egress_row(plan: Plan) -> Fidelity:
    if plan.egress == "open":
        return Fidelity(
            "network.egress",
            "best-effort",
            "network_access = true, as the kit asks, opens more than the internet: the commands share the host's "
            "network, so they reach its loopback services and connect to its Unix sockets (a Docker daemon's, "
            "for a user who may use it, is a way out of the sandbox)",
            proven_by=CODEX_RUN,
        )
    if plan.egress == "none":
        return Fidelity(
            "network.egress",
            "enforced",
            "commands Codex runs have no network; Codex itself still reaches its API, outside the sandbox",
            proven_by=CODEX_RUN,
        )
    return Fidelity(
        "network.egress",
        "best-effort",
        "Codex's sandbox has no domain allowlist in these settings: commands get no network at all (stricter "
        "than the kit, and the kit's hosts are unreachable from them); Codex's own API calls are outside it",
        proven_by=CODEX_RUN,
    )
