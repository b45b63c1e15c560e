"""What the process-sandbox targets (srt, claude-code, codex) share: an agent on a developer's host.

These sandboxes wrap a process on the host with the operating system's own mechanisms (bubblewrap
and seccomp on Linux, Seatbelt on macOS) and a domain-filtering proxy. There is no image, no
container and no separate kernel, so everything the kit says about the image, its limits and its
isolation is reported as unsupported here, once, in the same words for the three targets.
"""

from __future__ import annotations

from sandkit.compiler.fidelity import (
    Fidelity,
    Setting,
    inject_rows,
    manual_only_trigger_row,
    webhook_unsupported_rows,
)
from sandkit.compiler.plan import Destination, Plan

#: Where credentials live on a developer's host: a process-sandboxed agent may not read them (the
#: kit's secrets are references; the agent gets only those, through its environment).
CREDENTIAL_PATHS = (
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.kube",
    "~/.docker",
    "~/.config/gh",
    "~/.git-credentials",
    "~/.netrc",
    "~/.npmrc",
    "~/.pypirc",
)


def domains(destinations: tuple[Destination, ...]) -> list[str]:
    """Host names (and ``*.domain`` wildcards) once each, in the kit's order; ports dropped."""
    return list(dict.fromkeys(d.host for d in destinations))


def writable(plan: Plan) -> list[str]:
    """Where the agent may write: the working folder (when the workspace is writable) and /tmp."""
    return [".", "/tmp"] if plan.workspace_mode in ("clone", "mount") else ["/tmp"]


def widened(plan: Plan, *, by_port: bool) -> list[str]:
    """How a host-name filter is wider than the kit's host:port list (``by_port``: it keeps the ports)."""
    notes = []
    if plan.allow and not by_port:
        notes.append("an allowed host is reachable on every port, not only the kit's")
    if any(d.wildcard for d in plan.allow):
        notes.append("*.domain matches subdomains at any depth, not one label")
    return notes


#: The static proofs of what the process-sandbox targets write.
PROOF = "tests/compiler/test_new_targets.py::"
CONFINED_PROOF = PROOF + "test_process_sandboxes_with_no_network_and_a_read_only_workspace"
FOLLOWS_PROOF = PROOF + "test_process_sandboxes_follow_the_kit"
#: The runs: srt with the srt target's file, srt with the sandbox block of Claude Code's settings (the
#: runtime Claude Code's sandbox is built on), and Codex's own Linux sandbox with its config.toml.
SRT_RUN = "tests/sandboxes/test_srt.py::test_srt_holds_the_kit"
CLAUDE_RUN = "tests/sandboxes/test_srt.py::test_claude_code_s_sandbox_block_holds_under_sandbox_runtime"
CODEX_RUN = "tests/sandboxes/test_codex.py::test_codex_holds_the_kit"
#: What a run through sandbox-runtime cannot show for Claude Code's settings.
CLAUDE_LIVE_ONLY = (
    "proven by running its values under sandbox-runtime, which Claude Code's sandbox is built on; that "
    "Claude Code hands them to it unchanged only a live Claude Code session shows"
)


def limit_row(plan: Plan, setting: Setting, what: str) -> Fidelity:
    """A limit no process sandbox sets: it fails ``--strict`` only when the kit writes it."""
    return Fidelity(setting, "unsupported", f"a process sandbox sets no {what}", requested=setting in plan.explicit)


def host_rows(plan: Plan, tool: str, *, denies_reads: bool, confined: str, run: str) -> list[Fidelity]:
    """The rows every process sandbox reports alike.

    ``denies_reads``: the tool hides the credential folders; ``confined``: how a workspace the agent may
    not write is held; ``run``: the test that runs the tool with the target's file (a best-effort row it
    exercises names it too).
    """
    rows = [
        Fidelity(
            "isolation.runtime",
            "unsupported",
            f"{tool} shares the host's kernel and runs as the user who starts it: no container, VM or gVisor",
            requested=plan.runtime != "default" or "isolation.runtime" in plan.explicit,
        ),
        Fidelity(
            "image.user",
            "unsupported",
            f"the agent runs as the user who starts {tool}, not a sandbox user",
            requested=False,
        ),
        Fidelity(
            "capabilities",
            "best-effort",
            "the OS sandbox (bubblewrap with seccomp, or Seatbelt) limits what the process tree may do; there "
            "are no container capabilities to drop",
            requested=False,
            proven_by=run,
        ),
        Fidelity(
            "isolation.read_only_root",
            "best-effort",
            f"writes are confined to {', '.join(writable(plan))}; everything else on the host, which is not a "
            + (
                f"separate root, stays readable except the credential folders {tool} denies (those that exist "
                "when it starts)"
                if denies_reads
                else "separate root, stays readable, the credential folders included"
            ),
            proven_by=run,
        ),
        limit_row(plan, "resources.cpus", "CPU limit"),
        limit_row(plan, "resources.memory", "memory limit"),
        limit_row(plan, "resources.pids", "process limit"),
        limit_row(plan, "resources.disk", "disk limit"),
        limit_row(plan, "resources.timeout", "time limit: nothing ends the agent after the kit's timeout"),
        Fidelity(
            "image.base",
            "not applicable",
            "the agent runs with the host's own tools: no image is built, so image.base, packages, install, "
            "CA certificates and files are the host's business",
            requested=False,
        ),
        Fidelity(
            "startup",
            "not applicable",
            "there is no start-up step on the host: its own environment is the agent's (run the startup "
            "commands yourself where they matter)",
            requested=False,
        ),
    ]
    if plan.workspace_mode in ("clone", "mount"):
        rows.append(
            Fidelity("workspace.mode", "best-effort", "the agent works in the folder it is started in", proven_by=run)
        )
    else:
        rows.append(
            Fidelity(
                "workspace.mode",
                "enforced",
                ("the working folder is not writable" if plan.workspace_mode == "mount-readonly" else "no workspace")
                + f"; {confined}",
                proven_by=run,
            )
        )
    if plan.ports:
        rows.append(Fidelity("ports", "unsupported", "a process on the host publishes nothing; it may not bind"))
    trigger = manual_only_trigger_row(plan, f"{tool} runs when someone starts it")
    if trigger is not None:
        rows.append(trigger)
    rows += webhook_unsupported_rows(plan)
    rows += inject_rows(plan, f"{tool} filters hosts but sets no header on the agent's requests")
    return rows
