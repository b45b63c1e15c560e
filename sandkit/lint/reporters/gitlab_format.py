"""GitLab Code Quality: the JSON array GitLab reads from ``artifacts:reports:codequality``.

Fields as GitLab documents them for custom tools: ``description``, ``check_name``,
``fingerprint``, ``severity`` (info, minor, major, critical or blocker), ``location.path``
(relative to the repository's top folder, as in SARIF, without ``./``) and
``location.lines.begin``. The rest of the Code Climate issue format (``type``, ``categories``)
is written too; GitLab ignores it. GitLab shows findings with the same fingerprint once, so each finding keeps its own.
"""

from __future__ import annotations

import hashlib
import json

from sandkit.lint.model import Finding
from sandkit.lint.reporters import Report

SEVERITY = {"critical": "blocker", "high": "critical", "medium": "major", "low": "minor", "info": "info"}


def _fingerprint(f: Finding) -> str:
    if f.fingerprint:
        return f.fingerprint
    data = "\0".join((f.rule, f.path, str(f.line), str(f.column), f.message))
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _issue(f: Finding, report: Report) -> dict[str, object]:
    return {
        "type": "issue",
        "check_name": f.rule,
        "description": f.message + (f" Fix: {f.fix}" if f.fix else ""),
        "categories": ["Security"],
        "severity": SEVERITY[f.severity],
        "fingerprint": _fingerprint(f),
        "location": {"path": report.source_path(f.path).removeprefix("./"), "lines": {"begin": f.line}},
    }


def render(report: Report) -> str:
    return json.dumps([_issue(f, report) for f in report.findings], indent=2, ensure_ascii=False) + "\n"
