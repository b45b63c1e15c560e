"""Severity escalation: findings that combine, within one repository, into a path to the host.

A repository-level pass (:mod:`sandkit.lint.repository`), not a rule. Something that runs
commands with no person in the loop (an agent-autorun, agent-mcp or agent-instructions
finding) is one half; something that hands the host to whatever runs in a container or
session (a runtime-socket, privileged or host-credentials finding) is the other. Each is
serious alone; together, text planted in the repository reaches the host with nobody asked.
When both halves are present (at medium severity or above, after suppressions), both sides
are raised to critical and the message says which finding completes the path.

Findings at low or info severity take no part, so a suppressed or down-ranked finding does
not escalate anything.
"""

from __future__ import annotations

import dataclasses

from sandkit.lint.model import Finding, at_least
from sandkit.lint.repository import RepositoryView, repository_pass

ENTRY = frozenset({"agent-autorun", "agent-mcp", "agent-instructions"})
HOST = frozenset({"runtime-socket", "privileged", "host-credentials"})


def _where(finding: Finding) -> str:
    return f"{finding.rule} at {finding.path}:{finding.line}"


def _others(found: list[Finding]) -> str:
    rest = len(found) - 1
    return _where(found[0]) + (f" and {rest} more" if rest else "")


@repository_pass("escalation")
def escalate(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
    """Raise both halves of an autorun-to-host path to critical and say why."""
    entries = [f for f in findings if f.category in ENTRY and at_least(f.severity, "medium")]
    hosts = [f for f in findings if f.category in HOST and at_least(f.severity, "medium")]
    if not entries or not hosts:
        return findings
    entry_ids, host_ids = set(map(id, entries)), set(map(id, hosts))
    out = []
    for finding in findings:
        if id(finding) in entry_ids:
            finding = dataclasses.replace(
                finding,
                severity="critical",
                message=f"{finding.message} (escalated: with {_others(hosts)} in this "
                "repository, what this runs unattended can reach the host)",
            )
        elif id(finding) in host_ids:
            finding = dataclasses.replace(
                finding,
                severity="critical",
                message=f"{finding.message} (escalated: {_others(entries)} runs commands with "
                "no one asked, so this is a path to the host)",
            )
        out.append(finding)
    return out
