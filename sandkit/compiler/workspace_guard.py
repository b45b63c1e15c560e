"""The workspace guard of ``workspace: mount``: git on the host must not run what the agent planted.

The top ``.git`` is bind-mounted read-only, but the agent can write every other folder of the
user's: it can make ``docs/notes/.git`` (or a bare-repository-shaped folder, or a ``.git`` file
pointing at one) whose configuration names ``core.fsmonitor``, hooks, ``core.sshCommand``, a filter
or a credential helper, and the next ``git status`` there on the host (a shell prompt, an editor
scanning for repositories) runs it as the user. No mount option can refuse one name anywhere in a
tree, so a container of its own (the agent's uid, so it can rename what the agent made; its own PID
namespace, so the agent cannot signal it; no network, no capability, a read-only root) does this:

- at start, before the agent starts, it lists the repositories and git configuration files the
  folder holds (its manifest), and notes the time;
- every POLL_SECONDS while the session runs, and once more when the session ends (compose stops
  it, and waits up to STOP_GRACE for it), it quarantines every ``.git`` entry, bare-repository-shaped
  folder and file named like a git configuration (``.gitconfig``, ``gitconfig``, ``*.gitconfig``)
  that is not in the manifest, or whose contents changed since the start (by ctime, which the agent
  cannot set back); objects, refs, logs and the index are left out, since they run nothing. It
  renames them (``NAME.sandkit-quarantined``, and a repository's ``HEAD`` inside too, so git no
  longer takes the folder for one) and says so in its log, which ``docker compose up`` prints;
- a session whose end it did not see (the guard killed by force) is checked when the next one
  starts, before its agent does.

What remains: between two polls (POLL_SECONDS) git on the host run inside the folder can still
find what the agent just made, so do not use git, a git-aware prompt or an editor's git support
inside a mounted folder while a session runs. A hooks folder that the top repository's own
configuration names inside the work tree (husky's ``.husky/``) is not checked.
"""

from __future__ import annotations

from typing import Any

from sandkit.compiler.plan import PROXY_BASE_IMAGE, Plan
from sandkit.compiler.render import render_template

SERVICE = "workspace-guard"
DOCKERFILE = "workspace-guard/Dockerfile"
SCRIPT = "workspace-guard/workspace-guard.sh"
SCRIPT_PATH = "/usr/local/bin/sandkit-workspace-guard"
#: Its volume: the manifest and the start time of the session it watches.
STATE_DIR = "/var/lib/sandkit-workspace-guard"
VOLUME = "workspace-guard"
POLL_SECONDS = 2
#: How long compose waits for the last check when the session ends.
STOP_GRACE = "2m"
SUFFIX = ".sandkit-quarantined"
#: The report it appends to at the folder's top: where a person finds what was quarantined.
REPORT = "SANDKIT-QUARANTINED.txt"


def guarded(plan: Plan) -> bool:
    """Whether the kit mounts a host folder the agent can write."""
    return plan.workspace_mode == "mount" and plan.workspace_source is not None


def image(plan: Plan) -> str:
    return f"sandkit/{plan.name}-workspace-guard:{plan.config_sha256[:12]}"


def files(plan: Plan, header: str) -> dict[str, str]:
    values = {
        "p": plan,
        "header": header.rstrip("\n"),
        "base": PROXY_BASE_IMAGE,
        "uid": plan.uid,
        "script": SCRIPT_PATH,
        "state": STATE_DIR,
        "workspace": plan.workspace_path,
        # the repository's own .git: read-only (a mount), or writable as the kit asks; never the guard's business
        "skip_top_git": plan.workspace_git is not None or plan.workspace_git_writable,
        "poll": POLL_SECONDS,
        "suffix": SUFFIX,
        "report": REPORT,
    }
    return {
        DOCKERFILE: render_template("workspace-guard.Dockerfile.j2", **values),
        SCRIPT: render_template("workspace-guard.sh.j2", **values),
    }


def service(plan: Plan, workspace_mounts: list[dict[str, Any]], hardening: dict[str, Any]) -> dict[str, Any]:
    """The guard's compose service: the folder mounted as the agent has it (its .git read-only), and its volume."""
    ready = {"test": ["CMD", "test", "-e", "/tmp/ready"], "interval": "1s", "timeout": "2s", "retries": 600}
    return {
        "build": {"context": "workspace-guard", "dockerfile": "Dockerfile"},
        "image": image(plan),
        "user": f"{plan.uid}:{plan.uid}",
        **hardening,
        "read_only": True,
        "cpus": 0.25,
        "mem_limit": 67108864,
        "memswap_limit": 67108864,
        "pids_limit": 32,
        "network_mode": "none",
        "tmpfs": ["/tmp:rw,nosuid,nodev,noexec,size=1048576"],
        "volumes": [*workspace_mounts, {"type": "volume", "source": VOLUME, "target": STATE_DIR}],
        "stop_grace_period": STOP_GRACE,
        "healthcheck": ready,
    }
