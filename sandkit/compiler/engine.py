"""What compose and the actions job ask of the Docker engine in the same words.

Both run the agent's container with a read-only root and writable tmpfs folders, keep a bounded log
of every container, and end the session with a deadline container the agent cannot touch; the
option text is one syntax (compose's entries and ``docker run`` flags take the same), so it is
built here.
"""

from __future__ import annotations

from typing import Any

from sandkit.compiler.plan import Plan

#: The container that ends a session (see deadline_uid): compose's service and the job's container.
DEADLINE = "deadline"
#: json-file keeps at most this many files of this size per container, whatever a container prints.
LOG_MAX_SIZE = "10m"
LOG_MAX_FILE = "3"
#: The uid the deadline runs as; any uid but the agent's would do (the agent can signal its own uid only).
NOBODY = 65534


#: How the session's one disk budget is shared by its writable places, in quarters: the workspace half,
#: home and /tmp a quarter each. The same shares whatever the workspace mode (the actions job makes a
#: workspace tmpfs for every kit; under compose a mounted folder's half is the host's own disk instead).
SHARES = {"workspace": 2, "home": 1, "tmp": 1}
PAGE = 4096


def has_workspace_tmpfs(plan: Plan) -> bool:
    """Whether the workspace is a tmpfs (clone, none) rather than the host's folder (mount modes)."""
    return plan.workspace_mode in ("clone", "none") or plan.workspace_source is None


def budget(plan: Plan) -> int:
    """The session's writable bytes: resources.disk, or resources.memory where smaller (tmpfs pages count
    against it, without swap, so a full tmpfs is a write error the agent sees, not the session killed)."""
    return min(plan.disk_bytes, plan.memory_bytes)


def tmpfs_bytes(plan: Plan, place: str) -> int:
    """The size of one writable place (``workspace``, ``home`` or ``tmp``): its share of :func:`budget`.

    Every tmpfs of a session bounded by the whole budget let the agent write it several times over
    (410 MiB with disk 256Mi); the shares add up to the budget, whole pages each.
    """
    return max(PAGE, budget(plan) * SHARES[place] // sum(SHARES.values()) // PAGE * PAGE)


def tmpfs(plan: Plan, path: str, *, owned: bool) -> str:
    """A tmpfs at ``path`` (/tmp, or the home folder): its share of the session's disk; ``owned``: the
    agent's alone (0700)."""
    size = tmpfs_bytes(plan, "home" if path == plan.home else "tmp")
    owner = f",uid={plan.uid},gid={plan.uid},mode=0700" if owned else ",mode=1777"
    return f"{path}:rw,nosuid,nodev,size={size}{owner}"


def workspace_tmpfs(plan: Plan) -> str:
    """The workspace of a clone (or of none): empty at every start, its share of the session's disk, and
    the one writable place where the agent may run what it builds (exec), as a disk folder would allow."""
    size = tmpfs_bytes(plan, "workspace")
    return f"{plan.workspace_path}:rw,exec,nosuid,nodev,size={size},uid={plan.uid},gid={plan.uid},mode=0700"


def log_options() -> dict[str, str]:
    return {"max-size": LOG_MAX_SIZE, "max-file": LOG_MAX_FILE}


#: Small Compose containers beside the agent: the deadline's sleep, the host-address reader, the ready gate.
SMALL = {"cpus": 0.1, "mem_limit": 33554432, "memswap_limit": 33554432, "pids_limit": 16}


def compose_hardening(*, read_only: bool) -> dict[str, Any]:
    """What every Compose service of a sandbox sets: no capability, no privilege gain, an init, no
    restart, a bounded log."""
    return {
        "read_only": read_only,
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges:true"],
        "init": True,
        "restart": "no",
        "privileged": False,
        "logging": {"driver": "json-file", "options": log_options()},
    }


def deadline_uid(plan: Plan) -> int:
    """Not the agent's uid: a process of another uid is one the agent can neither signal nor trace."""
    return NOBODY if plan.uid != NOBODY else NOBODY - 1


def shares_pid_namespace(plan: Plan) -> bool:
    """Whether the agent's container can join the deadline's PID namespace.

    runc can; gVisor and Kata run the container in a kernel of their own, which does not join
    another container's namespace, so there the deadline can only end the session through the
    engine (compose's --abort-on-container-exit, the job's cleanup).
    """
    return plan.docker_runtime is None


def deadline_command(plan: Plan) -> list[str]:
    """The deadline's command under its init: sleep, then exit, which ends the PID namespace."""
    return ["sleep", str(plan.deadline_seconds)]
