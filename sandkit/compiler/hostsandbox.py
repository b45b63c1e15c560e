"""What the process-sandbox targets (srt, claude-code, codex) share: an agent on a developer's host.

These sandboxes wrap a process on the host with the operating system's own mechanisms (bubblewrap
and seccomp on Linux, Seatbelt on macOS) and a domain-filtering proxy. There is no image, no
container and no separate kernel, so everything the kit says about the image, its limits and its
isolation is reported as unsupported here, once, in the same words for the three targets.
"""

from __future__ import annotations

from sandkit.compiler.fidelity import Fidelity
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


def widened(plan: Plan) -> list[str]:
    """How a host-name filter is wider than the kit's host:port list."""
    notes = []
    if plan.allow:
        notes.append("an allowed host is reachable on every port, not only the kit's")
    if any(d.wildcard for d in plan.allow):
        notes.append("*.domain matches subdomains at any depth, not one label")
    return notes


def host_rows(plan: Plan, tool: str) -> list[Fidelity]:
    """The rows every process sandbox reports alike."""
    rows = [
        Fidelity(
            "isolation.runtime",
            "unsupported",
            f"{tool} shares the host's kernel and runs as the user who starts it: no container, VM or gVisor",
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
        ),
        Fidelity(
            "isolation.read_only_root",
            "best-effort",
            f"writes are confined to {', '.join(writable(plan))}; everything else on the host, which is not a "
            f"separate root, stays readable except the credential folders {tool} denies",
            requested=plan.read_only_root,
        ),
        Fidelity("resources.cpus", "unsupported", "a process sandbox sets no CPU limit"),
        Fidelity("resources.memory", "unsupported", "a process sandbox sets no memory limit"),
        Fidelity("resources.pids", "unsupported", "a process sandbox sets no process limit"),
        Fidelity("resources.disk", "unsupported", "a process sandbox sets no disk limit", requested=False),
        Fidelity("resources.timeout", "unsupported", "nothing ends the agent after the kit's timeout"),
        Fidelity(
            "image.base",
            "unsupported",
            "the agent runs with the host's own tools: no image is built, so image.base, packages, install, "
            "CA certificates and files are not applied",
            requested=bool(plan.apt_declared or plan.pip or plan.npm or plan.install or plan.files or plan.home_files),
        ),
        Fidelity(
            "startup",
            "unsupported",
            "there is no start-up step; run the startup commands yourself",
            requested=bool(plan.startup),
        ),
    ]
    if plan.workspace_mode in ("clone", "mount"):
        rows.append(Fidelity("workspace.mode", "best-effort", "the agent works in the folder it is started in"))
    else:
        rows.append(
            Fidelity(
                "workspace.mode",
                "enforced",
                "the working folder is not writable" if plan.workspace_mode == "mount-readonly" else "no workspace",
            )
        )
    if plan.ports:
        rows.append(Fidelity("ports", "unsupported", "a process on the host publishes nothing; it may not bind"))
    if plan.triggers.requested:
        rows.append(Fidelity("triggers", "unsupported", f"{tool} runs when someone starts it"))
    return rows
