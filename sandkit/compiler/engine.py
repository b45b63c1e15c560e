"""What compose and the actions job ask of the Docker engine in the same words.

Both run the agent's container with a read-only root and writable tmpfs folders, keep a bounded log
of every container, and end the session with a deadline container the agent cannot touch; the
option text is one syntax (compose's entries and ``docker run`` flags take the same), so it is
built here.
"""

from __future__ import annotations

from sandkit.compiler.plan import Plan

#: The container that ends a session (see deadline_uid): compose's service and the job's container.
DEADLINE = "deadline"
#: json-file keeps at most this many files of this size per container, whatever a container prints.
LOG_MAX_SIZE = "10m"
LOG_MAX_FILE = "3"
#: The uid the deadline runs as; any uid but the agent's would do (the agent can signal its own uid only).
NOBODY = 65534


def tmpfs(plan: Plan, path: str, *, owned: bool) -> str:
    """A tmpfs at ``path`` no larger than the kit's disk or memory; ``owned``: the agent's alone (0700)."""
    size = min(plan.disk_bytes, plan.memory_bytes)
    owner = f",uid={plan.uid},gid={plan.uid},mode=0700" if owned else ",mode=1777"
    return f"{path}:rw,nosuid,nodev,size={size}{owner}"


def workspace_tmpfs(plan: Plan) -> str:
    """The workspace of a clone (or of none): empty at every start, resources.disk at most, and the one
    writable place where the agent may run what it builds (exec), as a disk folder would allow.

    Its pages count against resources.memory (no swap), so it is sized at the smaller of the two: a
    full workspace is a write error the agent sees, not the kernel ending the session for memory.
    """
    size = min(plan.disk_bytes, plan.memory_bytes)
    return f"{plan.workspace_path}:rw,exec,nosuid,nodev,size={size},uid={plan.uid},gid={plan.uid},mode=0700"


def log_options() -> dict[str, str]:
    return {"max-size": LOG_MAX_SIZE, "max-file": LOG_MAX_FILE}


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
