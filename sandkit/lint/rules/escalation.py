"""Severity escalation: findings that together, in one container, service or job, make a path to the host.

A repository-level pass (:mod:`sandkit.lint.repository`), not a rule. Something that runs
commands with no person in the loop (an agent-autorun or agent-mcp finding) is one half;
something that hands the host to whatever runs there (a runtime-socket, privileged or
host-credentials finding) is the other. Each is serious alone; when both are in the same
place, text planted in the repository reaches the host with nobody asked, and both are raised
to critical with a message that names the other half and the place they share.

"The same place" is what actually connects them, read from the file both are in: the same
Compose service, the same job of a workflow, GitLab or CircleCI pipeline, the same Kubernetes
document, or the same script, devcontainer.json or agent configuration (which starts the
container it configures). Findings in different files never combine, so a file's result does
not depend on which other files were scanned with it: pre-commit's batches and a full scan
agree. Instruction files (agent-instructions) hold no host access of their own and are never
escalated. Findings at low or info severity take no part, so a suppressed or down-ranked
finding does not escalate anything. ``base_severity`` keeps what the rule said.
"""

from __future__ import annotations

import re
from collections import defaultdict

from sandkit.lazy_regex import lazy
from sandkit.lint.model import Finding, at_least
from sandkit.lint.repository import RepositoryView, repository_pass

ENTRY = frozenset({"agent-autorun", "agent-mcp"})
HOST = frozenset({"runtime-socket", "privileged", "host-credentials"})
_RUNS_UNATTENDED = {
    "agent-autorun": "runs commands with no one asked",
    "agent-mcp": "is an MCP server the agent starts on its own",
}
_BLOCKS = lazy(r"(?m)^(services|jobs|workflows):[ \t]*(?:#.*)?$")
_KEY = lazy(r"(?m)^([ \t]+)([^\s#:][^:\n]*?|\"[^\"\n]*\"|'[^'\n]*'):(?:[ \t]|$)")
_DOCUMENT = lazy(r"(?m)^---")
_TOP_LEVEL = lazy(r"(?m)^[^\s#-][^:\n]*:")
_MAX_TEXT = 2_000_000


def _where(finding: Finding) -> str:
    return f"{finding.rule} at line {finding.line}"


def _others(found: list[Finding]) -> str:
    rest = len(found) - 1
    return _where(found[0]) + (f" and {rest} more" if rest else "")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def scopes(text: str) -> list[tuple[int, int, str]]:
    """Line ranges ``(first, last, name)`` of the places findings may share in a file's text.

    The children of a top-level ``services:``, ``jobs:`` or ``workflows:`` mapping (a Compose
    service, a workflow or CircleCI job), every other top-level key of a file that has no such
    block but looks like a GitLab pipeline (its jobs), and each ``---`` document of a stream.
    Lines outside every range share the file's own scope.
    """
    found: list[tuple[int, int, str]] = []
    for block in _BLOCKS.finditer(text):
        end_match = _TOP_LEVEL.search(text, block.end())
        end = end_match.start() if end_match else len(text)
        children = [m for m in _KEY.finditer(text, block.end(), end)]
        if not children:
            continue
        indent = min(len(m.group(1)) for m in children)
        heads = [m for m in children if len(m.group(1)) == indent]
        for index, head in enumerate(heads):
            last = _line_of(text, heads[index + 1].start()) - 1 if index + 1 < len(heads) else _line_of(text, end)
            found.append((_line_of(text, head.start()), last, f"{block.group(1).rstrip('s')} {head.group(2).strip()}"))
    if not found:
        found.extend(_top_level_jobs(text))
    documents = [m.start() for m in _DOCUMENT.finditer(text)]
    if documents and not found:
        bounds = [0, *documents, len(text)]
        for index in range(len(bounds) - 1):
            first, last = _line_of(text, bounds[index]), _line_of(text, bounds[index + 1])
            found.append((first, last, f"document {index + 1}"))
    return found


def _top_level_jobs(text: str) -> list[tuple[int, int, str]]:
    """GitLab CI: every top-level key that holds a ``script`` is a job of its own."""
    heads = list(_TOP_LEVEL.finditer(text))
    out = []
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        if re.search(r"(?m)^[ \t]+script:", text[head.end() : end]):
            name = head.group().rstrip(":").strip()
            out.append((_line_of(text, head.start()), _line_of(text, end) - 1, f"job {name}"))
    return out


def _scope_of(ranges: list[tuple[int, int, str]], line: int) -> str:
    for first, last, name in ranges:
        if first <= line <= last:
            return name
    return "file"


@repository_pass("escalation")
def escalate(findings: list[Finding], repo: RepositoryView) -> list[Finding]:
    """Raise both halves of an autorun-to-host path to critical where they share a place, and say why."""
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.category in ENTRY | HOST and at_least(finding.severity, "medium"):
            by_path[finding.path].append(finding)
    raised: dict[int, Finding] = {}
    for path, found in by_path.items():
        if not any(f.category in ENTRY for f in found) or not any(f.category in HOST for f in found):
            continue
        ranges = scopes(repo.read(path, _MAX_TEXT) or "")
        groups: dict[str, list[Finding]] = defaultdict(list)
        for finding in found:
            groups[_scope_of(ranges, finding.line)].append(finding)
        for scope, group in groups.items():
            raised.update(_raise(group, scope))
    return [raised.get(id(f), f) for f in findings]


def _raise(group: list[Finding], scope: str) -> dict[int, Finding]:
    entries = [f for f in group if f.category in ENTRY]
    hosts = [f for f in group if f.category in HOST]
    if not entries or not hosts:
        return {}
    place = "this file" if scope == "file" else f"the same {scope}"
    out = {}
    for finding in entries:
        out[id(finding)] = _escalated(
            finding, f"with {_others(hosts)} in {place}, what this starts unattended can reach the host"
        )
    for finding in hosts:
        reason = _RUNS_UNATTENDED[entries[0].category]
        out[id(finding)] = _escalated(finding, f"{_others(entries)} in {place} {reason}, so this is a path to the host")
    return out


def _escalated(finding: Finding, why: str) -> Finding:
    base = finding.severity_before_passes
    said = f"escalated from {base}: {why}" if base != "critical" else why
    return finding._replace(severity="critical", base_severity=base, message=f"{finding.message} ({said})")
