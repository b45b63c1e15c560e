"""The fidelity report: for every setting and target, enforced, best-effort or unsupported, and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from sandkit.compiler.plan import Plan

Level = Literal["enforced", "best-effort", "unsupported"]


@dataclass(frozen=True)
class Fidelity:
    setting: str
    level: Level
    reason: str
    requested: bool = True  # False: reported for information, never fails --strict

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


def table(rows: dict[str, dict[str, Fidelity]], targets: list[str]) -> str:
    """A short fixed-width table: one row per setting, one column per target."""
    width = max([len(s) for s in rows] + [7])
    lines = ["setting".ljust(width) + "  " + "  ".join(t.ljust(11) for t in targets)]
    for setting in sorted(rows):
        cells = [rows[setting][t].level if t in rows[setting] else "-" for t in targets]
        lines.append(setting.ljust(width) + "  " + "  ".join(c.ljust(11) for c in cells))
    return "\n".join(line.rstrip() for line in lines) + "\n"
