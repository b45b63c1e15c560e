"""The fidelity report: for every setting and target, enforced, best-effort or unsupported, and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["enforced", "best-effort", "unsupported"]


@dataclass(frozen=True)
class Fidelity:
    setting: str
    level: Level
    reason: str
    requested: bool = True  # False: reported for information, never fails --strict

    def as_dict(self) -> dict[str, str]:
        return {"level": self.level, "reason": self.reason}


def table(rows: dict[str, dict[str, Fidelity]], targets: list[str]) -> str:
    """A short fixed-width table: one row per setting, one column per target."""
    width = max([len(s) for s in rows] + [7])
    lines = ["setting".ljust(width) + "  " + "  ".join(t.ljust(11) for t in targets)]
    for setting in sorted(rows):
        cells = [rows[setting][t].level if t in rows[setting] else "-" for t in targets]
        lines.append(setting.ljust(width) + "  " + "  ".join(c.ljust(11) for c in cells))
    return "\n".join(line.rstrip() for line in lines) + "\n"
