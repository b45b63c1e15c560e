"""The linter's vocabulary: severities, categories, findings and what a rule yields."""

from __future__ import annotations

from dataclasses import dataclass

from sandkit.lint.syntax.tree import Pos

SEVERITIES = ("critical", "high", "medium", "low", "info")
SEVERITY_RANK = {name: rank for rank, name in enumerate(reversed(SEVERITIES))}

CATEGORIES = (
    "runtime-socket",
    "privileged",
    "host-credentials",
    "plaintext-secret",
    "image-secret",
    "ci-secret-exposure",
    "ci-permissions",
    "agent-autorun",
    "agent-mcp",
    "hidden-unicode",
    "agent-instructions",
    "egress",
    "parse-error",
    "suppression",
)


def at_least(severity: str, threshold: str) -> bool:
    """True when ``severity`` is as severe as ``threshold`` or more."""
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[threshold]


@dataclass(frozen=True)
class Hit:
    """What a rule function yields: where, what, and optionally how to fix it.

    ``fix`` defaults to the rule's documented fix; ``severity`` to its default severity.
    """

    pos: Pos
    message: str
    fix: str = ""
    severity: str = ""


@dataclass(frozen=True, order=True)
class Finding:
    """One reported problem; the JSON reporter writes exactly these fields."""

    path: str
    line: int
    column: int
    rule: str
    category: str
    severity: str
    message: str
    fix: str
    fingerprint: str = ""

    def as_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "category": self.category,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "fix": self.fix,
        }
