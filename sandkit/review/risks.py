"""The risk of each kind of policy change, and why: one table, read like the linter's rules.

A change *widens* what the agent can do (reach, hold, run, write, be started by), *narrows* it, or
just *changes* it. Widening kinds carry the level a reviewer should treat them at; narrowing ones
are ``info`` and listed as such. The levels are the linter's severities, so ``--fail-on high``
means the same in ``sandkit lint`` and ``sandkit diff``: a team that wants a security review for
widening changes fails the check at ``high`` (or ``medium``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sandkit.config import SEVERITIES

Direction = Literal["widens", "narrows", "changes"]
LEVELS = SEVERITIES


@dataclass(frozen=True)
class Risk:
    """One kind of change: its level, its direction, the part of the kit it is about, and why."""

    kind: str
    level: str
    direction: Direction
    category: str
    reason: str


def _table(*rows: tuple[str, str, Direction, str, str]) -> dict[str, Risk]:
    table: dict[str, Risk] = {}
    for kind, level, direction, category, reason in rows:
        assert level in LEVELS and kind not in table, kind
        assert direction != "narrows" or level == "info", kind
        table[kind] = Risk(kind, level, direction, category, " ".join(reason.split()))
    return table


# fmt: off
RISKS = _table(
    # ---- the kit as a whole
    ("kit-added", "info", "widens", "kit", "a new agent; each thing it is given is listed below with its own level"),
    ("kit-removed", "info", "narrows", "kit", "the agent is no longer built"),
    ("kit-renamed", "info", "changes", "kit", "its output folder, image, job and workflow names follow the name"),
    ("kit-invalid", "high", "changes", "kit",
     "the kit does not load, so what it grants cannot be reviewed (and it will not build)"),
    ("kit-still-invalid", "info", "changes", "kit",
     "the kit did not load in either revision, with the same problems: there is no policy to compare"),
    ("kit-invalid-in-base", "info", "changes", "kit",
     "the base revision's kit did not load; the new one is compared with an empty kit"),
    # ---- where the agent can connect
    ("egress-opened", "high", "widens", "network",
     "the agent may connect anywhere: whatever it reads can leave, and it can fetch and run anything"),
    ("egress-enabled", "medium", "widens", "network",
     "the agent had no network; now it reaches the allowed hosts below"),
    ("egress-narrowed", "info", "narrows", "network", "the agent reaches less than before"),
    ("wildcard-added", "high", "widens", "network",
     "a wildcard allows every name one label under a domain, including ones other people publish on"),
    ("host-added", "medium", "widens", "network", "a new host the agent can send data to and fetch code from"),
    ("port-added", "medium", "widens", "network", "a new port on a host already allowed: another service on it"),
    ("host-removed", "info", "narrows", "network", "the agent no longer reaches this host"),
    ("deny-removed", "medium", "widens", "network", "a destination the kit refused may be reached again"),
    ("deny-added", "info", "narrows", "network", "a destination is refused even if an allow entry covers it"),
    # ---- credentials
    ("secret-added", "high", "widens", "secrets",
     "a new credential in the agent's environment: it can use it, and send it wherever egress allows"),
    ("secret-broadened", "high", "widens", "secrets", "a secret that only the build saw now reaches the agent"),
    ("secret-with-its-service-added", "high", "widens", "secrets",
     "a new credential in the agent's environment and, in the same change, the service that accepts it (by "
     "name): the agent can act with it there at once; one risk, so one line"),
    ("build-secret-added", "medium", "widens", "secrets",
     "a new credential for install commands at build time (not in the agent's environment)"),
    ("secret-removed", "info", "narrows", "secrets", "the sandbox no longer gets this credential"),
    ("secret-narrowed", "info", "narrows", "secrets", "the secret now reaches only the build, not the agent"),
    ("secret-changed", "info", "changes", "secrets", "whether the secret must be present changed"),
    ("injected-secret-added", "medium", "widens", "secrets",
     "a new credential the egress proxy adds to the agent's requests to the named host: the agent can use it "
     "there but holds only a placeholder (where the target injects: see the fidelity row secrets.inject)"),
    ("secret-exposed", "high", "widens", "secrets",
     "the egress proxy no longer holds the secret back: its value is in the agent's environment, where the agent "
     "can read it and send it wherever egress allows"),
    ("secret-withheld", "info", "narrows", "secrets",
     "the egress proxy now holds the secret and adds it to requests to the named host; the agent gets a placeholder"),
    ("secret-reaches-agent", "high", "widens", "secrets",
     "on these targets no egress proxy injects the secret, so the agent holds its value (a file or variable it "
     "can read) and can send it wherever egress allows"),
    ("injection-added", "medium", "widens", "secrets",
     "the egress proxy adds the secret to the agent's requests to one more host or as another header"),
    ("injection-removed", "info", "narrows", "secrets", "the egress proxy no longer adds the secret there"),
    # ---- isolation and limits
    ("runtime-weakened", "high", "widens", "isolation",
     "the agent's system calls now reach the host kernel directly instead of a sandboxing runtime"),
    ("runtime-changed", "low", "changes", "isolation", "a different sandboxing runtime"),
    ("runtime-strengthened", "info", "narrows", "isolation",
     "a sandboxing runtime now stands between agent and kernel"),
    ("read-only-root-off", "high", "widens", "isolation",
     "the agent can change the image's own files (its tools, its libraries, its configuration)"),
    ("read-only-root-on", "info", "narrows", "isolation", "the image's files are read-only again"),
    ("docker-in-sandbox", "medium", "widens", "isolation",
     "a rootless Docker daemon inside the sandbox: the agent builds and runs containers of its own"),
    ("docker-removed", "info", "narrows", "isolation", "no Docker daemon inside the sandbox"),
    ("limit-raised", "low", "widens", "limits", "the agent may use more of the machine"),
    ("limit-lowered", "info", "narrows", "limits", "the agent may use less of the machine"),
    ("timeout-raised", "low", "widens", "limits", "a runaway or steered agent keeps going for longer"),
    ("timeout-lowered", "info", "narrows", "limits", "a run ends sooner"),
    ("user-changed", "info", "changes", "isolation", "the agent runs as another (non-root) user or uid"),
    # ---- what starts the agent
    ("untrusted-trigger-added", "high", "widens", "triggers",
     "the agent starts on text anyone may write (comments, issues, reviews) or on forks' code, "
     "and acts on it with the kit's secrets"),
    ("untrusted-trigger-broadened", "high", "widens", "triggers",
     "more comments, issues or forks' events start the agent than before"),
    ("trigger-added", "medium", "widens", "triggers", "the agent now starts on a repository event, with no person"),
    ("trigger-broadened", "medium", "widens", "triggers", "more events of this kind start the agent"),
    ("schedule-added", "low", "widens", "triggers", "the agent now also runs unattended on a timer"),
    ("manual-trigger-added", "info", "widens", "triggers", "a person with write access can start the agent by hand"),
    ("trigger-removed", "info", "narrows", "triggers", "the agent no longer starts this way"),
    ("trigger-narrowed", "info", "narrows", "triggers", "fewer events of this kind start the agent"),
    ("untrusted-trigger-with-credentials", "critical", "widens", "triggers",
     "whoever writes a comment or opens a fork's pull request now steers an agent that holds "
     "a write token or secrets: the classic prompt-injection path to the repository"),
    ("untrusted-trigger-with-open-egress", "critical", "widens", "triggers",
     "whoever writes a comment or opens a fork's pull request steers an agent that holds a write token or "
     "secrets and may now connect anywhere: it can be told to send them out, and nothing holds them back"),
    # ---- what the workflow's token may do
    ("permission-write-added", "high", "widens", "permissions",
     "the job's GitHub token may now change this scope; an agent told what to do by outside text can use it"),
    ("permission-read-added", "low", "widens", "permissions", "the job's token may now read this scope"),
    ("permission-lowered", "info", "narrows", "permissions", "the job's token may do less"),
    ("runner-changed", "low", "changes", "permissions",
     "the job runs on other machines (a self-hosted runner keeps state and sits inside your network)"),
    # ---- what runs
    ("agent-command-changed", "medium", "changes", "agent", "a different program, or other flags, run as the agent"),
    ("approval-skipped", "high", "widens", "agent",
     "the agent stops asking before it runs commands or edits (a flag that skips its own approval)"),
    ("agent-version-changed", "medium", "changes", "agent",
     "another release of the agent runs with the same secrets and reach: read its changelog"),
    ("preset-changed", "low", "changes", "agent", "the kit's defaults come from a different bundled preset"),
    ("instructions-changed", "low", "changes", "agent", "the agent is told something else: read the new text"),
    ("image-changed", "low", "changes", "image", "different software under the agent"),
    ("image-unpinned", "medium", "widens", "image",
     "the base image is no longer pinned by digest: its tag can be moved to other code after review"),
    ("package-added", "low", "widens", "image", "new software in the image, fetched from a registry at build"),
    ("package-unpinned", "medium", "widens", "image", "a package no longer has a fixed version: each build may differ"),
    ("package-version-changed", "low", "changes", "image", "another release of a package"),
    ("package-removed", "info", "narrows", "image", "less software in the image"),
    ("ca-added", "medium", "widens", "image",
     "a new trusted certificate authority: TLS it signs is believed, interception included"),
    ("ca-removed", "info", "narrows", "image", "one certificate authority fewer is trusted"),
    ("fetch-and-run-added", "high", "widens", "commands",
     "a command downloads code and runs it at once: whoever controls that address controls the sandbox"),
    ("network-command-added", "medium", "widens", "commands",
     "a new command fetches from the network (install runs as root during the build)"),
    ("command-added", "low", "widens", "commands", "a new command runs at build (install) or at every start (startup)"),
    ("command-removed", "info", "narrows", "commands", "a command no longer runs"),
    ("env-changed", "low", "changes", "agent", "the agent's environment changed (names and values are shown)"),
    # ---- what is placed in the sandbox, and what the agent may write
    ("autorun-file-added", "high", "widens", "files",
     "a file the agent or its shell reads and acts on at start (hooks, shell profiles, git or package "
     "manager configuration) was added or changed"),
    ("home-file-added", "medium", "widens", "files",
     "a file in the agent's home: agents keep their settings, hooks and credential helpers there"),
    ("file-added", "low", "widens", "files", "a file placed in the image was added or changed"),
    ("file-removed", "info", "narrows", "files", "a file is no longer placed in the image"),
    ("workspace-writable-mount", "high", "widens", "workspace",
     "the agent now edits a folder of the host in place: nothing stands between its writes and your files"),
    ("workspace-mount-added", "medium", "widens", "workspace", "the agent now reads a folder of the host"),
    ("workspace-git-writable", "high", "widens", "workspace",
     "the agent may write the mounted repository's .git: git on the host runs the hooks and configuration it "
     "plants there"),
    ("workspace-changed", "medium", "changes", "workspace",
     "the agent works on other code (repository, ref or folder)"),
    ("workspace-narrowed", "info", "narrows", "workspace", "the agent reaches less of the host's files"),
    ("known-host-changed", "high", "widens", "workspace",
     "the ssh clone trusts another key for a host it knew: unless that server's key really changed (compare "
     "with the keys its owner publishes), the code the agent works on and the deploy key could go to an impostor"),
    ("known-host-added", "low", "widens", "workspace", "the ssh clone trusts a key for one more host"),
    ("known-host-removed", "info", "narrows", "workspace", "the ssh clone no longer trusts this host key"),
    ("port-published", "medium", "widens", "ports", "a port of the sandbox can be reached from the host"),
    ("port-exposed", "high", "widens", "ports", "a port of the sandbox can be reached from other machines"),
    ("port-removed", "info", "narrows", "ports", "a port of the sandbox is no longer published"),
    ("target-setting-changed", "info", "changes", "targets", "how a target deploys the kit changed"),
    ("other-change", "low", "changes", "kit",
     "a setting changed that no rule above describes; read it: sandkit cannot rate it"),
)
# fmt: on


def rank(level: str) -> int:
    """Higher is more severe: critical 4 ... info 0."""
    return len(LEVELS) - 1 - LEVELS.index(level)


def highest(levels: list[str]) -> str | None:
    return max(levels, key=rank) if levels else None


def fails(level: str, threshold: str | None) -> bool:
    return threshold is not None and rank(level) >= rank(threshold)


def risks_markdown() -> str:
    """The table above as Markdown, grouped by category (docs/review.md holds it)."""
    lines = ["| change | level | direction | why |", "| --- | --- | --- | --- |"]
    for category in dict.fromkeys(r.category for r in RISKS.values()):
        for risk in (r for r in RISKS.values() if r.category == category):
            lines.append(f"| `{risk.kind}` | {risk.level} | {risk.direction} | {risk.reason} |")
    return "\n".join(lines) + "\n"
