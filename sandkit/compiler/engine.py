"""What compose and the actions job ask of the Docker engine in the same words: tmpfs mounts.

Both run the agent's container with a read-only root and writable tmpfs folders; the option text is
one syntax (compose's ``tmpfs:`` entries and ``docker run --tmpfs`` take the same), so it is built here.
"""

from __future__ import annotations

from sandkit.compiler.plan import Plan


def tmpfs(plan: Plan, path: str, *, owned: bool) -> str:
    """A tmpfs at ``path`` no larger than the kit's disk or memory; ``owned``: the agent's alone (0700)."""
    size = min(plan.disk_bytes, plan.memory_bytes)
    owner = f",uid={plan.uid},gid={plan.uid},mode=0700" if owned else ",mode=1777"
    return f"{path}:rw,nosuid,nodev,size={size}{owner}"
