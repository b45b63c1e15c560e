"""The fidelity report: for every setting and target, enforced, best-effort or unsupported, and why.

Both the levels and the setting names are closed sets: ``Level`` and ``Setting`` below are the one
list of each (mypy checks every row a target writes; a row built at run time with another name is
refused when it is made). A new setting is a new name in ``Setting``. A row that several targets
write in the same words is a helper here, so the report says the same thing the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from sandkit.compiler.plan import Plan

Level = Literal["enforced", "best-effort", "unsupported"]
LEVELS: tuple[Level, ...] = get_args(Level)

#: Every setting a fidelity row may name: kit fields (dotted, as in the kit), and a few aspects that
#: are not one field (capabilities, build secrets, the editor's server).
Setting = Literal[
    "agent.command",
    "agent.instructions",
    "capabilities",
    "editor server",
    "env",
    "image.user",
    "isolation.docker",
    "isolation.read_only_root",
    "isolation.runtime",
    "network.deny",
    "network.egress",
    "ports",
    "resources.cpus",
    "resources.disk",
    "resources.memory",
    "resources.pids",
    "resources.timeout",
    "secrets",
    "secrets (build)",
    "targets.actions.permissions",
    "targets.kubernetes.sandbox_crd",
    "triggers",
    "workspace.mode",
]
SETTINGS: tuple[Setting, ...] = get_args(Setting)


@dataclass(frozen=True)
class Fidelity:
    setting: Setting
    level: Level
    reason: str
    requested: bool = True  # False: reported for information, never fails --strict

    def __post_init__(self) -> None:
        if self.setting not in SETTINGS:
            raise ValueError(f"unknown fidelity setting {self.setting!r}: add it to Setting in fidelity.py")
        if self.level not in LEVELS:
            raise ValueError(f"unknown fidelity level {self.level!r}")

    def as_dict(self) -> dict[str, str]:
        return {"level": self.level, "reason": self.reason}


def proxy_deny_row(plan: Plan, enforced_reason: str) -> Fidelity:
    """network.deny for targets whose squid proxy applies it: only an allowlist has a proxy."""
    if plan.egress == "allowlist":
        return Fidelity("network.deny", "enforced", enforced_reason)
    return Fidelity(
        "network.deny",
        "unsupported",
        f"with egress {plan.egress} there is no proxy to apply a deny list",
        requested=bool(plan.deny) and plan.egress == "open",
    )


def read_only_row(plan: Plan, mechanism: str) -> Fidelity:
    """isolation.read_only_root, enforced by ``mechanism`` unless the kit turns it off."""
    if plan.read_only_root:
        return Fidelity("isolation.read_only_root", "enforced", mechanism)
    return Fidelity("isolation.read_only_root", "best-effort", "the kit turns the read-only root off")


def entrypoint_timeout_row() -> Fidelity:
    """resources.timeout where the image's own entrypoint is the one bound."""
    return Fidelity("resources.timeout", "enforced", "the entrypoint runs the agent under timeout(1)")


def tmpfs_disk_row() -> Fidelity:
    """resources.disk for a Docker engine container: its tmpfs folders are sized, a volume cannot be."""
    return Fidelity("resources.disk", "best-effort", "tmpfs sizes are bounded; Docker cannot bound a volume's size")


def engine_runtime_row(plan: Plan, named: str) -> Fidelity:
    """isolation.runtime on a Docker engine: ``named`` says how the kit's runtime is asked for."""
    default = "Docker's default runtime (runc) with its default seccomp profile"
    return Fidelity("isolation.runtime", "enforced", named if plan.docker_runtime else default)


def hardened_container_docker_rows(plan: Plan) -> list[Fidelity]:
    """isolation.docker for a hardened Docker engine container: unsupported, if the kit asks for it."""
    if plan.in_sandbox_docker == "none":
        return []
    reason = (
        "a rootless daemon inside the sandbox needs user namespaces and mounts that a "
        "hardened container does not grant; sandkit never mounts the host's socket"
    )
    return [Fidelity("isolation.docker", "unsupported", reason)]


def table(rows: dict[str, dict[str, Fidelity]], targets: list[str]) -> str:
    """A short fixed-width table: one row per setting, one column per target."""
    width = max([len(s) for s in rows] + [7])
    lines = ["setting".ljust(width) + "  " + "  ".join(t.ljust(11) for t in targets)]
    for setting in sorted(rows):
        cells = [rows[setting][t].level if t in rows[setting] else "-" for t in targets]
        lines.append(setting.ljust(width) + "  " + "  ".join(c.ljust(11) for c in cells))
    return "\n".join(line.rstrip() for line in lines) + "\n"
